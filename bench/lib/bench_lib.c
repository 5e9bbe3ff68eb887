// SPDX-License-Identifier: Apache-2.0
/*
 * libfamfs benchmarks (issue: Foundation). Every figure is printed next to
 * a baseline measured in the same run, because these machines are noisy:
 *  1. resolve cost and map size: computed interleave descriptor versus the
 *     same file expanded into 2 MiB extents (binary search, the best an
 *     extent list can do), for 1 GB, 1 TB and 100 TB files;
 *  2. file creation rate in one batch, against creating, sizing and closing
 *     the same number of files on tmpfs;
 *  3. log replay rate for 1,000,000 entries, against a bare CRC32C pass over
 *     the same log bytes (the floor of any validating replay).
 * Usage: bench_lib [--entries N] [--dir DIR]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Expanded map: extent k covers file bytes [k*U, (k+1)*U). */
struct expanded {
	uint64_t n;
	uint64_t *file_off;
	struct famfs_map_item *ext;
};

static int expanded_resolve(const struct expanded *x, uint64_t off,
			    struct famfs_loc *loc)
{
	uint64_t lo = 0, hi = x->n;

	while (hi - lo > 1) {
		uint64_t mid = (lo + hi) / 2;

		if (x->file_off[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	loc->dev_index = x->ext[lo].dev_index;
	loc->dev_offset = x->ext[lo].offset + (off - x->file_off[lo]);
	loc->length = x->ext[lo].length - (off - x->file_off[lo]);
	return 0;
}

static void bench_resolve(void)
{
	static const struct { const char *name; uint64_t size; } files[] = {
		{ "1 GB", 1000ULL * 1000 * 1000 },
		{ "1 TB", 1000ULL * 1000 * 1000 * 1000 },
		{ "100 TB", 100ULL * 1000 * 1000 * 1000 * 1000 },
	};
	const uint32_t nstrips = 8;
	const uint64_t chunk = FAMFS_UNIT_SIZE;
	const int lookups = 2000000;

	printf("\n## resolve: computed interleave vs expanded 2 MiB extents (%u strips)\n\n",
	       nstrips);
	printf("| file | descriptor bytes | expanded bytes | size ratio | ns/resolve computed | ns/resolve expanded | speed ratio |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- |\n");
	for (unsigned f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		uint64_t size = files[f].size;
		uint64_t stripes = DIV_ROUND_UP(size, nstrips * chunk);
		struct famfs_fmap *m = calloc(1, famfs_fmap_sizeof(nstrips));
		struct expanded x;
		struct famfs_loc a, b;
		uint64_t sink = 0, *offs = malloc(lookups * sizeof(*offs));
		double t0, t1, t2;

		m->type = FAMFS_MAP_INTERLEAVE;
		m->nitems = (uint16_t)nstrips;
		m->chunk = chunk;
		for (uint32_t i = 0; i < nstrips; i++) {
			m->items[i].dev_index = i;
			m->items[i].offset = FAMFS_UNIT_SIZE;
			m->items[i].length = stripes * chunk;
		}
		/* the same file as one extent per chunk, in file order */
		x.n = stripes * nstrips;
		x.file_off = malloc(x.n * sizeof(*x.file_off));
		x.ext = malloc(x.n * sizeof(*x.ext));
		for (uint64_t k = 0; k < x.n; k++) {
			famfs_fmap_resolve(m, k * chunk, &a);
			x.file_off[k] = k * chunk;
			x.ext[k].dev_index = a.dev_index;
			x.ext[k].offset = a.dev_offset;
			x.ext[k].length = chunk;
		}
		for (int i = 0; i < lookups; i++)
			offs[i] = next_rand() % size;
		t0 = now_s();
		for (int i = 0; i < lookups; i++) {
			famfs_fmap_resolve(m, offs[i], &a);
			sink += a.dev_offset;
		}
		t1 = now_s();
		for (int i = 0; i < lookups; i++) {
			expanded_resolve(&x, offs[i], &b);
			sink -= b.dev_offset;
		}
		t2 = now_s();
		if (sink != 0)
			printf("MISMATCH between computed and expanded maps\n");
		uint64_t dbytes = sizeof(struct famfs_entry_file) + nstrips * sizeof(struct famfs_map_item);
		uint64_t xbytes = x.n * sizeof(struct famfs_map_item);
		double nc = (t1 - t0) / lookups * 1e9, nx = (t2 - t1) / lookups * 1e9;

		printf("| %s | %llu | %llu | %.0fx smaller | %.1f | %.1f | %.1fx faster |\n",
		       files[f].name, (unsigned long long)dbytes,
		       (unsigned long long)xbytes, (double)xbytes / (double)dbytes,
		       nc, nx, nx / nc);
		fflush(stdout);
		free(x.file_off);
		free(x.ext);
		free(offs);
		free(m);
	}
}

static double bench_tmpfs_creates(const char *dir, int n)
{
	char p[512];
	double t0 = now_s();

	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/tmpfs-%d", dir, i);
		int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);

		if (fd < 0 || ftruncate(fd, 4096) != 0) {
			perror(p);
			exit(1);
		}
		close(fd);
	}
	double t = now_s() - t0;

	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/tmpfs-%d", dir, i);
		unlink(p);
	}
	return n / t;
}

int main(int argc, char **argv)
{
	const char *dir = "/dev/shm";
	long entries = 1000000;
	char dev[512];
	struct famfs_err e = { 0 };

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--entries"))
			entries = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--dir"))
			dir = argv[i + 1];
	}
	printf("# libfamfs benchmark\n");
	bench_resolve();

	/* 1,000 directories, then files of 4 KiB (packed) up to `entries` */
	long dirs = entries / 1000 > 0 ? entries / 1000 : 1, files = entries - dirs;
	uint64_t log_size = ROUND_UP((uint64_t)entries * 160 + FAMFS_MiB, FAMFS_UNIT_SIZE);
	uint64_t dev_size = ROUND_UP((uint64_t)files * 4096 + log_size + 8 * FAMFS_MiB,
				     FAMFS_UNIT_SIZE);
	const char *paths[1] = { dev };
	struct famfs_mkfs_opts mo = { .log_size = log_size, .master_name = "bench" };
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_MASTER, .host_name = "bench" };
	struct famfs_fs *fs;
	char p[64];

	snprintf(dev, sizeof(dev), "%s/famfs-bench-lib.%d", dir, getpid());
	if (famfs_emul_create(dev, dev_size, &e) || famfs_mkfs(paths, 1, &mo, NULL, &e) ||
	    famfs_open(paths, 1, &oo, &fs, &e)) {
		fprintf(stderr, "setup: %s\n", e.msg);
		unlink(dev);
		return 1;
	}
	printf("\n## file creation (%ld directories, %ld files of 4 KiB, one batch)\n\n",
	       dirs, files);
	double t0 = now_s();

	for (long d = 0; d < dirs; d++) {
		snprintf(p, sizeof(p), "/d%04ld", d);
		famfs_mkdir(fs, p, 0755, 0, 0, &e);
	}
	for (long i = 0; i < files; i++) {
		struct famfs_file_attr a = { .size = 4096, .mode = 0644 };

		snprintf(p, sizeof(p), "/d%04ld/f%07ld", i % dirs, i);
		if (famfs_create_file(fs, p, &a, NULL, NULL, &e)) {
			fprintf(stderr, "create %s: %s\n", p, e.msg);
			break;
		}
	}
	double create_s = now_s() - t0;
	double creates = (double)entries / create_s;
	double tmpfs = bench_tmpfs_creates(dir, 100000);

	famfs_close(fs);
	printf("| what | per second | ratio |\n| --- | --- | --- |\n");
	printf("| famfs creates (alloc + zero 4 KiB + log append + flush) | %.0f | %.2f x goal (10,000/s) |\n",
	       creates, creates / 10000);
	printf("| tmpfs open+ftruncate+close, same run | %.0f | famfs/tmpfs = %.2f |\n",
	       tmpfs, creates / tmpfs);
	printf("| famfs upstream `famfs creat` (90-120 ms each, its issue #60) | ~10 | %.0fx |\n",
	       creates / 10);

	printf("\n## log replay of %ld entries (open: CRC + seq checks, tree, allocator)\n\n",
	       entries);
	oo.flags = FAMFS_OPEN_READ;
	double best = 1e9, crc_best = 1e9;
	uint64_t log_used = 0;

	for (int run = 0; run < 3; run++) {
		double a = now_s();

		if (famfs_open(paths, 1, &oo, &fs, &e)) {
			fprintf(stderr, "open: %s\n", e.msg);
			return 1;
		}
		double b = now_s() - a;

		if (b < best)
			best = b;
		if (fs->nentries != (uint64_t)entries)
			printf("WARNING: replayed %llu entries, expected %ld\n",
			       (unsigned long long)fs->nentries, entries);
		log_used = fs->tail;
		/* baseline: one CRC32C pass over the same bytes */
		a = now_s();
		volatile uint32_t c = famfs_crc32c(0, fs->log + FAMFS_LOG_HEADER_SIZE,
						   log_used - FAMFS_LOG_HEADER_SIZE);
		(void)c;
		b = now_s() - a;
		if (b < crc_best)
			crc_best = b;
		famfs_close(fs);
	}
	printf("| what | seconds | entries/s | ratio |\n| --- | --- | --- | --- |\n");
	printf("| replay (best of 3) | %.3f | %.0f | %.2f x goal (1,000,000/s) |\n", best,
	       entries / best, entries / best / 1e6);
	printf("| CRC32C pass over the %.1f MiB of entries | %.3f | %.0f | replay = %.1f x CRC time |\n",
	       (double)log_used / FAMFS_MiB, crc_best, entries / crc_best, best / crc_best);
	unlink(dev);
	return 0;
}
