// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: validation of maps handed in by user space.
 * Builds in the kernel and in user space (see famfs_map.h).
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/overflow.h>
#else
#include <errno.h>
#include <stdbool.h>
#define U64_MAX UINT64_MAX
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#endif

#include "famfs_map.h"

static int famfs_item_check(const struct famfs_map_item *it,
			    const struct famfs_kgeom *g)
{
	u64 end;

	if (it->dev_index >= g->ndev || it->reserved != 0 || it->length == 0)
		return -EINVAL;
	if (it->offset % FAMFS_BLOCK_SIZE || it->length % FAMFS_BLOCK_SIZE)
		return -EINVAL;
	if (check_add_overflow(it->offset, it->length, &end))
		return -EINVAL;
	if (it->offset < g->dev[it->dev_index].data_start ||
	    end > g->dev[it->dev_index].size)
		return -EINVAL;
	return 0;
}

static bool famfs_items_overlap(const struct famfs_map_item *a,
				const struct famfs_map_item *b)
{
	/* Both ends were checked for overflow by famfs_item_check(). */
	return a->dev_index == b->dev_index &&
	       a->offset < b->offset + b->length &&
	       b->offset < a->offset + a->length;
}

/* Bytes an extent list holds, or -EINVAL if the sum overflows. */
static int famfs_extents_capacity(const struct famfs_kmap *m, u64 *cap)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < m->nitems; i++)
		if (check_add_overflow(sum, m->items[i].length, &sum))
			return -EINVAL;
	*cap = sum;
	return 0;
}

/*
 * The longest file prefix an interleave descriptor maps without a gap.
 * Strip s holds k_s = len_s / C whole chunks, so the first chunk it lacks
 * is number k_s * N + s; every chunk before the smallest such number is
 * mapped. A partial chunk at the end of a strip is not counted.
 */
static int famfs_interleave_capacity(const struct famfs_kmap *m, u64 *cap)
{
	u64 first_gap = U64_MAX, gap;
	unsigned int s;

	for (s = 0; s < m->nitems; s++) {
		if (check_mul_overflow(m->items[s].length / m->chunk,
				       (u64)m->nitems, &gap) ||
		    check_add_overflow(gap, (u64)s, &gap))
			return -EINVAL;
		if (gap < first_gap)
			first_gap = gap;
	}
	if (check_mul_overflow(first_gap, m->chunk, cap))
		return -EINVAL;
	return 0;
}

int famfs_kmap_validate(const struct famfs_kmap *m, u64 size,
			const struct famfs_kgeom *g)
{
	u64 cap;
	unsigned int i, j;
	int rc;

	if (m->reserved != 0)
		return -EINVAL;
	if (m->nitems == 0)
		return size == 0 ? 0 : -EINVAL;
	if (m->nitems > FAMFS_MAX_EXTENTS || m->nitems > FAMFS_MAX_STRIPS)
		return -EINVAL;

	switch (m->map_type) {
	case FAMFS_MAP_EXTENTS:
		if (m->chunk != 0)
			return -EINVAL;
		break;
	case FAMFS_MAP_INTERLEAVE:
		if (m->chunk == 0 || m->chunk % FAMFS_UNIT_SIZE)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	for (i = 0; i < m->nitems; i++) {
		rc = famfs_item_check(&m->items[i], g);
		if (rc)
			return rc;
		if (m->map_type == FAMFS_MAP_INTERLEAVE &&
		    m->chunk > g->dev[m->items[i].dev_index].size)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (famfs_items_overlap(&m->items[i], &m->items[j]))
				return -EINVAL;
	}

	if (m->map_type == FAMFS_MAP_EXTENTS)
		rc = famfs_extents_capacity(m, &cap);
	else
		rc = famfs_interleave_capacity(m, &cap);
	if (rc)
		return rc;
	return size <= cap ? 0 : -EINVAL;
}
