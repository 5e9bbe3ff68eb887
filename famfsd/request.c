// SPDX-License-Identifier: Apache-2.0
/* One API request, socket-free: see request.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "famfsd.h"
#include "request.h"
#include "request_check.h"
#include "store/store.h"

static bool is_mutating(const char *m)
{
	return !strcmp(m, "POST") || !strcmp(m, "PUT") ||
	       !strcmp(m, "PATCH") || !strcmp(m, "DELETE");
}

static bool token_ok(const char *h, const char *token)
{
	size_t n = strlen(token), hl;
	unsigned diff = 0;

	if (!n || !h || strncmp(h, "Bearer ", 7))
		return false;
	h += 7;
	hl = strlen(h);
	if (hl != n)
		return false;
	for (size_t i = 0; i < n; i++)      /* constant time */
		diff |= (unsigned)(h[i] ^ token[i]);
	return diff == 0;
}

/*
 * Split "/a/b/c" in place. An empty segment ("//", or a trailing "/") is
 * refused rather than skipped: q->rest points into the raw URL, so the
 * segments and the rest must count the same slashes (DELETE
 * /v1//files/fs/x used to delete /x of "fs" through rest = "/fs/x").
 */
static int split_url(struct api_req *q, char *copy)
{
	char *s = copy;
	int n = 0;

	if (*s != '/')
		return -1;
	while (*s == '/') {
		*s++ = '\0';
		if (!*s || *s == '/' || n == API_MAX_SEGS)
			return -1;
		q->seg[n++] = s;
		s += strcspn(s, "/");
	}
	q->nseg = n;
	return 0;
}

/* Parse a whole body as one JSON object; -1 with a 400 otherwise. */
static int parse_body(struct api_req *q, const char *b, size_t len,
		      struct api_resp *r)
{
	struct json_tokener *tok;
	json_object *o;
	char dup[128];
	size_t off;

	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, b, (int)len);
	off = json_tokener_get_parse_end(tok);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		json_tokener_free(tok);
		json_object_put(o);
		return api_error(r, 400, "malformed_json",
				 "the body is not valid JSON: %s at byte %zu",
				 e == json_tokener_continue ? "unexpected end"
				 : json_tokener_error_desc(e), off);
	}
	json_tokener_free(tok);
	for (; off < len; off++)
		if (!strchr(" \t\r\n", b[off])) {
			json_object_put(o);
			return api_error(r, 400, "malformed_json",
					 "the body has bytes after the JSON "
					 "value (at byte %zu)", off);
		}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return api_error(r, 400, "malformed_json",
				 "the body must be a JSON object");
	}
	if (json_duplicate_key(b, len, dup, sizeof(dup))) {
		json_object_put(o);
		return api_error(r, 400, "duplicate_key", "the body has the "
				 "key '%s' more than once in one object", dup);
	}
	q->body = o;
	return 0;
}

static int dispatch(struct api_req *q, struct api_resp *r)
{
	static const struct { const char *name; int (*fn)(struct api_req *,
						struct api_resp *); } res[] = {
		{ "host", api_host }, { "devices", api_devices },
		{ "interleave-sets", api_sets }, { "regions", api_regions },
		{ "filesystems", api_filesystems }, { "mounts", api_mounts },
		{ "files", api_files }, { "jobs", api_jobs },
		{ "events", api_events }, { "datasets", api_datasets },
		{ "holds", api_holds },
	};

	if (q->nseg >= 2 && !strcmp(q->seg[0], "v1"))
		for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++)
			if (!strcmp(q->seg[1], res[i].name))
				return res[i].fn(q, r);
	q->route = "unmatched";
	return api_not_found(q, r);
}

/* The resource handler in a transaction when it mutates; audited. */
static void run_locked(struct http_request *h, struct api_req *q,
		       struct api_resp *r, bool mut)
{
	famfsd_lock();
	if (mut && store_begin(famfsd.db)) {
		api_error(r, 500, "internal", "cannot start a transaction");
	} else {
		dispatch(q, r);
		/* A success is audited in its own transaction; a failure after
		 * the rollback, so that the refusal is recorded too.
		 */
		if (mut && r->status < 400)
			store_audit(famfsd.db, h->who, h->method, h->url, h->body,
				    r->status, r->code);
		if (mut && r->status < 400 && store_commit(famfsd.db)) {
			store_rollback(famfsd.db);
			api_error(r, 500, "internal", "cannot commit: %s",
				  sqlite3_errmsg(famfsd.db));
		} else if (mut && r->status >= 400) {
			store_rollback(famfsd.db);
		}
	}
	if (mut && r->status >= 400)
		store_audit(famfsd.db, h->who, h->method, h->url, h->body,
			    r->status, r->code);
	famfsd_unlock();
	h->changed = mut && r->status < 400;
}

/* POST /v1/datasets/{name}/holds: it waits for its generation without
 * the state lock and takes the locks itself (api/holds.c); audited.
 */
static void run_hold(struct http_request *h, struct api_req *q,
		     struct api_resp *r)
{
	api_holds_post(q, r);
	famfsd_lock();
	store_audit(famfsd.db, h->who, h->method, h->url, h->body, r->status,
		    r->code);
	famfsd_unlock();
	h->changed = r->status < 400;
}

static const char *const access_name[] = { "none", "read", "write" };

/* TCP: the token's scope; the socket: what server.c found for the peer. */
static enum api_access access_of(const struct http_request *h)
{
	if (!h->tcp)
		return h->access;
	if (token_ok(h->authorization, h->conf->token))
		return ACCESS_WRITE;
	if (token_ok(h->authorization, h->conf->read_token))
		return ACCESS_READ;
	return ACCESS_NONE;
}

/* The checks before routing; false with the response set when one fails. */
static bool admit(struct http_request *h, struct api_req *q,
		  struct api_resp *r, enum api_access acc)
{
	if (h->tcp && acc == ACCESS_NONE) {
		q->route = "unauthorized";
		api_error(r, 401, "unauthorized", "a valid 'Authorization: "
			  "Bearer <token>' header is required on TCP");
		return false;
	}
	if (acc == ACCESS_NONE) {
		q->route = "forbidden";
		api_error(r, 403, "forbidden", "%s may not use famfsd: its "
			  "user is in no group of access.read or access.write "
			  "(famfsd.yaml)", h->who);
		return false;
	}
	if (acc == ACCESS_READ && is_mutating(h->method)) {
		q->route = "forbidden";
		api_error(r, 403, "forbidden", "%s has read access only: %s "
			  "needs write access (%s)", h->who, h->method,
			  h->tcp ? "the token of token_file"
			  : "a group of access.write in famfsd.yaml");
		return false;
	}
	if (atomic_load(&famfsd.stopping)) {
		q->route = "stopping";
		api_error(r, 503, "shutting_down", "famfsd is stopping");
		return false;
	}
	return true;
}

/* The raw URL and the query parameters the route reads; 400 otherwise. */
static bool check_url(struct http_request *h, struct api_req *q,
		      struct api_resp *r)
{
	const char *names[HTTP_MAX_ARGS], *bad;
	char err[256], res[32] = "";
	int n = 0;

	if (h->raw_url && url_check(h->raw_url, err, sizeof(err))) {
		q->route = "bad_url";
		api_error(r, 400, "malformed_url", "%s", err);
		return false;
	}
	if (h->arg_names)
		n = h->arg_names(h->arg_ctx, names, HTTP_MAX_ARGS);
	if (n > HTTP_MAX_ARGS) {
		q->route = "bad_url";
		api_error(r, 400, "unknown_parameter", "more than %d query "
			  "parameters", HTTP_MAX_ARGS);
		return false;
	}
	if (!strncmp(h->url, "/v1/", 4)) {
		size_t len = strcspn(h->url + 4, "/");

		snprintf(res, sizeof(res), "%.*s", (int)len, h->url + 4);
	}
	bad = query_unknown_param(res, names, n);
	if (bad) {
		q->route = "bad_url";
		api_error(r, 400, "unknown_parameter", "%s takes no query "
			  "parameter '%s'", h->url, bad);
		return false;
	}
	return true;
}

/* Refusals before the handler: audited when the request would mutate. */
static void audit_refusal(struct http_request *h, struct api_resp *r)
{
	if (!is_mutating(h->method))
		return;
	famfsd_lock();
	store_audit(famfsd.db, h->who, h->method, h->url,
		    h->too_big ? "" : h->body, r->status, r->code);
	famfsd_unlock();
}

/* Refusals of the request itself are audited too, as a mutation. */
static bool check_body(struct http_request *h, struct api_req *q,
		       struct api_resp *r)
{
	const char *ct = h->content_type;

	if (h->too_big) {
		q->route = "too_large";
		api_error(r, 413, "body_too_large", "the request body is "
			  "larger than %llu bytes",
			  (unsigned long long)h->conf->cfg.max_body);
	} else if (h->len && ct && strncmp(ct, "application/json", 16)) {
		q->route = "bad_media";
		api_error(r, 415, "unsupported_media_type", "Content-Type is "
			  "'%s'; send 'Content-Type: application/json'", ct);
	} else if (h->len && parse_body(q, h->body, h->len, r)) {
		q->route = "malformed";
	} else {
		return true;
	}
	audit_refusal(h, r);
	return false;
}

void request_handle(struct http_request *h, struct api_resp *r)
{
	struct api_req q = { .method = h->method, .url = h->url,
			     .who = h->who, .arg = h->arg,
			     .arg_ctx = h->arg_ctx };
	enum api_access acc = access_of(h);
	const char *caller = h->who;
	char *copy = NULL, who[160];

	h->changed = false;
	/* the audit log says who asked, and with which access */
	snprintf(who, sizeof(who), "%s (%s)", h->who ? h->who : "unknown",
		 access_name[acc]);
	h->who = q.who = who;
	if (!strcmp(h->url, "/healthz")) {
		/* no lock: it reads only what is fixed once the API serves */
		q.route = "/healthz";
		api_healthz(&q, r);
	} else if (!admit(h, &q, r, acc)) {
		if (r->status != 401)      /* no token: not worth a record */
			audit_refusal(h, r);
	} else if (!check_url(h, &q, r)) {
		audit_refusal(h, r);
	} else if (!check_body(h, &q, r)) {
		/* refused and audited */
	} else if (!strcmp(h->url, "/metrics")) {
		/* only reads: scrapes run side by side, and wait for a
		 * mutation only while it holds the lock
		 */
		q.route = "/metrics";
		famfsd_rdlock();
		api_metrics(&q, r);
		famfsd_unlock();
	} else if (!(copy = strdup(h->url)) || split_url(&q, copy)) {
		q.route = "unmatched";
		api_not_found(&q, r);
	} else {
		q.rest = q.nseg > 3 ? strstr(h->url + 1, "/") : NULL;
		for (int i = 0; q.rest && i < 2; i++)
			q.rest = strchr(q.rest + 1, '/');
		if (api_jobs_is_dry_run(&q))
			/* walks a source tree: the lock only to read state;
			 * it changes nothing, so no transaction and no audit
			 */
			api_jobs_dry_run(&q, r);
		else if (api_holds_is_post(&q))
			run_hold(h, &q, r);
		else if (api_datasets_is_drift(&q))
			/* walks the sources: the read lock only to copy
			 * the rows and summaries it compares with
			 */
			api_datasets_drift(&q, r);
		else
			run_locked(h, &q, r, is_mutating(h->method));
	}
	if (!r->status)
		api_error(r, 500, "internal", "handler set no response");
	h->route = q.route ? q.route : "unmatched";
	h->who = caller;
	json_object_put(q.body);
	free(copy);
}
