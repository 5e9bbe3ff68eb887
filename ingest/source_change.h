/* SPDX-License-Identifier: Apache-2.0 */
/* A source file that changes while it is copied (source_change.c). */
#ifndef FAMFS_INGEST_SOURCE_CHANGE_H
#define FAMFS_INGEST_SOURCE_CHANGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ingest.h"

/* What the source says about a file; a write moves mtime and ctime (on
 * Linux 6.13 and later a write after a stat always does: multigrain
 * timestamps), a replacement the inode, a truncate or append the size.
 */
struct src_state {
	uint64_t size, mtime_ns, ctime_ns, dev, ino;
};

/* fstat() of the open source file: 0 or -errno. */
int src_state_of_fd(int fd, struct src_state *s);
/* From a statx() result: 0, or -EIO when it lacks size, times or inode. */
int src_state_of_statx(const struct statx *x, struct src_state *s);
bool src_state_same(const struct src_state *a, const struct src_state *b);
/* What the plan's stat of the file said: the "before" of its first copy. */
void src_state_of_plan(const struct ingest_item *it, struct src_state *s);
/* The file is as the plan found it (size, mtime, ctime, inode). */
bool src_state_is_planned(const struct src_state *s, const struct ingest_item *it);

/* Add "printf(...)" to @l (callers hold the job's lock); -ENOMEM. */
int ingest_names_add(struct ingest_names *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ingest_names_sort(struct ingest_names *l);

#endif
