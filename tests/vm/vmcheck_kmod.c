// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck: what the module must do beyond plain I/O: 2 MiB (PMD)
 * faults, P1c mmap bench, map sizes, bad maps refused, read-only clients.
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
#include "vmcheck.h"
#include "famfs/famfs_ioctl.h"

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
int pmd_fault(const char *path)
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
int bench(const char *path, const char *daxdev, unsigned rounds)
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

int mapinfo(const char *path)
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

int badmaps(const char *mnt)
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
int expect_rofs(const char *path)
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
