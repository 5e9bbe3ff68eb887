// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck replay-bench: the kernel mount's replay of a large log
 * against the guest's own CRC32C pass over the same log bytes (issue 35,
 * bench/kmod/replay.sh, bench/results/kmod.md). Under TCG every figure is
 * the emulator's speed; only the ratio in one guest means something.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "famfs.h"
#include "famfs_kmount.h"
#include "vmcheck.h"
#include "famfs/format.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A /proc/meminfo field, bytes. */
static uint64_t meminfo(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "re");
	unsigned long long kb = 0;
	char line[256];
	size_t n = strlen(field);

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			sscanf(line + n + 1, "%llu", &kb);
			break;
		}
	fclose(f);
	return (uint64_t)kb * 1024;
}

/* Free what the page cache and the slab caches hold, for the memory
 * deltas: the mount must not look cheaper for reusing a freed dentry.
 */
static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	sync();
	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			perror("drop_caches");
		close(fd);
	}
}

/*
 * The baseline: CRC32C over the log's entries [@off, @off + @len) of the
 * mount's .meta/dev0 (DAX, as the mount's replay reads them) in a fresh
 * mapping, populated up front as bench_floor.h's floor_crc_cold() does
 * for the FUSE bench.
 */
static double crc_pass(const char *meta, uint64_t off, uint64_t len,
		       uint32_t *crc)
{
	double w = clock_s(CLOCK_MONOTONIC);
	int fd = open(meta, O_RDONLY | O_CLOEXEC);
	uint8_t *p;

	if (fd < 0)
		return -1;
	p = mmap(NULL, off + len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, off + len, MADV_POPULATE_READ);
	*crc = famfs_crc32c(0, p + off, len);
	munmap(p, off + len);
	return clock_s(CLOCK_MONOTONIC) - w;
}

/* Where the log's entries are: a user-space replay of the mount's
 * .meta/dev0.. (@ndev of them), timed.
 */
static int log_extent(const char *mnt, unsigned ndev, uint64_t *off,
		      uint64_t *len, uint64_t *entries, double *secs)
{
	char buf[FAMFS_MAX_DEVICES][FAMFS_PATH_MAX];
	const char *paths[FAMFS_MAX_DEVICES];
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_log_status st;
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	double w;

	for (unsigned i = 0; i < ndev; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s/.meta/dev%u", mnt, i);
		paths[i] = buf[i];
	}
	w = clock_s(CLOCK_MONOTONIC);
	if (famfs_open(paths, ndev, &o, &fs, &e)) {
		fprintf(stderr, "replay-bench: %s: %s\n", mnt, e.msg);
		return 1;
	}
	*secs = clock_s(CLOCK_MONOTONIC) - w;
	famfs_log_status(fs, &st);
	*off = famfs_fs_sb(fs)->log_offset + FAMFS_LOG_HEADER_SIZE;
	*len = st.used_bytes - FAMFS_LOG_HEADER_SIZE;
	*entries = st.entries;
	famfs_close(fs);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * @rounds times: a client kernel mount of @devs at @mnt (mount(2) + the
 * replay through the module's ioctls: famfs-cli mount --kernel --client),
 * the CRC pass, the slab the mount keeps (its dentries, inodes, maps and
 * claims; MemAvailable counts the reclaimable part as free), the
 * unmount. Prints one BENCH
 * line per round and the medians.
 */
int replay_bench(const char *mnt, unsigned rounds, char **devs,
		 unsigned ndev)
{
	double mount_s[16], crc_s[16], ratio[16], umount_s[16], lib_s = 0;
	uint64_t off = 0, len = 0, entries = 0, files = 0;
	int64_t slab[16];
	char meta[FAMFS_PATH_MAX], desc[FAMFS_PATH_MAX];
	uint32_t crc = 0;

	if (rounds < 1 || rounds > 16)
		return fprintf(stderr, "replay-bench: 1..16 rounds\n"), 1;
	snprintf(meta, sizeof(meta), "%s/.meta/dev0", mnt);
	for (unsigned r = 0; r < rounds; r++) {
		struct famfs_kmount_count n = { 0 };
		struct famfs_err e = { 0 };
		int64_t slab0;
		double w;

		drop_caches();
		slab0 = (int64_t)meminfo("Slab");
		w = clock_s(CLOCK_MONOTONIC);
		if (famfs_kmount_mount((const char *const *)devs, ndev, mnt,
				       true, &n, desc,
				       sizeof(desc), &e)) {
			fprintf(stderr, "replay-bench: mount: %s\n", e.msg);
			return 1;
		}
		mount_s[r] = clock_s(CLOCK_MONOTONIC) - w;
		files = n.files + n.dirs + n.symlinks;
		slab[r] = (int64_t)meminfo("Slab") - slab0;
		if (r == 0 &&
		    log_extent(mnt, ndev, &off, &len, &entries, &lib_s))
			return 1;
		crc_s[r] = crc_pass(meta, off, len, &crc);
		if (crc_s[r] <= 0)
			return fail("crc pass over", meta);
		ratio[r] = mount_s[r] / crc_s[r];
		w = clock_s(CLOCK_MONOTONIC);
		if (umount(mnt))
			return fail("umount", mnt);
		umount_s[r] = clock_s(CLOCK_MONOTONIC) - w;
		printf("BENCH replay round %u: %" PRIu64 " entries, %" PRIu64
		       " in the mount; mount %.2f s, CRC pass %.3f s "
		       "(%" PRIu64 " MB, crc %08x), mount / CRC %.1f; umount "
		       "%.2f s; slab %.0f B/file\n",
		       r, entries, files, mount_s[r], crc_s[r], len / 1000000,
		       crc, ratio[r], umount_s[r],
		       files ? (double)slab[r] / files : 0.0);
		fflush(stdout);
	}
	printf("BENCH replay user-space replay alone (famfs_open of %s/"
	       ".meta): %.2f s\n", mnt, lib_s);
	qsort(mount_s, rounds, sizeof(double), cmp_double);
	qsort(crc_s, rounds, sizeof(double), cmp_double);
	qsort(ratio, rounds, sizeof(double), cmp_double);
	printf("BENCH kmod_replay %" PRIu64 " entries x %u rounds: median "
	       "mount %.2f s, CRC pass %.3f s, mount / CRC %.1f (min %.1f, "
	       "max %.1f)\n", entries, rounds, mount_s[rounds / 2],
	       crc_s[rounds / 2], ratio[rounds / 2], ratio[0],
	       ratio[rounds - 1]);
	return 0;
}
