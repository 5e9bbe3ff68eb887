// SPDX-License-Identifier: Apache-2.0
/*
 * Placement on paper: the allocator's own rule (place.c) run over a copy
 * of its state, so that what the plan, statfs and the "no space" message
 * say is what famfs_alloc() will do. Nothing here touches the real state:
 * the copy lives in a shadow struct famfs_fs holding only what the
 * allocator reads (ndev, the superblock's pack threshold, the bitmaps).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void shadow_free(struct famfs_fs *sh)
{
	if (!sh)
		return;
	for (unsigned d = 0; d < sh->ndev; d++)
		free(sh->alloc.dev[d].bits);
	free(sh->alloc.packs);
	free(sh);
}

/* A copy of @fs's allocator state; the caller holds fs->lock. */
static struct famfs_fs *shadow_new(struct famfs_fs *fs)
{
	const struct famfs_alloc_state *a = &fs->alloc;
	struct famfs_fs *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->ndev = fs->ndev;
	sh->sb = fs->sb;
	sh->alloc.npack_slots = a->npack_slots;
	sh->alloc.npacks = a->npacks;
	sh->alloc.pack_cursor = a->pack_cursor;
	sh->alloc.packs = malloc(a->npack_slots * sizeof(*a->packs));
	if (!sh->alloc.packs)
		goto fail;
	memcpy(sh->alloc.packs, a->packs, a->npack_slots * sizeof(*a->packs));
	for (unsigned d = 0; d < fs->ndev; d++) {
		size_t bytes = DIV_ROUND_UP(a->dev[d].nunits, 64) * 8;

		sh->alloc.dev[d] = a->dev[d];
		sh->alloc.dev[d].bits = malloc(bytes);
		if (!sh->alloc.dev[d].bits) {
			sh->ndev = d;
			goto fail;
		}
		memcpy(sh->alloc.dev[d].bits, a->dev[d].bits, bytes);
	}
	return sh;
fail:
	shadow_free(sh);
	return NULL;
}

/* Longest run of free units on device @d. */
static uint64_t largest_run(const struct dev_alloc *da)
{
	uint64_t best = 0, run = 0;

	for (uint64_t u = da->first_unit; u < da->nunits; u++) {
		if (u % 64 == 0 && u + 64 <= da->nunits && da->bits[u / 64] == ~0ULL) {
			run = 0;
			u += 63;
			continue;
		}
		run = famfs_bit_test(da->bits, u) ? 0 : run + 1;
		if (run > best)
			best = run;
	}
	return best;
}

/* The shape famfs_alloc_map() gives a file of @size: strips, chunk. */
static void file_shape(const struct famfs_fs *fs, uint64_t size,
		       const struct famfs_alloc_policy *p, uint32_t *nstrips,
		       uint64_t *chunk)
{
	*nstrips = p && p->nstrips ? p->nstrips : fs->ndev;
	*chunk = p && p->chunk ? p->chunk : FAMFS_UNIT_SIZE;
	if (size <= fs->sb.pack_threshold || size <= *chunk || *nstrips < 2)
		*nstrips = 1;
	else if (DIV_ROUND_UP(size, *chunk) < *nstrips)
		*nstrips = (uint32_t)DIV_ROUND_UP(size, *chunk);
}

int famfs_space_describe(struct famfs_fs *fs, uint64_t size,
			 const struct famfs_alloc_policy *p, char *buf,
			 size_t len)
{
	uint32_t nstrips;
	uint64_t chunk, per_strip;
	size_t at;
	int n;

	file_shape(fs, size, p, &nstrips, &chunk);
	if (nstrips > 1)
		per_strip = DIV_ROUND_UP(size, (uint64_t)nstrips * chunk) * chunk;
	else
		per_strip = ROUND_UP(size, size <= fs->sb.pack_threshold ?
				     FAMFS_BLOCK_SIZE : FAMFS_UNIT_SIZE);
	n = snprintf(buf, len, "a file of %llu bytes takes %u strip%s of %llu "
		     "bytes%s; room on each device (free, largest run):",
		     (unsigned long long)size, nstrips, nstrips == 1 ? "" : "s",
		     (unsigned long long)per_strip,
		     nstrips > 1 ? ", each in one run" : "");
	if (n < 0)
		return n;
	at = (size_t)n;
	for (unsigned d = 0; d < fs->ndev && at < len; d++) {
		const struct dev_alloc *da = &fs->alloc.dev[d];

		n = snprintf(buf + at, len - at, "%s dev%u %llu, %llu", d ? ";" : "",
			     d, (unsigned long long)(da->free_units * FAMFS_UNIT_SIZE),
			     (unsigned long long)(largest_run(da) * FAMFS_UNIT_SIZE));
		if (n < 0)
			return n;
		at += (size_t)n;
	}
	return 0;
}

FAMFS_EXPORT int famfs_space_why(struct famfs_fs *fs, uint64_t size,
				 const struct famfs_alloc_policy *p, char *buf,
				 size_t len)
{
	int r;

	pthread_rwlock_rdlock(&fs->lock);
	r = famfs_space_describe(fs, size, p, buf, len);
	pthread_rwlock_unlock(&fs->lock);
	return r;
}

/* Whether a file of @units whole units places on @sh; leaves @sh as it was. */
static bool fits_units(struct famfs_fs *sh, uint64_t units,
		       const struct famfs_alloc_policy *p)
{
	uint64_t hints[FAMFS_MAX_DEVICES];
	struct famfs_fmap *m = NULL;
	struct famfs_err e;

	for (unsigned d = 0; d < sh->ndev; d++)
		hints[d] = sh->alloc.dev[d].hint;
	if (famfs_alloc_map(sh, units * FAMFS_UNIT_SIZE, p, &m, &e))
		return false;
	famfs_alloc_unmark(sh, m);
	free(m);
	for (unsigned d = 0; d < sh->ndev; d++)
		sh->alloc.dev[d].hint = hints[d];
	return true;
}

/* The largest file, in whole units, that places on @sh with @p. A larger
 * file needs more units per strip (or more extents), so whether a size
 * fits only turns from yes to no once as the size grows: a binary search.
 */
static uint64_t largest_file_units(struct famfs_fs *sh,
				   const struct famfs_alloc_policy *p)
{
	uint64_t lo = 0, hi = 0;

	for (unsigned d = 0; d < sh->ndev; d++)
		hi += sh->alloc.dev[d].free_units;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (fits_units(sh, mid, p))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Smallest per-device free space, whole chunks, times the strip count. */
static uint64_t striped_bytes(const struct famfs_fs *fs)
{
	uint64_t least = UINT64_MAX;

	for (unsigned d = 0; d < fs->ndev; d++)
		if (fs->alloc.dev[d].free_units < least)
			least = fs->alloc.dev[d].free_units;
	return fs->ndev ? least * FAMFS_UNIT_SIZE * fs->ndev : 0;
}

void famfs_space_placeable(struct famfs_fs *fs, struct famfs_space *s)
{
	struct famfs_fs *sh = shadow_new(fs);

	s->striped_bytes = striped_bytes(fs);
	s->ndev = fs->ndev;
	/* without memory for the copy, say what is sure: nothing larger
	 * than the smallest device's free space times the strips
	 */
	s->largest_file_bytes = sh ? largest_file_units(sh, NULL) * FAMFS_UNIT_SIZE
				   : s->striped_bytes;
	for (unsigned d = 0; d < fs->ndev && d < FAMFS_SPACE_MAX_DEV; d++)
		s->dev_free_bytes[d] = fs->alloc.dev[d].free_units * FAMFS_UNIT_SIZE;
	shadow_free(sh);
}

/* Place @sizes in order on @sh, which the plan then frees. */
static int plan_on(struct famfs_fs *sh, const uint64_t *sizes, uint64_t n,
		   const struct famfs_alloc_policy *p,
		   struct famfs_place_result *res, struct famfs_err *e)
{
	int r = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct famfs_fmap *m = NULL;
		struct famfs_err pe;

		r = famfs_alloc_map(sh, sizes[i], p, &m, &pe);
		if (r) {
			res->first_failed = i;
			res->failed_size = sizes[i];
			res->placed = i;
			famfs_set_err(e, r, "file %llu of %llu: %s",
				      (unsigned long long)i + 1,
				      (unsigned long long)n, pe.msg);
			break;
		}
		res->alloc_bytes += famfs_fmap_bytes(m);
		free(m);
		res->placed = i + 1;
	}
	shadow_free(sh);
	return r;
}

FAMFS_EXPORT int famfs_place_plan(struct famfs_fs *fs, const uint64_t *sizes,
				  uint64_t n, const struct famfs_alloc_policy *p,
				  struct famfs_place_result *res,
				  struct famfs_err *e)
{
	struct famfs_fs *sh;

	memset(res, 0, sizeof(*res));
	pthread_rwlock_rdlock(&fs->lock);
	sh = shadow_new(fs);
	pthread_rwlock_unlock(&fs->lock);
	if (!sh)
		return famfs_set_err(e, -ENOMEM, "out of memory for the placement plan");
	return plan_on(sh, sizes, n, p, res, e);
}

FAMFS_EXPORT int famfs_place_plan_new(const uint64_t *dev_bytes, unsigned ndev,
				      uint64_t log_size, const uint64_t *sizes,
				      uint64_t n,
				      const struct famfs_alloc_policy *p,
				      struct famfs_place_result *res,
				      struct famfs_err *e)
{
	struct famfs_dev devs[FAMFS_MAX_DEVICES];
	struct famfs_fs *sh;
	int r = 0;

	memset(res, 0, sizeof(*res));
	if (!ndev || ndev > FAMFS_MAX_DEVICES)
		return famfs_set_err(e, -EINVAL, "%u devices: from 1 to %d",
				     ndev, FAMFS_MAX_DEVICES);
	log_size = log_size ? log_size : FAMFS_LOG_DEFAULT_SIZE;
	if (log_size % FAMFS_UNIT_SIZE || log_size > dev_bytes[0])
		return famfs_set_err(e, -EINVAL, "log size %llu: a multiple of "
				     "2 MiB inside the first device",
				     (unsigned long long)log_size);
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return famfs_set_err(e, -ENOMEM, "out of memory for the placement plan");
	/* the geometry mkfs writes (mkfs.c): the log on the first device */
	memset(devs, 0, sizeof(devs));
	sh->ndev = ndev;
	sh->sb.log_offset = FAMFS_LOG_OFFSET;
	sh->sb.log_size = log_size;
	sh->sb.pack_threshold = (uint32_t)FAMFS_MiB;
	for (unsigned d = 0; d < ndev; d++) {
		devs[d].size = dev_bytes[d] / FAMFS_UNIT_SIZE * FAMFS_UNIT_SIZE;
		sh->dev[d] = &devs[d];
	}
	r = famfs_alloc_init(sh);
	for (unsigned d = 0; d < ndev; d++)
		sh->dev[d] = NULL;
	if (r) {
		shadow_free(sh);
		return famfs_set_err(e, r, r == -EINVAL ? "a device holds "
				     "less than one data unit past its label "
				     "(and the first, past the log)" :
				     "out of memory for the placement plan");
	}
	return plan_on(sh, sizes, n, p, res, e);
}
