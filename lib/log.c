// SPDX-License-Identifier: Apache-2.0
/*
 * The metadata log: validating entries, appending (master) and replaying
 * (everyone). An entry counts only when magic, fs_tag, length, sequence
 * number and CRC32C are all right; the first bad entry ends the valid log,
 * so a torn append is never replayed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "killpoint.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* famfs_entry_check() of the entry at log offset @off whose bytes are at
 * @e, @avail of them (at least a header): the log itself, or replay's
 * copy. A length beyond @avail is a bad entry.
 */
static int64_t entry_check_at(const struct famfs_fs *fs, const uint8_t *e,
			      uint64_t avail, uint64_t expect_seq, char *why,
			      size_t whylen)
{
	const struct famfs_entry_hdr *h = (const void *)e;
	struct famfs_entry_hdr copy;
	uint32_t crc;

	if (h->magic != FAMFS_ENTRY_MAGIC) {
		snprintf(why, whylen, h->magic ? "bad entry magic 0x%08x" :
			 "no entry", h->magic);
		return -ENOENT;
	}
	if (h->fs_tag != fs->fs_tag) {
		snprintf(why, whylen, "entry of another filesystem");
		return -ENOENT;
	}
	if (h->len < sizeof(*h) || h->len % 8 || h->len > avail) {
		snprintf(why, whylen, "bad entry length %u", h->len);
		return -EBADMSG;
	}
	if (h->seq != expect_seq) {
		snprintf(why, whylen, "sequence %llu where %llu was expected",
			 (unsigned long long)h->seq,
			 (unsigned long long)expect_seq);
		return -EBADMSG;
	}
	copy = *h;
	copy.crc = 0;
	crc = famfs_crc32c(0, &copy, sizeof(copy));
	crc = famfs_crc32c(crc, e + sizeof(copy), h->len - sizeof(copy));
	if (crc != h->crc) {
		snprintf(why, whylen, "CRC mismatch in entry seq %llu (torn or corrupt)",
			 (unsigned long long)h->seq);
		return -EBADMSG;
	}
	return h->len;
}

int64_t famfs_entry_check(const struct famfs_fs *fs, uint64_t off,
			  uint64_t expect_seq, char *why, size_t whylen)
{
	if (off + sizeof(struct famfs_entry_hdr) > fs->log_size) {
		snprintf(why, whylen, "end of log");
		return -ENOSPC;
	}
	return entry_check_at(fs, fs->log + off, fs->log_size - off, expect_seq,
			      why, whylen);
}

/*
 * Append one entry built from a type-specific @body and a variable @tail
 * (map items + path). Applies it to the in-memory state first: an entry
 * that cannot apply is never written. Caller holds the write lock.
 */
int famfs_log_append(struct famfs_fs *fs, uint16_t type, const void *body,
		     uint32_t body_len, const void *tail, uint32_t tail_len,
		     struct famfs_err *e)
{
	uint32_t len = (uint32_t)ROUND_UP(sizeof(struct famfs_entry_hdr) +
					  body_len + tail_len, 8);
	struct famfs_entry_hdr h = { 0 };
	uint8_t *dst = fs->log + fs->tail;
	char why[200];
	int r;

	r = famfs_log_refuse_corrupt(fs, e);
	if (r)
		return r;
	if (fs->tail + len > fs->log_size)
		return famfs_set_err(e, -ENOSPC,
			"metadata log is full (%llu of %llu bytes used, %llu entries); "
			"mkfs with a larger --log-size",
			(unsigned long long)fs->tail,
			(unsigned long long)fs->log_size,
			(unsigned long long)fs->nentries);
	h.magic = FAMFS_ENTRY_MAGIC;
	h.seq = fs->last_seq + 1;
	h.fs_tag = fs->fs_tag;
	h.len = len;
	h.type = type;
	h.logged_ns = famfs_now_ns();

	/* Build in place after the tail; nothing counts until the CRC is
	 * right, and readers see only entries whose CRC is.
	 */
	memcpy(dst, &h, sizeof(h));
	memcpy(dst + sizeof(h), body, body_len);
	if (tail_len)
		memcpy(dst + sizeof(h) + body_len, tail, tail_len);
	memset(dst + sizeof(h) + body_len + tail_len, 0,
	       len - sizeof(h) - body_len - tail_len);
	r = famfs_apply_entry(fs, (const void *)dst, why, sizeof(why));
	if (r) {
		memset(dst, 0, len);
		return famfs_set_err(e, r, "%s", why);
	}
	FAMFS_KILL_POINT("log.entry_built");
	famfs_log_seal(fs, (struct famfs_entry_hdr *)dst);
	return 0;
}

uint64_t famfs_entry_nseq(const struct famfs_entry_hdr *h)
{
	const struct famfs_entry_batch *b = (const void *)(h + 1);

	if (h->type == FAMFS_ENTRY_BATCH && h->len >= sizeof(*h) + sizeof(*b))
		return 1 + (uint64_t)b->count;
	return 1;
}

int famfs_log_refuse_corrupt(const struct famfs_fs *fs, struct famfs_err *e)
{
	if (fs->tail_state != FAMFS_TAIL_CORRUPT)
		return 0;
	return famfs_set_err(e, -EUCLEAN,
		"the metadata log is corrupt (%s); nothing is appended before "
		"`famfs-cli fsck --repair` ends the log at the last good entry",
		fs->tail_reason);
}

void famfs_log_seal(struct famfs_fs *fs, struct famfs_entry_hdr *dst)
{
	struct famfs_entry_hdr h = *dst;
	uint32_t len = h.len;

	h.crc = 0;
	h.crc = famfs_crc32c(0, &h, sizeof(h));
	h.crc = famfs_crc32c(h.crc, (uint8_t *)dst + sizeof(h), len - sizeof(h));
	/* Body first, then the header that makes it valid. */
	famfs_dev_flush_range(fs->dev[0], (uint8_t *)dst + sizeof(h), len - sizeof(h));
	FAMFS_KILL_POINT("log.body_flushed");
	__atomic_store_n(&dst->crc, h.crc, __ATOMIC_RELEASE);
	FAMFS_KILL_POINT("log.crc_stored");
	famfs_dev_flush_range(fs->dev[0], dst, sizeof(h));
	FAMFS_KILL_POINT("log.header_flushed");
	fs->last_entry_off = fs->tail;
	fs->tail += len;
	fs->last_seq += famfs_entry_nseq(dst);
	fs->nentries += famfs_entry_nseq(dst);
	/* Only now is the entry committed: say so (format 1.4). A crash
	 * before this leaves a valid entry past the recorded tail, which
	 * every reader replays.
	 */
	FAMFS_KILL_POINT("log.tailrec_pending");
	famfs_tailrec_write(fs, fs->last_entry_off, dst, fs->last_seq);
}

void famfs_log_note_skip(struct famfs_fs *fs, uint64_t seq, const char *why)
{
	fs->skipped++;
	snprintf(fs->last_skip, sizeof(fs->last_skip),
		 "entry seq %llu skipped: %.150s", (unsigned long long)seq, why);
	if (fs->skipped <= ARRAY_SIZE(fs->skip_log))
		memcpy(fs->skip_log[fs->skipped - 1], fs->last_skip,
		       sizeof(fs->last_skip));
}

/* What lies at the tail: nothing yet, or a bad entry. */
static void classify_tail(struct famfs_fs *fs, int64_t r, const char *why)
{
	static const uint8_t zero[sizeof(struct famfs_entry_hdr)];

	if (r == -ENOSPC || (fs->tail + sizeof(zero) <= fs->log_size &&
			     !memcmp(fs->log + fs->tail, zero, sizeof(zero)))) {
		fs->tail_state = FAMFS_TAIL_CLEAN;
		fs->tail_reason[0] = '\0';
		return;
	}
	fs->tail_state = FAMFS_TAIL_TORN;
	snprintf(fs->tail_reason, sizeof(fs->tail_reason), "at log offset %llu: %.150s",
		 (unsigned long long)fs->tail, why);
}

/* Map the log ahead of the scan, up to 2 MiB in one call, rather than a
 * page fault per 64 KiB (each a host exit in a VM, shared/PERF-NOTES.md).
 * The window starts at 64 KiB and grows with what the scan has used, so a
 * short log maps no more than before. Only a hint: where it fails (an old
 * kernel), the faults do the work.
 */
static void map_ahead(struct famfs_fs *fs, uint64_t from, uint64_t *mapped)
{
	uint64_t win = fs->tail - from;
	uintptr_t page, a, end;

	if (*mapped >= fs->log_size || *mapped > fs->tail + win / 2)
		return;
	page = (uintptr_t)sysconf(_SC_PAGESIZE); /* once per window, not per entry */
	if (*mapped < fs->tail)
		*mapped = fs->tail;
	win = win < 64 * 1024 ? 64 * 1024 : win > FAMFS_UNIT_SIZE ? FAMFS_UNIT_SIZE : win;
	a = (uintptr_t)(fs->log + *mapped) & ~(page - 1);
	*mapped += fs->log_size - *mapped < win ? fs->log_size - *mapped : win;
	end = (uintptr_t)(fs->log + *mapped);
	madvise((void *)a, end - a, MADV_POPULATE_READ);
}

/* Replay reads the log of an emulated device (a regular file) by pread
 * into a reused buffer, not through the device mapping: in a VM, the
 * first read of each 4 KiB page of a new mapping costs a host exit
 * (0.09-0.12 s for 132 MiB here against 0.04 s by pread,
 * bench/results/lib.md), and the applier then works on the very bytes it
 * checked, which no other host can change in between. DAX memory is read
 * in place (2 MiB pages; its caches are invalidated first). The reads
 * start at 16 KiB (a client's poll usually finds a few entries) and
 * double up to 2 MiB, and nothing is copied where no entry starts (a
 * poll finding nothing new costs no read).
 */
#define LOG_WINDOW_MIN (16u << 10)
#define LOG_WINDOW_MAX FAMFS_UNIT_SIZE

struct log_window {
	bool copy;                    /* read by pread (else in place) */
	uint8_t *buf;
	uint64_t start, len, cap;     /* buf holds log bytes [start, start+len) */
	uint64_t next;                /* bytes of the next read */
};

static void window_init(const struct famfs_fs *fs, struct log_window *w)
{
	memset(w, 0, sizeof(*w));
	w->copy = fs->dev[0]->kind == FAMFS_DEV_FILE && fs->dev[0]->fd >= 0;
	w->next = LOG_WINDOW_MIN;
}

static void window_free(struct log_window *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* pread @want log bytes from @off into the buffer; false if it could not. */
static bool window_fill(struct famfs_fs *fs, struct log_window *w,
			uint64_t off, uint64_t want)
{
	uint64_t got = 0;

	if (want > w->cap) {
		uint8_t *b = realloc(w->buf, want);

		if (!b)
			return false;
		w->buf = b;
		w->cap = want;
	}
	while (got < want) {
		ssize_t r = pread(fs->dev[0]->fd, w->buf + got, want - got,
				  (off_t)(fs->sb.log_offset + off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (uint64_t)r;
	}
	w->start = off;
	w->len = want;
	return true;
}

/* Log bytes [@off, @off + @n) (inside the log: the caller checked) and
 * *@avail, how many bytes from @off on the returned pointer holds (at
 * least @n): the copy, or the log itself where no entry starts at @off or
 * the copy cannot be made (then for the rest of this scan).
 */
static const uint8_t *window_get(struct famfs_fs *fs, struct log_window *w,
				 uint64_t off, uint64_t n, uint64_t *avail)
{
	uint64_t want = n > w->next ? n : w->next;
	uint32_t magic;

	if (w->copy && off >= w->start && off - w->start <= w->len &&
	    n <= w->len - (off - w->start)) {
		*avail = w->start + w->len - off;
		return w->buf + (off - w->start);
	}
	*avail = fs->log_size - off;
	if (!w->copy)
		return fs->log + off;
	/* Is there an entry to copy? A poll (nothing copied yet) looks
	 * through the mapping, at the page it looked at last time. A scan
	 * that has copied before asks by reading the magic: it is refilling
	 * every 2 MiB, and the first touch of each 2 MiB of a mapping costs
	 * ~80 us here (a new page-table page) against ~3 us for the read.
	 */
	if (!w->len || pread(fs->dev[0]->fd, &magic, sizeof(magic),
			     (off_t)(fs->sb.log_offset + off)) !=
			       (ssize_t)sizeof(magic))
		memcpy(&magic, fs->log + off, sizeof(magic));
	if (magic != FAMFS_ENTRY_MAGIC)
		return fs->log + off;
	if (want > fs->log_size - off)
		want = fs->log_size - off;
	if (!window_fill(fs, w, off, want)) {
		window_free(w);    /* w->copy is now false */
		return fs->log + off;
	}
	if (w->next < LOG_WINDOW_MAX)
		w->next *= 2;
	*avail = w->len;
	return w->buf;
}

/* FAMFS_OPEN_EXCHANGE_STEPS: the entry at @p (the next) is an EXCHANGE
 * that a scan applies alone.
 */
static bool exchange_step(const struct famfs_fs *fs, const uint8_t *p)
{
	const struct famfs_entry_hdr *h = (const void *)p;

	return fs->scan_exchange_alone && h->type == FAMFS_ENTRY_EXCHANGE &&
	       h->seq > fs->steps_after;
}

/* Apply every valid entry after the tail; returns how many. */
int famfs_log_scan(struct famfs_fs *fs, struct famfs_err *e)
{
	const size_t hdr = sizeof(struct famfs_entry_hdr);
	uint64_t ahead = fs->tail, from = fs->tail, mapped = 0;
	struct log_window w;
	int applied = 0;
	char why[200];
	int64_t len;

	(void)e;
	window_init(fs, &w);
	for (;;) {
		uint64_t nseq, avail;
		const uint8_t *p;
		uint32_t l;
		int r;

		if (!w.copy)
			map_ahead(fs, from, &mapped);
		famfs_dev_invalidate(fs->dev[0], fs->sb.log_offset + fs->tail, hdr);
		if (fs->tail + hdr > fs->log_size) {
			len = famfs_entry_check(fs, fs->tail, fs->last_seq + 1,
						why, sizeof(why));
			goto stop;
		}
		/* the header, then the whole entry if its length can be */
		p = window_get(fs, &w, fs->tail, hdr, &avail);
		memcpy(&l, p + offsetof(struct famfs_entry_hdr, len), sizeof(l));
		if (l > avail && l <= fs->log_size - fs->tail)
			p = window_get(fs, &w, fs->tail, l, &avail);

		/* Each new name costs a cache miss in the name table: start
		 * loading the slots of the next entries while these apply
		 * (a hint: those entries are validated when their turn
		 * comes), in bursts (internal.h).
		 */
		if (ahead < fs->tail)
			ahead = fs->tail;
		if (ahead - fs->tail < FAMFS_PREFETCH_LOW)
			while (ahead - fs->tail < FAMFS_PREFETCH_BYTES &&
			       (l = famfs_entry_prefetch(fs, p, ahead - fs->tail,
							 avail)))
				ahead += l;
		len = entry_check_at(fs, p, avail, fs->last_seq + 1, why,
				     sizeof(why));
		if (len > (int64_t)hdr)
			famfs_dev_invalidate(fs->dev[0],
					     fs->sb.log_offset + fs->tail,
					     (uint64_t)len);
		if (len < 0)
			goto stop;
		if (exchange_step(fs, p) && applied)
			break;  /* the caller syncs first (kmount.c) */
		r = famfs_apply_entry(fs, (const void *)p, why, sizeof(why));
		if (r == -ENODEV) {
			/* a device this open was not given: wait here until
			 * famfs_device_attach() gives it (skipping would lose
			 * every file placed on it)
			 */
			fs->tail_state = FAMFS_TAIL_WAITING;
			snprintf(fs->tail_reason, sizeof(fs->tail_reason),
				 "waiting: %.140s", why);
			window_free(&w);
			return applied;
		}
		/* CRC-valid but meaningless: count it, keep in step */
		if (r)
			famfs_log_note_skip(fs, fs->last_seq + 1, why);
		nseq = famfs_entry_nseq((const void *)p);
		fs->last_entry_off = fs->tail;
		fs->tail += (uint64_t)len;
		fs->last_seq += nseq;
		fs->nentries += nseq;
		applied++;
		if (exchange_step(fs, p))
			break;
	}
	window_free(&w);
	return applied;
stop:
	classify_tail(fs, len, why);
	famfs_tail_judge(fs, why);
	window_free(&w);
	return applied;
}

FAMFS_EXPORT int famfs_replay(struct famfs_fs *fs, struct famfs_err *e)
{
	int n;

	pthread_rwlock_wrlock(&fs->lock);
	n = famfs_log_scan(fs, e);
	if (fs->slot >= 0)
		famfs_slot_publish(fs);
	pthread_rwlock_unlock(&fs->lock);
	return n;
}

FAMFS_EXPORT void famfs_log_status(struct famfs_fs *fs, struct famfs_log_status *st)
{
	pthread_rwlock_rdlock(&fs->lock);
	memset(st, 0, sizeof(*st));
	st->last_seq = fs->last_seq;
	st->entries = fs->nentries;
	st->used_bytes = fs->tail;
	st->size_bytes = fs->log_size;
	st->tail_state = fs->tail_state;
	st->tail_offset = fs->tail;
	snprintf(st->tail_reason, sizeof(st->tail_reason), "%s", fs->tail_reason);
	st->corrupt_first = fs->tail_state == FAMFS_TAIL_CORRUPT ? fs->corrupt_first : 0;
	st->corrupt_last = fs->tail_state == FAMFS_TAIL_CORRUPT ? fs->corrupt_last : 0;
	st->skipped = fs->skipped;
	snprintf(st->skip_reason, sizeof(st->skip_reason), "%s", fs->last_skip);
	pthread_rwlock_unlock(&fs->lock);
}

FAMFS_EXPORT int famfs_log_walk(struct famfs_fs *fs, famfs_entry_fn fn, void *arg)
{
	uint64_t off = FAMFS_LOG_HEADER_SIZE, seq = 1;
	char why[200];
	int r = 0;

	pthread_rwlock_rdlock(&fs->lock);
	while (off < fs->tail && !r) {
		int64_t len = famfs_entry_check(fs, off, seq, why, sizeof(why));

		if (len < 0)
			break;
		r = fn(arg, off, (const void *)(fs->log + off));
		seq += famfs_entry_nseq((const void *)(fs->log + off));
		off += (uint64_t)len;
	}
	pthread_rwlock_unlock(&fs->lock);
	return r;
}
