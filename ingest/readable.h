/* SPDX-License-Identifier: Apache-2.0 */
/* Deciding "this process can read that file" from a stat (readable.c). */
#ifndef FAMFS_INGEST_READABLE_H
#define FAMFS_INGEST_READABLE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

struct source_access {
	uid_t euid;
	bool reads_all;         /* DAC read capability over every inode */
};

/* Learn who we are, once per walk. */
void source_access_init(struct source_access *a);

/* true: DAC certainly lets us read @st; false: ask faccessat(). */
bool source_surely_readable(const struct source_access *a, const struct stat *st);

#endif
