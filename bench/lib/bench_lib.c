// SPDX-License-Identifier: Apache-2.0
/*
 * libfamfs benchmarks (issue: Foundation). Every figure is printed next to
 * a baseline measured in the same run, because these machines are noisy:
 *  1. resolve cost and map size: computed interleave descriptor versus the
 *     same file expanded into 2 MiB extents (binary search, the best an
 *     extent list can do), for 1 GB, 1 TB and 100 TB files;
 *  2. file creation rate, one log append per file and with group commit
 *     (64 per append), against creating, sizing and closing the same
 *     number of files on tmpfs;
 *  3. log replay rate for 1,000,000 entries, against a bare CRC32C pass over
 *     the same log bytes (the floor of any validating replay);
 *  4. the mount: what fused does before it serves (a client's famfs_open:
 *     devices, replay, tree, slot), in a fresh process each round, since
 *     a mount gets all its memory fresh from the kernel (a replay in the
 *     bench's own process reuses the heap of the round before), next to
 *     its floors measured in the same child (bench_floor.h): a CRC32C pass
 *     in a fresh mapping of the log, first writes to as much fresh memory
 *     as the tree took.
 * Usage: bench_lib [--entries N] [--creates N] [--dir DIR]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "bench_floor.h"
#include "internal.h"

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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median3(double v[3])
{
	qsort(v, 3, sizeof(v[0]), cmp_double);
	return v[1];
}

/* A fresh emulated device with an empty filesystem, open as master. */
static struct famfs_fs *fresh_fs(const char *dev, uint64_t nfiles)
{
	uint64_t log_size = ROUND_UP(nfiles * 170 + FAMFS_MiB, FAMFS_UNIT_SIZE);
	uint64_t dev_size = ROUND_UP(nfiles * 4096 + log_size + 8 * FAMFS_MiB,
				     FAMFS_UNIT_SIZE);
	const char *paths[1] = { dev };
	struct famfs_mkfs_opts mo = { .log_size = log_size, .master_name = "bench" };
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_MASTER, .host_name = "bench" };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;

	unlink(dev);
	if (famfs_emul_create(dev, dev_size, &e) || famfs_mkfs(paths, 1, &mo, NULL, &e) ||
	    famfs_open(paths, 1, &oo, &fs, &e)) {
		fprintf(stderr, "setup: %s\n", e.msg);
		unlink(dev);
		exit(1);
	}
	return fs;
}

static void make_dirs(struct famfs_fs *fs, long dirs)
{
	struct famfs_err e = { 0 };
	char p[64];

	for (long d = 0; d < dirs; d++) {
		snprintf(p, sizeof(p), "/d%04ld", d);
		famfs_mkdir(fs, p, 0755, 0, 0, &e);
	}
}

/* famfs_create_file() per file: alloc, zero, flush, one log append each. */
static double creates_single(struct famfs_fs *fs, long files, long dirs)
{
	struct famfs_err e = { 0 };
	char p[64];
	double t0 = now_s();

	for (long i = 0; i < files; i++) {
		struct famfs_file_attr a = { .size = 4096, .mode = 0644 };

		snprintf(p, sizeof(p), "/d%04ld/f%07ld", i % dirs, i);
		if (famfs_create_file(fs, p, &a, NULL, NULL, &e)) {
			fprintf(stderr, "create %s: %s\n", p, e.msg);
			exit(1);
		}
	}
	return files / (now_s() - t0);
}

/* The same work with group commit: 64 files per famfs_commit_files(). */
static double creates_batched(struct famfs_fs *fs, long files, long dirs)
{
	static char paths[64][64];
	struct famfs_commit_req r[64];
	struct famfs_err e = { 0 };
	double t0 = now_s();
	unsigned n = 0;

	for (long i = 0; i < files; i++) {
		struct famfs_fmap *m;

		if (famfs_alloc(fs, 4096, NULL, &m, &e)) {
			fprintf(stderr, "alloc: %s\n", e.msg);
			exit(1);
		}
		for (unsigned k = 0; k < m->nitems; k++) {
			struct famfs_dev *d = famfs_fs_dev(fs, m->items[k].dev_index);

			memset(famfs_dev_base(d) + m->items[k].offset, 0, m->items[k].length);
			famfs_dev_flush(d, m->items[k].offset, m->items[k].length);
		}
		snprintf(paths[n], sizeof(paths[n]), "/d%04ld/f%07ld", i % dirs, i);
		memset(&r[n], 0, sizeof(r[n]));
		r[n].path = paths[n];
		r[n].attr.size = 4096;
		r[n].attr.mode = 0644;
		r[n].map = m;
		if (++n == 64 || i == files - 1) {
			if (famfs_commit_files(fs, r, n, &e) != (int)n) {
				fprintf(stderr, "batch: %s %s\n", e.msg, r[0].why);
				exit(1);
			}
			for (unsigned k = 0; k < n; k++)
				free((void *)r[k].map);
			n = 0;
		}
	}
	return files / (now_s() - t0);
}

struct mount_times {
	double wall, cpu;             /* famfs_open */
	double crc_wall, crc_cpu;     /* CRC32C over the same log bytes */
	struct floor_time cold, mem;  /* bench_floor.h */
	uint64_t entries, tree_bytes;
};

/* A client mount in a fresh child process; false if it failed. */
static bool mount_fresh(const char *const *paths, struct mount_times *t)
{
	int fds[2], status;
	pid_t pid;
	bool ok;

	if (pipe(fds))
		return false;
	pid = fork();
	if (pid == 0) {
		struct famfs_open_opts oo = { .flags = FAMFS_OPEN_CLIENT,
					      .host_name = "bench" };
		struct famfs_err e = { 0 };
		struct mount_times m = { 0 };
		struct famfs_fs *fs;
		uint64_t rss = rss_anon_bytes();
		double a = now_s(), ac = cpu_s();

		close(fds[0]);
		if (famfs_open(paths, 1, &oo, &fs, &e)) {
			fprintf(stderr, "mount: %s\n", e.msg);
			_exit(1);
		}
		m.wall = now_s() - a;
		m.cpu = cpu_s() - ac;
		m.entries = fs->nentries;
		m.tree_bytes = rss_anon_bytes() - rss;
		struct floor_time crc = crc_warm(fs->log + FAMFS_LOG_HEADER_SIZE,
						 fs->tail - FAMFS_LOG_HEADER_SIZE);

		m.crc_wall = crc.wall;
		m.crc_cpu = crc.cpu;
		m.cold = floor_crc_cold(paths[0], fs->sb.log_offset + FAMFS_LOG_HEADER_SIZE,
					fs->tail - FAMFS_LOG_HEADER_SIZE);
		m.mem = floor_fresh_memory(m.tree_bytes);
		famfs_close(fs);
		_exit(write(fds[1], &m, sizeof(m)) == (ssize_t)sizeof(m) ? 0 : 1);
	}
	close(fds[1]);
	ok = pid > 0 && read(fds[0], t, sizeof(*t)) == (ssize_t)sizeof(*t);
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return ok;
}

int main(int argc, char **argv)
{
	const char *dir = "/dev/shm";
	long entries = 1000000, cfiles = 100000;
	char dev[512];
	struct famfs_err e = { 0 };

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--entries"))
			entries = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--creates"))
			cfiles = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--dir"))
			dir = argv[i + 1];
	}
	printf("# libfamfs benchmark\n");
	bench_resolve();
	snprintf(dev, sizeof(dev), "%s/famfs-bench-lib.%d", dir, getpid());

	/* creates: tmpfs, one commit per file, group commit; interleaved */
	long cdirs = cfiles / 1000 > 0 ? cfiles / 1000 : 1;
	double tm[3], one[3], grp[3];

	for (int run = 0; run < 3; run++) {
		struct famfs_fs *fs;

		tm[run] = bench_tmpfs_creates(dir, (int)cfiles);
		fs = fresh_fs(dev, (uint64_t)cfiles + (uint64_t)cdirs);
		make_dirs(fs, cdirs);
		one[run] = creates_single(fs, cfiles - cdirs, cdirs);
		famfs_close(fs);
		fs = fresh_fs(dev, (uint64_t)cfiles + (uint64_t)cdirs);
		make_dirs(fs, cdirs);
		grp[run] = creates_batched(fs, cfiles - cdirs, cdirs);
		famfs_close(fs);
	}
	double tmpfs = median3(tm), single = median3(one), batched = median3(grp);

	printf("\n## file creation (%ld files of 4 KiB in %ld directories, median of 3)\n\n",
	       cfiles - cdirs, cdirs);
	printf("| what | per second | vs tmpfs, same run |\n| --- | --- | --- |\n");
	printf("| tmpfs open+ftruncate+close | %.0f | 1.00 |\n", tmpfs);
	printf("| famfs_create_file() (alloc + zero 4 KiB + flush + one log append each) | %.0f | %.2f |\n",
	       single, single / tmpfs);
	printf("| group commit: alloc + zero + flush each, famfs_commit_files() per 64 | %.0f | %.2f |\n",
	       batched, batched / tmpfs);

	/* replay: a log of `entries` entries (1,000 dirs, then files), written
	 * one entry per file as the slowest case for replay
	 */
	long dirs = entries / 1000 > 0 ? entries / 1000 : 1, files = entries - dirs;
	struct famfs_fs *fs = fresh_fs(dev, (uint64_t)entries);
	const char *paths[1] = { dev };
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_READ, .host_name = "bench" };

	make_dirs(fs, dirs);
	creates_single(fs, files, dirs);
	famfs_close(fs);
	printf("\n## log replay of %ld entries (open: CRC + seq checks, tree, allocator; median of 3)\n\n",
	       entries);
	double rp[3], cr[3], rpc[3], crc_cpu[3];
	uint64_t log_used = 0;

	for (int run = 0; run < 3; run++) {
		double a = now_s(), ac = cpu_s();

		if (famfs_open(paths, 1, &oo, &fs, &e)) {
			fprintf(stderr, "open: %s\n", e.msg);
			return 1;
		}
		rp[run] = now_s() - a;
		rpc[run] = cpu_s() - ac;
		if (fs->nentries != (uint64_t)entries)
			printf("WARNING: replayed %llu entries, expected %ld\n",
			       (unsigned long long)fs->nentries, entries);
		log_used = fs->tail;
		/* baseline: one CRC32C pass over the same bytes */
		struct floor_time crc = crc_warm(fs->log + FAMFS_LOG_HEADER_SIZE,
						 log_used - FAMFS_LOG_HEADER_SIZE);

		cr[run] = crc.wall;
		crc_cpu[run] = crc.cpu;
		famfs_close(fs);
	}
	double best = median3(rp), crc_best = median3(cr);
	double best_cpu = median3(rpc), crc_best_cpu = median3(crc_cpu);

	printf("| what | seconds | entries/s | ratio |\n| --- | --- | --- | --- |\n");
	printf("| replay (open of the filesystem) | %.3f | %.0f | %.2f x goal (5,000,000/s); mount goal < 0.5 s |\n",
	       best, entries / best, entries / best / 5e6);
	printf("| CRC32C pass over the %.1f MiB of entries | %.3f | %.0f | replay = %.1f x CRC time |\n",
	       (double)log_used / FAMFS_MiB, crc_best, entries / crc_best, best / crc_best);
	printf("| replay, CPU time | %.3f | %.0f | %.2f x goal |\n", best_cpu,
	       entries / best_cpu, entries / best_cpu / 5e6);
	printf("| CRC32C pass, CPU time | %.3f | %.0f | replay = %.1f x CRC CPU time |\n",
	       crc_best_cpu, entries / crc_best_cpu, best_cpu / crc_best_cpu);

	struct mount_times mt[3];
	double mw[3], mc[3], mcrc[3], mcrc_cpu[3], cold[3], mem[3], tb[3];

	for (int run = 0; run < 3; run++) {
		if (!mount_fresh(paths, &mt[run])) {
			fprintf(stderr, "mount round %d failed\n", run);
			unlink(dev);
			return 1;
		}
		if (mt[run].entries != (uint64_t)entries)
			printf("WARNING: mounted %llu entries, expected %ld\n",
			       (unsigned long long)mt[run].entries, entries);
		mw[run] = mt[run].wall;
		mc[run] = mt[run].cpu;
		mcrc[run] = mt[run].crc_wall;
		mcrc_cpu[run] = mt[run].crc_cpu;
		cold[run] = mt[run].cold.cpu;
		mem[run] = mt[run].mem.cpu;
		tb[run] = (double)mt[run].tree_bytes;
	}
	double mount = median3(mw), mount_cpu = median3(mc);
	double mount_crc = median3(mcrc), mount_crc_cpu = median3(mcrc_cpu);
	double cold_cpu = median3(cold), mem_cpu = median3(mem), tree = median3(tb);

	printf("\n## mount of %ld files: a client's famfs_open in a fresh process (median of 3)\n\n",
	       files);
	printf("| what | seconds | ratio |\n| --- | --- | --- |\n");
	printf("| mount, wall | %.3f | %.2f x goal (< 0.5 s); = %.1f x the CRC pass |\n",
	       mount, mount / 0.5, mount / mount_crc);
	printf("| mount, CPU time | %.3f | %.2f x goal; = %.1f x the CRC pass; %.0f entries/s |\n",
	       mount_cpu, mount_cpu / 0.5, mount_cpu / mount_crc_cpu,
	       entries / mount_cpu);
	printf("| CRC32C pass in the same process, wall / CPU | %.3f / %.3f | |\n",
	       mount_crc, mount_crc_cpu);
	printf("| floor: CRC32C pass in a fresh mapping of the log, CPU | %.3f | mount = %.1f x |\n",
	       cold_cpu, mount_cpu / cold_cpu);
	printf("| floor: first writes to %.0f MiB of fresh memory (the tree's %.0f bytes per entry), CPU | %.3f | |\n",
	       tree / FAMFS_MiB, tree / entries, mem_cpu);

	unlink(dev);
	return 0;
}
