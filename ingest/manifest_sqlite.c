// SPDX-License-Identifier: Apache-2.0
/*
 * The ingest manifest in SQLite: one row per source file of a dataset
 * (keyed by a dataset key: filesystem + destination), with size, mtime,
 * checksum and state. famfsd keeps it in its own database; the offline
 * CLI and the tests in a file of their own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "ingest.h"
#include "manifest_sqlite.h"

const char ingest_manifest_ddl[] =
	"CREATE TABLE IF NOT EXISTS ingest_manifest ("
	" dataset TEXT NOT NULL,"
	" rel TEXT NOT NULL,"
	" size INTEGER NOT NULL,"
	" mtime_ns INTEGER NOT NULL,"
	" checksum INTEGER NOT NULL,"
	" state INTEGER NOT NULL,"
	" PRIMARY KEY (dataset, rel)) WITHOUT ROWID;";

struct pending_row {
	char *rel;
	uint64_t rel_hash;  /* XXH3 of rel: a get scans 512 of these cheaply */
	struct ingest_record r;
};

struct sqlite_manifest {
	sqlite3 *db;
	bool own_db;
	char *dataset;
	pthread_mutex_t lock;
	sqlite3_stmt *get, *put;
	char error[256];
	struct pending_row rows[512];  /* BATCH_PUTS */
	unsigned nrows;
	struct timespec batch_start;
};

/*
 * Puts are grouped: rows wait in memory and are written in one transaction
 * per 512 files or 200 ms, so that famfsd's own writes (which share the
 * database) are never held up by an open transaction between puts. Losing
 * the rows still in memory in a crash is harmless: a resumed ingest finds
 * those files complete in famfs without a record, compares their XXH3 with
 * the source and adopts them (ingest/run.c, decide()).
 */
#define BATCH_PUTS 512
#define BATCH_NS 200000000LL

static int64_t elapsed_ns(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000000000LL + (b.tv_nsec - a->tv_nsec);
}

static int exec_retry(sqlite3 *db, const char *sql)
{
	for (int tries = 0;; tries++) {
		int r = sqlite3_exec(db, sql, NULL, NULL, NULL);

		if ((r != SQLITE_BUSY && r != SQLITE_LOCKED) || tries >= 400)
			return r;
		usleep(25000);
	}
}

/* Write the rows waiting in memory; caller holds s->lock. */
static int flush_rows(struct sqlite_manifest *s)
{
	int rc = 0;

	if (!s->nrows)
		return 0;
	if (exec_retry(s->db, "BEGIN IMMEDIATE") != SQLITE_OK)
		rc = -EIO;
	for (unsigned i = 0; !rc && i < s->nrows; i++) {
		const struct ingest_record *r = &s->rows[i].r;

		sqlite3_reset(s->put);
		sqlite3_bind_text(s->put, 1, s->dataset, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->put, 2, s->rows[i].rel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->put, 3, (sqlite3_int64)r->size);
		sqlite3_bind_int64(s->put, 4, (sqlite3_int64)r->mtime_ns);
		sqlite3_bind_int64(s->put, 5, (sqlite3_int64)r->checksum);
		sqlite3_bind_int(s->put, 6, r->state);
		if (sqlite3_step(s->put) != SQLITE_DONE)
			rc = -EIO;
		sqlite3_reset(s->put);
	}
	if (rc) {
		snprintf(s->error, sizeof(s->error), "%s", sqlite3_errmsg(s->db));
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	} else if (exec_retry(s->db, "COMMIT") != SQLITE_OK) {
		snprintf(s->error, sizeof(s->error), "%s", sqlite3_errmsg(s->db));
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		rc = -EIO;
	}
	for (unsigned i = 0; i < s->nrows; i++)
		free(s->rows[i].rel);
	s->nrows = 0;
	clock_gettime(CLOCK_MONOTONIC, &s->batch_start);
	return rc;
}

static int sm_get(void *m, const char *rel, struct ingest_record *r)
{
	struct sqlite_manifest *s = m;
	uint64_t h = XXH3_64bits(rel, strlen(rel));
	int rc = -ENOENT;

	pthread_mutex_lock(&s->lock);
	/* A row still waiting for its batch is the newest record of @rel.
	 * Reading it here, not committing the batch first, keeps the batch:
	 * the engine gets every file before it puts the one before it.
	 */
	for (unsigned i = s->nrows; i-- > 0;)
		if (s->rows[i].rel_hash == h && !strcmp(s->rows[i].rel, rel)) {
			*r = s->rows[i].r;
			pthread_mutex_unlock(&s->lock);
			return 0;
		}
	sqlite3_reset(s->get);
	sqlite3_bind_text(s->get, 1, s->dataset, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->get, 2, rel, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s->get) == SQLITE_ROW) {
		r->size = (uint64_t)sqlite3_column_int64(s->get, 0);
		r->mtime_ns = (uint64_t)sqlite3_column_int64(s->get, 1);
		r->checksum = (uint64_t)sqlite3_column_int64(s->get, 2);
		r->state = sqlite3_column_int(s->get, 3);
		rc = 0;
	}
	/* end the read transaction now: a statement left open keeps an old
	 * snapshot, and the next write would fail with SQLITE_BUSY_SNAPSHOT
	 */
	sqlite3_reset(s->get);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int sm_put(void *m, const char *rel, const struct ingest_record *r)
{
	struct sqlite_manifest *s = m;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (!s->nrows)
		clock_gettime(CLOCK_MONOTONIC, &s->batch_start);
	s->rows[s->nrows].rel = strdup(rel);
	s->rows[s->nrows].rel_hash = XXH3_64bits(rel, strlen(rel));
	s->rows[s->nrows].r = *r;
	if (s->rows[s->nrows].rel)
		s->nrows++;
	else
		rc = -ENOMEM;
	if (s->nrows >= BATCH_PUTS || elapsed_ns(&s->batch_start) > BATCH_NS)
		rc = flush_rows(s);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static const char *sm_error(void *m)
{
	return ((struct sqlite_manifest *)m)->error;
}

/* One SELECT of the dataset's done files, rows still in memory first. */
static int sm_each_done(void *m, void (*fn)(void *arg, const char *rel), void *arg)
{
	struct sqlite_manifest *s = m;
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (flush_rows(s) || sqlite3_prepare_v2(s->db, "SELECT rel FROM ingest_manifest "
				"WHERE dataset = ? AND state = 1", -1, &st, NULL) != SQLITE_OK)
		rc = -EIO;
	if (!rc)
		sqlite3_bind_text(st, 1, s->dataset, -1, SQLITE_STATIC);
	while (!rc && sqlite3_step(st) == SQLITE_ROW)
		fn(arg, (const char *)sqlite3_column_text(st, 0));
	if (rc)
		snprintf(s->error, sizeof(s->error), "%s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int sm_forget(void *m, const char *rel)
{
	struct sqlite_manifest *s = m;
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (flush_rows(s) || sqlite3_prepare_v2(s->db, "DELETE FROM ingest_manifest "
				"WHERE dataset = ? AND rel = ?", -1, &st, NULL) != SQLITE_OK)
		rc = -EIO;
	if (!rc) {
		sqlite3_bind_text(st, 1, s->dataset, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, rel, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = -EIO;
	}
	if (rc)
		snprintf(s->error, sizeof(s->error), "%s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static const struct ingest_manifest_ops sqlite_ops = {
	.get = sm_get, .put = sm_put, .error = sm_error,
	.each_done = sm_each_done, .forget = sm_forget,
};

static int prepare(struct sqlite_manifest *s)
{
	if (sqlite3_exec(s->db, ingest_manifest_ddl, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT size, mtime_ns, checksum, state FROM "
			       "ingest_manifest WHERE dataset = ? AND rel = ?", -1,
			       &s->get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO ingest_manifest VALUES "
			       "(?, ?, ?, ?, ?, ?)", -1, &s->put, NULL) != SQLITE_OK)
		return -EIO;
	return 0;
}

int ingest_manifest_sqlite_attach(struct ingest_manifest *man, sqlite3 *db,
				  const char *dataset)
{
	struct sqlite_manifest *s = calloc(1, sizeof(*s));

	if (!s || !(s->dataset = strdup(dataset))) {
		free(s);
		return -ENOMEM;
	}
	s->db = db;
	sqlite3_busy_timeout(db, 10000);
	pthread_mutex_init(&s->lock, NULL);
	if (prepare(s)) {
		sqlite3_finalize(s->get);
		sqlite3_finalize(s->put);
		pthread_mutex_destroy(&s->lock);
		free(s->dataset);
		free(s);
		return -EIO;
	}
	man->ops = &sqlite_ops;
	man->m = s;
	return 0;
}

int ingest_manifest_sqlite_open(struct ingest_manifest *man, const char *path,
				const char *dataset, char *why, size_t whylen)
{
	sqlite3 *db;
	int r;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		snprintf(why, whylen, "manifest %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_busy_timeout(db, 10000);
	sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
		     NULL, NULL, NULL);
	r = ingest_manifest_sqlite_attach(man, db, dataset);
	if (r) {
		snprintf(why, whylen, "manifest %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return r;
	}
	((struct sqlite_manifest *)man->m)->own_db = true;
	return 0;
}

void ingest_manifest_sqlite_close(struct ingest_manifest *man)
{
	struct sqlite_manifest *s = man->m;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	flush_rows(s);
	pthread_mutex_unlock(&s->lock);
	sqlite3_finalize(s->get);
	sqlite3_finalize(s->put);
	if (s->own_db)
		sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s->dataset);
	free(s);
	man->m = NULL;
}
