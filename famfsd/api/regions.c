// SPDX-License-Identifier: Apache-2.0
/*
 * /v1/regions: CXL regions famfsd creates, hardware-interleaved across
 * memdevs, each with the fsdax namespace famfs mounts on it. That
 * namespace is recorded as the device of the same name, so a set names a
 * region like any device. The request is checked here first (bad input
 * reaches no hardware); the provider creates all or nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "famfsd.h"
#include "providers.h"
#include "store/store.h"

#define REGION_MAX_MEMDEVS 16

static json_object *row_json(sqlite3_stmt *st)
{
	json_object *o = json_object_new_object(), *m, *dev;

	jset_str(o, "name", (const char *)sqlite3_column_text(st, 0));
	jset_str(o, "provider", (const char *)sqlite3_column_text(st, 1));
	jset_str(o, "region", (const char *)sqlite3_column_text(st, 2));
	m = json_tokener_parse((const char *)sqlite3_column_text(st, 3));
	json_object_object_add(o, "memdevs", m ? m : json_object_new_array());
	jset_int(o, "ways", sqlite3_column_int64(st, 4));
	jset_int(o, "granularity", sqlite3_column_int64(st, 5));
	jset_time(o, "created", sqlite3_column_int64(st, 6));
	dev = api_device_json((const char *)sqlite3_column_text(st, 0));
	if (dev) {
		json_object *v;

		jset_str(o, "path", api_str(dev, "path"));
		jset_int(o, "size", api_int(dev, "size", 0));
		jset_str(o, "state", api_str(dev, "state"));
		json_object_object_get_ex(dev, "set", &v);
		json_object_object_add(o, "set", json_object_get(v));
		json_object_put(dev);
	}
	return o;
}

#define REGION_COLS "name, provider, kernel_name, memdevs, ways, " \
	"granularity, created"

static json_object *region_json(const char *name)
{
	return api_named_row("SELECT " REGION_COLS " FROM regions WHERE name=?",
			     name, row_json);
}

static int list(struct api_req *q, struct api_resp *r)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT " REGION_COLS
				      " FROM regions ORDER BY name");
	json_object *a = json_object_new_array();

	(void)q;  /* the table's signature; no query here */
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, row_json(st));
	sqlite3_finalize(st);
	return api_ok(r, 200, jitems(a));
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The body's memdevs, ways, granularity and align; 0 or -1 with a 400. */
static int check_body(json_object *b, const char **md, unsigned *n,
		      uint64_t *gran, uint64_t *align, struct api_resp *r)
{
	json_object *devs;
	size_t len;
	int64_t ways;

	json_object_object_get_ex(b, "memdevs", &devs);
	len = json_object_array_length(devs);
	if (len < 1 || len > REGION_MAX_MEMDEVS)
		return api_error(r, 400, "invalid_value", "'memdevs' must name "
				 "1 to %d memdevs", REGION_MAX_MEMDEVS);
	for (size_t i = 0; i < len; i++) {
		json_object *d = json_object_array_get_idx(devs, i);

		if (!json_object_is_type(d, json_type_string) ||
		    !*json_object_get_string(d))
			return api_error(r, 400, "invalid_type", "memdevs[%zu] "
					 "must be a memdev name or serial", i);
		md[i] = json_object_get_string(d);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(md[i], md[j]))
				return api_error(r, 400, "invalid_value",
						 "memdev '%s' is named twice",
						 md[i]);
	}
	*n = (unsigned)len;
	ways = api_int(b, "ways", (int64_t)len);
	if (ways != (int64_t)len)
		return api_error(r, 400, "invalid_value", "ways %lld does not "
				 "match the %zu memdevs named in 'memdevs'",
				 (long long)ways, len);
	if (api_size(b, "granularity", 0, gran, r) ||
	    api_size(b, "align", 0, align, r))
		return -1;
	if (*gran && (!pow2(*gran) || *gran < 256 || *gran > 16384))
		return api_error(r, 400, "invalid_value", "granularity %llu: "
				 "must be a power of two from 256 to 16384 "
				 "bytes", (unsigned long long)*gran);
	if (*align && (!pow2(*align) || *align < 4096))
		return api_error(r, 400, "invalid_value", "align %llu: must be "
				 "a power of two of at least 4 KiB",
				 (unsigned long long)*align);
	return 0;
}

static int record(const char *name, const char *provider,
		  const char *kernel_name, json_object *memdevs, unsigned ways,
		  uint64_t gran, const struct famfs_provider_dev *d)
{
	sqlite3_stmt *st;
	int ok;

	if (api_device_insert(name, provider, d))
		return -EIO;
	st = store_prep(famfsd.db, "INSERT INTO regions(" REGION_COLS ") "
			"VALUES(?,?,?,?,?,?,?)");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kernel_name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, json_object_to_json_string(memdevs), -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, ways);
	sqlite3_bind_int64(st, 6, (int64_t)gran);
	sqlite3_bind_int64(st, 7, store_now());
	ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok ? 0 : -EIO;
}

/* The provider's error as an API error. */
static int provider_error(struct api_resp *r, int e, const char *why)
{
	switch (e) {
	case -ENODEV:
	case -EINVAL:
		return api_error(r, 400, "invalid_value", "%s", why);
	case -EBUSY:
		return api_error(r, 409, "device_in_use", "%s", why);
	default:
		return api_error(r, 422, "region_failed", "%s", why);
	}
}

static struct provider *region_provider(const char *name, struct api_resp *r)
{
	struct provider *p = providers_find(name);

	if (!p || !(p->ops->caps & FAMFS_PROVIDER_CAN_REGION)) {
		api_error(r, 422, "provider_not_loaded", "no provider '%s' that "
			  "creates regions is loaded on host %s (GET /v1/host "
			  "lists the loaded providers)", name,
			  famfsd_cfg()->host_name);
		return NULL;
	}
	return p;
}

static int create(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "name", F_STRING, true }, { "memdevs", F_ARRAY, true },
		{ "ways", F_INT, false }, { "granularity", F_SIZE, false },
		{ "align", F_SIZE, false }, { "provider", F_STRING, false },
		API_FIELDS_END,
	};
	const char *md[REGION_MAX_MEMDEVS], *name, *pname;
	struct famfs_provider_region req = { .memdevs = md };
	struct famfs_provider_dev d = { 0 };
	char why[FAMFS_PROVIDER_WHY_LEN] = "", kname[FAMFS_PROVIDER_NAME_LEN];
	json_object *b, *old, *devs;
	struct provider *p;
	int e;

	if (!(b = api_body(q, f, r)))
		return -1;
	name = api_str(b, "name");
	pname = api_str(b, "provider") ? api_str(b, "provider") : "cxl";
	if (api_check_name("region", name, r) ||
	    check_body(b, md, &req.nmemdevs, &req.granularity, &req.align, r))
		return -1;
	if ((old = api_device_json(name))) {
		json_object_put(old);
		return api_error(r, 409, "already_exists", "a device or region "
				 "'%s' already exists", name);
	}
	if (!(p = region_provider(pname, r)))
		return -1;
	req.ways = req.nmemdevs;
	req.name = name;
	e = p->ops->region_create(p->ctx, &req, kname, &d, why, sizeof(why));
	if (e)
		return provider_error(r, e, why);
	json_object_object_get_ex(b, "memdevs", &devs);
	e = record(name, pname, kname, devs, req.ways, req.granularity, &d);
	free(d.details_json);
	if (e) {
		api_error(r, 500, "internal", "cannot record region '%s' (%s "
			  "removed again): %s", name, kname,
			  sqlite3_errmsg(famfsd.db));
		p->ops->region_destroy(p->ctx, kname, why, sizeof(why));
		return -1;
	}
	store_event(famfsd.db, "info", "regions", "region %s created as %s "
		    "(%s)", name, kname, d.path);
	return api_ok(r, 201, region_json(name));
}

static int delete(struct api_req *q, struct api_resp *r, const char *name)
{
	json_object *o = region_json(name), *set;
	char why[FAMFS_PROVIDER_WHY_LEN] = "", kname[FAMFS_PROVIDER_NAME_LEN];
	struct provider *p;
	int e;

	(void)q;  /* the table's signature; no query here */
	if (!o)
		return api_error(r, 404, "not_found", "no region '%s'", name);
	if (json_object_object_get_ex(o, "set", &set) && set) {
		api_error(r, 409, "device_in_use", "region '%s' is in "
			  "interleave set '%s'; delete the set first", name,
			  json_object_get_string(set));
		json_object_put(o);
		return -1;
	}
	snprintf(kname, sizeof(kname), "%s", api_str(o, "region"));
	p = region_provider(api_str(o, "provider"), r);
	json_object_put(o);
	if (!p)
		return -1;
	e = p->ops->region_destroy(p->ctx, kname, why, sizeof(why));
	if (e && e != -ENOENT)
		return api_error(r, 409, "region_busy", "region '%s' (%s): %s",
				 name, kname, why);
	store_delete_named(famfsd.db, "regions", name);
	store_delete_named(famfsd.db, "devices", name);
	store_event(famfsd.db, "info", "regions", "region %s (%s) deleted%s",
		    name, kname, e ? ": it was already gone" : "");
	return api_ok(r, 204, NULL);
}

int api_regions(struct api_req *q, struct api_resp *r)
{
	static const struct api_resource res = {
		.route = "/v1/regions", .item_route = "/v1/regions/{name}",
		.what = "region", .list = list, .create = create,
		.get = region_json, .del = delete,
	};

	return api_resource(q, r, &res);
}
