// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck's client-slot checks (two hosts, vm2): a process on the
 * client keeps a file mapped across its delete, and the master's new
 * files must not land on that memory until the mapping is gone.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "famfs.h"
#include "famfs/famfs_ioctl.h"
#include "vmcheck.h"

/*
 * Map @path, copy its bytes, create FLAG.ready, wait for FLAG, then the
 * mapping must still show the same bytes (nobody wrote the memory).
 * Meanwhile, each time FLAG.check appears, compare at once, print one
 * line and remove FLAG.check: the test asks after each step it takes
 * (vm2: every generation switch and removal), not only at the end.
 */
int keep_mmap(const char *path, const char *flag)
{
	char ready[600], check[600];
	uint64_t size;
	struct stat st;
	uint8_t *p, *copy;
	int fd = open_size(path, O_RDONLY, &size), same, bad = 0;
	unsigned n = 0;

	if (fd < 0)
		return 1;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	copy = malloc(size);
	if (p == MAP_FAILED || !copy)
		return fail("mmap", path);
	memcpy(copy, p, size);
	snprintf(ready, sizeof(ready), "%s.ready", flag);
	snprintf(check, sizeof(check), "%s.check", flag);
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("create", ready);
	close(fd);
	/* the test names the moment; no deadline of our own */
	while (stat(flag, &st) != 0) {
		if (stat(check, &st) == 0) {
			same = !memcmp(copy, p, size);
			bad |= !same;
			printf("%s: check %u: %s\n", path, ++n,
			       same ? "unchanged" : "CHANGED by another writer");
			fflush(stdout);
			unlink(check);
		}
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
	same = !memcmp(copy, p, size) && !bad;
	munmap(p, size);
	free(copy);
	printf("%s: %" PRIu64 " bytes kept mapped, %s\n", path, size,
	       same ? "unchanged" : "CHANGED by another writer");
	return same ? 0 : 1;
}

/* A read-only open of the filesystem through the mount's meta files. */
int open_meta_read(const char *mnt, struct famfs_fs **fs)
{
	static char meta[FAMFS_MAX_DEVICES][512];
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	const char *paths[FAMFS_MAX_DEVICES];
	struct famfs_err e = { 0 };
	struct stat st;
	unsigned n;

	for (n = 0; n < FAMFS_MAX_DEVICES; n++) {
		snprintf(meta[n], sizeof(meta[n]), "%s/.meta/dev%u", mnt, n);
		if (stat(meta[n], &st) != 0)
			break;
		paths[n] = meta[n];
	}
	if (n == 0 || famfs_open(paths, n, &o, fs, &e))
		return fprintf(stderr, "%s: cannot open: %s\n", mnt, e.msg), 1;
	return 0;
}

/* The items of @path's map, one "DEV OFFSET LENGTH" line each, to @out. */
int map_save(const char *mnt, const char *path, const char *out)
{
	const struct famfs_fmap *m;
	struct famfs_fs *fs;
	FILE *f;

	if (open_meta_read(mnt, &fs))
		return 1;
	m = famfs_lookup(fs, path) ? famfs_node_map(famfs_lookup(fs, path)) :
	    NULL;
	f = m ? fopen(out, "we") : NULL;
	for (unsigned i = 0; f && i < m->nitems; i++)
		fprintf(f, "%u %" PRIu64 " %" PRIu64 "\n", m->items[i].dev_index,
			m->items[i].offset, m->items[i].length);
	famfs_close(fs);
	if (!f)
		return fprintf(stderr, "%s: no map, or cannot write %s\n",
			       path, out), 1;
	return fclose(f) ? 1 : 0;
}

/* Exit 0 if @path's map overlaps an item saved by map_save(), else 1. */
int map_overlap(const char *mnt, const char *saved, const char *path)
{
	const struct famfs_fmap *m;
	uint64_t off, len;
	struct famfs_fs *fs;
	int hit = 0;
	unsigned dev;
	FILE *f;

	if (open_meta_read(mnt, &fs))
		return 2;
	m = famfs_lookup(fs, path) ? famfs_node_map(famfs_lookup(fs, path)) :
	    NULL;
	f = m ? fopen(saved, "re") : NULL;
	while (f && fscanf(f, "%u %" SCNu64 " %" SCNu64, &dev, &off, &len) == 3)
		for (unsigned i = 0; i < m->nitems; i++)
			if (m->items[i].dev_index == dev &&
			    m->items[i].offset < off + len &&
			    off < m->items[i].offset + m->items[i].length) {
				printf("%s uses saved memory: dev %u offset "
				       "%" PRIu64 "\n", path, dev, off);
				hit = 1;
			}
	if (f)
		fclose(f);
	famfs_close(fs);
	if (!m)
		return fprintf(stderr, "%s: no map\n", path), 2;
	if (!hit)
		printf("%s does not overlap the saved map\n", path);
	return hit ? 0 : 1;
}

/* Exit 0 if no master holds @dev's writer lock (libfamfs's flock). */
int master_unlocked(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC), got;

	if (fd < 0)
		return fail("open", dev);
	got = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return got ? 0 : 1;
}

/*
 * What the module of the mount at @mnt holds for its follower
 * (FAMFS_IOC_HELD): removed files still open or mapped, the lowest seq
 * that removed one, and the slot. "count=N min_seq=S slot=I".
 */
int held(const char *mnt)
{
	struct famfs_ioc_held h = { 0 };
	int fd = open(mnt, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fail("open", mnt);
	if (ioctl(fd, FAMFS_IOC_HELD, &h)) {
		close(fd);
		return fail("FAMFS_IOC_HELD", mnt);
	}
	close(fd);
	printf("count=%llu min_seq=%llu slot=%d\n", (unsigned long long)h.count,
	       (unsigned long long)h.min_seq, h.slot);
	return 0;
}
