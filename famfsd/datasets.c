// SPDX-License-Identifier: Apache-2.0
/* Datasets' rows: see datasets.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "datasets.h"
#include "famfsd.h"
#include "jobs/generation.h"
#include "log.h"
#include "manifest_sqlite.h"
#include "store/store.h"

/* The next value of dataset_generations.retired (0005_holds.sql): the
 * generation that stops serving now is the newest kept one.
 */
#define NEXT_RETIRED "(SELECT coalesce(max(retired), 0) + 1 FROM " \
	"dataset_generations WHERE dataset=?1)"

/* Run @st to its end and finalize it; 0 or -EIO. */
static int run(sqlite3_stmt *st)
{
	int rc = st ? sqlite3_step(st) : SQLITE_ERROR;

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int dataset_begin(struct dataset_spec *d)
{
	sqlite3_stmt *st;
	int r;

	famfsd_lock();
	st = store_prep(famfsd.db,
		"INSERT INTO datasets (name, filesystem, source, dest, state, "
		"chunk, strips, keep, created) VALUES (?1, ?2, ?3, ?4, "
		"'ingesting', ?5, ?6, ?8, ?7) ON CONFLICT (name) DO UPDATE SET "
		"filesystem=?2, source=?3, dest=?4, chunk=?5, strips=?6, "
		"keep=?8, state=CASE WHEN generation > 0 THEN 'refreshing' "
		"ELSE 'ingesting' END RETURNING generation, job");
	if (st) {
		store_bind_text(st, 1, d->name);
		store_bind_text(st, 2, d->filesystem);
		store_bind_text(st, 3, d->source);
		store_bind_text(st, 4, d->dest);
		sqlite3_bind_int64(st, 5, (int64_t)d->chunk);
		sqlite3_bind_int64(st, 6, d->strips);
		sqlite3_bind_int64(st, 7, store_now());
		sqlite3_bind_int64(st, 8, d->keep);
	}
	d->serving = -1;
	d->serving_job = 0;
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		d->serving = sqlite3_column_int64(st, 0);
		d->serving_job = sqlite3_column_int64(st, 1);
	}
	r = run(st);
	if (d->serving < 0)
		r = -EIO;
	d->next = d->serving + 1;
	st = r ? NULL : store_prep(famfsd.db, "SELECT max(generation) FROM "
				   "dataset_generations WHERE dataset=?");
	if (st) {
		store_bind_text(st, 1, d->name);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_int64(st, 0) >= d->next)
			d->next = sqlite3_column_int64(st, 0) + 1;
		sqlite3_finalize(st);
	}
	famfsd_unlock();
	if (r)
		log_warn("dataset %s: cannot record its ingest (job %lld): %s",
			 d->name, (long long)d->job, sqlite3_errmsg(famfsd.db));
	return r;
}

/* The generation rows: the new one serves; the one before it is kept at
 * @retired, or gone (NULL: the tree was updated in place).
 */
static int add_generation(const struct dataset_spec *d, const char *path,
			  const char *retired, const struct source_summary *s)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"UPDATE dataset_generations SET state=iif(?2 IS NULL, "
		"'removed', 'kept'), path=coalesce(?2, path), "
		"retired=" NEXT_RETIRED " WHERE dataset=?1 AND state='serving'");

	store_bind_text(st, 1, d->name);
	store_bind_text(st, 2, retired);
	if (run(st))
		return -EIO;
	st = store_prep(famfsd.db,
		"INSERT INTO dataset_generations (dataset, generation, path, "
		"state, job, files, bytes, digest, created) SELECT name, "
		"generation, ?2, 'serving', ?3, ?4, ?5, ?6, ?7 FROM datasets "
		"WHERE name=?1");
	if (st) {
		store_bind_text(st, 1, d->name);
		store_bind_text(st, 2, path);
		sqlite3_bind_int64(st, 3, d->job);
		sqlite3_bind_int64(st, 4, (int64_t)s->files);
		sqlite3_bind_int64(st, 5, (int64_t)s->bytes);
		store_bind_text(st, 6, s->digest);
		sqlite3_bind_int64(st, 7, store_now());
	}
	return run(st);
}

static int record_success(const struct dataset_spec *d, const char *path,
			  const char *retired,
			  const struct source_summary *s, int64_t ms,
			  const unsigned char *buf, size_t len)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"UPDATE datasets SET generation=?11, state='ready', "
		"job=?2, files=?3, dirs=?4, symlinks=?5, bytes=?6, digest=?7, "
		"entries=?8, refreshed=?9, duration_ms=?10, last_error='' "
		"WHERE name=?1");

	if (!st)
		return -EIO;
	store_bind_text(st, 1, d->name);
	sqlite3_bind_int64(st, 2, d->job);
	sqlite3_bind_int64(st, 3, (int64_t)s->files);
	sqlite3_bind_int64(st, 4, (int64_t)s->dirs);
	sqlite3_bind_int64(st, 5, (int64_t)s->symlinks);
	sqlite3_bind_int64(st, 6, (int64_t)s->bytes);
	store_bind_text(st, 7, s->digest);
	sqlite3_bind_blob64(st, 8, buf, len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, store_now());
	sqlite3_bind_int64(st, 10, ms);
	sqlite3_bind_int64(st, 11, d->next);
	if (run(st) || sqlite3_changes(famfsd.db) != 1)
		return -EIO;
	return add_generation(d, path, retired, s);
}

int dataset_succeeded(const struct dataset_spec *d, const char *path,
		      const char *retired, const struct source_summary *s,
		      int64_t duration_ms)
{
	unsigned char *buf;
	size_t len;
	int r;

	if (source_summary_pack(s, &buf, &len))
		return -ENOMEM;
	famfsd_lock();
	r = store_begin(famfsd.db);
	if (!r) {
		r = record_success(d, path, retired, s, duration_ms, buf, len);
		if (r)
			store_rollback(famfsd.db);
		else
			r = store_commit(famfsd.db) ? -EIO : 0;
	}
	if (r)
		log_warn("dataset %s: cannot record generation of job %lld: %s",
			 d->name, (long long)d->job, sqlite3_errmsg(famfsd.db));
	else
		store_event(famfsd.db, "info", "datasets", "dataset %s: job %lld "
			    "made a new generation (%llu files, %llu bytes)",
			    d->name, (long long)d->job,
			    (unsigned long long)s->files,
			    (unsigned long long)s->bytes);
	famfsd_unlock();
	free(buf);
	return r;
}

void dataset_failed(const struct dataset_spec *d, const char *error)
{
	sqlite3_stmt *st;

	famfsd_lock();
	st = store_prep(famfsd.db,
		"UPDATE datasets SET failures=failures+1, last_error=?2, "
		"state=CASE WHEN generation > 0 THEN 'ready' ELSE 'failed' END "
		"WHERE name=?1");
	store_bind_text(st, 1, d->name);
	store_bind_text(st, 2, error);
	if (run(st))
		log_warn("dataset %s: cannot record the failure of job %lld",
			 d->name, (long long)d->job);
	store_event(famfsd.db, "warning", "datasets", "dataset %s: job %lld "
		    "failed: %s", d->name, (long long)d->job, error);
	famfsd_unlock();
}

int dataset_expired(const struct dataset_spec *d, long long *gen,
		    char *path, size_t len)
{
	sqlite3_stmt *st;
	int found = 0;

	famfsd_lock();
	/* beyond the newest `keep` to stop serving (not the highest
	 * numbers: after an undo the one that stopped serving is the
	 * newest), and held by no one (a held one stays until its last
	 * hold goes: holds.h)
	 */
	st = store_prep(famfsd.db, "SELECT generation, path FROM (SELECT "
		"generation, path, retired FROM dataset_generations WHERE "
		"dataset=?1 AND state='kept' ORDER BY retired DESC, generation "
		"DESC LIMIT -1 OFFSET ?2) g WHERE NOT EXISTS (SELECT 1 FROM "
		"holds h WHERE h.dataset=?1 AND h.generation=g.generation) "
		"ORDER BY retired DESC, generation DESC");
	if (st) {
		store_bind_text(st, 1, d->name);
		sqlite3_bind_int64(st, 2, d->keep);
	}
	while (st && sqlite3_step(st) == SQLITE_ROW) {  /* the oldest */
		*gen = sqlite3_column_int64(st, 0);
		snprintf(path, len, "%s", (const char *)sqlite3_column_text(st, 1));
		found = 1;
	}
	sqlite3_finalize(st);
	famfsd_unlock();
	return found;
}

void dataset_removed(const struct dataset_spec *d, long long gen)
{
	sqlite3_stmt *st;

	famfsd_lock();
	st = store_prep(famfsd.db, "UPDATE dataset_generations SET "
			"state='removed' WHERE dataset=?1 AND generation=?2");
	if (st) {
		store_bind_text(st, 1, d->name);
		sqlite3_bind_int64(st, 2, gen);
	}
	run(st);
	famfsd_unlock();
}

void dataset_stopped(const struct dataset_spec *d)
{
	sqlite3_stmt *st;

	famfsd_lock();
	st = store_prep(famfsd.db, "UPDATE datasets SET state=CASE WHEN "
			"generation > 0 THEN 'ready' ELSE 'failed' END WHERE name=?1");
	store_bind_text(st, 1, d->name);
	run(st);
	famfsd_unlock();
}

int dataset_summary(const char *name, struct source_summary *s)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"SELECT entries FROM datasets WHERE name=? AND entries IS NOT NULL");
	int r = -ENOENT;

	if (!st)
		return -EIO;
	store_bind_text(st, 1, name);
	if (sqlite3_step(st) == SQLITE_ROW)
		r = source_summary_unpack(sqlite3_column_blob(st, 0),
					  (size_t)sqlite3_column_bytes(st, 0), s) ?
		    -EIO : 0;
	sqlite3_finalize(st);
	return r;
}

int dataset_undo_target(const char *name, struct dataset_undo *u)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"SELECT d.filesystem, d.dest, d.generation, g.generation, g.path "
		"FROM datasets d LEFT JOIN dataset_generations g ON "
		"g.dataset = d.name AND g.state = 'kept' WHERE d.name = ? "
		"ORDER BY g.retired DESC, g.generation DESC LIMIT 1");
	int r = -ENOENT;

	if (!st)
		return -EIO;
	store_bind_text(st, 1, name);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(u->filesystem, sizeof(u->filesystem), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		snprintf(u->dest, sizeof(u->dest), "%s",
			 (const char *)sqlite3_column_text(st, 1));
		u->serving = sqlite3_column_int64(st, 2);
		r = sqlite3_column_type(st, 3) == SQLITE_NULL ? -ESRCH : 0;
		u->kept = sqlite3_column_int64(st, 3);
		snprintf(u->kept_path, sizeof(u->kept_path), "%s",
			 r ? "" : (const char *)sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return r;
}

static int record_undo(const char *name, const struct dataset_undo *u,
		       const char *retired)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"UPDATE dataset_generations SET state='kept', path=?3, "
		"retired=" NEXT_RETIRED " WHERE dataset=?1 AND generation=?2");

	store_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, u->serving);
	store_bind_text(st, 3, retired);
	if (run(st))
		return -EIO;
	st = store_prep(famfsd.db, "UPDATE dataset_generations SET "
			"state='serving', path=?3 WHERE dataset=?1 AND generation=?2");
	store_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, u->kept);
	store_bind_text(st, 3, u->dest);
	if (run(st))
		return -EIO;
	/* files, bytes and digest of the generation that serves; the
	 * stored list stays the last ingested source's (drift compares
	 * with what was ingested last: an undo sticks until it changes)
	 */
	st = store_prep(famfsd.db, "UPDATE datasets SET (generation, job, "
		"files, bytes, digest) = (SELECT generation, job, files, bytes, "
		"digest FROM dataset_generations WHERE dataset=?1 AND "
		"generation=?2) WHERE name=?1");
	store_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, u->kept);
	return run(st);
}

int dataset_undone(const char *name, const struct dataset_undo *u,
		   const char *retired)
{
	int r;

	famfsd_lock();
	r = store_begin(famfsd.db);
	if (!r) {
		r = record_undo(name, u, retired);
		if (r)
			store_rollback(famfsd.db);
		else
			r = store_commit(famfsd.db) ? -EIO : 0;
	}
	if (!r)
		store_event(famfsd.db, "info", "datasets", "dataset %s: generation "
			    "%lld serves again (undo of %lld)", name, u->kept,
			    u->serving);
	famfsd_unlock();
	return r;
}

int dataset_trees(const char *name, struct dataset_trees *t)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT filesystem, dest, "
				      "state, generation FROM datasets WHERE name=?");
	int r = -ENOENT;

	memset(t, 0, sizeof(*t));
	if (!st)
		return -EIO;
	store_bind_text(st, 1, name);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(t->filesystem, sizeof(t->filesystem), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		snprintf(t->dest, sizeof(t->dest), "%s",
			 (const char *)sqlite3_column_text(st, 1));
		snprintf(t->state, sizeof(t->state), "%s",
			 (const char *)sqlite3_column_text(st, 2));
		t->serving = sqlite3_column_int64(st, 3);
		r = 0;
	}
	sqlite3_finalize(st);
	if (r)
		return r;
	t->next = t->serving + 1;
	st = store_prep(famfsd.db, "SELECT max(generation) FROM "
			"dataset_generations WHERE dataset=?");
	if (!st)
		return -EIO;
	store_bind_text(st, 1, name);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_int64(st, 0) >= t->next)
		t->next = sqlite3_column_int64(st, 0) + 1;
	sqlite3_finalize(st);
	st = store_prep(famfsd.db, "SELECT DISTINCT path FROM "
			"dataset_generations WHERE dataset=?1 AND path <> ?2 "
			"AND state <> 'serving' ORDER BY path");
	if (!st)
		return -EIO;
	store_bind_text(st, 1, name);
	store_bind_text(st, 2, t->dest);
	while (!r && sqlite3_step(st) == SQLITE_ROW) {
		char **v = realloc(t->kept, (t->nkept + 1) * sizeof(*v));

		if (!v || !(v[t->nkept] = strdup((const char *)
						 sqlite3_column_text(st, 0)))) {
			if (v)
				t->kept = v;
			r = -ENOMEM;
			break;
		}
		t->kept = v;
		t->nkept++;
	}
	sqlite3_finalize(st);
	if (r)
		dataset_trees_free(t);
	return r;
}

void dataset_trees_free(struct dataset_trees *t)
{
	for (size_t i = 0; i < t->nkept; i++)
		free(t->kept[i]);
	free(t->kept);
	t->kept = NULL;
	t->nkept = 0;
}

int dataset_forget(const char *name)
{
	sqlite3_stmt *st;
	int r;

	famfsd_lock();
	r = store_exec(famfsd.db, ingest_manifest_ddl) ? -EIO :
	    store_begin(famfsd.db);
	if (!r) {
		/* the ingest manifests of its path and of its staging and
		 * retired trees ("fs:/path", ingest.c): a dataset ingested
		 * again there starts anew
		 */
		st = store_prep(famfsd.db, "DELETE FROM ingest_manifest WHERE "
			"dataset IN (SELECT filesystem || ':' || dest FROM "
			"datasets WHERE name=?1) OR EXISTS (SELECT 1 FROM datasets "
			"d WHERE d.name=?1 AND (substr(dataset, 1, length(?2) + "
			"length(d.filesystem) + 1) = d.filesystem || ':' || ?2 OR "
			"substr(dataset, 1, length(?3) + length(d.filesystem) + 1) "
			"= d.filesystem || ':' || ?3))");
		store_bind_text(st, 1, name);
		if (st) {
			char a[256], b[256];

			snprintf(a, sizeof(a), GEN_STAGING_DIR "/%s.", name);
			snprintf(b, sizeof(b), GEN_RETIRED_DIR "/%s.", name);
			store_bind_text(st, 2, a);
			store_bind_text(st, 3, b);
		}
		r = run(st);
		if (!r) {
			st = store_prep(famfsd.db, "DELETE FROM "
					"dataset_generations WHERE dataset=?");
			store_bind_text(st, 1, name);
			r = run(st);
		}
		if (!r) {
			st = store_prep(famfsd.db, "DELETE FROM datasets "
					"WHERE name=?");
			store_bind_text(st, 1, name);
			r = run(st);
		}
		if (r)
			store_rollback(famfsd.db);
		else
			r = store_commit(famfsd.db) ? -EIO : 0;
	}
	if (!r)
		store_event(famfsd.db, "info", "datasets", "dataset %s: deleted, "
			    "with its generations", name);
	else
		log_warn("dataset %s: cannot forget it: %s", name,
			 sqlite3_errmsg(famfsd.db));
	famfsd_unlock();
	return r;
}

/* Label values here are names ([A-Za-z0-9._-]): nothing to escape. */
void dataset_metrics(FILE *f)
{
	static const struct { const char *name, *type, *help, *col; } m[] = {
		{ "famfs_dataset_generation", "gauge",
		  "The generation of each dataset that serves (0: none yet).",
		  "generation" },
		{ "famfs_dataset_bytes", "gauge",
		  "Bytes of the dataset's source as last ingested.", "bytes" },
		{ "famfs_dataset_files", "gauge",
		  "Regular files of the dataset's source as last ingested.",
		  "files" },
		{ "famfs_dataset_last_refresh_timestamp_seconds", "gauge",
		  "Unix time the dataset's last successful ingest ended "
		  "(0: never).", "coalesce(refreshed, 0)" },
		{ "famfs_dataset_last_refresh_duration_seconds", "gauge",
		  "How long the dataset's last successful ingest took.",
		  "duration_ms / 1000.0" },
		{ "famfs_dataset_refresh_failures_total", "counter",
		  "Ingests of the dataset that failed.", "failures" },
	};
	char sql[256];

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		sqlite3_stmt *st;

		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m[i].name, m[i].help,
			m[i].name, m[i].type);
		snprintf(sql, sizeof(sql), "SELECT name, filesystem, %s FROM "
			 "datasets ORDER BY name", m[i].col);
		st = store_prep(famfsd.db, sql);
		while (st && sqlite3_step(st) == SQLITE_ROW)
			fprintf(f, "%s{dataset=\"%s\",fs=\"%s\"} %s\n", m[i].name,
				(const char *)sqlite3_column_text(st, 0),
				(const char *)sqlite3_column_text(st, 1),
				(const char *)sqlite3_column_text(st, 2));
		sqlite3_finalize(st);
	}
}

const char *dataset_job_param(json_object *params, char *why, size_t whylen)
{
	json_object *v;
	const char *name;

	json_object_object_foreach(params, key, val) {
		(void)val;
		if (strcmp(key, "dataset")) {
			snprintf(why, whylen, "params.%s: unknown field", key);
			return NULL;
		}
	}
	if (!json_object_object_get_ex(params, "dataset", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !api_name_valid(name = json_object_get_string(v))) {
		snprintf(why, whylen, "params.dataset: a dataset's name is required");
		return NULL;
	}
	return name;
}

int dataset_spec_load(const char *name, struct dataset_spec *d, char *fs,
		      size_t len)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT filesystem, keep "
				      "FROM datasets WHERE name=?");
	int r = -ENOENT;

	store_bind_text(st, 1, name);
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		snprintf(fs, len, "%s", (const char *)sqlite3_column_text(st, 0));
		memset(d, 0, sizeof(*d));
		d->name = name;
		d->filesystem = fs;
		d->keep = (unsigned)sqlite3_column_int64(st, 1);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}
