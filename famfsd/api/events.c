// SPDX-License-Identifier: Apache-2.0
/* /v1/events (what famfsd noticed) and /v1/events/audit (what it was asked). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "famfsd.h"
#include "store/store.h"

static int64_t qint(struct api_req *q, const char *k, int64_t dflt,
		    int64_t max)
{
	const char *s = api_query(q, k);
	int64_t v = s ? strtoll(s, NULL, 10) : dflt;

	return v < 0 ? 0 : v > max ? max : v;
}

int api_events(struct api_req *q, struct api_resp *r)
{
	bool audit = q->nseg == 3 && !strcmp(q->seg[2], "audit");
	json_object *a = json_object_new_array();
	sqlite3_stmt *st;

	q->route = audit ? "/v1/events/audit" : "/v1/events";
	if (q->nseg != 2 && !audit) {
		json_object_put(a);
		return api_not_found(q, r);
	}
	if (!api_is(q, "GET")) {
		json_object_put(a);
		return api_method_not_allowed(q, r);
	}
	st = store_prep(famfsd.db, audit ?
		"SELECT id, time, who, method, path, status, error_code FROM "
		"audit WHERE id > ? ORDER BY id LIMIT ?" :
		"SELECT id, time, level, resource, message FROM events "
		"WHERE id > ? ORDER BY id LIMIT ?");
	sqlite3_bind_int64(st, 1, qint(q, "since", 0, INT64_MAX));
	sqlite3_bind_int64(st, 2, qint(q, "limit", 100, 1000));
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object *o = json_object_new_object();

		jset_int(o, "id", sqlite3_column_int64(st, 0));
		jset_time(o, "time", sqlite3_column_int64(st, 1));
		if (audit) {
			jset_str(o, "who", (const char *)sqlite3_column_text(st, 2));
			jset_str(o, "method",
				 (const char *)sqlite3_column_text(st, 3));
			jset_str(o, "path", (const char *)sqlite3_column_text(st, 4));
			jset_int(o, "status", sqlite3_column_int(st, 5));
			jset_str(o, "error_code",
				 (const char *)sqlite3_column_text(st, 6));
		} else {
			jset_str(o, "level", (const char *)sqlite3_column_text(st, 2));
			jset_str(o, "resource",
				 (const char *)sqlite3_column_text(st, 3));
			jset_str(o, "message",
				 (const char *)sqlite3_column_text(st, 4));
		}
		json_object_array_add(a, o);
	}
	sqlite3_finalize(st);
	return api_ok(r, 200, jitems(a));
}
