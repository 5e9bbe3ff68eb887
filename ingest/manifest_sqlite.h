/* SPDX-License-Identifier: Apache-2.0 */
#ifndef FAMFS_INGEST_MANIFEST_SQLITE_H
#define FAMFS_INGEST_MANIFEST_SQLITE_H

#include <sqlite3.h>

#include "ingest.h"

/* The table, created on attach if missing (famfsd: in its own database). */
extern const char ingest_manifest_ddl[];

/* Use @db (serialized mode) for the rows of @dataset. */
int ingest_manifest_sqlite_attach(struct ingest_manifest *man, sqlite3 *db,
				  const char *dataset);
/* Open (or create) a manifest database file of its own. */
int ingest_manifest_sqlite_open(struct ingest_manifest *man, const char *path,
				const char *dataset, char *why, size_t whylen);
void ingest_manifest_sqlite_close(struct ingest_manifest *man);

#endif
