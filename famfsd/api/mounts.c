// SPDX-License-Identifier: Apache-2.0
/* /v1/mounts: desired mounts, supervised by mounts/supervisor.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "famfsd.h"
#include "holds.h"
#include "fsview.h"
#include "mounts/backend.h"
#include "mounts/supervisor.h"
#include "store/store.h"

#define MOUNT_WAIT_MS 5000

static json_object *mount_row(sqlite3_stmt *st)
{
	static const char *k[] = { "name", "filesystem", "path", "role",
				   "backend", "options", "desired", "state" };
	json_object *o = json_object_new_object();

	for (int i = 0; i < 8; i++)
		jset_str(o, k[i], (const char *)sqlite3_column_text(st, i));
	jset_int(o, "pid", sqlite3_column_int(st, 8));
	jset_int(o, "restarts", sqlite3_column_int(st, 9));
	jset_str(o, "last_error", (const char *)sqlite3_column_text(st, 10));
	jset_time(o, "since", sqlite3_column_int64(st, 11));
	return o;
}

json_object *api_mount_json(const char *name)
{
	return api_named_row("SELECT name, filesystem, path, role, backend, "
			     "options, desired, state, pid, restarts, "
			     "last_error, since FROM mounts WHERE name=?",
			     name, mount_row);
}

static int list(struct api_req *q, struct api_resp *r)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"SELECT name FROM mounts ORDER BY name");
	json_object *a = json_object_new_array();

	(void)q;  /* the table's signature; no query here */
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, api_mount_json(
			(const char *)sqlite3_column_text(st, 0)));
	sqlite3_finalize(st);
	return api_ok(r, 200, jitems(a));
}

static int create(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "name", F_STRING, true }, { "filesystem", F_STRING, true },
		{ "path", F_STRING, true }, { "role", F_STRING, true },
		{ "backend", F_STRING, false }, { "options", F_STRING, false },
		{ "force", F_BOOL, false }, API_FIELDS_END,
	};
	const char *name, *fs, *path, *role, *backend, *opts;
	char err[1024], dflt_opts[512];
	json_object *b, *o;
	sqlite3_stmt *st;
	int e;

	if (!(b = api_body(q, f, r)))
		return -1;
	name = api_str(b, "name");
	fs = api_str(b, "filesystem");
	path = api_str(b, "path");
	role = api_str(b, "role");
	backend = api_str(b, "backend");
	store_kv_get(famfsd.db, "policy.mount_options", dflt_opts,
		     sizeof(dflt_opts));
	opts = api_str(b, "options") ? api_str(b, "options") : dflt_opts;
	if (api_check_name("mount", name, r))
		return -1;
	if (strcmp(role, "master") && strcmp(role, "client"))
		return api_error(r, 400, "invalid_value", "role '%s': must be "
				 "'master' or 'client'", role);
	if (path[0] != '/' || strlen(path) > 1024)
		return api_error(r, 400, "invalid_value", "path '%s' must be "
				 "absolute", path);
	if (api_path_allowed("paths.mounts", path, r))
		return -1;
	if (backend && !mount_backend_find(backend))
		return api_error(r, 400, "invalid_value", "backend '%s': must be "
				 "'kernel' or 'fuse'", backend);
	if ((o = api_mount_json(name))) {
		json_object_put(o);
		return api_error(r, 409, "already_exists", "mount '%s' already "
				 "exists", name);
	}
	if (!(o = api_fs_json(fs, false)))
		return api_error(r, 400, "invalid_value", "no filesystem '%s'",
				 fs);
	json_object_put(o);
	if (!backend) {
		char **devs;
		unsigned ndev;

		backend = "fuse";
		if (!fs_device_paths(fs, &devs, &ndev)) {
			backend = mount_backend_default(devs, ndev);
			fs_paths_free(devs, ndev);
		}
	}
	st = store_prep(famfsd.db, "SELECT name FROM mounts WHERE path=? OR "
			"(filesystem=? AND role='master' AND ?='master')");
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, fs, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, role, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		api_error(r, 409, "conflict", "mount '%s' already has that path "
			  "or is the master mount of '%s'",
			  (const char *)sqlite3_column_text(st, 0), fs);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	/*
	 * The module mounts one superblock per device: a second kernel mount
	 * of the filesystem on this host would be the same tree, and a
	 * read-only one beside a read-write one is refused by the VFS.
	 */
	st = store_prep(famfsd.db, "SELECT name FROM mounts WHERE "
			"filesystem=? AND backend='kernel' AND ?='kernel'");
	sqlite3_bind_text(st, 1, fs, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, backend, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		api_error(r, 409, "conflict", "mount '%s' is the kernel mount of "
			  "'%s' on this host; the module mounts a filesystem "
			  "once per host (use that mount, or backend 'fuse')",
			  (const char *)sqlite3_column_text(st, 0), fs);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	/* last: a repeated request finds its mount (409 already_exists)
	 * before the mounted directory looks full */
	if (api_mount_dir_empty(path, api_bool(b, "force", false), r))
		return -1;
	st = store_prep(famfsd.db, "INSERT INTO mounts(name,filesystem,path,"
			"role,backend,options,desired,state,since,created) "
			"VALUES(?,?,?,?,?,?,'mounted','starting',?,?)");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, fs, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, role, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, backend, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, opts, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, store_now());
	sqlite3_bind_int64(st, 8, store_now());
	e = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	if (e)
		return api_error(r, 500, "internal", "%s",
				 sqlite3_errmsg(famfsd.db));
	/* The row is the mount's intent: committed before the server is
	 * spawned, so that a famfsd killed in between finds it at its restart
	 * and reconciles the mount (one server, known to it) instead of
	 * leaving a server it does not know of.
	 */
	api_commit_early();
	e = mounts_start(name, MOUNT_WAIT_MS, err, sizeof(err));
	if (e) {
		/* the refusal leaves nothing: the committed row goes too */
		store_delete_named(famfsd.db, "mounts", name);
		api_commit_early();
	}
	if (e)
		return api_error(r, e == -ECHILD ? 422 : e == -EBUSY ? 409 : 500,
				 e == -ECHILD ? "mount_failed" : e == -EBUSY ?
				 "conflict" : "internal", "%s", err);
	return api_ok(r, 201, api_mount_json(name));
}

static int delete(struct api_req *q, struct api_resp *r, const char *name)
{
	json_object *o = api_mount_json(name);
	char err[512];

	(void)q;  /* the table's signature; no query here */
	if (!o)
		return api_error(r, 404, "not_found", "no mount '%s'", name);
	json_object_put(o);
	/* a pin is a bind mount of this mount: it would go dead */
	if (holds_on_mount(name, err, sizeof(err)) > 0)
		return api_error(r, 409, "in_use", "mount %s has the pins of "
				 "holds (%s): release them first", name, err);
	if (mounts_stop(name, err, sizeof(err)))
		return api_error(r, 409, "conflict", "%s", err);
	store_delete_named(famfsd.db, "mounts", name);
	return api_ok(r, 204, NULL);
}

int api_mounts(struct api_req *q, struct api_resp *r)
{
	static const struct api_resource res = {
		.route = "/v1/mounts", .item_route = "/v1/mounts/{name}",
		.what = "mount", .list = list, .create = create,
		.get = api_mount_json, .del = delete,
	};

	return api_resource(q, r, &res);
}
