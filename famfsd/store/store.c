// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "store/migrations.h"
#include "store/store.h"

int store_schema_version(void)
{
	return store_nmigrations;
}

int store_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int r = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (r != SQLITE_OK) {
		log_err("sqlite: %s (in: %.80s)", msg ? msg : sqlite3_errstr(r),
			sql);
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

int store_begin(sqlite3 *db)
{
	return store_exec(db, "BEGIN IMMEDIATE");
}

int store_commit(sqlite3 *db)
{
	return store_exec(db, "COMMIT");
}

void store_rollback(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		store_exec(db, "ROLLBACK");
}

sqlite3_stmt *store_prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		log_err("sqlite: cannot prepare '%.80s': %s", sql,
			sqlite3_errmsg(db));
		return NULL;
	}
	return st;
}

void store_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int pragmas(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_busy_timeout(db, 5000);
	if (store_exec(db, "PRAGMA journal_mode=WAL") ||
	    store_exec(db, "PRAGMA synchronous=NORMAL") ||
	    store_exec(db, "PRAGMA foreign_keys=ON")) {
		snprintf(err, errlen, "cannot set pragmas: %s",
			 sqlite3_errmsg(db));
		return -EIO;
	}
	return 0;
}

static int user_version(sqlite3 *db)
{
	sqlite3_stmt *st = store_prep(db, "PRAGMA user_version");
	int v = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int migrate(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	int have = user_version(db);

	if (have < 0) {
		snprintf(err, errlen, "%s: cannot read user_version", path);
		return -EIO;
	}
	if (have > store_nmigrations) {
		snprintf(err, errlen, "%s has schema version %d but this famfsd "
			 "knows only up to %d: it was written by a newer famfsd; "
			 "run that version (or restore a backup)", path, have,
			 store_nmigrations);
		return -EPROTO;
	}
	for (int i = have; i < store_nmigrations; i++) {
		const struct store_migration *m = &store_migrations[i];
		char pragma[64];

		snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%d",
			 m->version);
		if (store_begin(db) || store_exec(db, m->sql) ||
		    store_exec(db, pragma) || store_commit(db)) {
			store_rollback(db);
			snprintf(err, errlen, "%s: migration %s failed: %s",
				 path, m->name, sqlite3_errmsg(db));
			return -EIO;
		}
		log_info("%s: applied migration %s", path, m->name);
	}
	return 0;
}

int store_open_conn(const char *path, sqlite3 **out, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int r;

	r = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
	if (r != SQLITE_OK) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 db ? sqlite3_errmsg(db) : sqlite3_errstr(r));
		sqlite3_close(db);
		return -EIO;
	}
	r = pragmas(db, err, errlen);
	if (r) {
		sqlite3_close(db);
		return r;
	}
	*out = db;
	return 0;
}

int store_open(const char *path, sqlite3 **out, char *err, size_t errlen)
{
	sqlite3 *db;
	int r = store_open_conn(path, &db, err, errlen);

	if (r)
		return r;
	r = migrate(db, path, err, errlen);
	if (r) {
		sqlite3_close(db);
		return r;
	}
	*out = db;
	return 0;
}

void store_close(sqlite3 *db)
{
	sqlite3_close(db);
}

int store_kv_get(sqlite3 *db, const char *key, char *buf, int len)
{
	sqlite3_stmt *st = store_prep(db, "SELECT value FROM kv WHERE key=?");
	int r = -ENOENT;

	buf[0] = 0;
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(buf, len, "%s", sqlite3_column_text(st, 0));
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

int64_t store_kv_get_int(sqlite3 *db, const char *key, int64_t dflt)
{
	char buf[32];

	if (store_kv_get(db, key, buf, sizeof(buf)))
		return dflt;
	return strtoll(buf, NULL, 10);
}

int store_kv_set(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st = store_prep(db,
		"INSERT INTO kv(key,value) VALUES(?,?) "
		"ON CONFLICT(key) DO UPDATE SET value=excluded.value");
	int r;

	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return r;
}

void store_event(sqlite3 *db, const char *level, const char *resource,
		 const char *fmt, ...)
{
	sqlite3_stmt *st;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(!strcmp(level, "error") ? LOG_ERR :
		!strcmp(level, "warning") ? LOG_WARNING : LOG_INFO,
		"%s: %s", resource, msg);
	st = store_prep(db, "INSERT INTO events(time,level,resource,message) "
			"VALUES(?,?,?,?)");
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, store_now());
	sqlite3_bind_text(st, 2, level, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, resource, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, msg, -1, SQLITE_STATIC);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

void store_audit(sqlite3 *db, const char *who, const char *method,
		 const char *path, const char *body, int status,
		 const char *error_code)
{
	sqlite3_stmt *st = store_prep(db,
		"INSERT INTO audit(time,who,method,path,body,status,error_code)"
		" VALUES(?,?,?,?,substr(?,1,4096),?,?)");

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, store_now());
	sqlite3_bind_text(st, 2, who, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, method, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, body ? body : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, status);
	sqlite3_bind_text(st, 7, error_code ? error_code : "", -1,
			  SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		log_err("audit: cannot record %s %s: %s", method, path,
			sqlite3_errmsg(db));
	sqlite3_finalize(st);
}

int64_t store_now(void)
{
	return (int64_t)time(NULL);
}

const char *store_time_text(int64_t t, char *buf, int len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

int store_delete_named(sqlite3 *db, const char *table, const char *name)
{
	char sql[128];
	sqlite3_stmt *st;
	int r;

	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE name=?", table);
	st = store_prep(db, sql);
	if (!st)
		return SQLITE_ERROR;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	return r;
}
