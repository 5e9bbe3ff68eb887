/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Clocks and the floors of a mount, measured in the mounting process right
 * after its famfs_open, so that a mount's time can be read against what
 * no mount here can avoid:
 *  - a CRC32C pass over the log in a fresh mapping of the device: the log
 *    must be read and checksummed whole, and on this VM the first read of
 *    each 4 KiB page of an emulated device (a /dev/shm file) costs a few
 *    microseconds (real DAX memory is mapped in 2 MiB pages);
 *  - first writes to as much fresh anonymous memory as the tree took: the
 *    kernel zeroes every page, and in this VM a page handed back to the
 *    host costs a host fault (shared/PERF-NOTES.md).
 * Shared by bench_lib and bench_mount.
 */
#ifndef FAMFS_BENCH_FLOOR_H
#define FAMFS_BENCH_FLOOR_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static inline double clock_now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double now_s(void) { return clock_now(CLOCK_MONOTONIC); }

/* CPU time of this process: under a shared machine's load, wall time
 * mostly measures the wait for a core.
 */
static inline double cpu_s(void) { return clock_now(CLOCK_PROCESS_CPUTIME_ID); }

struct floor_time {
	double cpu, wall;
};

/* The baseline: a CRC32C pass over the log's entries at @p, timed on the
 * second pass (replay of an emulated device reads by pread, not through
 * this mapping, so the first pass would also time the mapping's first
 * reads: that is floor_crc_cold()).
 */
static inline struct floor_time crc_warm(const uint8_t *p, uint64_t len)
{
	struct floor_time t;
	volatile uint32_t crc = famfs_crc32c(0, p, len);
	double w = now_s(), c = cpu_s();

	crc = famfs_crc32c(0, p, len);
	(void)crc;
	t.cpu = cpu_s() - c;
	t.wall = now_s() - w;
	return t;
}

/* The CRC32C pass over log bytes [@off, @off + @len) of device @path in
 * a mapping of its own, populated up front as replay's map-ahead does.
 */
static inline struct floor_time floor_crc_cold(const char *path, uint64_t off,
					       uint64_t len)
{
	struct floor_time t = { -1, -1 };
	double w = now_s(), c = cpu_s();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *p;

	if (fd < 0)
		return t;
	p = mmap(NULL, off + len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return t;
	madvise(p, off + len, MADV_POPULATE_READ);
	volatile uint32_t crc = famfs_crc32c(0, p + off, len);
	(void)crc;
	munmap(p, off + len);
	t.cpu = cpu_s() - c;
	t.wall = now_s() - w;
	return t;
}

/* This process's anonymous memory, bytes (RssAnon). */
static inline uint64_t rss_anon_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long kb = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/* First writes to @bytes of fresh anonymous memory on huge pages where
 * the kernel has them (as the tree's arena and tables ask for).
 */
static inline struct floor_time floor_fresh_memory(uint64_t bytes)
{
	struct floor_time t = { -1, -1 };
	double w = now_s(), c = cpu_s();
	uint8_t *p;

	if (!bytes)
		return (struct floor_time){ 0, 0 };
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return t;
	madvise(p, bytes, MADV_HUGEPAGE);
	for (uint64_t i = 0; i < bytes; i += 4096)
		((volatile uint8_t *)p)[i] = 1;
	munmap(p, bytes);
	t.cpu = cpu_s() - c;
	t.wall = now_s() - w;
	return t;
}

#endif
