// SPDX-License-Identifier: Apache-2.0
/*
 * /v1/datasets: what ingest jobs given params.dataset made (datasets.h),
 * read only. ?drift=true also walks each dataset's source now and says
 * what changed since the summary last ingested: what `famfs-cli diff`
 * and `apply` print as "~ update dataset NAME (source changed: ...)".
 * That walk takes as long as `find` on the tree, so it runs without the
 * state lock (api_datasets_drift(), called by request.c instead of the
 * locked dispatch): the rows and stored summaries are copied under the
 * read lock, the sources walked after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "datasets.h"
#include "famfsd.h"
#include "store/store.h"

#define DATASET_COLS "name, filesystem, source, dest, generation, state, " \
	"job, keep, chunk, strips, files, dirs, symlinks, bytes, digest, " \
	"refreshed, duration_ms, failures, last_error, created"

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static json_object *generations_json(const char *name)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"SELECT generation, path, state, job, files, bytes, digest, "
		"created, (SELECT count(*) FROM holds h WHERE h.dataset=g.dataset "
		"AND h.generation=g.generation) FROM dataset_generations g "
		"WHERE dataset=? AND state != 'removed' ORDER BY generation DESC");
	json_object *a = json_object_new_array();

	store_bind_text(st, 1, name);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object *g = json_object_new_object();

		jset_int(g, "generation", sqlite3_column_int64(st, 0));
		jset_str(g, "path", col(st, 1));
		jset_str(g, "state", col(st, 2));
		jset_int(g, "job", sqlite3_column_int64(st, 3));
		jset_int(g, "files", sqlite3_column_int64(st, 4));
		jset_int(g, "bytes", sqlite3_column_int64(st, 5));
		jset_str(g, "digest", col(st, 6));
		jset_time(g, "created", sqlite3_column_int64(st, 7));
		jset_int(g, "held", sqlite3_column_int64(st, 8));
		json_object_array_add(a, g);
	}
	sqlite3_finalize(st);
	return a;
}

static json_object *row_json(sqlite3_stmt *st)
{
	json_object *o = json_object_new_object();
	json_object *il = json_object_new_object();
	json_object *sum = json_object_new_object();

	jset_str(o, "name", col(st, 0));
	jset_str(o, "filesystem", col(st, 1));
	jset_str(o, "source", col(st, 2));
	jset_str(o, "dest", col(st, 3));
	jset_int(o, "generation", sqlite3_column_int64(st, 4));
	jset_str(o, "state", col(st, 5));
	jset_int(o, "job", sqlite3_column_int64(st, 6));
	jset_int(o, "keep", sqlite3_column_int64(st, 7));
	jset_int(il, "chunk", sqlite3_column_int64(st, 8));
	jset_int(il, "strips", sqlite3_column_int64(st, 9));
	json_object_object_add(o, "interleave", il);
	jset_int(sum, "files", sqlite3_column_int64(st, 10));
	jset_int(sum, "dirs", sqlite3_column_int64(st, 11));
	jset_int(sum, "symlinks", sqlite3_column_int64(st, 12));
	jset_int(sum, "bytes", sqlite3_column_int64(st, 13));
	jset_str(sum, "digest", col(st, 14));
	json_object_object_add(o, "source_summary", sum);
	jset_int(o, "files", sqlite3_column_int64(st, 10));
	jset_int(o, "bytes", sqlite3_column_int64(st, 13));
	jset_time(o, "refreshed", sqlite3_column_int64(st, 15));
	json_object_object_add(o, "refresh_seconds", json_object_new_double(
		(double)sqlite3_column_int64(st, 16) / 1000.0));
	jset_int(o, "failures", sqlite3_column_int64(st, 17));
	jset_str(o, "last_error", col(st, 18));
	jset_time(o, "created", sqlite3_column_int64(st, 19));
	json_object_object_add(o, "generations", generations_json(col(st, 0)));
	return o;
}

/* A dataset's stored summary, copied under the lock for the walk. */
struct then {
	json_object *o;            /* its row's JSON (owned by the answer) */
	struct source_summary sum;
	int r;                     /* of dataset_summary() */
};

/* "drift": the source now against @t's summary. No lock held. */
static json_object *drift_json(struct then *t, const char *source)
{
	struct source_summary now;
	struct source_drift d;
	json_object *o = json_object_new_object();
	char why[1024];

	if (t->r) {
		jset_str(o, "error", t->r == -ENOENT ? "nothing ingested yet" :
			 "the stored summary cannot be read");
		return o;
	}
	if (source_summary_scan(source, &now, why, sizeof(why))) {
		jset_str(o, "error", why);
		source_summary_free(&now);
		return o;
	}
	source_summary_compare(&t->sum, &now, &d);
	jset_bool(o, "changed", strcmp(t->sum.digest, now.digest) != 0);
	jset_int(o, "added", (int64_t)d.added);
	jset_int(o, "changed_entries", (int64_t)d.changed);
	jset_int(o, "removed", (int64_t)d.removed);
	jset_int(o, "bytes_delta", d.bytes_delta);
	jset_int(o, "files", (int64_t)now.files);
	jset_int(o, "bytes", (int64_t)now.bytes);
	jset_str(o, "digest", now.digest);
	source_summary_free(&now);
	return o;
}

/* ?drift: absent or "false", or "true"; -1 with a 400 otherwise. */
static int want_drift(struct api_req *q, struct api_resp *r, bool *drift)
{
	const char *v = api_query(q, "drift");

	*drift = v && !strcmp(v, "true");
	if (v && !*drift && strcmp(v, "false"))
		return api_error(r, 400, "invalid_value", "drift: 'true' or "
				 "'false', not '%s'", v);
	return 0;
}

bool api_datasets_is_drift(struct api_req *q)
{
	const char *v;

	return (q->nseg == 2 || q->nseg == 3) && !strcmp(q->seg[0], "v1") &&
	       !strcmp(q->seg[1], "datasets") && !strcmp(q->method, "GET") &&
	       (v = api_query(q, "drift")) && !strcmp(v, "true");
}

/* Under the read lock: the rows of @name (NULL: all) with their
 * summaries into *@t (*@n of them); 0, or -ENOENT for a missing @name.
 */
static int copy_rows(const char *name, struct then **t, size_t *n)
{
	sqlite3_stmt *st = store_prep(famfsd.db, name ?
		"SELECT " DATASET_COLS " FROM datasets WHERE name=?" :
		"SELECT " DATASET_COLS " FROM datasets ORDER BY name");

	*t = NULL;
	*n = 0;
	if (name)
		store_bind_text(st, 1, name);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct then *v = realloc(*t, (*n + 1) * sizeof(**t));

		if (!v)
			break;
		*t = v;
		v[*n].o = row_json(st);
		v[*n].r = dataset_summary(col(st, 0), &v[*n].sum);
		(*n)++;
	}
	sqlite3_finalize(st);
	return name && !*n ? -ENOENT : 0;
}

int api_datasets_drift(struct api_req *q, struct api_resp *r)
{
	struct then *t;
	json_object *a;
	size_t n;
	int e;

	q->route = q->nseg == 2 ? "/v1/datasets" : "/v1/datasets/{name}";
	famfsd_rdlock();
	e = copy_rows(q->nseg == 3 ? q->seg[2] : NULL, &t, &n);
	famfsd_unlock();
	if (e)
		return api_error(r, 404, "not_found", "no dataset '%s'",
				 q->seg[2]);
	for (size_t i = 0; i < n; i++) {
		json_object_object_add(t[i].o, "drift", drift_json(&t[i],
			api_str(t[i].o, "source")));
		if (!t[i].r)
			source_summary_free(&t[i].sum);
	}
	if (q->nseg == 3) {
		a = t[0].o;
	} else {
		a = json_object_new_array();
		for (size_t i = 0; i < n; i++)
			json_object_array_add(a, t[i].o);
		a = jitems(a);
	}
	free(t);
	return api_ok(r, 200, a);
}

int api_datasets(struct api_req *q, struct api_resp *r)
{
	json_object *o;
	bool drift;

	if (q->nseg == 4 && !strcmp(q->seg[3], "holds"))
		return api_dataset_holds(q, r);
	q->route = q->nseg == 2 ? "/v1/datasets" : "/v1/datasets/{name}";
	if (q->nseg != 2 && q->nseg != 3)
		return api_not_found(q, r);
	if (api_query(q, "owner"))
		return api_error(r, 400, "unknown_parameter", "%s takes no "
				 "query parameter 'owner'", q->url);
	if (!api_is(q, "GET"))
		return api_method_not_allowed(q, r);
	/* ?drift=true comes to api_datasets_drift() */
	if (want_drift(q, r, &drift))
		return -1;
	if (q->nseg == 3) {
		o = api_named_row("SELECT " DATASET_COLS " FROM datasets "
				  "WHERE name=?", q->seg[2], row_json);
		if (!o)
			return api_error(r, 404, "not_found", "no dataset '%s'",
					 q->seg[2]);
		return api_ok(r, 200, o);
	}
	json_object *a = json_object_new_array();
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT " DATASET_COLS
				      " FROM datasets ORDER BY name");

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object_array_add(a, row_json(st));
	}
	sqlite3_finalize(st);
	return api_ok(r, 200, jitems(a));
}
