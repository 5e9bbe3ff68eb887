// SPDX-License-Identifier: Apache-2.0
/* Helpers every resource file uses: responses, body validation, JSON. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "famfs.h"
#include "famfsd.h"
#include "store/store.h"

int api_ok(struct api_resp *r, int status, json_object *o)
{
	r->status = status;
	r->json = o;
	return 0;
}

int api_error(struct api_resp *r, int status, const char *code,
	      const char *fmt, ...)
{
	json_object *o = json_object_new_object(), *e = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jset_str(e, "code", code);
	jset_str(e, "message", msg);
	json_object_object_add(o, "error", e);
	json_object_put(r->json);
	r->json = o;
	r->status = status;
	snprintf(r->code, sizeof(r->code), "%s", code);
	return -1;
}

const char *api_query(struct api_req *q, const char *key)
{
	return q->arg ? q->arg(q->arg_ctx, key) : NULL;
}

bool api_is(struct api_req *q, const char *method)
{
	return !strcmp(q->method, method);
}

int api_method_not_allowed(struct api_req *q, struct api_resp *r)
{
	return api_error(r, 405, "method_not_allowed", "%s is not allowed on %s",
			 q->method, q->url);
}

int api_not_found(struct api_req *q, struct api_resp *r)
{
	return api_error(r, 404, "not_found", "no such resource: %s", q->url);
}

static const char *ftype_name(enum api_ftype t)
{
	static const char *n[] = { "a string", "an integer", "a boolean",
		"a size (integer bytes or a string like \"2MiB\")",
		"an array", "an object" };
	return n[t];
}

static bool ftype_ok(json_object *v, enum api_ftype t)
{
	switch (t) {
	case F_STRING: return json_object_is_type(v, json_type_string);
	case F_INT: return json_object_is_type(v, json_type_int);
	case F_BOOL: return json_object_is_type(v, json_type_boolean);
	case F_SIZE: return json_object_is_type(v, json_type_int) ||
			    json_object_is_type(v, json_type_string);
	case F_ARRAY: return json_object_is_type(v, json_type_array);
	case F_OBJECT: return json_object_is_type(v, json_type_object);
	}
	return false;
}

int api_check_fields(json_object *o, const struct api_field *f,
		     const char *where, struct api_resp *r)
{
	json_object_object_foreach(o, key, val) {
		const struct api_field *k;

		for (k = f; k->name; k++)
			if (!strcmp(k->name, key))
				break;
		if (!k->name)
			return api_error(r, 400, "unknown_field",
					 "unknown field '%s%s'", where, key);
		if (!ftype_ok(val, k->type))
			return api_error(r, 400, "invalid_type",
					 "field '%s%s' must be %s", where, key,
					 ftype_name(k->type));
	}
	for (; f->name; f++)
		if (f->required && !json_object_object_get_ex(o, f->name, NULL))
			return api_error(r, 400, "missing_field",
					 "field '%s%s' is required", where,
					 f->name);
	return 0;
}

json_object *api_body(struct api_req *q, const struct api_field *f,
		      struct api_resp *r)
{
	static json_object *empty;

	if (!q->body) {
		if (!empty)
			empty = json_object_new_object();
		q->body = json_object_get(empty);
	}
	if (api_check_fields(q->body, f, "", r))
		return NULL;
	return q->body;
}

const char *api_str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

bool api_has(json_object *o, const char *key)
{
	return o && json_object_object_get_ex(o, key, NULL);
}

int64_t api_int(json_object *o, const char *key, int64_t dflt)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return dflt;
	return json_object_get_int64(v);
}

bool api_bool(json_object *o, const char *key, bool dflt)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return dflt;
	return json_object_get_boolean(v);
}

int api_size(json_object *o, const char *key, uint64_t dflt, uint64_t *out,
	     struct api_resp *r)
{
	json_object *v;

	*out = dflt;
	if (!o || !json_object_object_get_ex(o, key, &v))
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		int64_t n = json_object_get_int64(v);

		if (n < 0)
			return api_error(r, 400, "invalid_value",
					 "'%s' must not be negative", key);
		*out = (uint64_t)n;
		return 0;
	}
	if (famfs_parse_size(json_object_get_string(v), out))
		return api_error(r, 400, "invalid_value",
				 "'%s': '%s' is not a size (e.g. 4096, \"2MiB\", "
				 "\"1G\")", key, json_object_get_string(v));
	return 0;
}

bool api_name_valid(const char *name)
{
	size_t n = strlen(name);
	bool ok = n >= 1 && n <= 63 && isalnum((unsigned char)name[0]);

	for (size_t i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)name[i]) || strchr("._-", name[i]);
	return ok;
}

int api_check_name(const char *what, const char *name, struct api_resp *r)
{
	if (!api_name_valid(name))
		return api_error(r, 400, "invalid_value",
				 "%s name '%s' is not valid: 1-63 characters "
				 "of [A-Za-z0-9._-], starting with a letter or "
				 "digit", what, name);
	if (famfs_name_reserved(name))
		return api_error(r, 400, "invalid_value", "%s name '%s' is "
				 "reserved (a route of the API)", what, name);
	return 0;
}

void jset_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v ? v : ""));
}

void jset_int(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

void jset_bool(json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

void jset_time(json_object *o, const char *k, int64_t t)
{
	char buf[40];

	json_object_object_add(o, k, t ? json_object_new_string(
			store_time_text(t, buf, sizeof(buf))) : NULL);
}

json_object *jitems(json_object *array)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "items", array);
	return o;
}

uint64_t policy_chunk(void)
{
	return (uint64_t)store_kv_get_int(famfsd.db, "policy.chunk",
					  (int64_t)FAMFS_UNIT_SIZE);
}

uint32_t policy_strips(void)
{
	return (uint32_t)store_kv_get_int(famfsd.db, "policy.strips", 0);
}

uint64_t policy_log_size(void)
{
	return (uint64_t)store_kv_get_int(famfsd.db, "policy.log_size",
					  (int64_t)FAMFS_LOG_DEFAULT_SIZE);
}

void api_commit_early(void)
{
	store_commit(famfsd.db);
	store_begin(famfsd.db);
}

json_object *api_named_row(const char *sql, const char *name,
			   json_object *(*row)(sqlite3_stmt *st))
{
	sqlite3_stmt *st = store_prep(famfsd.db, sql);
	json_object *o = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		o = row(st);
	sqlite3_finalize(st);
	return o;
}

int api_resource(struct api_req *q, struct api_resp *r,
		 const struct api_resource *res)
{
	json_object *o;

	if (q->nseg == 2) {
		q->route = res->route;
		if (api_is(q, "GET"))
			return res->list(q, r);
		if (api_is(q, "POST"))
			return res->create(q, r);
		return api_method_not_allowed(q, r);
	}
	if (q->nseg == 4 && res->action && !strcmp(q->seg[3], res->action)) {
		q->route = res->action_route;
		if (!api_is(q, "POST"))
			return api_method_not_allowed(q, r);
		return res->act(q, r, q->seg[2]);
	}
	if (q->nseg != 3)
		return api_not_found(q, r);
	if (res->coll_action && !strcmp(q->seg[2], res->coll_action)) {
		q->route = res->coll_action_route;
		if (!api_is(q, "POST"))
			return api_method_not_allowed(q, r);
		return res->coll_act(q, r);
	}
	q->route = res->item_route;
	if (api_is(q, "DELETE"))
		return res->del(q, r, q->seg[2]);
	if (res->patch && api_is(q, "PATCH"))
		return res->patch(q, r, q->seg[2]);
	if (!api_is(q, "GET"))
		return api_method_not_allowed(q, r);
	o = res->get(q->seg[2]);
	if (!o)
		return api_error(r, 404, "not_found", "no %s '%s'", res->what,
				 q->seg[2]);
	return api_ok(r, 200, o);
}
