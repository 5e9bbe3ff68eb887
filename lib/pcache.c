// SPDX-License-Identifier: Apache-2.0
/*
 * The appliers' parent cache: directories by a hash of their path, so
 * that consecutive entries under one directory resolve it once. Two ways
 * per set, each way tagged with the full prefix hash: a direct-mapped
 * cache of 4,096 slots put ~20 % of 1,000 directories on a shared slot
 * (bench_mount's log fills them in turn), and each of those entries then
 * walked the path again and prefetched the wrong name-table slot
 * (bench/results/lib.md, 2026-12-04 22:30). A hit is only a candidate:
 * famfs_ns_parent_cached() verifies it by its names.
 */
#include <string.h>

#include "internal.h"

static struct famfs_pcache_way *pcache_set(struct famfs_fs *fs, uint32_t h)
{
	return fs->parent_cache[h % FAMFS_PCACHE_SETS];
}

struct famfs_node *famfs_pcache_hint(struct famfs_fs *fs, uint32_t h)
{
	struct famfs_pcache_way *w = pcache_set(fs, h);

	if (w[0].dir && w[0].hash == h)
		return w[0].dir;
	if (w[1].dir && w[1].hash == h)
		return w[1].dir;
	return NULL;
}

void famfs_pcache_used(struct famfs_fs *fs, uint32_t h, struct famfs_node *dir)
{
	struct famfs_pcache_way *w = pcache_set(fs, h), t;

	if (w[0].dir == dir && w[0].hash == h)
		return;
	/* the used way first; a new one pushes out the older of the two */
	t = w[1].dir == dir && w[1].hash == h ? w[1] :
	    (struct famfs_pcache_way){ .hash = h, .dir = dir };
	w[1] = w[0];
	w[0] = t;
}

void famfs_pcache_forget(struct famfs_fs *fs, const struct famfs_node *dir)
{
	for (size_t s = 0; s < FAMFS_PCACHE_SETS; s++)
		for (size_t i = 0; i < 2; i++)
			if (fs->parent_cache[s][i].dir == dir)
				fs->parent_cache[s][i] =
					(struct famfs_pcache_way){ 0 };
}

void famfs_pcache_clear(struct famfs_fs *fs)
{
	memset(fs->parent_cache, 0, sizeof(fs->parent_cache));
}
