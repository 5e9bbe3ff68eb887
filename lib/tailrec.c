// SPDX-License-Identifier: Apache-2.0
/*
 * The committed-tail record (format 1.4): after each append is flushed the
 * master records the last committed entry in one of two slots, alternating,
 * each with its own CRC. It is what tells a torn append (a bad entry past
 * the recorded tail: a crash mid-append, a warning) from corruption (a bad
 * entry at or before it: committed entries lost, an error). The client
 * slots are second evidence: a client that replayed seq S proves every
 * entry up to S was committed, even on a log with no record yet.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static uint8_t *tailrec_slot(const struct famfs_fs *fs, unsigned i)
{
	return fs->dev[0]->base + FAMFS_TAILREC_OFFSET +
	       i * sizeof(struct famfs_tail_record);
}

int famfs_tailrec_slot_check(const struct famfs_fs *fs, unsigned i,
			     struct famfs_tail_record *out)
{
	static const struct famfs_tail_record zero;
	struct famfs_tail_record r;
	uint32_t crc;

	famfs_dev_invalidate(fs->dev[0], FAMFS_TAILREC_OFFSET + i * sizeof(r),
			     sizeof(r));
	memcpy(&r, tailrec_slot(fs, i), sizeof(r));
	if (!memcmp(&r, &zero, sizeof(r)))
		return -ENOENT;
	if (out)
		*out = r;
	if (r.magic != FAMFS_TAILREC_MAGIC)
		return -EBADMSG;
	crc = r.crc;
	r.crc = 0;
	if (famfs_crc32c(0, &r, sizeof(r)) != crc)
		return -EBADMSG;
	/* whole, but another filesystem's (mkfs zeroes it; an older mkfs
	 * on a device may not have)
	 */
	return r.fs_tag == fs->fs_tag ? 0 : -ENOENT;
}

bool famfs_tailrec_read(const struct famfs_fs *fs, struct famfs_tail_record *out)
{
	struct famfs_tail_record r[2];
	bool ok[2];

	for (unsigned i = 0; i < 2; i++)
		ok[i] = famfs_tailrec_slot_check(fs, i, &r[i]) == 0;
	if (ok[0] && (!ok[1] || r[0].gen > r[1].gen))
		*out = r[0];
	else if (ok[1])
		*out = r[1];
	return ok[0] || ok[1];
}

int famfs_tailrec_write(struct famfs_fs *fs, uint64_t off,
			const struct famfs_entry_hdr *h, uint64_t end_seq)
{
	struct famfs_tail_record r = { 0 }, cur;
	unsigned i;

	if (famfs_tailrec_read(fs, &cur))
		r.gen = cur.gen + 1;
	else
		r.gen = 1;
	r.magic = FAMFS_TAILREC_MAGIC;
	r.fs_tag = fs->fs_tag;
	r.end_seq = end_seq;
	r.written_ns = famfs_now_ns();
	if (h) {
		r.entry_seq = h->seq;
		r.entry_offset = off;
		r.entry_len = h->len;
		r.entry_crc = h->crc;
	}
	r.crc = famfs_crc32c(0, &r, sizeof(r));
	i = (unsigned)(r.gen % 2);
	memcpy(tailrec_slot(fs, i), &r, sizeof(r));
	return famfs_dev_flush_range(fs->dev[0], tailrec_slot(fs, i), sizeof(r));
}

/* The highest seq any client slot says it replayed (0: none). */
static uint64_t slots_replayed_max(const struct famfs_fs *fs, unsigned *which)
{
	uint64_t max = 0;

	for (unsigned i = 0; i < fs->sb.nslots; i++) {
		const struct famfs_client_slot *s = (const void *)(fs->dev[0]->base +
			fs->sb.slots_offset + i * sizeof(*s));

		if (s->magic != FAMFS_SLOT_MAGIC ||
		    (s->state != FAMFS_SLOT_LIVE && s->state != FAMFS_SLOT_EVICTED))
			continue;
		if (s->replayed_seq > max) {
			max = s->replayed_seq;
			*which = i;
		}
	}
	return max;
}

uint64_t famfs_committed_evidence(const struct famfs_fs *fs, char *src,
				  size_t srclen)
{
	struct famfs_tail_record r;
	uint64_t best = 0, s;
	unsigned slot = 0;

	src[0] = '\0';
	if (famfs_tailrec_read(fs, &r) && r.end_seq) {
		best = r.end_seq;
		snprintf(src, srclen, "committed-tail record");
	}
	famfs_dev_invalidate(fs->dev[0], fs->sb.slots_offset,
			     fs->sb.nslots * sizeof(struct famfs_client_slot));
	s = slots_replayed_max(fs, &slot);
	if (s > best) {
		best = s;
		snprintf(src, srclen, "client slot %u replayed it", slot);
	}
	return best;
}

/*
 * Called where a scan stopped at a bad (or missing) entry: if the record
 * or a client slot proves entries past the stop were committed, the log is
 * corrupt. The evidence is read first and the entry checked again after:
 * a reader racing an append sees the entry half-built, but the record and
 * the slots only ever name entries that were flushed before them.
 */
void famfs_tail_judge(struct famfs_fs *fs, const char *why)
{
	char src[40], again[200];
	uint64_t committed = famfs_committed_evidence(fs, src, sizeof(src));

	if (committed <= fs->last_seq)
		return;
	famfs_dev_invalidate(fs->dev[0], fs->sb.log_offset + fs->tail,
			     sizeof(struct famfs_entry_hdr));
	if (fs->tail + sizeof(struct famfs_entry_hdr) <= fs->log_size) {
		struct famfs_entry_hdr h;

		memcpy(&h, fs->log + fs->tail, sizeof(h));
		if (h.len <= fs->log_size - fs->tail)
			famfs_dev_invalidate(fs->dev[0],
					     fs->sb.log_offset + fs->tail, h.len);
	}
	if (famfs_entry_check(fs, fs->tail, fs->last_seq + 1, again,
			      sizeof(again)) > 0)
		return; /* an append completed meanwhile: the next scan applies it */
	fs->tail_state = FAMFS_TAIL_CORRUPT;
	fs->corrupt_first = fs->last_seq + 1;
	fs->corrupt_last = committed;
	snprintf(fs->tail_reason, sizeof(fs->tail_reason),
		 "committed seq %llu..%llu lost (%.39s): log offset %llu: %.80s",
		 (unsigned long long)fs->last_seq + 1,
		 (unsigned long long)committed, src,
		 (unsigned long long)fs->tail, why);
}
