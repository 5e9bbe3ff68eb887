// SPDX-License-Identifier: Apache-2.0
/* /v1/jobs: submit, list, show, cancel. The runners live in famfsd/jobs/. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "famfs.h"
#include "famfsd.h"
#include "jobs/jobs.h"
#include "store/store.h"

#define JOB_COLS "id, kind, state, params, bytes_done, bytes_total, " \
	"files_done, files_total, error, created, started, finished, result"

static json_object *row_json(sqlite3_stmt *st)
{
	json_object *o = json_object_new_object(), *p, *pr;

	jset_int(o, "id", sqlite3_column_int64(st, 0));
	jset_str(o, "kind", (const char *)sqlite3_column_text(st, 1));
	jset_str(o, "state", (const char *)sqlite3_column_text(st, 2));
	p = json_tokener_parse((const char *)sqlite3_column_text(st, 3));
	json_object_object_add(o, "params", p ? p : json_object_new_object());
	pr = json_object_new_object();
	jset_int(pr, "bytes_done", sqlite3_column_int64(st, 4));
	jset_int(pr, "bytes_total", sqlite3_column_int64(st, 5));
	jset_int(pr, "files_done", sqlite3_column_int64(st, 6));
	jset_int(pr, "files_total", sqlite3_column_int64(st, 7));
	json_object_object_add(o, "progress", pr);
	jset_str(o, "error", (const char *)sqlite3_column_text(st, 8));
	jset_time(o, "created", sqlite3_column_int64(st, 9));
	jset_time(o, "started", sqlite3_column_int64(st, 10));
	jset_time(o, "finished", sqlite3_column_int64(st, 11));
	p = json_tokener_parse((const char *)sqlite3_column_text(st, 12));
	json_object_object_add(o, "result", p ? p : json_object_new_object());
	return o;
}

static json_object *job_json(int64_t id)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT " JOB_COLS
				      " FROM jobs WHERE id=?");
	json_object *o = NULL;

	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		o = row_json(st);
	sqlite3_finalize(st);
	return o;
}

static int list(struct api_req *q, struct api_resp *r)
{
	const char *state = api_query(q, "state");
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT " JOB_COLS " FROM jobs"
				      " WHERE ?1 IS NULL OR state=?1 ORDER BY id");
	json_object *a = json_object_new_array();

	store_bind_text(st, 1, state);
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, row_json(st));
	sqlite3_finalize(st);
	return api_ok(r, 200, jitems(a));
}


/*
 * An ingest reads its source as root: only under paths.sources; its
 * destination is a normalised path in the filesystem. The job kind
 * checks the rest of its parameters (jobs/ingest.c).
 */
static bool ingest_refused(const char *kind, json_object *params,
			   struct api_resp *r)
{
	const char *src = params ? api_str(params, "source") : NULL;
	const char *dest = params ? api_str(params, "dest") : NULL;

	if (strcmp(kind, "ingest"))
		return false;
	if (dest && dest[0] == '/' && !famfs_path_is_normal(dest)) {
		api_error(r, 400, "invalid_value", "params.dest '%s' is not a "
			  "normalised absolute path: no empty, '.' or '..' "
			  "component and no trailing '/'", dest);
		return true;
	}
	return src && src[0] == '/' &&
	       api_path_allowed("paths.sources", src, r);
}

static int create(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "kind", F_STRING, true }, { "params", F_OBJECT, false },
		{ "dry_run", F_BOOL, false }, API_FIELDS_END,
	};
	json_object *b, *params = NULL;
	char why[512] = "";
	int64_t id;
	int e;

	if (!(b = api_body(q, f, r)))
		return -1;
	if (!json_object_object_get_ex(b, "params", &params))
		params = NULL;
	if (ingest_refused(api_str(b, "kind"), params, r))
		return -1;
	if (!params)
		params = json_object_new_object();
	else
		json_object_get(params);
	e = jobs_submit(api_str(b, "kind"), params, &id, why, sizeof(why));
	json_object_put(params);
	if (e == -ENOENT)
		return api_error(r, 501, "not_implemented", "%s", why);
	if (e == -EBUSY && why[0])   /* e.g. a dataset_delete of a held one */
		return api_error(r, 409, "conflict", "%s", why);
	if (e && why[0])
		return api_error(r, 400, "invalid_value", "%s", why);
	if (e)
		return api_error(r, 500, "internal", "cannot record the job");
	return api_ok(r, 201, job_json(id));
}

/*
 * POST /v1/jobs with "dry_run": true (an ingest only): the job's plan, not
 * the job. Called without the state lock (request.c): the source tree is
 * walked meanwhile; nothing is recorded.
 */
bool api_jobs_is_dry_run(const struct api_req *q)
{
	return q->nseg == 2 && !strcmp(q->seg[0], "v1") &&
	       !strcmp(q->seg[1], "jobs") && !strcmp(q->method, "POST") &&
	       q->body && api_bool(q->body, "dry_run", false);
}

int api_jobs_dry_run(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "kind", F_STRING, true }, { "params", F_OBJECT, false },
		{ "dry_run", F_BOOL, false }, { "geometry", F_OBJECT, false },
		API_FIELDS_END,
	};
	json_object *b, *params = NULL, *out = NULL, *geo = NULL;
	char why[1024] = "";
	bool refused;
	int status, e;

	q->route = "/v1/jobs";
	if (!(b = api_body(q, f, r)))
		return -1;
	if (strcmp(api_str(b, "kind"), "ingest"))
		return api_error(r, 400, "invalid_value", "dry_run: only an "
				 "ingest job has a dry run, not '%s'",
				 api_str(b, "kind"));
	if (!json_object_object_get_ex(b, "params", &params))
		return api_error(r, 400, "invalid_value", "params.source: an "
				 "absolute directory path is required");
	famfsd_lock();
	refused = ingest_refused("ingest", params, r);
	famfsd_unlock();
	if (refused)
		return -1;
	if (!json_object_object_get_ex(b, "geometry", &geo))
		geo = NULL;
	e = ingest_job_plan(params, geo, &out, &status, why, sizeof(why));
	if (!e)
		return api_ok(r, 200, out);
	return api_error(r, status, status == 404 ? "not_found" :
			 status == 409 ? "conflict" : status == 400 ?
			 "invalid_value" : "internal", "%s", why[0] ? why :
			 strerror(-e));
}

static int parse_id(const char *s, int64_t *id)
{
	char *end;

	*id = strtoll(s, &end, 10);
	return *s && !*end && *id > 0 ? 0 : -1;
}

int api_jobs(struct api_req *q, struct api_resp *r)
{
	json_object *o;
	int64_t id;

	if (q->nseg == 2) {
		q->route = "/v1/jobs";
		if (api_is(q, "GET"))
			return list(q, r);
		if (api_is(q, "POST"))
			return create(q, r);
		return api_method_not_allowed(q, r);
	}
	if (q->nseg > 4 || parse_id(q->seg[2], &id))
		return api_not_found(q, r);
	if (q->nseg == 4) {
		q->route = "/v1/jobs/{id}/cancel";
		if (strcmp(q->seg[3], "cancel"))
			return api_not_found(q, r);
		if (!api_is(q, "POST"))
			return api_method_not_allowed(q, r);
		if (!api_body(q, (const struct api_field[]){ API_FIELDS_END }, r))
			return -1;
		switch (jobs_cancel(id)) {
		case 0:
			return api_ok(r, 200, job_json(id));
		case -EALREADY:
			return api_error(r, 409, "conflict", "job %lld has "
					 "already finished", (long long)id);
		default:
			return api_error(r, 404, "not_found", "no job %lld",
					 (long long)id);
		}
	}
	q->route = "/v1/jobs/{id}";
	if (!api_is(q, "GET"))
		return api_method_not_allowed(q, r);
	o = job_json(id);
	if (!o)
		return api_error(r, 404, "not_found", "no job %lld", (long long)id);
	return api_ok(r, 200, o);
}
