// SPDX-License-Identifier: Apache-2.0
/* /v1/host (identity, providers, policy defaults), /healthz, /metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowed_paths.h"
#include "api/api.h"
#include "famfs.h"
#include "famfsd.h"
#include "fsview.h"
#include "metrics.h"
#include "providers.h"
#include "store/store.h"

static json_object *policy_json(void)
{
	json_object *p = json_object_new_object();
	char opts[512];

	store_kv_get(famfsd.db, "policy.mount_options", opts, sizeof(opts));
	jset_int(p, "chunk", (int64_t)policy_chunk());
	jset_int(p, "strips", policy_strips());
	jset_int(p, "log_size", (int64_t)policy_log_size());
	jset_str(p, "mount_options", opts);
	return p;
}

/* {"status": "ok"|"degraded", "problems": [...]}: see docs/api.md. */
static json_object *health_json(void)
{
	json_object *h = json_object_new_object(), *a = json_object_new_array();
	const char **why;
	int n = providers_problems(&why);
	char corrupt[400];

	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(why[i]));
	if (fsview_corrupt(corrupt, sizeof(corrupt))) {
		json_object_array_add(a, json_object_new_string(corrupt));
		n++;
	}
	jset_str(h, "status", n ? "degraded" : "ok");
	json_object_object_add(h, "problems", a);
	return h;
}

/* A ':'-list setting as a JSON array of its entries. */
static json_object *list_json(const char *l)
{
	json_object *a = json_object_new_array();

	for (const char *s = l ? l : ""; *s;) {
		size_t n = strcspn(s, ":");

		json_object_array_add(a, json_object_new_string_len(s, (int)n));
		s += n + (s[n] == ':');
	}
	return a;
}

/* What the API may touch (famfsd.yaml paths.*): apply plans by it. */
static json_object *paths_json(void)
{
	const struct famfsd_config *c = famfsd_cfg();
	json_object *o = json_object_new_object();
	json_object *sys = json_object_new_array();

	json_object_object_add(o, "devices", list_json(c->paths_devices));
	json_object_object_add(o, "mounts", list_json(c->paths_mounts));
	json_object_object_add(o, "sources", list_json(c->paths_sources));
	json_object_object_add(o, "system", sys);
	for (size_t i = 0; i < path_system_dirs_n; i++)
		json_object_array_add(sys, json_object_new_string(
					      path_system_dirs[i]));
	return o;
}

static json_object *host_json(void)
{
	json_object *o = json_object_new_object(), *pa = json_object_new_array();

	jset_str(o, "name", famfsd_cfg()->host_name);
	jset_str(o, "version", FAMFSD_VERSION);
	jset_int(o, "api_version", 1);
	jset_int(o, "schema_version", store_schema_version());
	jset_str(o, "state_dir", famfsd_cfg()->state_dir);
	jset_time(o, "started", famfsd.started);
	jset_int(o, "uptime_seconds", store_now() - famfsd.started);
	for (int i = 0; i < providers_count(); i++) {
		struct provider *p = providers_get(i);
		json_object *po = json_object_new_object();

		jset_str(po, "name", p->ops->name);
		jset_int(po, "abi", p->ops->abi);
		jset_bool(po, "can_create",
			  p->ops->caps & FAMFS_PROVIDER_CAN_CREATE);
		jset_bool(po, "can_region",
			  p->ops->caps & FAMFS_PROVIDER_CAN_REGION);
		json_object_array_add(pa, po);
	}
	json_object_object_add(o, "providers", pa);
	json_object_object_add(o, "health", health_json());
	json_object_object_add(o, "policy", policy_json());
	json_object_object_add(o, "paths", paths_json());
	return o;
}

static int patch_policy(json_object *pol, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "chunk", F_SIZE, false }, { "strips", F_INT, false },
		{ "log_size", F_SIZE, false },
		{ "mount_options", F_STRING, false }, API_FIELDS_END,
	};
	uint64_t chunk, log_size;
	char buf[32];

	if (api_check_fields(pol, f, "policy.", r) ||
	    api_size(pol, "chunk", policy_chunk(), &chunk, r) ||
	    api_size(pol, "log_size", policy_log_size(), &log_size, r))
		return -1;
	if (!chunk || chunk % FAMFS_UNIT_SIZE || chunk > FAMFS_MAX_CHUNK)
		return api_error(r, 400, "invalid_value", "policy.chunk %llu "
				 "is not a multiple of 2 MiB up to 1 TiB",
				 (unsigned long long)chunk);
	if (log_size < FAMFS_LOG_MIN_SIZE || log_size % FAMFS_UNIT_SIZE)
		return api_error(r, 400, "invalid_value", "policy.log_size must "
				 "be a multiple of 2 MiB of at least 2 MiB");
	if (api_int(pol, "strips", 0) < 0 ||
	    api_int(pol, "strips", 0) > FAMFS_MAX_STRIPS)
		return api_error(r, 400, "invalid_value",
				 "policy.strips must be 0..%d", FAMFS_MAX_STRIPS);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)chunk);
	store_kv_set(famfsd.db, "policy.chunk", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)log_size);
	store_kv_set(famfsd.db, "policy.log_size", buf);
	if (api_has(pol, "strips")) {
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)api_int(pol, "strips", 0));
		store_kv_set(famfsd.db, "policy.strips", buf);
	}
	if (api_str(pol, "mount_options"))
		store_kv_set(famfsd.db, "policy.mount_options",
			     api_str(pol, "mount_options"));
	return 0;
}

int api_host(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "policy", F_OBJECT, true }, API_FIELDS_END,
	};
	json_object *b, *pol;

	q->route = "/v1/host";
	if (q->nseg != 2)
		return api_not_found(q, r);
	if (api_is(q, "GET"))
		return api_ok(r, 200, host_json());
	if (!api_is(q, "PATCH"))
		return api_method_not_allowed(q, r);
	b = api_body(q, f, r);
	if (!b)
		return -1;
	json_object_object_get_ex(b, "policy", &pol);
	if (patch_policy(pol, r))
		return -1;
	return api_ok(r, 200, host_json());
}

/* Unauthenticated over TCP: the status word only, the reasons are in
 * GET /v1/host.
 */
/* Called without the state lock: the provider problems are fixed once
 * the API serves (providers_load() runs before server_start()).
 */
int api_healthz(struct api_req *q, struct api_resp *r)
{
	json_object *o = json_object_new_object();
	const char **why;
	char corrupt[400];
	const char *status = atomic_load(&famfsd.stopping) ? "stopping" :
		providers_problems(&why) ||
		fsview_corrupt(corrupt, sizeof(corrupt)) ? "degraded" : "ok";

	(void)q;
	jset_str(o, "status", status);
	return api_ok(r, strcmp(status, "ok") ? 503 : 200, o);
}

int api_metrics(struct api_req *q, struct api_resp *r)
{
	if (!api_is(q, "GET"))
		return api_method_not_allowed(q, r);
	r->text = metrics_render();
	if (!r->text)
		return api_error(r, 500, "internal", "out of memory");
	r->status = 200;
	r->ctype = "text/plain; version=0.0.4; charset=utf-8";
	return 0;
}
