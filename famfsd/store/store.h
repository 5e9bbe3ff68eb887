/* SPDX-License-Identifier: Apache-2.0 */
/*
 * famfsd's state: one SQLite file (WAL, foreign keys, busy timeout) in the
 * state directory. Every caller holds famfsd's state lock, so one
 * connection is shared; a mutating API call runs in one transaction.
 * Job runners that want their own connection (e.g. an ingest manifest
 * written from worker threads) use store_open_conn().
 */
#ifndef FAMFSD_STORE_H
#define FAMFSD_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#define STORE_DB_NAME "famfsd.db"

/*
 * store_open() - open (creating) @path, apply pending migrations, refuse a
 * database whose user_version is newer than this binary knows. 0 or a
 * negative errno with a message in @err.
 */
int store_open(const char *path, sqlite3 **out, char *err, size_t errlen);
/* Another connection to an already migrated database, same pragmas. */
int store_open_conn(const char *path, sqlite3 **out, char *err, size_t errlen);
void store_close(sqlite3 *db);
/* The schema version this binary carries (the highest migration). */
int store_schema_version(void);

int store_exec(sqlite3 *db, const char *sql);
int store_begin(sqlite3 *db);        /* BEGIN IMMEDIATE */
int store_commit(sqlite3 *db);
void store_rollback(sqlite3 *db);

/* Prepare @sql; NULL (logged) on error. */
sqlite3_stmt *store_prep(sqlite3 *db, const char *sql);
/* DELETE FROM @table WHERE name = @name (table from a fixed list, never
 * from input). Returns the sqlite3_step() result.
 */
int store_delete_named(sqlite3 *db, const char *table, const char *name);
/* Bind helpers that accept NULL for SQL NULL. */
void store_bind_text(sqlite3_stmt *st, int i, const char *s);

/* kv table: host identity, policy defaults. @buf gets "" if absent. */
int store_kv_get(sqlite3 *db, const char *key, char *buf, int len);
int store_kv_set(sqlite3 *db, const char *key, const char *value);
int64_t store_kv_get_int(sqlite3 *db, const char *key, int64_t dflt);

/* events table: something famfsd noticed by itself. */
void store_event(sqlite3 *db, const char *level, const char *resource,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* audit table: one row per mutating API call, also failed ones. */
void store_audit(sqlite3 *db, const char *who, const char *method,
		 const char *path, const char *body, int status,
		 const char *error_code);

int64_t store_now(void);
/* Unix seconds -> RFC 3339 UTC into @buf (at least 32 bytes). */
const char *store_time_text(int64_t t, char *buf, int len);

#endif
