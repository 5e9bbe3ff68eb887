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

int64_t famfs_entry_check(const struct famfs_fs *fs, uint64_t off,
			  uint64_t expect_seq, char *why, size_t whylen)
{
	const struct famfs_entry_hdr *h = (const void *)(fs->log + off);
	struct famfs_entry_hdr copy;
	uint32_t crc;

	if (off + sizeof(*h) > fs->log_size) {
		snprintf(why, whylen, "end of log");
		return -ENOSPC;
	}
	if (h->magic != FAMFS_ENTRY_MAGIC) {
		snprintf(why, whylen, h->magic ? "bad entry magic 0x%08x" :
			 "no entry", h->magic);
		return -ENOENT;
	}
	if (h->fs_tag != fs->fs_tag) {
		snprintf(why, whylen, "entry of another filesystem");
		return -ENOENT;
	}
	if (h->len < sizeof(*h) || h->len % 8 || off + h->len > fs->log_size) {
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
	crc = famfs_crc32c(crc, fs->log + off + sizeof(copy), h->len - sizeof(copy));
	if (crc != h->crc) {
		snprintf(why, whylen, "CRC mismatch in entry seq %llu (torn or corrupt)",
			 (unsigned long long)h->seq);
		return -EBADMSG;
	}
	return h->len;
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
	fs->tail += len;
	fs->last_seq += famfs_entry_nseq(dst);
	fs->nentries += famfs_entry_nseq(dst);
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
	snprintf(fs->tail_reason, sizeof(fs->tail_reason), "at log offset %llu: %.100s",
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

/* Apply every valid entry after the tail; returns how many. */
int famfs_log_scan(struct famfs_fs *fs, struct famfs_err *e)
{
	uint64_t ahead = fs->tail, from = fs->tail, mapped = 0;
	int applied = 0;
	char why[200];

	(void)e;
	for (;;) {
		int64_t len;
		uint32_t l;
		int r;

		/* Each new name costs a cache miss in the name table: start
		 * loading the slots of the next few entries while this one
		 * applies (a hint: those entries are validated when their
		 * turn comes).
		 */
		map_ahead(fs, from, &mapped);
		if (ahead < fs->tail)
			ahead = fs->tail;
		while (ahead - fs->tail < FAMFS_PREFETCH_BYTES &&
		       (l = famfs_entry_prefetch(fs, fs->log, ahead, fs->log_size)))
			ahead += l;
		famfs_dev_invalidate(fs->dev[0], fs->sb.log_offset + fs->tail,
				     sizeof(struct famfs_entry_hdr));
		len = famfs_entry_check(fs, fs->tail, fs->last_seq + 1, why,
					sizeof(why));
		if (len > (int64_t)sizeof(struct famfs_entry_hdr))
			famfs_dev_invalidate(fs->dev[0],
					     fs->sb.log_offset + fs->tail,
					     (uint64_t)len);
		if (len < 0) {
			classify_tail(fs, len, why);
			return applied;
		}
		r = famfs_apply_entry(fs, (const void *)(fs->log + fs->tail),
				      why, sizeof(why));
		if (r == -ENODEV) {
			/* a device this open was not given: wait here until
			 * famfs_device_attach() gives it (skipping would lose
			 * every file placed on it)
			 */
			fs->tail_state = FAMFS_TAIL_WAITING;
			snprintf(fs->tail_reason, sizeof(fs->tail_reason),
				 "waiting: %.140s", why);
			return applied;
		}
		/* CRC-valid but meaningless: count it, keep in step */
		if (r)
			famfs_log_note_skip(fs, fs->last_seq + 1, why);
		fs->tail += (uint64_t)len;
		fs->last_seq += famfs_entry_nseq((const void *)(fs->log + fs->tail - len));
		fs->nentries += famfs_entry_nseq((const void *)(fs->log + fs->tail - len));
		applied++;
	}
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
