// SPDX-License-Identifier: Apache-2.0
/*
 * bench-kmod: the file-offset -> device-offset arithmetic of libfamfs
 * (famfs_fmap_resolve) and of the kernel module's iomap_begin
 * (famfs_kmap_resolve, kmod/famfs_map.h, built here as user space) on the
 * same interleaved maps of 1 GB, 1 TB and 100 TB files. Both call
 * famfs_resolve_items() from include/famfs/fmap_resolve.h; this proves they answer
 * the same and measures ns per resolve and the bytes each map holds,
 * against an extent list with one 2 MiB extent per chunk.
 *
 *   bench-kmod           full run, prints a markdown table
 *   bench-kmod --check   short run, only compares answers (ctest)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "famfs.h"
#include "famfs_map.h"

#define MiB ((uint64_t)1024 * 1024)
#define TB ((uint64_t)1000 * 1000 * 1000 * 1000)
#define NOFFS 4096		/* offsets per case, cycled */
#define NSTRIPS 8
#define CHUNK (2 * MiB)

struct maps {
	struct famfs_fmap *lib;
	struct famfs_kmap *kmod;
	uint64_t size;
};

/* An interleave descriptor over NSTRIPS equal strips covering @size. */
static int build_maps(uint64_t size, struct maps *m)
{
	uint64_t strip = (size / NSTRIPS + CHUNK - 1) / CHUNK * CHUNK;

	m->size = size;
	m->lib = calloc(1, famfs_fmap_sizeof(NSTRIPS));
	m->kmod = calloc(1, famfs_kmap_bytes(NSTRIPS));
	if (!m->lib || !m->kmod)
		return -ENOMEM;
	m->lib->type = m->kmod->map_type = FAMFS_MAP_INTERLEAVE;
	m->lib->nitems = m->kmod->nitems = NSTRIPS;
	m->lib->chunk = m->kmod->chunk = CHUNK;
	for (unsigned i = 0; i < NSTRIPS; i++) {
		struct famfs_map_item it = {
			.offset = 10 * MiB + i * strip, .length = strip,
		};
		m->lib->items[i] = it;
		m->kmod->items[i] = it;
	}
	return 0;
}

static void free_maps(struct maps *m)
{
	free(m->lib);
	free(m->kmod);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Same location for every offset, and the module's validator agrees. */
static int same_answers(const struct maps *m, const uint64_t *offs)
{
	const struct famfs_kgeom g = {
		.ndev = 1, .dev = { { .size = UINT64_MAX / 2,
				      .data_start = 10 * MiB } },
	};
	struct famfs_loc a, b;

	if (famfs_kmap_validate(m->kmod, m->size, &g)) {
		printf("kmod refuses the %" PRIu64 "-byte map\n", m->size);
		return 1;
	}
	for (int i = 0; i < NOFFS; i++) {
		int ra = famfs_fmap_resolve(m->lib, offs[i], &a);
		int rb = famfs_kmap_resolve(m->kmod, offs[i], &b);

		if ((ra != 0) != (rb != 0) || (!ra && memcmp(&a, &b, sizeof(a)))) {
			printf("offset %" PRIu64 ": lib and kmod differ\n",
			       offs[i]);
			return 1;
		}
	}
	return 0;
}

static volatile uint64_t sink;

static double ns_lib(const struct maps *m, const uint64_t *offs, long iters)
{
	struct famfs_loc loc = { 0 };
	uint64_t acc = 0;
	double t0 = now_ns();

	for (long i = 0; i < iters; i++) {
		famfs_fmap_resolve(m->lib, offs[i & (NOFFS - 1)], &loc);
		acc += loc.dev_offset;
	}
	sink = acc;
	return (now_ns() - t0) / (double)iters;
}

static double ns_kmod(const struct maps *m, const uint64_t *offs, long iters)
{
	struct famfs_loc loc = { 0 };
	uint64_t acc = 0;
	double t0 = now_ns();

	for (long i = 0; i < iters; i++) {
		/* what famfs_iomap_begin does: page-align, then resolve */
		famfs_kmap_resolve(m->kmod, offs[i & (NOFFS - 1)] & ~4095ULL,
				   &loc);
		acc += loc.dev_offset;
	}
	sink = acc;
	return (now_ns() - t0) / (double)iters;
}

int main(int argc, char **argv)
{
	const uint64_t sizes[] = { 1000ULL * 1000 * 1000, TB, 100 * TB };
	const char *names[] = { "1 GB", "1 TB", "100 TB" };
	int check = argc > 1 && !strcmp(argv[1], "--check");
	long iters = check ? 1000 : 20000000;
	uint64_t offs[NOFFS], seed = 0x9E3779B97F4A7C15ULL;
	int bad = 0;

	if (!check) {
		printf("| file | strips x chunk | lib ns/resolve | kmod ns/resolve "
		       "| lib map bytes | kmod map bytes | 2 MiB extent list "
		       "bytes |\n|---|---|---|---|---|---|---|\n");
	}
	for (int s = 0; s < 3; s++) {
		struct maps m;
		double nl, nk;

		if (build_maps(sizes[s], &m))
			return 1;
		for (int i = 0; i < NOFFS; i++)
			offs[i] = xorshift(&seed) % sizes[s];
		bad |= same_answers(&m, offs);
		nl = ns_lib(&m, offs, iters);
		nk = ns_kmod(&m, offs, iters);
		if (!check)
			printf("| %s | %d x 2 MiB | %.1f | %.1f | %zu | %zu | "
			       "%" PRIu64 " |\n", names[s], NSTRIPS, nl, nk,
			       famfs_fmap_sizeof(NSTRIPS),
			       famfs_kmap_bytes(NSTRIPS),
			       (sizes[s] + CHUNK - 1) / CHUNK *
			       (uint64_t)sizeof(struct famfs_map_item));
		free_maps(&m);
	}
	printf("lib and kmod resolve: %s\n", bad ? "DIFFER" : "same answers");
	return bad;
}
