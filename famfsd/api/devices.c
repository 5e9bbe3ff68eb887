// SPDX-License-Identifier: Apache-2.0
/* /v1/devices: what providers found, and emul devices made through here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "famfs.h"
#include "famfsd.h"
#include "providers.h"
#include "store/store.h"

#define DEV_COLS "d.name, d.uuid, d.provider, d.path, d.size, d.state, " \
	"d.reason, d.details, d.seen, (SELECT set_name FROM set_devices s " \
	"WHERE s.device = d.name), (SELECT kernel_name FROM regions r " \
	"WHERE r.name = d.name)"

static json_object *row_json(sqlite3_stmt *st)
{
	json_object *o = json_object_new_object(), *det;

	jset_str(o, "name", (const char *)sqlite3_column_text(st, 0));
	jset_str(o, "uuid", (const char *)sqlite3_column_text(st, 1));
	jset_str(o, "provider", (const char *)sqlite3_column_text(st, 2));
	jset_str(o, "path", (const char *)sqlite3_column_text(st, 3));
	jset_int(o, "size", sqlite3_column_int64(st, 4));
	jset_str(o, "state", (const char *)sqlite3_column_text(st, 5));
	jset_bool(o, "usable", !strcmp((const char *)sqlite3_column_text(st, 5),
				       "online"));
	jset_str(o, "reason", (const char *)sqlite3_column_text(st, 6));
	json_object_object_add(o, "set", sqlite3_column_type(st, 9) == SQLITE_NULL
		? NULL : json_object_new_string(
			(const char *)sqlite3_column_text(st, 9)));
	/* the CXL region famfsd made for it (DELETE /v1/regions removes
	 * both), or null
	 */
	json_object_object_add(o, "region", sqlite3_column_type(st, 10) ==
		SQLITE_NULL ? NULL : json_object_new_string(
			(const char *)sqlite3_column_text(st, 10)));
	jset_time(o, "seen", sqlite3_column_int64(st, 8));
	det = json_tokener_parse((const char *)sqlite3_column_text(st, 7));
	json_object_object_add(o, "details", det ? det : json_object_new_object());
	return o;
}

json_object *api_device_json(const char *name)
{
	return api_named_row("SELECT " DEV_COLS " FROM devices d WHERE d.name=?",
			     name, row_json);
}

static int list(struct api_req *q, struct api_resp *r)
{
	const char *topo = api_query(q, "topology");
	json_object *a = json_object_new_array(), *o, *t = NULL;
	sqlite3_stmt *st;

	/* The discovery first: the items then agree with the topology
	 * they are returned with.
	 */
	if (topo && strcmp(topo, "0"))
		providers_discover(&t);
	st = store_prep(famfsd.db, "SELECT " DEV_COLS
			" FROM devices d ORDER BY d.name");
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, row_json(st));
	sqlite3_finalize(st);
	o = jitems(a);
	if (t)
		json_object_object_add(o, "topology", t);
	return api_ok(r, 200, o);
}

int api_device_insert(const char *name, const char *provider,
		      const struct famfs_provider_dev *d)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "INSERT INTO devices(name,"
		"uuid,provider,path,size,state,reason,details,created,seen) "
		"VALUES(?,?,?,?,?,?,?,?,?,?)");
	int r;

	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, d->uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, d->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)d->size);
	sqlite3_bind_text(st, 6, d->usable ? "online" : "unusable", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 7, d->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, d->details_json ? d->details_json : "{}", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, store_now());
	sqlite3_bind_int64(st, 10, store_now());
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return r;
}

static bool exists(const char *sql, const char *v)
{
	sqlite3_stmt *st = store_prep(famfsd.db, sql);
	bool found;

	if (!st)
		return false;
	sqlite3_bind_text(st, 1, v, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static int create(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "name", F_STRING, true }, { "provider", F_STRING, false },
		{ "path", F_STRING, true }, { "size", F_SIZE, false },
		API_FIELDS_END,
	};
	struct famfs_provider_dev d = { 0 };
	char why[FAMFS_PROVIDER_WHY_LEN] = "";
	const char *name, *path, *pname;
	struct provider *p;
	json_object *b;
	uint64_t size;
	bool made;
	int e;

	if (!(b = api_body(q, f, r)))
		return -1;
	name = api_str(b, "name");
	path = api_str(b, "path");
	pname = api_str(b, "provider") ? api_str(b, "provider") : "emul";
	if (api_check_name("device", name, r) ||
	    api_size(b, "size", 0, &size, r))
		return -1;
	if (path[0] != '/')
		return api_error(r, 400, "invalid_value",
				 "path '%s' must be absolute", path);
	/* an emul device is a file famfsd creates or opens as root */
	if (!strcmp(pname, "emul") &&
	    api_path_allowed("paths.devices", path, r))
		return -1;
	p = providers_find(pname);
	if (!p)
		return api_error(r, 422, "provider_not_loaded", "no provider "
				 "'%s' is loaded on host %s (GET /v1/host lists "
				 "the loaded providers and why others failed)",
				 pname, famfsd_cfg()->host_name);
	if (exists("SELECT 1 FROM devices WHERE name=?", name))
		return api_error(r, 409, "already_exists",
				 "device '%s' already exists", name);
	if (exists("SELECT 1 FROM devices WHERE path=?", path))
		return api_error(r, 409, "already_exists",
				 "a device with path %s is already known", path);
	made = api_has(b, "size");
	if (made && !(p->ops->caps & FAMFS_PROVIDER_CAN_CREATE))
		return api_error(r, 501, "not_implemented", "provider '%s' "
				 "cannot create devices", pname);
	if (made)
		e = p->ops->create(p->ctx, path, size, &d, why, sizeof(why));
	else
		e = p->ops->open(p->ctx, path, &d, why, sizeof(why));
	if (e == -EEXIST)
		return api_error(r, 409, "already_exists", "%s", why);
	if (e == -EINVAL || e == -ENOENT || e == -ENOTDIR || e == -EACCES)
		return api_error(r, 400, "invalid_value", "%s", why);
	if (e == -EOPNOTSUPP)
		return api_error(r, 501, "not_implemented", "%s", why);
	if (e)
		return api_error(r, 422, "device_unusable", "%s", why);
	if (!made && !d.usable) {
		free(d.details_json);
		return api_error(r, 422, "device_unusable", "%s", d.reason);
	}
	if (exists("SELECT 1 FROM devices WHERE uuid=?", d.uuid)) {
		free(d.details_json);
		return api_error(r, 409, "already_exists", "device %s (uuid "
				 "%s) is already known under another path",
				 path, d.uuid);
	}
	e = api_device_insert(name, pname, &d);
	free(d.details_json);
	if (e) {
		if (made)
			p->ops->destroy(p->ctx, path, why, sizeof(why));
		return api_error(r, 500, "internal", "cannot record device: %s",
				 sqlite3_errmsg(famfsd.db));
	}
	return api_ok(r, 201, api_device_json(name));
}

static int delete(struct api_req *q, struct api_resp *r, const char *name)
{
	json_object *o = api_device_json(name), *v;
	const char *destroy = api_query(q, "destroy");
	char why[FAMFS_PROVIDER_WHY_LEN] = "";

	if (!o)
		return api_error(r, 404, "not_found", "no device '%s'", name);
	if (json_object_object_get_ex(o, "set", &v) && v) {
		api_error(r, 409, "device_in_use", "device '%s' is in "
			  "interleave set '%s'; delete the set first", name,
			  json_object_get_string(v));
		json_object_put(o);
		return -1;
	}
	if (json_object_object_get_ex(o, "region", &v) && v) {
		api_error(r, 409, "device_in_use", "device '%s' is the fsdax "
			  "namespace of region '%s' (%s); delete the region "
			  "(DELETE /v1/regions/%s)", name, name,
			  json_object_get_string(v), name);
		json_object_put(o);
		return -1;
	}
	store_delete_named(famfsd.db, "devices", name);
	if (destroy && strcmp(destroy, "0")) {
		struct provider *p = providers_find(api_str(o, "provider"));

		if (!p) {
			api_error(r, 422, "provider_not_loaded", "device '%s': "
				  "its provider '%s' is not loaded, so its "
				  "file cannot be removed", name,
				  api_str(o, "provider"));
			json_object_put(o);
			return -1;
		}
		if (!(p->ops->caps & FAMFS_PROVIDER_CAN_CREATE)) {
			api_error(r, 501, "not_implemented", "provider '%s' "
				  "cannot destroy devices", p->ops->name);
			json_object_put(o);
			return -1;
		}
		if (p->ops->destroy(p->ctx, api_str(o, "path"), why,
				    sizeof(why))) {
			json_object_put(o);
			return api_error(r, 500, "internal", "%s", why);
		}
	}
	json_object_put(o);
	return api_ok(r, 204, NULL);
}

static int rescan(struct api_req *q, struct api_resp *r)
{
	if (!api_body(q, (const struct api_field[]){ API_FIELDS_END }, r))
		return -1;
	providers_discover(NULL);
	return list(q, r);
}

int api_devices(struct api_req *q, struct api_resp *r)
{
	static const struct api_resource res = {
		.route = "/v1/devices", .item_route = "/v1/devices/{name}",
		.what = "device", .list = list, .create = create,
		.get = api_device_json, .del = delete,
		.coll_action = "rescan",
		.coll_action_route = "/v1/devices/rescan", .coll_act = rescan,
	};

	return api_resource(q, r, &res);
}
