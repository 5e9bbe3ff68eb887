// SPDX-License-Identifier: Apache-2.0
/*
 * /v1/datasets/{name}/holds and /v1/holds (docs/api.md, "Holds"; the
 * rows and pins: holds.h). POST on a dataset's holds runs without the
 * state lock while it waits for the generation to show on this host's
 * mount (timeout_seconds): each try holds the switch lock, so that the
 * generation the store says serves is the tree it pins and a refresh's
 * switch waits for it (generation.h); the state lock only while it reads
 * and records, not while it looks at the mount (a hung FUSE server blocks
 * this request, not famfsd).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "famfsd.h"
#include "holds.h"
#include "jobs/generation.h"
#include "mounts/supervisor.h"
#include "store/store.h"

#define HOLD_COLS "id, dataset, generation, owner, note, path, mount, created"
#define MOUNT_WAIT_MS 5000
#define MAX_NOTE 1024

static json_object *hold_json(sqlite3_stmt *st)
{
	json_object *o = json_object_new_object();

	jset_int(o, "id", sqlite3_column_int64(st, 0));
	jset_str(o, "dataset", (const char *)sqlite3_column_text(st, 1));
	jset_int(o, "generation", sqlite3_column_int64(st, 2));
	jset_str(o, "owner", (const char *)sqlite3_column_text(st, 3));
	jset_str(o, "note", (const char *)sqlite3_column_text(st, 4));
	jset_str(o, "path", (const char *)sqlite3_column_text(st, 5));
	jset_str(o, "mount", (const char *)sqlite3_column_text(st, 6));
	jset_time(o, "created", sqlite3_column_int64(st, 7));
	return o;
}

/* The holds @where selects (?1: a dataset or NULL, ?2: an owner or NULL),
 * oldest first.
 */
static json_object *list(const char *dataset, const char *owner)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT " HOLD_COLS " FROM "
		"holds WHERE (?1 IS NULL OR dataset=?1) AND (?2 IS NULL OR "
		"owner=?2) ORDER BY created, id");
	json_object *a = json_object_new_array();

	store_bind_text(st, 1, dataset);
	store_bind_text(st, 2, owner);
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, hold_json(st));
	sqlite3_finalize(st);
	return jitems(a);
}

static json_object *one(const char *dataset, const char *owner)
{
	json_object *l = list(dataset, owner), *items, *o = NULL;

	items = json_object_object_get(l, "items");
	if (json_object_array_length(items))
		o = json_object_get(json_object_array_get_idx(items, 0));
	json_object_put(l);
	return o;
}

/* ?owner=: a valid one (required) or absent; -1 with a 400 when bad. */
static int owner_param(struct api_req *q, struct api_resp *r, bool required,
		       const char **owner)
{
	*owner = api_query(q, "owner");
	if (!*owner && required)
		return api_error(r, 400, "missing_field", "?owner=OWNER: whose "
				 "holds to release");
	if (*owner && !holds_owner_valid(*owner))
		return api_error(r, 400, "invalid_value", "owner: '%s' is not "
				 "[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}", *owner);
	return 0;
}

bool api_holds_is_post(const struct api_req *q)
{
	return q->nseg == 4 && !strcmp(q->seg[1], "datasets") &&
	       !strcmp(q->seg[3], "holds") && !strcmp(q->method, "POST");
}

struct take {
	const char *name, *owner, *note;
	bool mount_tried;
	/* what the first step found */
	char gpath[4096], prev[4096];
	long long gen;
	struct hold_mount m;
	bool pin_ok;
};

/* The first step, both locks held: 0 with the response set (the owner's
 * hold, or an error), 1 with @t filled for the next steps.
 */
static int plan(struct take *t, struct api_resp *r)
{
	char fs[128] = "", state[16] = "", why[512];
	sqlite3_stmt *st;
	json_object *o;

	o = one(t->name, t->owner);
	if (o)   /* the same generation and pin as its first step saw */
		return api_ok(r, 200, o);
	t->gpath[0] = '\0';
	t->gen = 0;
	st = store_prep(famfsd.db, "SELECT d.filesystem, d.generation, d.state, "
		"g.path FROM datasets d LEFT JOIN dataset_generations g ON "
		"g.dataset=d.name AND g.generation=d.generation WHERE d.name=?");
	store_bind_text(st, 1, t->name);
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		snprintf(fs, sizeof(fs), "%s", sqlite3_column_text(st, 0));
		t->gen = sqlite3_column_int64(st, 1);
		snprintf(state, sizeof(state), "%s", sqlite3_column_text(st, 2));
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			snprintf(t->gpath, sizeof(t->gpath), "%s",
				 sqlite3_column_text(st, 3));
	}
	sqlite3_finalize(st);
	if (!fs[0])
		return api_error(r, 404, "not_found", "no dataset '%s'", t->name);
	if (t->gen == 0 || !t->gpath[0])
		return api_error(r, 409, "conflict", "dataset %s has no "
				 "generation to hold yet (%s)", t->name, state);
	if (holds_pick_mount(fs, &t->m))
		return api_error(r, 409, "conflict", "dataset %s: this host has "
				 "no mount of filesystem %s", t->name, fs);
	if (strcmp(t->m.state, "mounted") && !t->mount_tried &&
	    mounts_running_pid(t->m.name) <= 0) {
		t->mount_tried = true;
		if (mounts_start(t->m.name, MOUNT_WAIT_MS, why, sizeof(why)))
			return api_error(r, 422, "mount_failed", "mount %s of "
					 "dataset %s: %s", t->m.name, t->name,
					 why);
		holds_pick_mount(fs, &t->m);
	}
	holds_prev_retired(t->name, t->prev, sizeof(t->prev));
	t->pin_ok = holds_pin_ready(t->name, t->gen, &t->m);
	return 1;
}

/*
 * One try, the switch lock held: 0 with the response set, 1 when the
 * generation is not visible yet, -1 with an error response. The mount is
 * looked at (and the pin made) without the state lock.
 */
static int try_take(struct take *t, struct api_resp *r)
{
	char why[512];
	json_object *o;
	int64_t id;
	int rc;

	famfsd_lock();
	rc = plan(t, r);
	famfsd_unlock();
	if (rc != 1)
		return rc;
	if (!holds_visible(&t->m, t->gpath, t->prev))
		return 1;
	if (!t->pin_ok && holds_pin_make(t->name, t->gen, t->gpath, &t->m,
					 why, sizeof(why)))
		return api_error(r, 500, "internal", "dataset %s: %s", t->name,
				 why);
	famfsd_lock();
	rc = holds_record(t->name, t->gen, t->gpath, &t->m, t->owner, t->note,
			  &id, why, sizeof(why));
	o = rc ? NULL : one(t->name, t->owner);
	famfsd_unlock();
	if (rc)
		return api_error(r, 500, "internal", "dataset %s: %s", t->name,
				 why);
	return o ? api_ok(r, 201, o) : api_error(r, 500, "internal",
						 "the hold was not recorded");
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int api_holds_post(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "owner", F_STRING, true }, { "note", F_STRING, false },
		{ "timeout_seconds", F_INT, false }, API_FIELDS_END,
	};
	struct take t = { .name = q->seg[2] };
	int64_t timeout, deadline;
	json_object *b;
	int rc;

	q->route = "/v1/datasets/{name}/holds";
	famfsd_lock();   /* api_body() shares its empty object */
	b = api_body(q, f, r);
	famfsd_unlock();
	if (!b)
		return -1;
	t.owner = api_str(b, "owner");
	t.note = api_str(b, "note");
	timeout = api_int(b, "timeout_seconds", 0);
	if (!holds_owner_valid(t.owner))
		return api_error(r, 400, "invalid_value", "owner: '%s' is not "
				 "[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}", t.owner);
	if (t.note && strlen(t.note) > MAX_NOTE)
		return api_error(r, 400, "invalid_value", "note: longer than "
				 "%d bytes", MAX_NOTE);
	if (timeout < 0 || timeout > HOLDS_MAX_TIMEOUT)
		return api_error(r, 400, "invalid_value", "timeout_seconds: "
				 "0 to %d, not %lld", HOLDS_MAX_TIMEOUT,
				 (long long)timeout);
	if (!api_name_valid(t.name))
		return api_error(r, 404, "not_found", "no dataset '%s'", t.name);
	deadline = now_ms() + timeout * 1000;
	for (;;) {
		gen_lock();
		rc = try_take(&t, r);
		gen_unlock();
		if (rc != 1)
			return rc;
		if (now_ms() >= deadline || atomic_load(&famfsd.stopping))
			return api_error(r, 503, "not_ready", "dataset %s: its "
					 "generation is not visible on this "
					 "host's mount within %lld s", t.name,
					 (long long)timeout);
		usleep(100000);
	}
}

static bool dataset_exists(const char *name)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT 1 FROM datasets "
				      "WHERE name=?");
	bool found;

	store_bind_text(st, 1, name);
	found = st && sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* GET and DELETE /v1/datasets/{name}/holds (state lock held). */
int api_dataset_holds(struct api_req *q, struct api_resp *r)
{
	const char *name = q->seg[2], *owner;
	int n;

	q->route = "/v1/datasets/{name}/holds";
	if (!api_is(q, "GET") && !api_is(q, "DELETE"))
		return api_method_not_allowed(q, r);
	if (api_query(q, "drift"))
		return api_error(r, 400, "unknown_parameter", "%s takes no "
				 "query parameter 'drift'", q->url);
	if (owner_param(q, r, api_is(q, "DELETE"), &owner))
		return -1;
	if (!api_name_valid(name) || !dataset_exists(name))
		return api_error(r, 404, "not_found", "no dataset '%s'", name);
	if (api_is(q, "GET"))
		return api_ok(r, 200, list(name, owner));
	n = holds_release(name, owner, "released");
	if (n < 0)
		return api_error(r, 500, "internal", "cannot release: %s",
				 strerror(-n));
	if (n == 0)
		return api_error(r, 404, "not_found", "%s holds nothing of "
				 "dataset %s", owner, name);
	return api_ok(r, 204, NULL);
}

/* GET /v1/holds[?owner=], DELETE /v1/holds?owner= (state lock held). */
int api_holds(struct api_req *q, struct api_resp *r)
{
	const char *owner;
	json_object *o;
	int n;

	q->route = "/v1/holds";
	if (q->nseg != 2)
		return api_not_found(q, r);
	if (!api_is(q, "GET") && !api_is(q, "DELETE"))
		return api_method_not_allowed(q, r);
	if (owner_param(q, r, api_is(q, "DELETE"), &owner))
		return -1;
	if (api_is(q, "GET"))
		return api_ok(r, 200, list(NULL, owner));
	n = holds_release(NULL, owner, "released");
	if (n < 0)
		return api_error(r, 500, "internal", "cannot release: %s",
				 strerror(-n));
	o = json_object_new_object();
	jset_int(o, "released", n);
	return api_ok(r, 200, o);
}
