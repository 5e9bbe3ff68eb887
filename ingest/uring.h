/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading many small source files with few system calls (uring.c): the
 * opens, reads and stat + close of a whole group of files go in three
 * submits. Without liburing at build time, or where
 * the kernel refuses io_uring (seccomp, kernel.io_uring_disabled, an old
 * kernel), uring_reader_new() returns NULL and the caller reads files
 * with plain system calls.
 */
#ifndef FAMFS_INGEST_URING_H
#define FAMFS_INGEST_URING_H

#include <stdint.h>
#include <sys/stat.h>

/* Files one submit reads, at most. */
#define URING_GROUP_FILES 32

struct uring_file {
	const char *rel;        /* below the dir fd, opened RESOLVE_BENEATH */
	void *dst;              /* where the bytes go (the device mapping) */
	uint32_t size;          /* bytes to read from offset 0 */
	int result;             /* out: bytes read, or -errno (open or read) */
	int stat_result;        /* out: 0 when stx holds the file after the read */
	struct statx stx;       /* out: statx of the open file after the read */
};

struct uring_reader;

/* A reader for one thread, or NULL with errno set (ENOSYS, EPERM, ...)
 * when io_uring cannot be used here. Free with uring_reader_free().
 */
struct uring_reader *uring_reader_new(void);
void uring_reader_free(struct uring_reader *u);

/*
 * Open each of @f[0..n) (n <= URING_GROUP_FILES) beneath @root (a
 * directory fd; famfs ingest passes each file's own) without
 * following symlinks, read its size bytes into dst, statx the open file
 * once the read is done (what the source says after the copy), close it:
 * three submits. Fills every f[i].result and, for a file read whole,
 * f[i].stat_result. Returns 0, or -errno if the ring itself failed (then
 * the reader must not be used again; the results say nothing).
 */
int uring_read_files(struct uring_reader *u, int root, struct uring_file *f,
		     unsigned n);

/* Names one uring_stat_names() call stats, at most. */
#define URING_STAT_BATCH (URING_GROUP_FILES * 2)

struct uring_stat {
	const char *name;       /* one name in the directory fd */
	int result;             /* out: 0, or -errno of the statx */
	struct statx stx;       /* out: statx(name, AT_SYMLINK_NOFOLLOW) */
};

/*
 * statx of each of @s[0..n) (n <= URING_STAT_BATCH) in @dfd, not
 * following symlinks, in one submit (the plan's walk: the kernel runs
 * them in its io-wq workers, beside the walking thread). Returns 0, or
 * -errno if the ring itself failed (then the reader must not be used
 * again; the results say nothing).
 */
int uring_stat_names(struct uring_reader *u, int dfd, struct uring_stat *s,
		     unsigned n);

#endif
