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
 *
 * The sets grow with the directories (at least 4 sets a directory, up to
 * FAMFS_PCACHE_SETS_MAX): at a fixed 4,096 sets, 10,000 directories used
 * in turn missed ~70 % of the time, and each miss cost two uncached
 * name-table probes (the walk, then the slot the prefetch got wrong).
 * A way names its directory by inode (create_seq + 1; 0 is empty) and
 * the ino table gives the node: a removed directory's inode maps to
 * nothing, so nothing is forgotten by a scan of every set.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static struct famfs_pcache_way *pcache_set(struct famfs_fs *fs, uint32_t h)
{
	return fs->pcache.ways + 2 * (h & fs->pcache.mask);
}

static struct famfs_node *way_dir(struct famfs_fs *fs,
				  const struct famfs_pcache_way *w)
{
	uint64_t seq = w->seq1 - 1;

	return w->seq1 && seq < fs->inos.cap ? fs->inos.by_seq[seq] : NULL;
}

struct famfs_node *famfs_pcache_hint(struct famfs_fs *fs, uint32_t h)
{
	struct famfs_pcache_way *w;

	if (!fs->pcache.ways)
		return NULL;
	w = pcache_set(fs, h);
	if (w[0].seq1 && w[0].hash == h)
		return way_dir(fs, &w[0]);
	if (w[1].seq1 && w[1].hash == h)
		return way_dir(fs, &w[1]);
	return NULL;
}

/* At least 4 sets a directory: more cannot fail (the old ways stay). */
static void pcache_fit(struct famfs_fs *fs)
{
	struct famfs_pcache c = { 0 };
	uint64_t sets = fs->pcache.ways ? fs->pcache.mask + 1 : 0;

	if (sets >= FAMFS_PCACHE_SETS_MAX ||
	    (sets && fs->ndirs * 4 <= sets))
		return;
	if (!sets)
		sets = FAMFS_PCACHE_SETS / 2;
	do
		sets *= 2;
	while (sets < FAMFS_PCACHE_SETS_MAX && fs->ndirs * 4 > sets);
	c.ways = calloc(sets * 2, sizeof(*c.ways));
	if (!c.ways)
		return;
	c.mask = sets - 1;
	if (fs->pcache.ways) {
		for (uint64_t i = 0; i < (fs->pcache.mask + 1) * 2; i++) {
			const struct famfs_pcache_way *o = &fs->pcache.ways[i];
			struct famfs_pcache_way *w;

			if (!o->seq1)
				continue;
			w = c.ways + 2 * (o->hash & c.mask);
			w[w[0].seq1 ? 1 : 0] = *o; /* a third is dropped */
		}
		free(fs->pcache.ways);
	}
	fs->pcache = c;
}

void famfs_pcache_used(struct famfs_fs *fs, uint32_t h, struct famfs_node *dir)
{
	struct famfs_pcache_way *w, t = { .hash = h, .seq1 = dir->create_seq + 1 };

	pcache_fit(fs);
	if (!fs->pcache.ways)
		return;
	w = pcache_set(fs, h);
	if (w[0].seq1 == t.seq1 && w[0].hash == h)
		return;
	/* the used way first; a new one pushes out the older of the two */
	w[1] = w[0];
	w[0] = t;
}

void famfs_pcache_clear(struct famfs_fs *fs)
{
	free(fs->pcache.ways);
	memset(&fs->pcache, 0, sizeof(fs->pcache));
}
