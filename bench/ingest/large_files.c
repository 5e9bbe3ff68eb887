// SPDX-License-Identifier: Apache-2.0
/*
 * Large files alone (issue 14, point 2): the ingest engine copying a tree
 * of large files into fresh emulated devices, against a 1-thread memcpy of
 * the same byte count measured in the same run, round after round (the
 * machine is noisy: only same-round ratios mean something).
 *
 * Usage: ingest_large_files SOURCE DEVDIR ROUNDS THREADS warm|cold
 * SOURCE holds the files (a loop-mounted XFS in bench/ingest/large.sh),
 * DEVDIR is where the 4 emulated devices go (a huge=always tmpfs).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest.h"

#define NDEV 4
#define MEMCPY_BUF (256ULL << 20)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* 1 thread, pre-faulted buffers, @bytes copied in MEMCPY_BUF pieces. */
static double memcpy_gbs(uint64_t bytes)
{
	static char *s, *d;
	double t0 = s ? 1 : 0;

	if (!s) {
		s = malloc(MEMCPY_BUF);
		d = malloc(MEMCPY_BUF);
		if (!s || !d)
			exit(1);
		memset(s, 7, MEMCPY_BUF);
		memset(d, 0, MEMCPY_BUF);
	}
	if (!t0) /* first round: a discarded pass (first touch of the pages) */
		memcpy(d, s, MEMCPY_BUF);
	t0 = now();
	for (uint64_t done = 0; done < bytes; done += MEMCPY_BUF) {
		uint64_t n = bytes - done < MEMCPY_BUF ? bytes - done : MEMCPY_BUF;

		memcpy(d, s, n);
		__asm__ volatile("" : : "r"(d) : "memory");
	}
	return (double)bytes / (now() - t0) / 1e9;
}

/*
 * Every file of the source dropped from the page cache, then (warm) read
 * back: the page cache then holds what readahead makes of a file read from
 * disk (large folios), not what writing it left (small ones, which pread
 * copies out 2-3 x slower: bench/results/ingest.md).
 */
static void source_cache(const char *dir, bool warm)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	static char buf[1 << 20];

	if (!d)
		exit(1);
	while ((e = readdir(d))) {
		char p[4096];
		int fd;

		if (e->d_type != DT_REG)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (warm)
			while (read(fd, buf, sizeof(buf)) > 0)
				;
		close(fd);
	}
	closedir(d);
}

static struct famfs_fs *fresh_fs(const char *devdir, uint64_t devsize)
{
	char path[NDEV][512];
	const char *paths[NDEV];
	struct famfs_mkfs_opts mo = { .log_size = 64 * FAMFS_MiB, .master_name = "bench" };
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_MASTER, .host_name = "bench" };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;

	for (unsigned i = 0; i < NDEV; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/dev%u", devdir, i);
		unlink(path[i]);
		paths[i] = path[i];
		if (famfs_emul_create(path[i], devsize, &e))
			goto bad;
	}
	if (famfs_mkfs(paths, NDEV, &mo, NULL, &e) || famfs_open(paths, NDEV, &oo, &fs, &e))
		goto bad;
	return fs;
bad:
	fprintf(stderr, "%s\n", e.msg);
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct ingest_plan plan;
	char why[512];
	double ratio[64], ing[64], mem[64];
	int rounds;
	unsigned threads;
	bool warm;

	if (argc != 6) {
		fprintf(stderr, "usage: %s SOURCE DEVDIR ROUNDS THREADS warm|cold\n", argv[0]);
		return 2;
	}
	rounds = atoi(argv[3]);
	threads = (unsigned)atoi(argv[4]);
	warm = !strcmp(argv[5], "warm");
	if (rounds < 1 || rounds > 64)
		return 2;
	if (ingest_plan_build(argv[1], "/big", &plan, why, sizeof(why))) {
		fprintf(stderr, "%s\n", why);
		return 1;
	}
	/* each device holds a quarter of the bytes, plus slack and the log */
	uint64_t devsize = (plan.bytes / NDEV + 256 * FAMFS_MiB) / FAMFS_UNIT_SIZE *
			   FAMFS_UNIT_SIZE;

	printf("# %llu files, %llu bytes, %u ingest threads, source %s\n",
	       (unsigned long long)plan.files, (unsigned long long)plan.bytes, threads,
	       warm ? "warm (in the page cache)" : "cold (dropped from the page cache)");
	printf("| round | memcpy 1 thread GB/s | ingest GB/s | ratio |\n| --- | --- | --- | --- |\n");
	for (int r = 0; r < rounds; r++) {
		struct famfs_fs *fs = fresh_fs(argv[2], devsize);
		struct ingest_opts o = { .source = argv[1], .dest = "/big", .threads = threads };
		struct ingest_progress prog;
		struct ingest_result res;
		struct ingest_sink sink;
		double t0;

		memset(&prog, 0, sizeof(prog));
		ingest_sink_lib(&sink, fs);
		mem[r] = memcpy_gbs(plan.bytes);
		source_cache(argv[1], warm);
		t0 = now();
		if (ingest_run(&o, &plan, &sink, NULL, &prog, &res)) {
			fprintf(stderr, "ingest: %s\n", res.message);
			return 1;
		}
		ing[r] = (double)plan.bytes / (now() - t0) / 1e9;
		ratio[r] = ing[r] / mem[r];
		printf("| %d | %.2f | %.2f | %.2f |\n", r + 1, mem[r], ing[r], ratio[r]);
		fflush(stdout);
		famfs_close(fs);
	}
	qsort(ratio, (size_t)rounds, sizeof(double), cmp_double);
	qsort(ing, (size_t)rounds, sizeof(double), cmp_double);
	qsort(mem, (size_t)rounds, sizeof(double), cmp_double);
	printf("| median | %.2f | %.2f | **%.2f** |\n", mem[rounds / 2], ing[rounds / 2],
	       ratio[rounds / 2]);
	/* the least disturbed of each (others' load only ever slows a run) */
	printf("| best | %.2f | %.2f | %.2f |\n", mem[rounds - 1], ing[rounds - 1],
	       ing[rounds - 1] / mem[rounds - 1]);
	ingest_plan_free(&plan);
	return 0;
}
