// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck: libfamfs on the master (mkfs, creates through the
 * mount's meta files, reuse of deleted memory, holds) and one famfsd
 * request over its unix socket.
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

/* ---- libfamfs: mkfs and the master's creates ----------------------------- */

static int lib_fail(const char *what, int rc, const struct famfs_err *e)
{
	fprintf(stderr, "famfs-vmcheck: %s: %s (%s)\n", what, e->msg,
		strerror(-rc));
	return 1;
}

int do_mkfs(char **devs, unsigned ndev)
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

int populate(char **devs, unsigned ndev)
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

int grow(const char *mnt, const char *path, unsigned seed,
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

/* The master, through the mount's meta files, renames @old to @new
 * (@flags: FAMFS_RENAME_EXCHANGE swaps them).
 */
int rename_file(const char *mnt, const char *old, const char *new,
		unsigned flags)
{
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	int rc;

	if (open_meta_master(mnt, &fs))
		return 1;
	rc = famfs_rename(fs, old, new, flags, &e);
	famfs_close(fs);
	return rc ? lib_fail(old, rc, &e) : 0;
}

/*
 * The master, through the mount's meta files, makes the symlink @path to
 * @target (one SYMLINK entry), and first each missing parent directory.
 */
int symlink_file(const char *mnt, const char *path, const char *target)
{
	char dir[FAMFS_PATH_MAX + 1];
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	int rc = 0;

	if (open_meta_master(mnt, &fs))
		return 1;
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = strchr(dir + 1, '/'); s && !rc; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (!famfs_lookup(fs, dir))
			rc = famfs_mkdir(fs, dir, 0755, 0, 0, &e);
		*s = '/';
	}
	if (!rc)
		rc = famfs_symlink(fs, path, target, 0, 0, 0, &e);
	famfs_close(fs);
	return rc ? lib_fail(path, rc, &e) : 0;
}

int live(const char *mnt, const char *path, unsigned seed)
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
int reuse(const char *mnt, const char *old, const char *new,
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

/* A SETATTR through the master: @path gets @mode, uid 1234, mtime 1e18. */
int chmod_file(const char *mnt, const char *path, unsigned mode)
{
	struct famfs_setattr a = {
		.valid = FAMFS_SETATTR_MODE | FAMFS_SETATTR_UID |
			 FAMFS_SETATTR_MTIME,
		.mode = mode, .uid = 1234, .mtime_ns = 1000000000000000000ULL,
	};
	struct famfs_err e = { 0 };
	struct famfs_attr attr;
	struct famfs_node *n;
	struct famfs_fs *fs;
	int rc;

	if (open_meta_master(mnt, &fs))
		return 1;
	n = famfs_lookup(fs, path);
	if (!n) {
		famfs_close(fs);
		return fprintf(stderr, "%s: not found\n", path), 1;
	}
	famfs_node_attr(n, &attr);
	rc = famfs_setattr(fs, attr.ino, &a, &e);
	famfs_close(fs);
	return rc ? lib_fail(path, rc, &e) : 0;
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
int hold(const char *path, unsigned seed, const char *flag,
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
int http(const char *sock, const char *method, const char *path,
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
