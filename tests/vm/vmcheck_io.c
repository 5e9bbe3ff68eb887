// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck: the test pattern and the read/write/mmap checks of
 * files in a famfs kernel mount (vmcheck.h).
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
void pattern_fill(unsigned seed, uint64_t off, uint8_t *p, size_t len)
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
uint64_t pattern_check(unsigned seed, uint64_t off, const uint8_t *p,
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

int fail(const char *what, const char *path)
{
	fprintf(stderr, "famfs-vmcheck: %s %s: %s\n", what, path,
		strerror(errno));
	return 1;
}

int open_size(const char *path, int flags, uint64_t *size)
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

int write_mmap(const char *path, unsigned seed)
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

int write_io(const char *path, unsigned seed)
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

int report_check(const char *path, const char *how, uint64_t bad,
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

int verify_read(const char *path, unsigned seed)
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

int verify_mmap(const char *path, unsigned seed)
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

int cat_mmap(const char *path)
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
int rw_cross(const char *path, unsigned seed)
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
