/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The API's request/response model. The HTTP server (server.c) parses the
 * URL and body, takes the state lock (and for a mutating call opens a
 * transaction), calls one resource handler, and turns the response into
 * HTTP. A handler fills @resp with api_ok() or api_error(); a status >= 400
 * rolls the transaction back.
 */
#ifndef FAMFSD_API_H
#define FAMFSD_API_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>
#include <sqlite3.h>

#define API_MAX_SEGS 64

/* A query argument of the request ("?since=3"), NULL when absent. */
typedef const char *(*api_arg_fn)(void *ctx, const char *key);

struct api_req {
	const char *method;
	const char *url;                 /* path, no query */
	char *seg[API_MAX_SEGS];         /* "/v1/devices/x" -> v1 devices x */
	int nseg;
	char *rest;                      /* path after seg[3]: files' path */
	api_arg_fn arg;                  /* query arguments */
	void *arg_ctx;
	json_object *body;               /* NULL when the body was empty */
	const char *who;
	const char *route;               /* metrics label, set by handlers */
};

struct api_resp {
	int status;
	json_object *json;               /* owned */
	char *text;                      /* owned, for text responses */
	const char *ctype;
	char code[48];                   /* error code, for the audit log */
};

int api_ok(struct api_resp *r, int status, json_object *o);
int api_error(struct api_resp *r, int status, const char *code,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *api_query(struct api_req *q, const char *key);
bool api_is(struct api_req *q, const char *method);
int api_method_not_allowed(struct api_req *q, struct api_resp *r);
int api_not_found(struct api_req *q, struct api_resp *r);

/* Body validation: the object may only hold these fields, of these types. */
enum api_ftype { F_STRING, F_INT, F_BOOL, F_SIZE, F_ARRAY, F_OBJECT };
struct api_field {
	const char *name;
	enum api_ftype type;
	bool required;
};
#define API_FIELDS_END { NULL, 0, false }

/* 0, or -1 with a 400 in @r: unknown field, wrong type, missing field. */
int api_check_fields(json_object *o, const struct api_field *f,
		     const char *where, struct api_resp *r);
/* The request body as an object ({} when empty), checked against @f. */
json_object *api_body(struct api_req *q, const struct api_field *f,
		      struct api_resp *r);

const char *api_str(json_object *o, const char *key);   /* NULL if absent */
bool api_has(json_object *o, const char *key);
int64_t api_int(json_object *o, const char *key, int64_t dflt);
bool api_bool(json_object *o, const char *key, bool dflt);
/* An integer or a size string ("2MiB"); -1 with a 400 on a bad value. */
int api_size(json_object *o, const char *key, uint64_t dflt, uint64_t *out,
	     struct api_resp *r);
/* [A-Za-z0-9][A-Za-z0-9._-]{0,62}: true. */
bool api_name_valid(const char *name);
/* [A-Za-z0-9][A-Za-z0-9._-]{0,62}; -1 with a 400 otherwise. */
int api_check_name(const char *what, const char *name, struct api_resp *r);
/*
 * api_path_allowed() - 0 when @path, resolved (allowed_paths.h), is under
 * the famfsd.yaml list @setting ("paths.devices", "paths.mounts",
 * "paths.sources"), and for paths.mounts is no system directory; else -1
 * with 403 path_not_allowed naming the setting (400 for a relative path).
 */
int api_path_allowed(const char *setting, const char *path,
		     struct api_resp *r);
/* 0 when the directory @path is empty or absent, or @force; else -1 with
 * 409 conflict naming an entry it would hide. */
int api_mount_dir_empty(const char *path, bool force, struct api_resp *r);

/* JSON building shortcuts. */
void jset_str(json_object *o, const char *k, const char *v);
void jset_int(json_object *o, const char *k, int64_t v);
void jset_bool(json_object *o, const char *k, bool v);
void jset_time(json_object *o, const char *k, int64_t t);  /* 0: null */
json_object *jitems(json_object *array);  /* {"items": array} */
/* A named resource's routes: GET and POST on @route, GET, DELETE and
 * (when @patch is set) PATCH on @item_route, POST on @item_route/@action
 * (when @action is set) and POST on @route/@coll_action (when set; a
 * reserved name then, never an item's). @get gives an item's JSON; NULL
 * is a 404 naming @what.
 */
struct api_resource {
	const char *route, *item_route, *what;
	int (*list)(struct api_req *q, struct api_resp *r);
	int (*create)(struct api_req *q, struct api_resp *r);
	json_object *(*get)(const char *name);
	int (*del)(struct api_req *q, struct api_resp *r, const char *name);
	int (*patch)(struct api_req *q, struct api_resp *r, const char *name);
	const char *action, *action_route;
	int (*act)(struct api_req *q, struct api_resp *r, const char *name);
	const char *coll_action, *coll_action_route;
	int (*coll_act)(struct api_req *q, struct api_resp *r);
};
int api_resource(struct api_req *q, struct api_resp *r,
		 const struct api_resource *res);
/* The one row @sql selects (its only parameter is @name) as JSON made by
 * @row from the statement; NULL if there is no such row or on error.
 */
json_object *api_named_row(const char *sql, const char *name,
			   json_object *(*row)(sqlite3_stmt *st));

/* Resources, one file each. */
int api_host(struct api_req *q, struct api_resp *r);
int api_healthz(struct api_req *q, struct api_resp *r);
int api_metrics(struct api_req *q, struct api_resp *r);
int api_devices(struct api_req *q, struct api_resp *r);
int api_sets(struct api_req *q, struct api_resp *r);
int api_regions(struct api_req *q, struct api_resp *r);
int api_filesystems(struct api_req *q, struct api_resp *r);
int api_mounts(struct api_req *q, struct api_resp *r);
int api_files(struct api_req *q, struct api_resp *r);
int api_jobs(struct api_req *q, struct api_resp *r);
/* POST /v1/jobs {"dry_run": true}: run without the state lock. */
bool api_jobs_is_dry_run(const struct api_req *q);
int api_jobs_dry_run(struct api_req *q, struct api_resp *r);
int api_events(struct api_req *q, struct api_resp *r);
int api_datasets(struct api_req *q, struct api_resp *r);
/* /v1/datasets/{name}/holds and /v1/holds (holds.c). POST on the first
 * runs without the state lock (it waits for the generation to show).
 */
int api_dataset_holds(struct api_req *q, struct api_resp *r);
int api_holds(struct api_req *q, struct api_resp *r);
bool api_holds_is_post(const struct api_req *q);
int api_holds_post(struct api_req *q, struct api_resp *r);
/* GET /v1/datasets[/{name}]?drift=true: run without the state lock (it
 * takes the read lock to copy what it compares, then walks the sources).
 */
bool api_datasets_is_drift(struct api_req *q);
int api_datasets_drift(struct api_req *q, struct api_resp *r);

/* Shared lookups (api/common.c). */
json_object *api_device_json(const char *name);     /* NULL if absent */
json_object *api_set_json(const char *name);
/* A device that may join a set: exists, online, in no set, a usable size
 * (0, or -1 with the error in @r).
 */
int api_set_check_device(const char *dev, struct api_resp *r);
/* A set's 'devices' array: 1 to FAMFS_MAX_DEVICES strings, none twice
 * (0, or -1 with the error in @r).
 */
int api_set_check_list(json_object *devs, struct api_resp *r);
/* Record provider device @d as device @name (devices.c): 0 or -EIO. */
struct famfs_provider_dev;
int api_device_insert(const char *name, const char *provider,
		      const struct famfs_provider_dev *d);
/* PATCH /v1/interleave-sets/{name}: grow the set (set_grow.c). */
int api_set_grow(struct api_req *q, struct api_resp *r, const char *name);
json_object *api_fs_json(const char *name, bool with_space);
json_object *api_mount_json(const char *name);
/* Policy defaults from the kv table. */
uint64_t policy_chunk(void);
uint32_t policy_strips(void);
uint64_t policy_log_size(void);
/* Commit what the request's transaction holds so far and go on in a new
 * one: for an intent that must survive famfsd being killed mid-request.
 */
void api_commit_early(void);

#endif
