// SPDX-License-Identifier: Apache-2.0
/*
 * Data of the master's uncommitted files. The reservation holds the
 * invariant that bytes in [size, allocation) are zero, so a sparse write
 * or an extending truncate reads back zeros, and space freed by a delete
 * never shows its old bytes. A write past the reservation reallocates
 * (doubling), copies what was written and gives the old space back;
 * ftruncate and fallocate reserve exactly what they are asked for, with
 * the default placement (interleaved over all devices above one chunk).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>

#include "pending.h"

static const struct famfs_alloc_policy default_policy = { 0, 0 };

/* Zero file range [from, to) of map @m. */
static void map_zero(const struct famfs_fmap *m, uint64_t from, uint64_t to)
{
	while (from < to) {
		struct famfs_loc loc;
		struct famfs_dev *d;
		uint64_t n;

		if (famfs_fmap_resolve(m, from, &loc))
			return;
		d = famfs_fs_dev(fused.fs, loc.dev_index);
		if (!d)
			return;
		n = to - from < loc.length ? to - from : loc.length;
		memset(famfs_dev_base(d) + loc.dev_offset, 0, n);
		famfs_dev_flush(d, loc.dev_offset, n);
		from += n;
	}
}

/* Copy the first @len bytes of file map @src into file map @dst. */
static int map_copy(const struct famfs_fmap *dst, const struct famfs_fmap *src,
		    uint64_t len)
{
	uint64_t off = 0;

	while (off < len) {
		struct famfs_loc ls, ld;
		struct famfs_dev *ds, *dd;
		uint64_t n;

		if (famfs_fmap_resolve(src, off, &ls) ||
		    famfs_fmap_resolve(dst, off, &ld))
			return -EIO;
		ds = famfs_fs_dev(fused.fs, ls.dev_index);
		dd = famfs_fs_dev(fused.fs, ld.dev_index);
		if (!ds || !dd)
			return -EIO;
		n = len - off;
		n = n < ls.length ? n : ls.length;
		n = n < ld.length ? n : ld.length;
		memcpy(famfs_dev_base(dd) + ld.dev_offset,
		       famfs_dev_base(ds) + ls.dev_offset, n);
		famfs_dev_flush(dd, ld.dev_offset, n);
		off += n;
	}
	return 0;
}

/*
 * Make the reservation hold @need bytes (pf->mu held). @exact: the size
 * was declared (truncate, fallocate): reserve just that; else a write is
 * growing the file: at least double, so that a cp of N bytes copies O(N).
 */
static int ensure_cap(struct pfile *pf, uint64_t need, bool exact)
{
	uint64_t cap = pf->map ? famfs_fmap_bytes(pf->map) : 0, want;
	struct famfs_fmap *nm = NULL;
	struct famfs_err e = { 0 };
	int r;

	if (need <= cap)
		return 0;
	want = exact || !pf->map ? need : (need > 2 * cap ? need : 2 * cap);
	r = famfs_alloc(fused.fs, want, &default_policy, &nm, &e);
	if (r == -ENOSPC && want > need)
		r = famfs_alloc(fused.fs, need, &default_policy, &nm, &e);
	if (r)
		return r;
	if (pf->map) {
		r = map_copy(nm, pf->map, pf->size);
		if (r) {
			famfs_alloc_release(fused.fs, nm);
			free(nm);
			return r;
		}
	}
	map_zero(nm, pf->size, famfs_fmap_bytes(nm));
	if (pf->map) {
		famfs_alloc_release(fused.fs, pf->map);
		free(pf->map);
	}
	pf->map = nm;
	return 0;
}

int64_t pend_write(struct pfile *pf, const void *buf, size_t len, uint64_t off)
{
	int64_t n;
	int r;

	if (off + len < off)
		return -EFBIG;
	pthread_mutex_lock(&pf->mu);
	r = ensure_cap(pf, off + len, false);
	if (r) {
		pthread_mutex_unlock(&pf->mu);
		return r;
	}
	n = famfs_write_map(fused.fs, pf->map, off, buf, len);
	if (n > 0 && off + (uint64_t)n > pf->size)
		pf->size = off + (uint64_t)n;
	pf->mtime_ns = pf->ctime_ns = famfs_now_ns();
	pthread_mutex_unlock(&pf->mu);
	return n;
}

int64_t pend_read(struct pfile *pf, void *buf, size_t len, uint64_t off)
{
	int64_t n = 0;

	pthread_mutex_lock(&pf->mu);
	if (pf->map)
		n = famfs_read(fused.fs, pf->map, pf->size, off, buf, len);
	pthread_mutex_unlock(&pf->mu);
	return n;
}

int pend_truncate(struct pfile *pf, uint64_t size)
{
	int r = 0;

	pthread_mutex_lock(&pf->mu);
	if (size > pf->size)
		r = ensure_cap(pf, size, true);
	else if (size < pf->size)
		map_zero(pf->map, size, pf->size);
	if (!r) {
		pf->size = size;
		pf->mtime_ns = pf->ctime_ns = famfs_now_ns();
	}
	pthread_mutex_unlock(&pf->mu);
	return r;
}

int pend_fallocate(struct pfile *pf, int mode, uint64_t off, uint64_t len)
{
	int r;

	if (mode & ~FALLOC_FL_KEEP_SIZE)
		return -EOPNOTSUPP;
	if (off + len < off)
		return -EFBIG;
	pthread_mutex_lock(&pf->mu);
	r = ensure_cap(pf, off + len, true);
	if (!r && !(mode & FALLOC_FL_KEEP_SIZE) && off + len > pf->size)
		pf->size = off + len;
	pthread_mutex_unlock(&pf->mu);
	return r;
}

static uint64_t round_up(uint64_t v, uint64_t g)
{
	return (v + g - 1) / g * g;
}

int pend_map_trim(struct pfile *pf)
{
	const struct famfs_fmap *m = pf->map;
	struct famfs_fmap *keep, *tail;
	uint64_t left = pf->size;
	unsigned k = 0;

	keep = calloc(1, famfs_fmap_sizeof(m->nitems));
	tail = calloc(1, famfs_fmap_sizeof(m->nitems));
	if (!keep || !tail) {
		free(keep);
		free(tail);
		return -ENOMEM;
	}
	keep->type = m->type;
	keep->chunk = m->chunk;
	tail->type = FAMFS_MAP_EXTENTS;
	if (m->type == FAMFS_MAP_INTERLEAVE) {
		/* fewer stripes: the data before them does not move */
		uint64_t klen = round_up(left, m->nitems * m->chunk) / m->nitems;

		if (klen == 0)
			keep->type = FAMFS_MAP_EXTENTS;
		for (unsigned i = 0; i < m->nitems; i++) {
			struct famfs_map_item it = m->items[i];

			if (klen && it.length > klen) {
				tail->items[tail->nitems] = it;
				tail->items[tail->nitems].offset += klen;
				tail->items[tail->nitems++].length -= klen;
				it.length = klen;
			} else if (!klen) {
				tail->items[tail->nitems++] = it;
				continue;
			}
			keep->items[k++] = it;
		}
		if (!klen)
			keep->chunk = 0;
	} else {
		for (unsigned i = 0; i < m->nitems; i++) {
			struct famfs_map_item it = m->items[i];
			bool units = it.offset % FAMFS_UNIT_SIZE == 0 &&
				     it.length % FAMFS_UNIT_SIZE == 0;
			uint64_t want = round_up(left, units ? FAMFS_UNIT_SIZE :
						 FAMFS_BLOCK_SIZE);

			if (want < it.length) {
				tail->items[tail->nitems] = it;
				tail->items[tail->nitems].offset += want;
				tail->items[tail->nitems++].length -= want;
				it.length = want;
			}
			left -= left < it.length ? left : it.length;
			if (it.length)
				keep->items[k++] = it;
		}
	}
	keep->nitems = (uint16_t)k;
	if (tail->nitems)
		famfs_alloc_release(fused.fs, tail);
	free(tail);
	free(pf->map);
	pf->map = keep;
	return 0;
}
