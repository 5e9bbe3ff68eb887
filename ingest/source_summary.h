/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A dataset source's summary: what famfsd last ingested from it, kept so
 * that a changed source is seen (docs/cluster-yaml.md, "Datasets that
 * change"). The summary is the sorted list of the tree's entries with
 * (path, type, size, mtime, mode, link target), its counts, and an XXH3
 * 128-bit digest of that list in its packed form.
 *
 * A directory's size and mtime are left out (0): they change with every
 * entry added or removed inside it, which the list shows already. Only a
 * directory's mode is compared. Nothing is followed: a symlink is listed
 * with its target, as ingest copies it.
 */
#ifndef FAMFS_INGEST_SOURCE_SUMMARY_H
#define FAMFS_INGEST_SOURCE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

/* Entry types, as `find -printf %y` names them. */
#define SUMMARY_FILE 'f'
#define SUMMARY_DIR 'd'
#define SUMMARY_SYMLINK 'l'
#define SUMMARY_OTHER 'o' /* fifo, socket, device: listed, never copied */

struct summary_entry {
	char *path;        /* relative to the root, no leading '/' */
	char *target;      /* symlink target, else NULL */
	uint64_t size;
	int64_t mtime_ns;
	uint32_t mode;     /* permission bits (07777) */
	char type;
};

struct source_summary {
	struct summary_entry *v; /* sorted by path (bytewise) */
	size_t n, cap;
	uint64_t files, dirs, symlinks, others;
	uint64_t bytes;          /* sum of regular files' sizes */
	char digest[33];         /* 32 hex digits, NUL-terminated */
};

struct source_drift {
	uint64_t added, changed, removed; /* entries, directories included */
	int64_t bytes_delta;              /* bytes now - bytes then */
};

/*
 * source_summary_scan() - walk @root (a directory) and fill @s. Returns
 * 0, or a negative errno with the path that failed and why in @why.
 * Free with source_summary_free() either way.
 */
int source_summary_scan(const char *root, struct source_summary *s,
			char *why, size_t whylen);
void source_summary_free(struct source_summary *s);

/*
 * source_summary_pack() - the entries as a byte string (the digest's
 * input and what famfsd stores). Returns 0 with *@buf (free() it) and
 * *@len, or -ENOMEM.
 */
int source_summary_pack(const struct source_summary *s, unsigned char **buf,
			size_t *len);
/* Back from source_summary_pack()'s bytes; -EINVAL if they are not that. */
int source_summary_unpack(const unsigned char *buf, size_t len,
			  struct source_summary *s);

/* What changed from @then to @now (both sorted). */
void source_summary_compare(const struct source_summary *then,
			    const struct source_summary *now,
			    struct source_drift *d);

#endif
