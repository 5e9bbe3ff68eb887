// SPDX-License-Identifier: Apache-2.0
/* /v1/interleave-sets: N devices, a chunk (multiple of 2 MiB), strips.
 * Growing one (PATCH) is set_grow.c.
 */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "famfs.h"
#include "famfsd.h"
#include "store/store.h"

static json_object *set_row(sqlite3_stmt *st)
{
	json_object *o = json_object_new_object();

	jset_str(o, "name", (const char *)sqlite3_column_text(st, 0));
	jset_int(o, "chunk", sqlite3_column_int64(st, 1));
	jset_int(o, "strips", sqlite3_column_int64(st, 2));
	jset_int(o, "size", (int64_t)sqlite3_column_double(st, 5));
	json_object_object_add(o, "filesystem",
		sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL :
		json_object_new_string((const char *)sqlite3_column_text(st, 4)));
	jset_time(o, "created", sqlite3_column_int64(st, 3));
	return o;
}

json_object *api_set_json(const char *name)
{
	json_object *o, *devs;
	sqlite3_stmt *st;

	o = api_named_row("SELECT s.name, s.chunk, s.strips, s.created, "
		"(SELECT f.name FROM filesystems f WHERE f.set_name=s.name), "
		"(SELECT total(d.size) FROM set_devices sd JOIN devices d ON "
		" d.name=sd.device WHERE sd.set_name=s.name) "
		"FROM interleave_sets s WHERE s.name=?", name, set_row);
	if (!o)
		return NULL;
	devs = json_object_new_array();
	st = store_prep(famfsd.db, "SELECT device FROM set_devices WHERE "
			"set_name=? ORDER BY idx");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(devs, json_object_new_string(
			(const char *)sqlite3_column_text(st, 0)));
	sqlite3_finalize(st);
	json_object_object_add(o, "devices", devs);
	return o;
}

static int list(struct api_req *q, struct api_resp *r)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"SELECT name FROM interleave_sets ORDER BY name");
	json_object *a = json_object_new_array();

	(void)q;  /* the table's signature; no query here */
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, api_set_json(
			(const char *)sqlite3_column_text(st, 0)));
	sqlite3_finalize(st);
	return api_ok(r, 200, jitems(a));
}

int api_set_check_list(json_object *devs, struct api_resp *r)
{
	size_t n = json_object_array_length(devs);

	if (n < 1 || n > FAMFS_MAX_DEVICES)
		return api_error(r, 400, "invalid_value", "'devices' must name "
				 "1 to %d devices", FAMFS_MAX_DEVICES);
	for (size_t i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(devs, i);

		if (!json_object_is_type(d, json_type_string))
			return api_error(r, 400, "invalid_type", "devices[%zu] "
					 "must be a string", i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(json_object_get_string(d),
				    json_object_get_string(
					json_object_array_get_idx(devs, j))))
				return api_error(r, 400, "invalid_value",
						 "device '%s' is named twice",
						 json_object_get_string(d));
	}
	return 0;
}

/* One device of a new set: exists, online, free, a usable size. */
int api_set_check_device(const char *dev, struct api_resp *r)
{
	json_object *d = api_device_json(dev), *set;
	int ret = 0;

	if (!d)
		return api_error(r, 400, "invalid_value", "no device '%s'", dev);
	if (json_object_object_get_ex(d, "set", &set) && set)
		ret = api_error(r, 409, "device_in_use", "device '%s' is "
				"already in interleave set '%s'", dev,
				json_object_get_string(set));
	else if (strcmp(api_str(d, "state"), "online"))
		ret = api_error(r, 422, "device_unusable", "device '%s' is %s%s%s",
				dev, api_str(d, "state"),
				*api_str(d, "reason") ? ": " : "",
				api_str(d, "reason"));
	else if (api_int(d, "size", 0) % (int64_t)FAMFS_UNIT_SIZE ||
		 api_int(d, "size", 0) < (int64_t)(4 * FAMFS_UNIT_SIZE))
		ret = api_error(r, 400, "invalid_value", "device '%s' is %lld "
				"bytes: a set member is a multiple of 2 MiB and "
				"at least 8 MiB", dev,
				(long long)api_int(d, "size", 0));
	json_object_put(d);
	return ret;
}

static int create(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "name", F_STRING, true }, { "devices", F_ARRAY, true },
		{ "chunk", F_SIZE, false }, { "strips", F_INT, false },
		API_FIELDS_END,
	};
	json_object *b, *devs, *old;
	sqlite3_stmt *st;
	const char *name;
	uint64_t chunk;
	int64_t strips;
	size_t n;

	if (!(b = api_body(q, f, r)))
		return -1;
	name = api_str(b, "name");
	if (api_check_name("interleave set", name, r) ||
	    api_size(b, "chunk", policy_chunk(), &chunk, r))
		return -1;
	if ((old = api_set_json(name))) {
		json_object_put(old);
		return api_error(r, 409, "already_exists",
				 "interleave set '%s' already exists", name);
	}
	json_object_object_get_ex(b, "devices", &devs);
	n = json_object_array_length(devs);
	if (api_set_check_list(devs, r))
		return -1;
	if (!chunk || chunk % FAMFS_UNIT_SIZE || chunk > FAMFS_MAX_CHUNK)
		return api_error(r, 400, "invalid_value", "chunk %llu is not a "
				 "multiple of 2 MiB (2097152) up to 1 TiB",
				 (unsigned long long)chunk);
	strips = api_int(b, "strips", 0);
	if (!strips)
		strips = policy_strips();
	if (!strips || strips > (int64_t)n)
		strips = (int64_t)n;
	if (api_int(b, "strips", 0) < 0 ||
	    api_int(b, "strips", 0) > (int64_t)n)
		return api_error(r, 400, "invalid_value", "strips %lld: must be "
				 "1..%zu (the number of devices) or 0 for all",
				 (long long)api_int(b, "strips", 0), n);
	for (size_t i = 0; i < n; i++)
		if (api_set_check_device(json_object_get_string(
				json_object_array_get_idx(devs, i)), r))
			return -1;
	st = store_prep(famfsd.db, "INSERT INTO interleave_sets(name,chunk,"
			"strips,created) VALUES(?,?,?,?)");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)chunk);
	sqlite3_bind_int64(st, 3, strips);
	sqlite3_bind_int64(st, 4, store_now());
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return api_error(r, 500, "internal", "%s",
				 sqlite3_errmsg(famfsd.db));
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		st = store_prep(famfsd.db, "INSERT INTO set_devices(set_name,"
				"device,idx) VALUES(?,?,?)");
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, json_object_get_string(
			json_object_array_get_idx(devs, i)), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (int64_t)i);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return api_error(r, 500, "internal", "%s",
					 sqlite3_errmsg(famfsd.db));
		}
		sqlite3_finalize(st);
	}
	return api_ok(r, 201, api_set_json(name));
}

static int delete(struct api_req *q, struct api_resp *r, const char *name)
{
	json_object *o = api_set_json(name), *fs;

	(void)q;  /* the table's signature; no query here */
	if (!o)
		return api_error(r, 404, "not_found", "no interleave set '%s'",
				 name);
	if (json_object_object_get_ex(o, "filesystem", &fs) && fs) {
		api_error(r, 409, "in_use", "interleave set '%s' holds "
			  "filesystem '%s'; delete the filesystem first", name,
			  json_object_get_string(fs));
		json_object_put(o);
		return -1;
	}
	json_object_put(o);
	store_delete_named(famfsd.db, "interleave_sets", name);
	return api_ok(r, 204, NULL);
}

int api_sets(struct api_req *q, struct api_resp *r)
{
	static const struct api_resource res = {
		.route = "/v1/interleave-sets",
		.item_route = "/v1/interleave-sets/{name}",
		.what = "interleave set", .list = list, .create = create,
		.get = api_set_json, .del = delete, .patch = api_set_grow,
	};

	return api_resource(q, r, &res);
}
