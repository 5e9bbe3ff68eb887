// SPDX-License-Identifier: Apache-2.0
/*
 * Data of the master's uncommitted files. Bytes of the reservation past
 * the file size hold whatever the space held before (a deleted file's
 * bytes): every change that makes the size larger zeros the range it
 * exposes first (a write past the end, an extending truncate or
 * fallocate), and the trim before the commit zeros the rest of the last
 * 4 KiB block, so neither a read nor a client's mapping ever shows them.
 *
 * A write past the reservation appends more space to the file's extent
 * list, at least doubling it (a 256 MiB file takes ~9 extents), so data
 * never moves while a file grows and a copy of N bytes writes N bytes.
 * Only an interleaved reservation (from ftruncate or fallocate, which
 * reserve exactly what they are asked for with the default placement)
 * or an extent list at the format's limit is reallocated and copied.
 *
 * A write is acknowledged once its space is reserved and its bytes are in
 * famfs-fused's request buffer, before they are stored into the device:
 * the writer's next request then crosses /dev/fuse while this thread
 * stores, instead of after it (both cores busy; bench/results/fuse.md).
 * ENOSPC still comes from write() (the reservation is made first), and
 * nothing can see the bytes before they are stored: reads, fsync,
 * truncate, fallocate, a reallocation, the commit and the release of the
 * space wait for running stores (pend_wait_stores), and a write over
 * bytes still being stored waits, so the later write lands last.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/falloc.h>

#include "killpoint.h"
#include "pending.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* growth steps: one extent each, wherever the allocator finds room */
static const struct famfs_alloc_policy extent_policy = { 1, 0 };

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

/*
 * Map the page tables of items [@from, nitems) of @m now, in one call per
 * item: stores through our mapping would otherwise take a fault per 4 KiB
 * page (each fault is a trip to the hypervisor on a VM), which made
 * copying in fault-bound. Only whole 2 MiB units: a small file's few
 * pages are not worth a system call. Not for a device written with
 * pwrite() (an emulated device's file, put.c): its writes never touch
 * our mapping, and populating it was 13 % of famfs-fused's CPU in a
 * copy (bench/results/fuse.md). Best effort: a kernel without
 * MADV_POPULATE_WRITE faults as before.
 */
static void map_populate(const struct famfs_fmap *m, unsigned from)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (unsigned i = from; i < m->nitems; i++) {
		struct famfs_dev *d = famfs_fs_dev(fused.fs, m->items[i].dev_index);
		uintptr_t a, end;

		if (!d || m->items[i].length < FAMFS_UNIT_SIZE ||
		    famfs_dev_write_fd(d) >= 0)
			continue;
		a = (uintptr_t)(famfs_dev_base(d) + m->items[i].offset);
		end = a + m->items[i].length;
		a &= ~(page - 1);
		madvise((void *)a, end - a, MADV_POPULATE_WRITE);
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
 * A reservation refused for lack of space: the writer gets ENOSPC, the
 * log the allocator's reason (the size asked for, the strips, each
 * device's room: docs/format.md), at most one line a second.
 */
static void log_nospace(int r, const struct famfs_err *e)
{
	static _Atomic int64_t last;
	struct timespec now;
	int64_t t, prev;

	if (r != -ENOSPC)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	t = (int64_t)now.tv_sec;
	prev = atomic_load(&last);
	if (t == prev || !atomic_compare_exchange_strong(&last, &prev, t))
		return;
	fused_log("a write was refused (ENOSPC): %s", e->msg);
}

/* Append @bytes of new space to extent map pf->map; the data stays.
 * @last: no smaller try follows (a refusal is logged).
 */
static int append_extents(struct pfile *pf, uint64_t bytes, bool last)
{
	struct famfs_fmap *add, *nm;
	struct famfs_err e = { 0 };
	unsigned n = pf->map->nitems;
	int r;

	r = famfs_alloc(fused.fs, bytes, &extent_policy, &add, &e);
	if (r) {
		if (last)
			log_nospace(r, &e);
		return r;
	}
	if (add->type != FAMFS_MAP_EXTENTS ||
	    n + add->nitems > FAMFS_MAX_EXTENTS ||
	    !(nm = realloc(pf->map, famfs_fmap_sizeof(n + add->nitems)))) {
		famfs_alloc_release(fused.fs, add);
		free(add);
		return -E2BIG;
	}
	memcpy(&nm->items[n], add->items, add->nitems * sizeof(add->items[0]));
	nm->nitems = (uint16_t)(n + add->nitems);
	free(add);
	pf->map = nm;
	map_populate(nm, n);
	return 0;
}

/* A new reservation of @want bytes holding what was written; the old
 * space goes back. Past bytes need no zeroing: see the top of the file.
 * @populate: writes follow (not so for a declared size: ingest writes a
 * fallocated file through its own mapping).
 */
static int reallocate(struct pfile *pf, uint64_t want, uint64_t need,
		      bool populate)
{
	struct famfs_fmap *nm = NULL;
	struct famfs_err e = { 0 };
	int r;

	pend_wait_stores(pf); /* the copy below must see their bytes */
	r = famfs_alloc(fused.fs, want, &pf->policy, &nm, &e);
	if (r == -ENOSPC && want > need)
		r = famfs_alloc(fused.fs, need, &pf->policy, &nm, &e);
	if (r) {
		log_nospace(r, &e);
		return r;
	}
	if (populate)
		map_populate(nm, 0);
	if (pf->map) {
		r = map_copy(nm, pf->map, pf->size);
		if (r) {
			famfs_alloc_release(fused.fs, nm);
			free(nm);
			return r;
		}
		famfs_alloc_release(fused.fs, pf->map);
		free(pf->map);
	}
	pf->map = nm;
	return 0;
}

/*
 * Make the reservation hold @need bytes (pf->mu held). @exact: the size
 * was declared (truncate, fallocate): reserve just that; else a write is
 * growing the file: at least double, without moving what was written.
 * -ENOSPC leaves the reservation as it was.
 */
static int ensure_cap(struct pfile *pf, uint64_t need, bool exact)
{
	uint64_t cap = pf->map ? famfs_fmap_bytes(pf->map) : 0, step;
	int r;

	if (need <= cap)
		return 0;
	if (exact || !pf->map)
		return reallocate(pf, need, need, !exact);
	if (pf->map->type == FAMFS_MAP_EXTENTS) {
		step = need - cap > cap ? need - cap : cap;
		r = append_extents(pf, step, step <= need - cap);
		if (r == -ENOSPC && step > need - cap)
			r = append_extents(pf, need - cap, true);
		if (r != -E2BIG)
			return r;
	}
	return reallocate(pf, need > 2 * cap ? need : 2 * cap, need, true);
}

int pend_wait_stores(struct pfile *pf)
{
	while (pf->stores)
		pthread_cond_wait(&pf->stores_done, &pf->mu);
	pf->store_lo = pf->store_hi = 0;
	return pf->store_err;
}

int pend_sync(struct pfile *pf)
{
	int r;

	pthread_mutex_lock(&pf->mu);
	r = pend_wait_stores(pf);
	pthread_mutex_unlock(&pf->mu);
	return r;
}

int64_t pend_write_begin(struct pfile *pf, size_t len, uint64_t off,
			 struct pstore *st)
{
	struct famfs_fmap *copy = NULL;
	int r;

	memset(st, 0, sizeof(*st));
	if (off + len < off)
		return -EFBIG;
	if (len == 0)
		return 0;
	pthread_mutex_lock(&pf->mu);
	if (pf->stores && off < pf->store_hi && off + len > pf->store_lo)
		pend_wait_stores(pf);
	r = ensure_cap(pf, off + len, false);
	if (!r && off > pf->size)
		map_zero(pf->map, pf->size, off);
	if (!r) {
		size_t sz = famfs_fmap_sizeof(pf->map->nitems);

		copy = malloc(sz);
		if (copy)
			memcpy(copy, pf->map, sz);
		else
			r = -ENOMEM;
	}
	if (r) {
		pthread_mutex_unlock(&pf->mu);
		return r;
	}
	if (!pf->stores || off < pf->store_lo)
		pf->store_lo = off;
	if (!pf->stores || off + len > pf->store_hi)
		pf->store_hi = off + len;
	pf->stores++;
	if (off + len > pf->size)
		pf->size = off + len;
	pf->mtime_ns = pf->ctime_ns = famfs_now_ns();
	pthread_mutex_unlock(&pf->mu);
	*st = (struct pstore){ pf, copy, off, len };
	return (int64_t)len;
}

void pend_write_store(struct pstore *st, struct fuse_bufvec *src)
{
	struct pfile *pf = st->pf;
	int64_t n;

	if (!pf)
		return;
	FAMFS_KILL_POINT("fused.write_acked"); /* the writer has its answer */
	n = fused_put(st->map, st->off, src, st->len);
	free(st->map);
	pthread_mutex_lock(&pf->mu);
	if (n != (int64_t)st->len && !pf->store_err) {
		pf->store_err = n < 0 ? (int)n : -EIO;
		fused_log("%s: store of %zu bytes at %llu failed: %s", pf->name,
			  st->len, (unsigned long long)st->off,
			  strerror(-pf->store_err));
	}
	if (--pf->stores == 0)
		pthread_cond_broadcast(&pf->stores_done);
	pthread_mutex_unlock(&pf->mu);
}

int64_t pend_read(struct pfile *pf, void *buf, size_t len, uint64_t off)
{
	int64_t n = 0;

	pthread_mutex_lock(&pf->mu);
	pend_wait_stores(pf);
	if (pf->map)
		n = famfs_read(fused.fs, pf->map, pf->size, off, buf, len);
	pthread_mutex_unlock(&pf->mu);
	return n;
}

int pend_truncate(struct pfile *pf, uint64_t size)
{
	int r = 0;

	pthread_mutex_lock(&pf->mu);
	pend_wait_stores(pf);
	if (size > pf->size) {
		r = ensure_cap(pf, size, true);
		if (!r)
			map_zero(pf->map, pf->size, size);
	}
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
	pend_wait_stores(pf);
	r = ensure_cap(pf, off + len, true);
	if (!r && !(mode & FALLOC_FL_KEEP_SIZE) && off + len > pf->size) {
		map_zero(pf->map, pf->size, off + len);
		pf->size = off + len;
	}
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
	uint64_t left = pf->size, cap = famfs_fmap_bytes(m);
	unsigned k = 0;

	/* what a mapping of the last page would show past the end */
	map_zero(m, left, round_up(left, FAMFS_BLOCK_SIZE) < cap ?
		 round_up(left, FAMFS_BLOCK_SIZE) : cap);
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
