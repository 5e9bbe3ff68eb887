// SPDX-License-Identifier: Apache-2.0
/*
 * Group commit: many reserved files committed by one BATCH entry (format
 * 1.1): one append, one CRC, one flush of the log. The batch is all or
 * nothing on the media: a torn batch fails its one CRC and no file of it
 * is ever replayed. A file whose entry cannot apply (name taken, parent
 * gone) is left out before the batch is sealed, with its own error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "killpoint.h"

struct prepared {
	char norm[FAMFS_PATH_MAX + 2];
	int plen;
	struct famfs_entry_file f;
	uint32_t len;                 /* whole inner entry */
};

/* Write inner entry @p with @seq at @dst; returns its length. */
static uint32_t put_inner(struct famfs_fs *fs, uint8_t *dst, uint64_t seq,
			  const struct prepared *p, const struct famfs_fmap *m,
			  uint64_t now)
{
	struct famfs_entry_hdr h = { .magic = FAMFS_ENTRY_MAGIC, .seq = seq,
				     .fs_tag = fs->fs_tag, .len = p->len,
				     .type = FAMFS_ENTRY_FILE, .logged_ns = now };
	uint32_t items = m->nitems * (uint32_t)sizeof(struct famfs_map_item);
	uint8_t *q = dst;

	memcpy(q, &h, sizeof(h));
	q += sizeof(h);
	memcpy(q, &p->f, sizeof(p->f));
	q += sizeof(p->f);
	memcpy(q, m->items, items);
	q += items;
	memcpy(q, p->norm, (size_t)p->plen);
	q += p->plen;
	memset(q, 0, p->len - (size_t)(q - dst));
	return p->len;
}

FAMFS_EXPORT int famfs_commit_files(struct famfs_fs *fs,
				    struct famfs_commit_req *reqs, unsigned n,
				    struct famfs_err *e)
{
	struct famfs_entry_hdr bh = { .magic = FAMFS_ENTRY_MAGIC,
				      .type = FAMFS_ENTRY_BATCH };
	struct famfs_entry_batch bb = { 0 };
	uint64_t need = sizeof(bh) + sizeof(bb), now = famfs_now_ns();
	struct prepared *pp;
	uint8_t *dst;
	uint32_t off;
	char why[200];
	int ok = 0;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS,
			"the filesystem is not open as master (read-only here)");
	if (n == 0)
		return 0;
	pp = calloc(n, sizeof(*pp));
	if (!pp)
		return famfs_set_err(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		struct famfs_commit_req *r = &reqs[i];
		struct famfs_err ie = { 0 };

		r->result = 0;
		r->why[0] = '\0';
		pp[i].plen = famfs_path_normalize(r->path, pp[i].norm,
						  sizeof(pp[i].norm), &ie);
		if (pp[i].plen >= 0)
			r->result = famfs_file_entry_body(pp[i].norm, pp[i].plen,
							  &r->attr, r->map, &pp[i].f,
							  &ie);
		else
			r->result = pp[i].plen;
		if (r->result) {
			snprintf(r->why, sizeof(r->why), "%.600s", ie.msg);
			continue;
		}
		pp[i].len = (uint32_t)ROUND_UP(sizeof(struct famfs_entry_hdr) +
			sizeof(struct famfs_entry_file) +
			r->map->nitems * sizeof(struct famfs_map_item) +
			(size_t)pp[i].plen, 8);
		need += pp[i].len;
	}
	pthread_rwlock_wrlock(&fs->lock);
	ok = famfs_log_refuse_corrupt(fs, e);
	if (ok) {
		pthread_rwlock_unlock(&fs->lock);
		free(pp);
		return ok;
	}
	if (fs->tail + need > fs->log_size) {
		pthread_rwlock_unlock(&fs->lock);
		free(pp);
		return famfs_set_err(e, -ENOSPC,
			"metadata log is full (%llu of %llu bytes used, %llu entries; "
			"a batch of %u files needs %llu more); mkfs with a larger --log-size",
			(unsigned long long)fs->tail, (unsigned long long)fs->log_size,
			(unsigned long long)fs->nentries, n, (unsigned long long)need);
	}
	/* Build in place after the tail; nothing counts before the seal. */
	dst = fs->log + fs->tail;
	off = sizeof(bh) + sizeof(bb);
	fs->map_reserved = true;
	for (unsigned i = 0; i < n; i++) {
		struct famfs_commit_req *r = &reqs[i];
		uint32_t len;

		if (r->result)
			continue;
		len = put_inner(fs, dst + off, fs->last_seq + 2 + (uint64_t)ok, &pp[i],
				r->map, now);
		r->result = famfs_apply_entry(fs, (const void *)(dst + off), why,
					      sizeof(why));
		if (r->result) {
			snprintf(r->why, sizeof(r->why), "%.400s: %.200s", pp[i].norm, why);
			memset(dst + off, 0, len);
			continue;
		}
		off += len;
		ok++;
		FAMFS_KILL_POINT("batch.inner_built");
	}
	fs->map_reserved = false;
	if (ok) {
		bh.seq = fs->last_seq + 1;
		bh.fs_tag = fs->fs_tag;
		bh.len = off;
		bh.logged_ns = now;
		bb.count = (uint32_t)ok;
		memcpy(dst + sizeof(bh), &bb, sizeof(bb));
		memcpy(dst, &bh, sizeof(bh));
		FAMFS_KILL_POINT("batch.header_built");
		famfs_log_seal(fs, (struct famfs_entry_hdr *)dst);
	}
	pthread_rwlock_unlock(&fs->lock);
	free(pp);
	return ok;
}
