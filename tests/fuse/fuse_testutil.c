// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-fuse-testutil: the byte-level half of the FUSE tests and benches.
 * Data is a pure function of (seed, offset), so any host can check any
 * range of a file without a copy of it.
 *
 *   write SEED SIZE PATH [seq|trunc|falloc|mmap]   create PATH with data
 *   verify SEED SIZE PATH              check st_size, read() and mmap()
 *   xattr PATH NAME                    print an extended attribute
 *   waitfor PATH exists|gone SECONDS   poll until PATH (dis)appears
 *   follow MASTERDIR CLIENTDIR N       create N files on the master, time
 *                                      until each appears on the client
 *   hold SEED SIZE PATH READY GO       open+mmap PATH, touch READY, wait
 *                                      for GO, then check the bytes again
 *   writeopen SEED SIZE PATH READY     write PATH, touch READY, keep it open
 *                                      until killed
 *   mountq PATH                        print famfs_mountq_resolve(PATH):
 *                                      the in-fs path, then each device
 *   ingest SEED SIZE PATH commit|discard   what the ingest engine does
 *                                      through a master mount: create,
 *                                      user.famfs.pending, fallocate, write
 *                                      the bytes straight into the devices
 *                                      its user.famfs.map names, then
 *                                      user.famfs.commit (or not), close
 *   policy SIZE PATH VALUE             user.famfs.policy VALUE on a new
 *                                      pending file: bad values EINVAL
 *                                      first, then VALUE, fallocate, the
 *                                      policy again (EBUSY), commit; prints
 *                                      the map (user.famfs.map)
 *   readbw PATH [BS]                   sequential read() GB/s
 *   mmapbw PATH PASSES                 memcpy from an mmap, GB/s per pass
 *   memcpybw PATH                      memcpy of PATH's bytes straight from
 *                                      the devices its user.famfs.map names
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "famfs_mountq.h"
#include "famfs/fmap_resolve.h"

#define BUF_SIZE (4u << 20)

static uint64_t word_at(uint64_t seed, uint64_t i)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL + i * 0xbf58476d1ce4e5b9ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fill @buf with the data of file range [off, off + len). */
static void fill(uint64_t seed, uint64_t off, uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t w = word_at(seed, (off + done) / 8);
		size_t in = (off + done) % 8, n = 8 - in;

		if (n > len - done)
			n = len - done;
		memcpy(buf + done, (uint8_t *)&w + in, n);
		done += n;
	}
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "testutil: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static int cmd_write(uint64_t seed, uint64_t size, const char *path,
		     const char *how)
{
	uint8_t *buf = malloc(BUF_SIZE);
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);

	if (fd < 0 || !buf)
		return fail("create", path);
	if (!strcmp(how, "trunc") && ftruncate(fd, (off_t)size))
		return fail("ftruncate", path);
	if (!strcmp(how, "falloc") && size && fallocate(fd, 0, 0, (off_t)size))
		return fail("fallocate", path);
	if (!strcmp(how, "mmap")) {
		uint8_t *m;

		if (ftruncate(fd, (off_t)size))
			return fail("ftruncate", path);
		m = size ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
				fd, 0) : NULL;
		if (m == MAP_FAILED)
			return fail("mmap", path);
		fill(seed, 0, m, size);
		if (size && (msync(m, size, MS_SYNC) || munmap(m, size)))
			return fail("msync", path);
	} else {
		for (uint64_t off = 0; off < size;) {
			size_t n = size - off < BUF_SIZE ? size - off : BUF_SIZE;
			ssize_t w;

			fill(seed, off, buf, n);
			w = pwrite(fd, buf, n, (off_t)off);
			if (w <= 0)
				return fail("write", path);
			off += (uint64_t)w;
		}
	}
	if (close(fd))
		return fail("close", path);
	free(buf);
	return 0;
}

static int cmd_verify(uint64_t seed, uint64_t size, const char *path)
{
	uint8_t *buf = malloc(BUF_SIZE), *want = malloc(BUF_SIZE), *m;
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || !buf || !want || fstat(fd, &st))
		return fail("open", path);
	if ((uint64_t)st.st_size != size) {
		fprintf(stderr, "testutil: %s: size %lld, want %" PRIu64 "\n", path,
			(long long)st.st_size, size);
		return 1;
	}
	for (uint64_t off = 0; off < size;) {
		size_t n = size - off < BUF_SIZE ? size - off : BUF_SIZE;
		ssize_t r = pread(fd, buf, n, (off_t)off);

		if (r <= 0)
			return fail("read", path);
		fill(seed, off, want, (size_t)r);
		if (memcmp(buf, want, (size_t)r)) {
			fprintf(stderr, "testutil: %s: read() differs in [%" PRIu64
				", +%zd)\n", path, off, r);
			return 1;
		}
		off += (uint64_t)r;
	}
	if (pread(fd, buf, 1, (off_t)size) != 0) {
		fprintf(stderr, "testutil: %s: data past EOF\n", path);
		return 1;
	}
	if (size) {
		m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return fail("mmap", path);
		for (uint64_t off = 0; off < size; off += BUF_SIZE) {
			size_t n = size - off < BUF_SIZE ? size - off : BUF_SIZE;

			fill(seed, off, want, n);
			if (memcmp(m + off, want, n)) {
				fprintf(stderr, "testutil: %s: mmap differs in [%"
					PRIu64 ", +%zu)\n", path, off, n);
				return 1;
			}
		}
		munmap(m, size);
	}
	close(fd);
	free(buf);
	free(want);
	return 0;
}

static int cmd_xattr(const char *path, const char *name)
{
	char *v;
	ssize_t n = getxattr(path, name, NULL, 0);

	if (n < 0)
		return fail("getxattr", path);
	v = malloc((size_t)n + 1);
	n = getxattr(path, name, v, (size_t)n);
	if (n < 0)
		return fail("getxattr", path);
	v[n] = '\0';
	printf("%s\n", v);
	free(v);
	return 0;
}

static int cmd_waitfor(const char *path, bool exists, double secs)
{
	double end = now_s() + secs;
	struct stat st;

	while (now_s() < end) {
		if ((stat(path, &st) == 0) == exists)
			return 0;
		usleep(1000);
	}
	fprintf(stderr, "testutil: %s did not %s within %.0f s\n", path,
		exists ? "appear" : "disappear", secs);
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Create N small files on the master; time until each is seen on the client. */
static int cmd_follow(const char *mdir, const char *cdir, unsigned n)
{
	double *lat = calloc(n, sizeof(*lat));
	char mp[4096], cp[4096];
	uint8_t data[512];
	unsigned missing = 0;

	for (unsigned i = 0; i < n; i++) {
		struct stat st;
		double t0, end;
		int fd;

		snprintf(mp, sizeof(mp), "%s/f%06u", mdir, i);
		snprintf(cp, sizeof(cp), "%s/f%06u", cdir, i);
		/* the client looks first: a cached negative entry must go */
		if (stat(cp, &st) == 0) {
			fprintf(stderr, "testutil: %s exists before creation\n", cp);
			return 1;
		}
		fill(i, 0, data, sizeof(data));
		fd = open(mp, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data))
			return fail("create", mp);
		if (close(fd)) /* the commit: the file is in the log now */
			return fail("close", mp);
		t0 = now_s();
		end = t0 + 30;
		while (stat(cp, &st) != 0 && now_s() < end)
			usleep(200);
		lat[i] = now_s() - t0;
		if (stat(cp, &st) != 0) {
			missing++;
			fprintf(stderr, "testutil: %s never appeared\n", cp);
		}
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("follow: %u files, latency p50 %.2f ms, p99 %.2f ms, max %.2f ms, "
	       "missing %u\n", n, lat[n / 2] * 1e3, lat[(n * 99) / 100] * 1e3,
	       lat[n - 1] * 1e3, missing);
	free(lat);
	return missing ? 1 : 0;
}

static int cmd_hold(uint64_t seed, uint64_t size, const char *path,
		    const char *ready, const char *go)
{
	uint8_t *want = malloc(size), *buf = malloc(size), *m;
	int fd = open(path, O_RDONLY), rfd;
	struct stat st;

	if (fd < 0 || !want || !buf)
		return fail("open", path);
	m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return fail("mmap", path);
	rfd = open(ready, O_CREAT | O_WRONLY, 0644);
	if (rfd < 0)
		return fail("create", ready);
	close(rfd);
	while (stat(go, &st) != 0)
		usleep(2000);
	fill(seed, 0, want, size);
	if (pread(fd, buf, size, 0) != (ssize_t)size || memcmp(buf, want, size)) {
		fprintf(stderr, "testutil: %s: read() of the held file changed\n",
			path);
		return 1;
	}
	if (memcmp(m, want, size)) {
		fprintf(stderr, "testutil: %s: mmap of the held file changed\n", path);
		return 1;
	}
	munmap(m, size);
	close(fd);
	free(want);
	free(buf);
	return 0;
}

static int cmd_writeopen(uint64_t seed, uint64_t size, const char *path,
			 const char *ready)
{
	uint8_t *buf = malloc(size ? size : 1);
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644), rfd;

	if (fd < 0 || !buf)
		return fail("create", path);
	fill(seed, 0, buf, size);
	if (write(fd, buf, size) != (ssize_t)size)
		return fail("write", path);
	rfd = open(ready, O_CREAT | O_WRONLY, 0644);
	if (rfd < 0)
		return fail("create", ready);
	close(rfd);
	for (;;)
		pause();
}

static int cmd_mountq(const char *path)
{
	char **devs, *fs_path;
	unsigned n;
	int r = famfs_mountq_resolve(path, &devs, &n, &fs_path);

	if (r) {
		fprintf(stderr, "testutil: %s: %s\n", path, strerror(-r));
		return 1;
	}
	printf("%s\n", fs_path);
	for (unsigned i = 0; i < n; i++)
		printf("%s\n", devs[i]);
	famfs_mountq_free(devs, n);
	free(fs_path);
	return 0;
}

/* Write file range [0, size) of map JSON @js straight into the devices. */
static int write_devices(const char *js, uint64_t seed, uint64_t size)
{
	struct famfs_map_item items[64];
	struct json_object *o = json_tokener_parse(js), *map, *arr, *v;
	int fds[64];
	uint64_t chunk = 0, len;
	uint8_t *buf = malloc(BUF_SIZE);
	size_t ni;
	bool il;

	if (!o || !buf || !json_object_object_get_ex(o, "map", &map))
		return -1;
	il = json_object_object_get_ex(map, "strips", &arr);
	if (!il && !json_object_object_get_ex(map, "extents", &arr))
		return -1;
	if (il && json_object_object_get_ex(map, "chunk", &v))
		chunk = json_object_get_uint64(v);
	ni = json_object_array_length(arr);
	for (size_t i = 0; i < ni && i < 64; i++) {
		struct json_object *x = json_object_array_get_idx(arr, i), *f;

		json_object_object_get_ex(x, "device", &f);
		fds[i] = open(json_object_get_string(f), O_RDWR);
		json_object_object_get_ex(x, "offset", &f);
		items[i].offset = json_object_get_uint64(f);
		json_object_object_get_ex(x, "length", &f);
		items[i].length = json_object_get_uint64(f);
		items[i].dev_index = (uint32_t)i;
		if (fds[i] < 0)
			return -1;
	}
	for (uint64_t off = 0; off < size; off += len) {
		struct famfs_loc loc;

		if (famfs_resolve_items(il ? FAMFS_MAP_INTERLEAVE : FAMFS_MAP_EXTENTS,
					chunk, items, (uint32_t)ni, off, &loc))
			return -1;
		len = size - off < loc.length ? size - off : loc.length;
		len = len < BUF_SIZE ? len : BUF_SIZE;
		fill(seed, off, buf, len);
		if (pwrite(fds[loc.dev_index], buf, len, (off_t)loc.dev_offset) !=
		    (ssize_t)len)
			return -1;
	}
	for (size_t i = 0; i < ni; i++)
		close(fds[i]);
	json_object_put(o);
	free(buf);
	return 0;
}

static int cmd_ingest(uint64_t seed, uint64_t size, const char *path,
		      const char *how)
{
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0640);
	char js[65536];
	ssize_t n;

	if (fd < 0)
		return fail("create", path);
	if (fsetxattr(fd, "user.famfs.pending", "1", 1, 0))
		return fail("set user.famfs.pending", path);
	if (fallocate(fd, 0, 0, (off_t)size))
		return fail("fallocate", path);
	n = fgetxattr(fd, "user.famfs.map", js, sizeof(js) - 1);
	if (n < 0)
		return fail("get user.famfs.map", path);
	js[n] = '\0';
	if (!strstr(js, "\"committed\":false")) {
		fprintf(stderr, "testutil: %s: not pending: %s\n", path, js);
		return 1;
	}
	if (write_devices(js, seed, size))
		return fail("write the devices of", path);
	if (!strcmp(how, "commit") && fsetxattr(fd, "user.famfs.commit", "1", 1, 0))
		return fail("set user.famfs.commit", path);
	if (!strcmp(how, "commit") &&
	    fsetxattr(fd, "user.famfs.commit", "1", 1, 0) == 0) {
		fprintf(stderr, "testutil: %s: committed twice\n", path);
		return 1;
	}
	if (close(fd))
		return fail("close", path);
	return 0;
}

static int cmd_policy(uint64_t size, const char *path, const char *value)
{
	static const char *const bad[] = { "chunk=3", "strips=65", "chunk=",
		"size=2097152", "chunk=2097152x", "chunk=2199023255552" };
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0640);
	char js[65536];
	ssize_t n;

	if (fd < 0)
		return fail("create", path);
	if (fsetxattr(fd, "user.famfs.pending", "1", 1, 0))
		return fail("set user.famfs.pending", path);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (fsetxattr(fd, "user.famfs.policy", bad[i], strlen(bad[i]), 0) == 0 ||
		    errno != EINVAL) {
			fprintf(stderr, "testutil: policy '%s' not refused with EINVAL\n",
				bad[i]);
			return 1;
		}
	if (fsetxattr(fd, "user.famfs.policy", value, strlen(value), 0))
		return fail("set user.famfs.policy", path);
	if (fallocate(fd, 0, 0, (off_t)size))
		return fail("fallocate", path);
	if (fsetxattr(fd, "user.famfs.policy", value, strlen(value), 0) == 0 ||
	    errno != EBUSY) {
		fprintf(stderr, "testutil: policy after fallocate not EBUSY\n");
		return 1;
	}
	if (fsetxattr(fd, "user.famfs.commit", "1", 1, 0))
		return fail("set user.famfs.commit", path);
	n = fgetxattr(fd, "user.famfs.map", js, sizeof(js) - 1);
	if (n < 0)
		return fail("get user.famfs.map", path);
	js[n] = '\0';
	printf("%s\n", js);
	if (fsetxattr(fd, "user.famfs.policy", value, strlen(value), 0) == 0 ||
	    errno != EINVAL) {
		fprintf(stderr, "testutil: policy on a committed file not EINVAL\n");
		return 1;
	}
	return close(fd) ? fail("close", path) : 0;
}

static int cmd_readbw(const char *path, size_t bs)
{
	uint8_t *buf = aligned_alloc(4096, bs);
	int fd = open(path, O_RDONLY);
	uint64_t total = 0;
	double t0;
	ssize_t r;

	if (fd < 0 || !buf)
		return fail("open", path);
	t0 = now_s();
	while ((r = read(fd, buf, bs)) > 0)
		total += (uint64_t)r;
	if (r < 0)
		return fail("read", path);
	printf("%.3f\n", (double)total / (now_s() - t0) / 1e9);
	close(fd);
	free(buf);
	return 0;
}

static double copy_pass(const uint8_t *src, uint64_t len, uint8_t *buf)
{
	double t0 = now_s();

	for (uint64_t off = 0; off < len; off += BUF_SIZE) {
		size_t n = len - off < BUF_SIZE ? len - off : BUF_SIZE;

		memcpy(buf, src + off, n);
	}
	__asm__ volatile("" ::: "memory");
	return (double)len / (now_s() - t0) / 1e9;
}

static int cmd_mmapbw(const char *path, int passes)
{
	uint8_t *buf = malloc(BUF_SIZE), *m;
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !buf)
		return fail("open", path);
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return fail("mmap", path);
	for (int i = 0; i < passes; i++)
		printf("%s%.3f", i ? " " : "", copy_pass(m, (uint64_t)st.st_size, buf));
	printf("\n");
	munmap(m, (size_t)st.st_size);
	close(fd);
	return 0;
}

/* The memory bound: PATH's bytes in file order, straight from the devices. */
static int cmd_memcpybw(const char *path)
{
	struct famfs_map_item items[64];
	struct json_object *o, *map, *arr, *v;
	char *js;
	ssize_t n = getxattr(path, "user.famfs.map", NULL, 0);
	uint8_t *base[64] = { 0 }, *buf = malloc(BUF_SIZE);
	uint64_t size, chunk = 0, len;
	bool il;
	size_t ni;
	double best = 0;

	if (n < 0 || !(js = calloc(1, (size_t)n + 1)) ||
	    getxattr(path, "user.famfs.map", js, (size_t)n) != n)
		return fail("getxattr", path);
	o = json_tokener_parse(js);
	if (!o || !json_object_object_get_ex(o, "map", &map) ||
	    !json_object_object_get_ex(o, "size", &v)) {
		fprintf(stderr, "testutil: %s: bad user.famfs.map\n", path);
		return 1;
	}
	size = json_object_get_uint64(v);
	il = json_object_object_get_ex(map, "strips", &arr);
	if (!il && !json_object_object_get_ex(map, "extents", &arr))
		return 1;
	if (il && json_object_object_get_ex(map, "chunk", &v))
		chunk = json_object_get_uint64(v);
	ni = json_object_array_length(arr);
	for (size_t i = 0; i < ni && i < 64; i++) {
		struct json_object *x = json_object_array_get_idx(arr, i), *f;
		const char *dev;
		struct stat st;
		int fd;

		json_object_object_get_ex(x, "device", &f);
		dev = json_object_get_string(f);
		json_object_object_get_ex(x, "offset", &f);
		items[i].offset = json_object_get_uint64(f);
		json_object_object_get_ex(x, "length", &f);
		items[i].length = json_object_get_uint64(f);
		items[i].dev_index = (uint32_t)i; /* base[] is per item */
		fd = open(dev, O_RDONLY);
		if (fd < 0 || fstat(fd, &st))
			return fail("open", dev);
		base[i] = mmap(NULL, (size_t)st.st_size, PROT_READ,
			       MAP_SHARED | MAP_POPULATE, fd, 0);
		if (base[i] == MAP_FAILED)
			return fail("mmap", dev);
		close(fd);
	}
	for (int pass = 0; pass < 3; pass++) {
		double t0 = now_s();

		for (uint64_t off = 0; off < size; off += len) {
			struct famfs_loc loc;

			if (famfs_resolve_items(il ? FAMFS_MAP_INTERLEAVE :
						FAMFS_MAP_EXTENTS, chunk, items,
						(uint32_t)ni, off, &loc))
				return 1;
			len = size - off < loc.length ? size - off : loc.length;
			for (uint64_t k = 0; k < len; k += BUF_SIZE)
				memcpy(buf, base[loc.dev_index] + loc.dev_offset + k,
				       len - k < BUF_SIZE ? len - k : BUF_SIZE);
		}
		__asm__ volatile("" ::: "memory");
		double gbs = (double)size / (now_s() - t0) / 1e9;

		if (gbs > best)
			best = gbs;
	}
	printf("%.3f\n", best);
	return 0;
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*end == 'K' || *end == 'k')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return v;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "write") && argc >= 5)
		return cmd_write(num(argv[2]), num(argv[3]), argv[4],
				 argc > 5 ? argv[5] : "seq");
	if (!strcmp(c, "verify") && argc == 5)
		return cmd_verify(num(argv[2]), num(argv[3]), argv[4]);
	if (!strcmp(c, "xattr") && argc == 4)
		return cmd_xattr(argv[2], argv[3]);
	if (!strcmp(c, "waitfor") && argc == 5)
		return cmd_waitfor(argv[2], !strcmp(argv[3], "exists"),
				   atof(argv[4]));
	if (!strcmp(c, "follow") && argc == 5)
		return cmd_follow(argv[2], argv[3], (unsigned)num(argv[4]));
	if (!strcmp(c, "hold") && argc == 7)
		return cmd_hold(num(argv[2]), num(argv[3]), argv[4], argv[5],
				argv[6]);
	if (!strcmp(c, "writeopen") && argc == 6)
		return cmd_writeopen(num(argv[2]), num(argv[3]), argv[4], argv[5]);
	if (!strcmp(c, "mountq") && argc == 3)
		return cmd_mountq(argv[2]);
	if (!strcmp(c, "ingest") && argc == 6)
		return cmd_ingest(num(argv[2]), num(argv[3]), argv[4], argv[5]);
	if (!strcmp(c, "policy") && argc == 5)
		return cmd_policy(num(argv[2]), argv[3], argv[4]);
	if (!strcmp(c, "readbw") && argc >= 3)
		return cmd_readbw(argv[2], argc > 3 ? num(argv[3]) : BUF_SIZE);
	if (!strcmp(c, "mmapbw") && argc == 4)
		return cmd_mmapbw(argv[2], atoi(argv[3]));
	if (!strcmp(c, "memcpybw") && argc == 3)
		return cmd_memcpybw(argv[2]);
	fprintf(stderr, "usage: see the comment at the top of fuse_testutil.c\n");
	return 2;
}
