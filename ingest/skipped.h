/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Paths ingest does not copy (fifo, socket, device node, ...): named to
 * the user, never dropped without a word (docs/ingest.md, "File types").
 */
#ifndef FAMFS_INGEST_SKIPPED_H
#define FAMFS_INGEST_SKIPPED_H

#include <stdio.h>

#include <json-c/json.h>

#include "ingest.h"

/* Paths named on stderr before the rest is only counted. */
#define INGEST_SKIPPED_SHOWN 20
/* Paths named in a famfsd job's result before the rest is only counted. */
#define INGEST_SKIPPED_IN_RESULT 1000

/*
 * ingest_skipped_print() - one line per skipped path of @p on @f, "PATH:
 * WHY", the first INGEST_SKIPPED_SHOWN of them, then how many more. Prints
 * nothing when nothing is skipped.
 */
void ingest_skipped_print(const struct ingest_plan *p, FILE *f);

/*
 * ingest_skipped_json() - a new JSON array of {"path", "why"} for the first
 * @max skipped paths of @p. The caller owns it.
 */
json_object *ingest_skipped_json(const struct ingest_plan *p, unsigned max);

/*
 * ingest_skipped_refuse() - for --strict: 0 if @p skips nothing, else
 * -EOPNOTSUPP with @why naming how many paths and the first one.
 */
int ingest_skipped_refuse(const struct ingest_plan *p, char *why, size_t whylen);

#endif
