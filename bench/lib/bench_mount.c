// SPDX-License-Identifier: Apache-2.0
/*
 * One mount of an existing log, for A/B runs of two library builds on the
 * same log (bench_lib makes its own log per run, so two builds never see
 * the same bytes there). Each invocation is a fresh process, as fused is:
 *   bench_mount --make DEV N   a log of N entries (N/1000 MKDIR, the rest
 *                              FILE, one entry each), bench_lib's layout
 *   bench_mount DEV [ROUNDS]   a client famfs_open (what fused does before
 *                              it serves), then ROUNDS-1 more opens in
 *                              the same process (the in-process replay of
 *                              bench_lib); after each, a CRC32C pass over
 *                              the same entries, the baseline
 * Prints one line per open: round, CPU s, wall s, CRC CPU s, CRC wall s,
 * entries, the open's user and system CPU s (the system part is mostly
 * the kernel zeroing the tree's fresh pages), then the floors of
 * bench_floor.h: CRC pass in a fresh mapping (CPU s, wall s), the
 * anonymous bytes the open took, and first writes to as many fresh bytes
 * (CPU s, wall s).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_floor.h"

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static int make_log(const char *dev, long entries)
{
	long dirs = entries / 1000 > 0 ? entries / 1000 : 1, files = entries - dirs;
	uint64_t log_size = ROUND_UP((uint64_t)entries * 170 + FAMFS_MiB,
				     FAMFS_UNIT_SIZE);
	uint64_t dev_size = ROUND_UP((uint64_t)entries * 4096 + log_size +
				     8 * FAMFS_MiB, FAMFS_UNIT_SIZE);
	const char *paths[1] = { dev };
	struct famfs_mkfs_opts mo = { .log_size = log_size, .master_name = "bench" };
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_MASTER, .host_name = "bench" };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	char p[64];

	int fd;

	/* A sparse file, not famfs_emul_create()'s allocated one: 10 M files
	 * of 4 KiB span 41 GB, and only the log is ever read. A hole reads
	 * as zeros, so skipping famfs_create_file()'s zero fill (alloc +
	 * commit below) leaves the same bytes and the same log.
	 */
	unlink(dev);
	fd = open(dev, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0660);
	if (fd < 0 || ftruncate(fd, (off_t)dev_size)) {
		fprintf(stderr, "setup: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	close(fd);
	if (famfs_mkfs(paths, 1, &mo, NULL, &e) ||
	    famfs_open(paths, 1, &oo, &fs, &e)) {
		fprintf(stderr, "setup: %s\n", e.msg);
		return 1;
	}
	for (long d = 0; d < dirs; d++) {
		snprintf(p, sizeof(p), "/d%04ld", d);
		famfs_mkdir(fs, p, 0755, 0, 0, &e);
	}
	for (long i = 0; i < files; i++) {
		struct famfs_file_attr a = { .size = 4096, .mode = 0644 };
		struct famfs_fmap *m = NULL;

		snprintf(p, sizeof(p), "/d%04ld/f%07ld", i % dirs, i);
		if (famfs_alloc(fs, a.size, NULL, &m, &e) ||
		    famfs_commit_file(fs, p, &a, m, &e)) {
			fprintf(stderr, "create %s: %s\n", p, e.msg);
			return 1;
		}
		free(m);
	}
	famfs_close(fs);
	return 0;
}

int main(int argc, char **argv)
{
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_CLIENT,
				      .host_name = "bench" };
	int rounds;

	if (argc == 4 && !strcmp(argv[1], "--make"))
		return make_log(argv[2], atol(argv[3]));
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_mount DEV [ROUNDS] | --make DEV N\n");
		return 2;
	}
	rounds = argc == 3 ? atoi(argv[2]) : 1;
	for (int r = 0; r < rounds; r++) {
		const char *paths[1] = { argv[1] };
		struct famfs_err e = { 0 };
		struct famfs_fs *fs;
		uint64_t rss = rss_anon_bytes();
		double w = now_s(), c = cpu_s(), cw, cc, u, k;
		struct floor_time warm, cold, mem;
		struct rusage ru0, ru1;

		getrusage(RUSAGE_SELF, &ru0);

		if (famfs_open(paths, 1, &oo, &fs, &e)) {
			fprintf(stderr, "mount: %s\n", e.msg);
			return 1;
		}
		w = now_s() - w;
		c = cpu_s() - c;
		getrusage(RUSAGE_SELF, &ru1);
		u = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
		k = tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
		rss = rss_anon_bytes() - rss;
		warm = crc_warm(fs->log + FAMFS_LOG_HEADER_SIZE,
				fs->tail - FAMFS_LOG_HEADER_SIZE);
		cw = warm.wall;
		cc = warm.cpu;
		cold = floor_crc_cold(argv[1], fs->sb.log_offset + FAMFS_LOG_HEADER_SIZE,
				      fs->tail - FAMFS_LOG_HEADER_SIZE);
		mem = floor_fresh_memory(rss);
		printf("%d %.4f %.4f %.4f %.4f %llu %.4f %.4f %.4f %.4f %llu %.4f %.4f\n",
		       r, c, w, cc, cw, (unsigned long long)fs->nentries, u, k,
		       cold.cpu, cold.wall, (unsigned long long)rss, mem.cpu, mem.wall);
		famfs_close(fs);
	}
	return 0;
}
