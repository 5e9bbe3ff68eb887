// SPDX-License-Identifier: Apache-2.0
/*
 * The switch records: see dataset_switch.h. The table is made here when
 * first used, as the ingest manifest's is (ingest/manifest_sqlite.c), not
 * by a migration: it holds only what a running job needs across a
 * restart.
 */
#include <errno.h>
#include <stdio.h>

#include "dataset_switch.h"
#include "famfsd.h"
#include "log.h"
#include "store/store.h"

static const char ddl[] =
	"CREATE TABLE IF NOT EXISTS dataset_switch ("
	" dataset    TEXT PRIMARY KEY REFERENCES datasets(name) "
	"            ON DELETE CASCADE,"
	" job        INTEGER NOT NULL,"
	" generation INTEGER NOT NULL,"
	" ino        INTEGER NOT NULL,"
	" from_path  TEXT NOT NULL,"
	" retired    TEXT NOT NULL) STRICT";

int dataset_switch_begin(const char *name, const struct dataset_switch *s)
{
	sqlite3_stmt *st;
	int r = -EIO;

	famfsd_lock();
	st = store_exec(famfsd.db, ddl) ? NULL : store_prep(famfsd.db,
		"INSERT OR REPLACE INTO dataset_switch (dataset, job, "
		"generation, ino, from_path, retired) VALUES (?1, ?2, ?3, ?4, "
		"?5, ?6)");
	if (st) {
		store_bind_text(st, 1, name);
		sqlite3_bind_int64(st, 2, s->job);
		sqlite3_bind_int64(st, 3, s->generation);
		sqlite3_bind_int64(st, 4, (int64_t)s->ino);
		store_bind_text(st, 5, s->from);
		store_bind_text(st, 6, s->retired);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
		sqlite3_finalize(st);
	}
	if (r)
		log_warn("dataset %s: cannot record the switch of job %lld: %s",
			 name, (long long)s->job, sqlite3_errmsg(famfsd.db));
	famfsd_unlock();
	return r;
}

int dataset_switch_get(const char *name, struct dataset_switch *s,
		       bool *live)
{
	sqlite3_stmt *st;
	int r = -EIO;

	famfsd_lock();
	st = store_exec(famfsd.db, ddl) ? NULL : store_prep(famfsd.db,
		"SELECT generation, ino, from_path, retired, job, "
		"coalesce((SELECT state IN ('queued', 'running') FROM jobs "
		"WHERE id=s.job), 0) FROM dataset_switch s WHERE dataset=?1");
	if (st) {
		store_bind_text(st, 1, name);
		r = -ENOENT;
		if (sqlite3_step(st) == SQLITE_ROW) {
			s->job = sqlite3_column_int64(st, 4);
			*live = sqlite3_column_int(st, 5) != 0;
			s->generation = sqlite3_column_int64(st, 0);
			s->ino = (uint64_t)sqlite3_column_int64(st, 1);
			snprintf(s->from, sizeof(s->from), "%s",
				 (const char *)sqlite3_column_text(st, 2));
			snprintf(s->retired, sizeof(s->retired), "%s",
				 (const char *)sqlite3_column_text(st, 3));
			r = 0;
		}
		sqlite3_finalize(st);
	}
	famfsd_unlock();
	return r;
}
