// SPDX-License-Identifier: Apache-2.0
/*
 * What a corrupt log loses, and `fsck --repair`: ending the log at the
 * last good entry. The paths are read where they still can be: from the
 * bad entry itself (its CRC failed, but a BATCH's inner headers and paths
 * may be intact) and from valid entries further on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The path an entry at @p (@avail bytes) creates or changes (a RENAME:
 * its new name; an EXCHANGE: its first), best effort: NULL if its header or lengths do not hold
 * together, or it names none (DEVICE_ADD).
 */
static const char *entry_path(const uint8_t *p, uint64_t avail, uint16_t *plen)
{
	const struct famfs_entry_hdr *h = (const void *)p;
	uint64_t at;

	if (avail < sizeof(*h) || h->magic != FAMFS_ENTRY_MAGIC ||
	    h->len < sizeof(*h) || h->len > avail)
		return NULL;
	if (h->type == FAMFS_ENTRY_FILE &&
	    h->len >= sizeof(*h) + sizeof(struct famfs_entry_file)) {
		const struct famfs_entry_file *f = (const void *)(h + 1);

		at = sizeof(*h) + sizeof(*f) +
		     (uint64_t)f->nitems * sizeof(struct famfs_map_item);
		*plen = f->path_len;
	} else if (h->type == FAMFS_ENTRY_MKDIR &&
		   h->len >= sizeof(*h) + sizeof(struct famfs_entry_mkdir)) {
		const struct famfs_entry_mkdir *d = (const void *)(h + 1);

		at = sizeof(*h) + sizeof(*d);
		*plen = d->path_len;
	} else if (h->type == FAMFS_ENTRY_DELETE &&
		   h->len >= sizeof(*h) + sizeof(struct famfs_entry_delete)) {
		const struct famfs_entry_delete *d = (const void *)(h + 1);

		at = sizeof(*h) + sizeof(*d);
		*plen = d->path_len;
	} else if (h->type == FAMFS_ENTRY_SETATTR &&
		   h->len >= sizeof(*h) + sizeof(struct famfs_entry_setattr)) {
		const struct famfs_entry_setattr *a = (const void *)(h + 1);

		at = sizeof(*h) + sizeof(*a);
		*plen = a->path_len;
	} else if (h->type == FAMFS_ENTRY_RENAME &&
		   h->len >= sizeof(*h) + sizeof(struct famfs_entry_rename)) {
		const struct famfs_entry_rename *r = (const void *)(h + 1);

		at = sizeof(*h) + sizeof(*r) + r->old_len; /* the new name */
		*plen = r->new_len;
	} else if (h->type == FAMFS_ENTRY_EXCHANGE &&
		   h->len >= sizeof(*h) + sizeof(struct famfs_entry_exchange)) {
		const struct famfs_entry_exchange *x = (const void *)(h + 1);

		at = sizeof(*h) + sizeof(*x); /* path a */
		*plen = x->a_len;
	} else {
		return NULL;
	}
	if (*plen == 0 || at + *plen > h->len)
		return NULL;
	return (const char *)p + at;
}

/* Every path in the entry at @p: itself, or a BATCH's inner entries. */
static unsigned entry_paths(const uint8_t *p, uint64_t avail,
			    famfs_lost_fn fn, void *arg)
{
	const struct famfs_entry_hdr *h = (const void *)p;
	const char *path;
	unsigned n = 0;
	uint16_t plen;

	if (avail < sizeof(*h) + sizeof(struct famfs_entry_batch) ||
	    h->magic != FAMFS_ENTRY_MAGIC)
		return 0;
	if (h->type != FAMFS_ENTRY_BATCH) {
		path = entry_path(p, avail, &plen);
		if (path)
			fn(arg, h->seq, path, plen);
		return path != NULL;
	}
	/* A BATCH whose length is damaged still has its inner entries back
	 * to back: follow them as far as they hold together.
	 */
	if (h->len >= sizeof(*h) && h->len <= avail)
		avail = h->len;
	for (uint64_t off = sizeof(*h) + sizeof(struct famfs_entry_batch);
	     off + sizeof(*h) <= avail;) {
		const struct famfs_entry_hdr *in = (const void *)(p + off);

		if (in->magic != FAMFS_ENTRY_MAGIC || in->len < sizeof(*in) ||
		    in->len % 8 || in->len > avail - off)
			break;
		path = entry_path(p + off, avail - off, &plen);
		if (path) {
			fn(arg, in->seq, path, plen);
			n++;
		}
		off += in->len;
	}
	return n;
}

static unsigned lost_paths(const struct famfs_fs *fs, famfs_lost_fn fn,
			   void *arg)
{
	uint64_t off = fs->tail, seq = fs->last_seq + 1;
	unsigned n;
	char why[200];

	if (off + sizeof(struct famfs_entry_hdr) > fs->log_size)
		return 0;
	n = entry_paths(fs->log + off, fs->log_size - off, fn, arg);
	/* and the valid entries that follow the bad one */
	for (off = fs->tail + 8; off + sizeof(struct famfs_entry_hdr) <= fs->log_size;
	     off += 8) {
		const struct famfs_entry_hdr *h = (const void *)(fs->log + off);
		int64_t len;

		if (h->magic != FAMFS_ENTRY_MAGIC || h->fs_tag != fs->fs_tag ||
		    h->seq <= seq)
			continue;
		len = famfs_entry_check(fs, off, h->seq, why, sizeof(why));
		if (len <= 0)
			continue;
		while (len > 0) {
			n += entry_paths(fs->log + off, (uint64_t)len, fn, arg);
			seq = h->seq + famfs_entry_nseq(h);
			off += (uint64_t)len;
			h = (const void *)(fs->log + off);
			len = famfs_entry_check(fs, off, seq, why, sizeof(why));
		}
		break;
	}
	return n;
}

FAMFS_EXPORT unsigned famfs_log_lost(struct famfs_fs *fs, famfs_lost_fn fn,
				     void *arg)
{
	unsigned n;

	pthread_rwlock_rdlock(&fs->lock);
	n = lost_paths(fs, fn, arg);
	pthread_rwlock_unlock(&fs->lock);
	return n;
}

/* Clients that replayed past the new end would otherwise go on proving
 * the dropped entries committed: they start again from the new end.
 */
static void clamp_slots(struct famfs_fs *fs)
{
	for (unsigned i = 0; i < fs->sb.nslots; i++) {
		uint64_t off = fs->sb.slots_offset +
			       i * sizeof(struct famfs_client_slot);
		struct famfs_client_slot *s = (void *)(fs->dev[0]->base + off);

		if (s->magic == FAMFS_SLOT_MAGIC && s->replayed_seq > fs->last_seq) {
			s->replayed_seq = fs->last_seq;
			famfs_dev_flush(fs->dev[0], off, sizeof(*s));
		}
	}
}

FAMFS_EXPORT int famfs_log_repair(struct famfs_fs *fs, famfs_lost_fn fn,
				  void *arg, struct famfs_log_status *before,
				  struct famfs_err *e)
{
	const struct famfs_entry_hdr *last = NULL;
	int r = 0;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS,
			"repair needs the filesystem open as master");
	pthread_rwlock_wrlock(&fs->lock);
	memset(before, 0, sizeof(*before));
	before->last_seq = fs->last_seq;
	before->tail_state = fs->tail_state;
	before->tail_offset = fs->tail;
	before->corrupt_first = fs->corrupt_first;
	before->corrupt_last = fs->corrupt_last;
	snprintf(before->tail_reason, sizeof(before->tail_reason), "%s",
		 fs->tail_reason);
	if (fn)
		lost_paths(fs, fn, arg);
	/* Everything after the last good entry goes: the next append then
	 * starts there, and no stale entry can be taken for a lost one.
	 */
	memset(fs->log + fs->tail, 0, fs->log_size - fs->tail);
	famfs_dev_flush_range(fs->dev[0], fs->log + fs->tail,
			      fs->log_size - fs->tail);
	if (fs->last_seq)
		last = (const void *)(fs->log + fs->last_entry_off);
	/* both slots, so no older record names the dropped entries */
	for (int i = 0; i < 2 && !r; i++)
		r = famfs_tailrec_write(fs, fs->last_entry_off, last, fs->last_seq);
	clamp_slots(fs);
	fs->tail_state = FAMFS_TAIL_CLEAN;
	fs->tail_reason[0] = '\0';
	pthread_rwlock_unlock(&fs->lock);
	if (r)
		return famfs_set_err(e, r, "writing the committed-tail record failed");
	return 0;
}

struct refusal {
	char list[400];
	unsigned n;
};

static void add_refused(void *arg, uint64_t seq, const char *path,
			uint16_t len)
{
	struct refusal *r = arg;
	size_t k = strlen(r->list);

	(void)seq;
	if (r->n++ < 8 && k + len + 3 < sizeof(r->list))
		snprintf(r->list + k, sizeof(r->list) - k, "%s%.*s",
			 k ? ", " : "", (int)len, path);
}

FAMFS_EXPORT int famfs_mount_check(struct famfs_fs *fs, struct famfs_err *e)
{
	struct famfs_log_status st;
	struct refusal r = { { 0 }, 0 };

	famfs_log_status(fs, &st);
	if (st.tail_state != FAMFS_TAIL_CORRUPT)
		return 0;
	famfs_log_lost(fs, add_refused, &r);
	return famfs_set_err(e, -EUCLEAN,
		"the metadata log is corrupt: %s; lost: %s%s%s; run `famfs-cli "
		"fsck --repair` on the master's devices, or mount with --force "
		"to serve the %llu entries before it",
		st.tail_reason, r.n ? r.list : "paths unreadable",
		r.n > 8 ? ", ..." : "",
		r.n > 8 ? " (and more)" : "", (unsigned long long)st.entries);
}
