// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck: the in-guest half of the kmod VM tests. Each subcommand
 * proves one behaviour of a famfs kernel mount and exits 0 only if it
 * holds; guest/kmod.sh strings them together.
 *
 *   mkfs DEV...                   format DEV... as one filesystem
 *   populate DEV...               master: /dir, /plain, /dir/il, /small
 *   live MOUNTPOINT PATH SEED     master through the mount's meta files:
 *                                 create PATH (4 MiB) holding pattern SEED
 *   write-mmap|write-io FILE SEED fill FILE with pattern SEED
 *   verify-read|verify-mmap FILE SEED
 *   rw-cross FILE SEED            odd-sized I/O across chunk boundaries
 *   pmd FILE                      a 2 MiB (PMD) DAX fault really happens
 *   bench FILE DAXDEV ROUNDS      P1c: mmap read of FILE vs the same bytes
 *                                 in a devdax device (bench/results/kmod.md)
 *   mapinfo FILE                  the kernel's map size does not grow
 *   badmaps MOUNTPOINT            bad maps from user space get -EINVAL
 *   expect-rofs FILE              a client mount refuses writes
 *   grow MOUNTPOINT PATH SEED STRIPS MIB
 *                                 like live, MIB MiB in STRIPS strips
 *                                 (SEED 0: no data written)
 *   reuse MOUNTPOINT OLD NEW SEED master via meta: delete OLD, create NEW
 *                                 (same size, pattern SEED) on OLD's memory
 *   http SOCKET METHOD PATH [JSON] one request to famfsd; prints the
 *                                 status line and body, exit 0 on 2xx
 *   hold FILE SEED FLAG SEED2     mmap FILE, check SEED, touch FLAG.ready,
 *                                 wait for FLAG, check SEED2 (the mapping
 *                                 still reaches the same memory)
 *   cat-mmap FILE                 FILE's bytes, read through a shared
 *                                 mapping, to stdout (checksums of
 *                                 another host's files through mmap)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "famfs.h"
#include "uapi/famfs_ioctl.h"

#define MiB ((uint64_t)1024 * 1024)
#define IO_CHUNK MiB
#define TRACE "/sys/kernel/tracing"

/* ---- the test pattern ---------------------------------------------------
 * Byte o of a file filled with @seed: byte o % 8 of the 64-bit word
 * (o / 8) * golden + seed, so every word differs and every seed differs.
 */
static uint64_t pattern_word(unsigned seed, uint64_t o);

static uint8_t pattern_byte(unsigned seed, uint64_t o)
{
	return (uint8_t)(pattern_word(seed, o) >> (8 * (o % 8)));
}

static uint64_t pattern_word(unsigned seed, uint64_t o)
{
	return (o / 8) * 0x9E3779B97F4A7C15ULL + seed;
}

/* Word at a time where aligned (TCG guests are slow per byte). */
static void pattern_fill(unsigned seed, uint64_t off, uint8_t *p, size_t len)
{
	size_t i = 0;

	for (; i < len && (off + i) % 8; i++)
		p[i] = pattern_byte(seed, off + i);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = pattern_word(seed, off + i);

		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = pattern_byte(seed, off + i);
}

/* Returns the first mismatching offset, or UINT64_MAX if all match. */
static uint64_t pattern_check(unsigned seed, uint64_t off, const uint8_t *p,
			      size_t len)
{
	size_t i = 0;
	uint64_t w;

	for (; i < len && (off + i) % 8; i++)
		if (p[i] != pattern_byte(seed, off + i))
			return off + i;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		if (w != pattern_word(seed, off + i))
			break;
	}
	for (; i < len; i++)
		if (p[i] != pattern_byte(seed, off + i))
			return off + i;
	return UINT64_MAX;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "famfs-vmcheck: %s %s: %s\n", what, path,
		strerror(errno));
	return 1;
}

static int open_size(const char *path, int flags, uint64_t *size)
{
	struct stat st;
	int fd = open(path, flags);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

static int write_mmap(const char *path, unsigned seed)
{
	uint64_t size;
	uint8_t *p;
	int fd = open_size(path, O_RDWR, &size);

	if (fd < 0)
		return fail("open", path);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap", path);
	pattern_fill(seed, 0, p, size);
	if (msync(p, size, MS_SYNC) < 0)
		return fail("msync", path);
	munmap(p, size);
	close(fd);
	printf("%s: wrote %" PRIu64 " bytes (seed %u) through mmap\n", path,
	       size, seed);
	return 0;
}

static int write_io(const char *path, unsigned seed)
{
	static uint8_t buf[IO_CHUNK];
	uint64_t size, off;
	int fd = open_size(path, O_RDWR, &size);

	if (fd < 0)
		return fail("open", path);
	for (off = 0; off < size; off += IO_CHUNK) {
		size_t n = size - off < IO_CHUNK ? size - off : IO_CHUNK;

		pattern_fill(seed, off, buf, n);
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
			return fail("pwrite", path);
	}
	if (fsync(fd) < 0)
		return fail("fsync", path);
	close(fd);
	printf("%s: wrote %" PRIu64 " bytes (seed %u) through write()\n", path,
	       size, seed);
	return 0;
}

static int report_check(const char *path, const char *how, uint64_t bad,
			uint64_t size, unsigned seed)
{
	if (bad != UINT64_MAX) {
		fprintf(stderr, "%s: mismatch at offset %" PRIu64
			" (seed %u) through %s\n", path, bad, seed, how);
		return 1;
	}
	printf("%s: %" PRIu64 " bytes match seed %u through %s\n", path, size,
	       seed, how);
	return 0;
}

static int verify_read(const char *path, unsigned seed)
{
	static uint8_t buf[IO_CHUNK];
	uint64_t size, off, bad = UINT64_MAX;
	int fd = open_size(path, O_RDONLY, &size);
	ssize_t n;

	if (fd < 0)
		return fail("open", path);
	for (off = 0; off < size && bad == UINT64_MAX; off += (uint64_t)n) {
		n = pread(fd, buf, IO_CHUNK, (off_t)off);
		if (n <= 0)
			return fail("pread (short file)", path);
		bad = pattern_check(seed, off, buf, (size_t)n);
	}
	/* At EOF read() returns 0: the file ends where its size says. */
	if (bad == UINT64_MAX && pread(fd, buf, 1, (off_t)size) != 0)
		return fail("read past EOF returned data", path);
	close(fd);
	return report_check(path, "read()", bad, size, seed);
}

static int verify_mmap(const char *path, unsigned seed)
{
	uint64_t size, bad;
	uint8_t *p;
	int fd = open_size(path, O_RDONLY, &size);

	if (fd < 0)
		return fail("open", path);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap", path);
	bad = pattern_check(seed, 0, p, size);
	munmap(p, size);
	close(fd);
	return report_check(path, "mmap", bad, size, seed);
}

static int cat_mmap(const char *path)
{
	uint64_t size, done = 0;
	uint8_t *p = NULL;
	int fd = open_size(path, O_RDONLY, &size);

	if (fd < 0)
		return fail("open", path);
	if (size) {
		p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return fail("mmap", path);
	}
	while (done < size) {
		ssize_t n = write(STDOUT_FILENO, p + done, size - done);

		if (n <= 0)
			return fail("write to stdout of", path);
		done += (uint64_t)n;
	}
	if (p)
		munmap(p, size);
	close(fd);
	return 0;
}

/*
 * write() and read() at odd offsets and lengths across chunk (strip)
 * boundaries: each call spans several iomap_begin mappings. The range
 * gets pattern @seed + 100, is checked through mmap and read(), and is
 * then given back pattern @seed, so the file is as before.
 */
static int rw_cross(const char *path, unsigned seed)
{
	static uint8_t buf[MiB + 4096];
	const uint64_t at[] = { 2 * MiB - 100, 4 * MiB - 4097, 8 * MiB - 3 };
	uint64_t size, bad = UINT64_MAX;
	uint8_t *p;
	int fd = open_size(path, O_RDWR, &size);

	if (fd < 0)
		return fail("open", path);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap", path);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		uint64_t off = at[i], len = sizeof(buf) - 12345 * i;

		if (off + len > size)
			len = size - off;
		pattern_fill(seed + 100, off, buf, len);
		if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len)
			return fail("pwrite", path);
		bad = pattern_check(seed + 100, off, p + off, len);
		memset(buf, 0, len);
		if (bad == UINT64_MAX &&
		    pread(fd, buf, len, (off_t)off) != (ssize_t)len)
			return fail("pread", path);
		if (bad == UINT64_MAX)
			bad = pattern_check(seed + 100, off, buf, len);
		if (bad != UINT64_MAX)
			break;
		printf("%s: %" PRIu64 " bytes at %" PRIu64 " across chunks: "
		       "write(), mmap and read() agree\n", path, len, off);
		pattern_fill(seed, off, buf, len);
		if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len)
			return fail("pwrite", path);
	}
	munmap(p, size);
	close(fd);
	if (bad != UINT64_MAX) {
		fprintf(stderr, "%s: mismatch at %" PRIu64 "\n", path, bad);
		return 1;
	}
	return 0;
}

/* ---- PMD faults ---------------------------------------------------------- */

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * Count dax_pmd_fault_done lines for inode @ino: *@mapped whose result is
 * NOPAGE (a PMD was inserted), *@fallback whose result fell back to PTEs.
 */
static int count_pmd_faults(uint64_t ino, int *mapped, int *fallback)
{
	char line[1024], tag[64];
	FILE *f = fopen(TRACE "/trace", "r");

	if (!f)
		return -1;
	*mapped = *fallback = 0;
	snprintf(tag, sizeof(tag), "ino %#" PRIx64 " ", ino);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "dax_pmd_fault_done") || !strstr(line, tag))
			continue;
		if (strstr(line, "FALLBACK")) {
			if ((*fallback)++ == 0)
				printf("  first fallback: %s", line);
		} else if (strstr(line, "NOPAGE")) {
			if ((*mapped)++ == 0)
				printf("  first PMD fault: %s", line);
		}
	}
	fclose(f);
	return 0;
}

/*
 * Map the file at 2 MiB alignment and touch every 2 MiB: the fs_dax
 * tracepoint must show PMD faults that inserted a PMD (NOPAGE). smaps'
 * FilePmdMapped does not count DAX (ZONE_DEVICE) pages on 6.1.
 */
static int pmd_fault(const char *path)
{
	const char *ev = TRACE "/events/fs_dax/dax_pmd_fault_done/enable";
	uint64_t size, sum = 0;
	struct stat st;
	volatile uint8_t *p;
	int fd, mapped, fallback;

	fd = open_size(path, O_RDWR, &size);
	if (fd < 0 || fstat(fd, &st) < 0)
		return fail("open", path);
	if (write_str(TRACE "/trace", "") || write_str(ev, "1"))
		return fail("enable tracepoint", ev);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap", path);
	if ((uintptr_t)p % (2 * MiB)) {
		fprintf(stderr, "%s: mapping %p is not 2 MiB aligned\n", path,
			(void *)p);
		return 1;
	}
	for (uint64_t o = 0; o < size; o += 2 * MiB)
		sum += p[o];
	p[size - 1] = p[size - 1];
	munmap((void *)p, size);
	close(fd);
	write_str(ev, "0");
	if (count_pmd_faults((uint64_t)st.st_ino, &mapped, &fallback))
		return fail("read", TRACE "/trace");
	printf("%s: ino %#" PRIx64 ", %" PRIu64 " MiB mapped at 2 MiB "
	       "alignment: %d PMD faults mapped 2 MiB, %d fell back "
	       "(sum %" PRIu64 ")\n", path, (uint64_t)st.st_ino,
	       (uint64_t)(size / MiB), mapped, fallback, sum);
	if (mapped < 1) {
		fprintf(stderr, "%s: no PMD fault happened\n", path);
		return 1;
	}
	return 0;
}

/* ---- P1c: mmap read through the mount vs the raw DAX device ------------- */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Map @len bytes of @fd shared (2 MiB aligned for DAX), or NULL. */
static void *map_shared(int fd, uint64_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Sum every word of a fresh mapping (a plain loop the compiler may
 * vectorise: under TCG each guest instruction costs, and both sides run
 * the same code); the seconds it took, or < 0.
 */
static double timed_read(int fd, uint64_t len, uint64_t *sum)
{
	const uint64_t *p = map_shared(fd, len, PROT_READ);
	uint64_t s = 0;
	double t0;

	if (!p)
		return -1;
	t0 = now_s();
	for (uint64_t i = 0; i < len / 8; i++)
		s += p[i] ^ i;
	t0 = now_s() - t0;
	munmap((void *)p, len);
	*sum = s;
	return t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Copy FILE into the devdax device, then ROUNDS times (alternating which
 * goes first) read both through fresh mappings: every round's checksums
 * must match and the file's faults must include PMD ones. Prints the
 * throughput ratio file/raw per round and its median; asserts no time.
 */
static int bench(const char *path, const char *daxdev, unsigned rounds)
{
	const char *ev = TRACE "/events/fs_dax/dax_pmd_fault_done/enable";
	double ratio[64], tf = 0, tr = 0;
	int fd, dfd, mapped, fallback;
	uint64_t size, sf, sr;
	struct stat st;
	void *src, *dst;

	if (rounds < 1 || rounds > 64)
		return fprintf(stderr, "bench: 1..64 rounds\n"), 1;
	fd = open_size(path, O_RDONLY, &size);
	if (fd < 0 || fstat(fd, &st) < 0)
		return fail("open", path);
	dfd = open(daxdev, O_RDWR);
	if (dfd < 0)
		return fail("open", daxdev);
	if (size == 0 || size % (2 * MiB))
		return fprintf(stderr, "%s: size not 2 MiB-aligned\n", path), 1;
	src = map_shared(fd, size, PROT_READ);
	dst = map_shared(dfd, size, PROT_READ | PROT_WRITE);
	if (!src || !dst)
		return fail("mmap (is the devdax device large enough?)", daxdev);
	memcpy(dst, src, size);
	if (memcmp(dst, src, size))
		return fprintf(stderr, "%s: copy differs\n", daxdev), 1;
	munmap(src, size);
	munmap(dst, size);
	if (write_str(TRACE "/trace", "") || write_str(ev, "1"))
		return fail("enable tracepoint", ev);
	for (unsigned r = 0; r < rounds; r++) {
		double a, b;

		if (r % 2) {
			b = timed_read(dfd, size, &sr);
			a = timed_read(fd, size, &sf);
		} else {
			a = timed_read(fd, size, &sf);
			b = timed_read(dfd, size, &sr);
		}
		if (a <= 0 || b <= 0)
			return fail("mmap", path);
		if (sf != sr)
			return fprintf(stderr, "round %u: checksums differ\n",
				       r), 1;
		ratio[r] = b / a;
		tf += a;
		tr += b;
		printf("BENCH round %u: file %.0f MB/s, raw %.0f MB/s, "
		       "ratio %.3f\n", r, size / a / 1e6, size / b / 1e6,
		       ratio[r]);
	}
	write_str(ev, "0");
	close(fd);
	close(dfd);
	if (count_pmd_faults((uint64_t)st.st_ino, &mapped, &fallback))
		return fail("read", TRACE "/trace");
	qsort(ratio, rounds, sizeof(ratio[0]), cmp_double);
	printf("BENCH kmod_mmap_read %" PRIu64 " MiB x %u rounds: file %.0f "
	       "MB/s, raw %s %.0f MB/s, median ratio %.3f (min %.3f, max "
	       "%.3f); file PMD faults %d, fallbacks %d; bytes match\n",
	       size / MiB, rounds, size * rounds / tf / 1e6, daxdev,
	       size * rounds / tr / 1e6, ratio[rounds / 2], ratio[0],
	       ratio[rounds - 1], mapped, fallback);
	if (mapped < 1)
		return fprintf(stderr, "%s: no PMD fault\n", path), 1;
	return 0;
}

/* ---- map size ------------------------------------------------------------ */

static int mapinfo(const char *path)
{
	struct famfs_ioc_mapinfo mi;
	uint64_t expanded;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return fail("open", path);
	if (ioctl(fd, FAMFS_IOC_MAPINFO, &mi) < 0)
		return fail("FAMFS_IOC_MAPINFO", path);
	close(fd);
	/* What an extent per chunk (or per 2 MiB) would cost instead. */
	expanded = (mi.size + 2 * MiB - 1) / (2 * MiB) *
		   sizeof(struct famfs_ioc_item);
	printf("%s: %s, %u items, chunk %" PRIu64 ", size %" PRIu64
	       ", kernel map %" PRIu64 " bytes (2 MiB extents: %" PRIu64
	       " bytes)\n", path,
	       mi.map_type == FAMFS_MAP_INTERLEAVE ? "interleave" : "extents",
	       mi.nitems, (uint64_t)mi.chunk, (uint64_t)mi.size,
	       (uint64_t)mi.map_bytes, expanded);
	if (mi.map_bytes != 16 + 24ULL * mi.nitems) {
		fprintf(stderr, "%s: map bytes are not header + items\n", path);
		return 1;
	}
	return 0;
}

/* ---- bad maps ------------------------------------------------------------ */

struct bad_case {
	const char *what;
	uint16_t map_type;
	uint16_t nitems;
	uint64_t chunk;
	uint64_t size;
	struct famfs_ioc_item items[3];
};

static int try_create(int dirfd, const char *name, uint64_t size,
		      uint16_t type, uint16_t nitems, uint64_t chunk,
		      const void *items, uint32_t mode)
{
	struct famfs_ioc_create c;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	c.size = size;
	c.mode = mode;
	c.map.map_type = type;
	c.map.nitems = nitems;
	c.map.chunk = chunk;
	c.map.items = (uint64_t)(uintptr_t)items;
	return ioctl(dirfd, FAMFS_IOC_CREATE, &c) < 0 ? -errno : 0;
}

static int expect(const char *what, int got, int want)
{
	printf("  %-44s -> %s%s\n", what, got ? strerror(-got) : "ok",
	       got == want ? "" : "  <-- WRONG");
	return got == want ? 0 : 1;
}

static int badmaps(const char *mnt)
{
	char meta[512];
	struct famfs_ioc_item many[FAMFS_IOC_MAX_ITEMS + 1];
	struct famfs_ioc_item ok2[2], one;
	struct famfs_ioc_mapinfo mi;
	uint64_t dev, top;
	struct stat st;
	int dirfd, fd, bad = 0;

	snprintf(meta, sizeof(meta), "%s/.meta/dev0", mnt);
	if (stat(meta, &st) < 0)
		return fail("stat", meta);
	dev = (uint64_t)st.st_size;
	top = dev - 8 * MiB;	/* free space at the end of the device */
	dirfd = open(mnt, O_RDONLY | O_DIRECTORY);
	if (dirfd < 0)
		return fail("open", mnt);

	const struct bad_case cases[] = {
		{ "extent over the superblock", FAMFS_MAP_EXTENTS, 1, 0, 4096,
		  { { 0, 0, 0, 2 * MiB } } },
		{ "extent over the backup superblock", FAMFS_MAP_EXTENTS, 1, 0,
		  4096, { { 0, 0, 1 * MiB, 4096 } } },
		{ "extent inside the log", FAMFS_MAP_EXTENTS, 1, 0, 4096,
		  { { 0, 0, 2 * MiB + 4096, 4096 } } },
		{ "extent past the end of the device", FAMFS_MAP_EXTENTS, 1, 0,
		  4096, { { 0, 0, dev - 2 * MiB, 4 * MiB } } },
		{ "offset + length overflows", FAMFS_MAP_EXTENTS, 1, 0, 4096,
		  { { 0, 0, UINT64_MAX - 4095, 8192 } } },
		{ "unaligned offset", FAMFS_MAP_EXTENTS, 1, 0, 4096,
		  { { 0, 0, top + 512, 4096 } } },
		{ "zero length", FAMFS_MAP_EXTENTS, 1, 0, 0,
		  { { 0, 0, top, 0 } } },
		{ "overlapping extents", FAMFS_MAP_EXTENTS, 2, 0, 8 * MiB,
		  { { 0, 0, top, 4 * MiB }, { 0, 0, top + 2 * MiB, 4 * MiB } } },
		{ "size beyond the extents", FAMFS_MAP_EXTENTS, 1, 0,
		  4 * MiB + 1, { { 0, 0, top, 4 * MiB } } },
		{ "a device the mount does not have", FAMFS_MAP_EXTENTS, 1, 0,
		  4096, { { 7, 0, top, 4096 } } },
		{ "reserved field set", FAMFS_MAP_EXTENTS, 1, 0, 4096,
		  { { 0, 7, top, 4096 } } },
		{ "unknown map type", 7, 1, 0, 4096, { { 0, 0, top, 4096 } } },
		{ "extents with a chunk", FAMFS_MAP_EXTENTS, 1, 2 * MiB, 4096,
		  { { 0, 0, top, 4096 } } },
		{ "no items but a size", FAMFS_MAP_EXTENTS, 0, 0, 4096, { } },
		{ "interleave chunk 0", FAMFS_MAP_INTERLEAVE, 2, 0, 4 * MiB,
		  { { 0, 0, top, 2 * MiB }, { 0, 0, top + 2 * MiB, 2 * MiB } } },
		{ "interleave chunk 1 MiB", FAMFS_MAP_INTERLEAVE, 2, MiB,
		  4 * MiB, { { 0, 0, top, 2 * MiB },
			     { 0, 0, top + 2 * MiB, 2 * MiB } } },
		{ "interleave chunk larger than the device",
		  FAMFS_MAP_INTERLEAVE, 1, dev + 2 * MiB, 4096,
		  { { 0, 0, top, 2 * MiB } } },
		{ "interleave strips overlap", FAMFS_MAP_INTERLEAVE, 2, 2 * MiB,
		  4 * MiB, { { 0, 0, top, 4 * MiB },
			     { 0, 0, top + 2 * MiB, 4 * MiB } } },
		{ "interleave size beyond the strips", FAMFS_MAP_INTERLEAVE, 2,
		  2 * MiB, 8 * MiB + 1, { { 0, 0, top, 4 * MiB },
					  { 0, 0, top + 4 * MiB, 4 * MiB } } },
	};

	printf("bad maps on %s (device %" PRIu64 " bytes):\n", mnt, dev);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];

		bad |= expect(c->what, try_create(dirfd, "bad", c->size,
						  c->map_type, c->nitems,
						  c->chunk, c->items, 0644),
			      -EINVAL);
	}
	for (int i = 0; i <= FAMFS_IOC_MAX_ITEMS; i++)
		many[i] = (struct famfs_ioc_item){ 0, 0, top, 4096 };
	bad |= expect("65 items", try_create(dirfd, "bad", 4096,
					     FAMFS_MAP_EXTENTS, 65, 0, many,
					     0644), -EINVAL);
	bad |= expect("items pointer not mapped",
		      try_create(dirfd, "bad", 4096, FAMFS_MAP_EXTENTS, 1, 0,
				 (void *)16, 0644), -EFAULT);
	ok2[0] = (struct famfs_ioc_item){ 0, 0, top, 4 * MiB };
	ok2[1] = (struct famfs_ioc_item){ 0, 0, top + 4 * MiB, 4 * MiB };
	bad |= expect("name with a slash",
		      try_create(dirfd, "a/b", 4096, FAMFS_MAP_EXTENTS, 1, 0,
				 ok2, 0644), -EINVAL);
	bad |= expect("name ..", try_create(dirfd, "..", 4096,
					    FAMFS_MAP_EXTENTS, 1, 0, ok2,
					    0644), -EINVAL);
	bad |= expect("empty name", try_create(dirfd, "", 4096,
					       FAMFS_MAP_EXTENTS, 1, 0, ok2,
					       0644), -EINVAL);
	bad |= expect("mode with file type bits",
		      try_create(dirfd, "bad", 4096, FAMFS_MAP_EXTENTS, 1, 0,
				 ok2, S_IFDIR | 0755), -EINVAL);
	if (stat("bad", &st) == 0 || fstatat(dirfd, "bad", &st, 0) == 0) {
		printf("  a refused create left a file behind  <-- WRONG\n");
		bad = 1;
	}

	/* The same ioctl accepts a good map, and only once. */
	bad |= expect("valid interleave (2 strips, 2 MiB chunks)",
		      try_create(dirfd, "good", 8 * MiB, FAMFS_MAP_INTERLEAVE,
				 2, 2 * MiB, ok2, 0644), 0);
	bad |= expect("same name again",
		      try_create(dirfd, "good", 8 * MiB, FAMFS_MAP_INTERLEAVE,
				 2, 2 * MiB, ok2, 0644), -EEXIST);
	/* Files may not share memory: the kernel refuses an overlap. */
	one = (struct famfs_ioc_item){ 0, 0, top + 6 * MiB, 4096 };
	bad |= expect("overlaps another file's strip",
		      try_create(dirfd, "bad", 4096, FAMFS_MAP_EXTENTS, 1, 0,
				 &one, 0644), -EINVAL);
	one = (struct famfs_ioc_item){ 0, 0, top - 4 * MiB, 4 * MiB + 4096 };
	bad |= expect("reaches into another file by 4 KiB",
		      try_create(dirfd, "bad", 4096, FAMFS_MAP_EXTENTS, 1, 0,
				 &one, 0644), -EINVAL);
	one = (struct famfs_ioc_item){ 0, 0, top - 4 * MiB, 4 * MiB };
	bad |= expect("adjacent to another file",
		      try_create(dirfd, "next", 4 * MiB, FAMFS_MAP_EXTENTS, 1,
				 0, &one, 0644), 0);
	fd = openat(dirfd, "good", O_RDONLY);
	if (fd < 0 || ioctl(fd, FAMFS_IOC_MAPINFO, &mi) < 0 ||
	    mi.size != 8 * MiB || mi.nitems != 2 ||
	    mi.map_type != FAMFS_MAP_INTERLEAVE) {
		printf("  the good file is not as created  <-- WRONG\n");
		bad = 1;
	}
	bad |= expect("FAMFS_IOC_CREATE on a file fd",
		      try_create(fd, "x", 4096, FAMFS_MAP_EXTENTS, 1, 0, ok2,
				 0644), -ENOTTY);
	if (fd >= 0)
		close(fd);
	bad |= expect("FAMFS_IOC_MAPINFO on a directory",
		      ioctl(dirfd, FAMFS_IOC_MAPINFO, &mi) < 0 ? -errno : 0,
		      -ENOTTY);
	close(dirfd);
	return bad;
}

/* A client (read-only) mount: no writable open, no writable mapping. */
static int expect_rofs(const char *path)
{
	void *p;
	int fd;

	fd = open(path, O_RDWR);
	if (fd >= 0 || errno != EROFS) {
		fprintf(stderr, "%s: O_RDWR open was not refused with EROFS\n",
			path);
		return 1;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return fail("open", path);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		fprintf(stderr, "%s: writable shared mapping allowed\n", path);
		return 1;
	}
	close(fd);
	printf("%s: writes refused on the client mount (EROFS, %s)\n", path,
	       strerror(errno));
	return 0;
}

/* ---- libfamfs: mkfs and the master's creates ----------------------------- */

static int lib_fail(const char *what, int rc, const struct famfs_err *e)
{
	fprintf(stderr, "famfs-vmcheck: %s: %s (%s)\n", what, e->msg,
		strerror(-rc));
	return 1;
}

static int do_mkfs(char **devs, unsigned ndev)
{
	struct famfs_mkfs_opts o = { .log_size = 8 * MiB, .force = true };
	struct famfs_uuid u;
	struct famfs_err e = { 0 };
	char us[37];
	int rc;

	rc = famfs_mkfs((const char *const *)devs, ndev, &o, &u, &e);
	if (rc)
		return lib_fail("mkfs", rc, &e);
	famfs_uuid_unparse(&u, us);
	printf("mkfs on %u devices: fs uuid %s\n", ndev, us);
	return 0;
}

static int create(struct famfs_fs *fs, const char *path, uint64_t size,
		  uint32_t nstrips, const void *data)
{
	struct famfs_file_attr a = { .size = size, .mode = 0644 };
	struct famfs_alloc_policy p = { .nstrips = nstrips,
					.chunk = nstrips > 1 ? 2 * MiB : 0 };
	const struct famfs_fmap *m;
	struct famfs_node *n;
	struct famfs_err e = { 0 };
	int rc;

	rc = famfs_create_file(fs, path, &a, &p, data, &e);
	if (rc)
		return lib_fail(path, rc, &e);
	n = famfs_lookup(fs, path);
	m = n ? famfs_node_map(n) : NULL;
	if (!m)
		return fprintf(stderr, "%s: created but not found\n", path), 1;
	printf("created %s: %" PRIu64 " bytes, %s, %u items, chunk %" PRIu64
	       "\n", path, size,
	       m->type == FAMFS_MAP_INTERLEAVE ? "interleave" : "extents",
	       m->nitems, m->chunk);
	for (unsigned i = 0; i < m->nitems; i++)
		printf("  item %u: dev %u offset %#" PRIx64 " length %#" PRIx64
		       "\n", i, m->items[i].dev_index, m->items[i].offset,
		       m->items[i].length);
	if (nstrips > 1 && (m->type != FAMFS_MAP_INTERLEAVE ||
			    m->nitems != nstrips))
		return fprintf(stderr, "%s: not interleaved\n", path), 1;
	/* with several devices, an interleaved file spans them */
	if (nstrips > 1 && famfs_fs_ndevices(fs) > 1 &&
	    m->items[0].dev_index == m->items[1].dev_index)
		return fprintf(stderr, "%s: strips on one device\n", path), 1;
	return 0;
}

static int open_master(char **devs, unsigned ndev, struct famfs_fs **fs)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_MASTER };
	struct famfs_err e = { 0 };
	int rc;

	rc = famfs_open((const char *const *)devs, ndev, &o, fs, &e);
	if (rc)
		return lib_fail(devs[0], rc, &e);
	return 0;
}

static int populate(char **devs, unsigned ndev)
{
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	int rc;

	if (open_master(devs, ndev, &fs))
		return 1;
	rc = famfs_mkdir(fs, "/dir", 0755, 0, 0, &e);
	if (rc) {
		famfs_close(fs);
		return lib_fail("mkdir /dir", rc, &e);
	}
	rc = create(fs, "/plain", 4 * MiB, 1, NULL) ||
	     create(fs, "/dir/il", 16 * MiB, 4, NULL) ||
	     create(fs, "/small", 10000, 1, NULL);
	famfs_close(fs);
	return rc;
}

/* Open the filesystem of a kernel mount, as master, through its meta files. */
static int open_meta_master(const char *mnt, struct famfs_fs **fs)
{
	static char meta[FAMFS_MAX_DEVICES][512];
	char *paths[FAMFS_MAX_DEVICES];
	struct stat st;
	unsigned n;

	for (n = 0; n < FAMFS_MAX_DEVICES; n++) {
		snprintf(meta[n], sizeof(meta[n]), "%s/.meta/dev%u", mnt, n);
		if (stat(meta[n], &st) != 0)
			break;
		paths[n] = meta[n];
	}
	if (n == 0)
		return fprintf(stderr, "%s: no meta files\n", mnt), 1;
	return open_master(paths, n, fs);
}

static int grow(const char *mnt, const char *path, unsigned seed,
		unsigned strips, uint64_t size)
{
	uint8_t *data = seed ? malloc(size) : NULL;
	struct famfs_fs *fs;
	int rc;

	if ((seed && !data) || open_meta_master(mnt, &fs)) {
		free(data);
		return 1;
	}
	if (data)
		pattern_fill(seed, 0, data, size);
	rc = create(fs, path, size, strips, data);
	famfs_close(fs);
	free(data);
	return rc;
}

static int live(const char *mnt, const char *path, unsigned seed)
{
	return grow(mnt, path, seed, 2, 4 * MiB);
}

static bool items_overlap(const struct famfs_map_item *a,
			  const struct famfs_map_item *b)
{
	return a->dev_index == b->dev_index &&
	       a->offset < b->offset + b->length &&
	       b->offset < a->offset + a->length;
}

/*
 * Delete @old and create @new, as large, on the memory @old had: the
 * allocator gives freed space back once no client can still use it, so
 * this proves the test really reuses the space.
 */
static int reuse(const char *mnt, const char *old, const char *new,
		 unsigned seed)
{
	struct famfs_map_item was[FAMFS_MAX_EXTENTS];
	const struct famfs_fmap *m;
	struct famfs_err e = { 0 };
	struct famfs_attr a;
	struct famfs_node *n;
	struct famfs_fs *fs;
	unsigned nwas, i, j;
	uint8_t *data;
	int rc;

	if (open_meta_master(mnt, &fs))
		return 1;
	n = famfs_lookup(fs, old);
	m = n ? famfs_node_map(n) : NULL;
	if (!m) {
		famfs_close(fs);
		return fprintf(stderr, "%s: not found\n", old), 1;
	}
	famfs_node_attr(n, &a);
	nwas = m->nitems;
	memcpy(was, m->items, nwas * sizeof(was[0]));
	rc = famfs_unlink(fs, old, &e);
	famfs_close(fs);
	if (rc)
		return lib_fail(old, rc, &e);
	/* a new master open reclaims what no client holds */
	if (open_meta_master(mnt, &fs))
		return 1;
	data = malloc(a.size);
	if (!data) {
		famfs_close(fs);
		return 1;
	}
	pattern_fill(seed, 0, data, a.size);
	rc = create(fs, new, a.size, nwas > 1 ? nwas : 1, data);
	free(data);
	n = rc ? NULL : famfs_lookup(fs, new);
	m = n ? famfs_node_map(n) : NULL;
	for (i = 0; m && i < m->nitems; i++)
		for (j = 0; j < nwas; j++)
			if (items_overlap(&m->items[i], &was[j])) {
				printf("%s reuses memory of %s (dev %u offset "
				       "%#" PRIx64 ")\n", new, old,
				       was[j].dev_index, was[j].offset);
				famfs_close(fs);
				return 0;
			}
	famfs_close(fs);
	return fprintf(stderr, "%s does not reuse the memory of %s\n", new,
		       old), 1;
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * A process that keeps @path mapped while the test deletes it and the
 * master writes pattern @seed2 into a new file on the same memory.
 */
static int hold(const char *path, unsigned seed, const char *flag,
		unsigned seed2)
{
	char ready[600];
	uint64_t size, bad;
	uint8_t *p;
	int fd = open_size(path, O_RDONLY, &size);

	if (fd < 0)
		return 1;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return fail("mmap", path);
	bad = pattern_check(seed, 0, p, size);
	if (bad != UINT64_MAX)
		return report_check(path, "hold (before)", bad, size, seed);
	snprintf(ready, sizeof(ready), "%s.ready", flag);
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("create", ready);
	close(fd);
	/* the test names the moment; no deadline of our own */
	while (!file_exists(flag))
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	bad = pattern_check(seed2, 0, p, size);
	munmap(p, size);
	if (bad != UINT64_MAX)
		return report_check(path, "hold (after the delete)", bad, size,
				    seed2);
	printf("%s: still mapped after its delete: %" PRIu64 " bytes, the "
	       "same memory (pattern %u the master wrote there)\n", path,
	       size, seed2);
	return 0;
}

/* HTTP/1.1 over famfsd's unix socket, Connection: close. */
static int http(const char *sock, const char *method, const char *path,
		const char *json)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	static char req[8192], resp[65536];
	size_t len = 0;
	ssize_t n;
	int fd, status = 0;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return fail("connect", sock);
	snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: famfsd\r\n"
		 "Connection: close\r\nContent-Type: application/json\r\n"
		 "Content-Length: %zu\r\n\r\n%s", method, path,
		 json ? strlen(json) : 0, json ? json : "");
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return fail("write", sock);
	while (len < sizeof(resp) - 1 &&
	       (n = read(fd, resp + len, sizeof(resp) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	resp[len] = 0;
	sscanf(resp, "HTTP/1.%*d %d", &status);
	printf("%s %s -> %d\n%s\n", method, path, status,
	       strstr(resp, "\r\n\r\n") ? strstr(resp, "\r\n\r\n") + 4 : "");
	return status >= 200 && status < 300 ? 0 : 1;
}

static unsigned seed_arg(const char *s)
{
	return (unsigned)strtoul(s, NULL, 0);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (argc >= 3 && argc < FAMFS_MAX_DEVICES + 2 && !strcmp(cmd, "mkfs"))
		return do_mkfs(argv + 2, (unsigned)argc - 2);
	if (argc >= 3 && argc < FAMFS_MAX_DEVICES + 2 &&
	    !strcmp(cmd, "populate"))
		return populate(argv + 2, (unsigned)argc - 2);
	if (argc == 5 && !strcmp(cmd, "live"))
		return live(argv[2], argv[3], seed_arg(argv[4]));
	if (argc == 7 && !strcmp(cmd, "grow"))
		return grow(argv[2], argv[3], seed_arg(argv[4]),
			    seed_arg(argv[5]), seed_arg(argv[6]) * MiB);
	if ((argc == 5 || argc == 6) && !strcmp(cmd, "http"))
		return http(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : NULL);
	if (argc == 6 && !strcmp(cmd, "reuse"))
		return reuse(argv[2], argv[3], argv[4], seed_arg(argv[5]));
	if (argc == 6 && !strcmp(cmd, "hold"))
		return hold(argv[2], seed_arg(argv[3]), argv[4],
			    seed_arg(argv[5]));
	if (argc == 4 && !strcmp(cmd, "write-mmap"))
		return write_mmap(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "write-io"))
		return write_io(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "verify-read"))
		return verify_read(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "verify-mmap"))
		return verify_mmap(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "rw-cross"))
		return rw_cross(argv[2], seed_arg(argv[3]));
	if (argc == 3 && !strcmp(cmd, "pmd"))
		return pmd_fault(argv[2]);
	if (argc == 5 && !strcmp(cmd, "bench"))
		return bench(argv[2], argv[3], (unsigned)atoi(argv[4]));
	if (argc == 3 && !strcmp(cmd, "mapinfo"))
		return mapinfo(argv[2]);
	if (argc == 3 && !strcmp(cmd, "badmaps"))
		return badmaps(argv[2]);
	if (argc == 3 && !strcmp(cmd, "cat-mmap"))
		return cat_mmap(argv[2]);
	if (argc == 3 && !strcmp(cmd, "expect-rofs"))
		return expect_rofs(argv[2]);
	fprintf(stderr, "usage: famfs-vmcheck mkfs|populate|live|write-mmap|"
		"write-io|verify-read|verify-mmap|rw-cross|pmd|bench|mapinfo|"
		"badmaps|expect-rofs|grow|reuse|hold|http|cat-mmap ARGS (see the "
		"source)\n");
	return 2;
}
