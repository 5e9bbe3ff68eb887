/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Diagnostics for cluster files: every problem found in one run, each with
 * the place it concerns, printed as `FILE:LINE:COL: KEY.PATH: message`.
 */
#ifndef FAMFS_CLI_CLUSTER_DIAG_H
#define FAMFS_CLI_CLUSTER_DIAG_H

#include <stddef.h>
#include <stdio.h>

#include "cluster/doc.h"

struct diag_entry {
	struct ymark mark;
	char *path; /* "hosts[1].endpoint"; "" for the document itself */
	char *msg;
	size_t seq; /* order found, to keep sorting stable */
};

struct diag {
	const char *file;
	struct diag_entry *v;
	size_t n, cap;
	size_t dropped; /* entries that could not be recorded (no memory) */
};

/* A key path under construction: push with kpath_key()/kpath_index(),
 * pop by restoring the saved length.
 */
struct kpath {
	char buf[512];
	size_t len;
};

void diag_add(struct diag *d, const struct ymark *m, const char *path,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Print every entry, in file order, to @f. */
void diag_print(struct diag *d, FILE *f);
/*
 * diag_to_json() - every entry, in file order, as an array of
 * {"file", "line", "column", "path", "message"} (a json-c object the
 * caller puts). NULL without memory.
 */
struct json_object;
struct json_object *diag_to_json(struct diag *d);
void diag_free(struct diag *d);

/* Append ".key" (or "key" at the root) / "[i]"; return the old length. */
size_t kpath_key(struct kpath *p, const char *key);
size_t kpath_index(struct kpath *p, size_t i);
static inline void kpath_pop(struct kpath *p, size_t len)
{
	p->len = len;
	p->buf[len] = '\0';
}

#endif
