// SPDX-License-Identifier: Apache-2.0
/*
 * PATCH /v1/interleave-sets/{name}: grow a set, and the filesystem on it,
 * by devices appended to its list. A device never leaves a filesystem
 * and keeps its index, so the new list must start with the old one, in
 * order; anything else is a conflict naming the devices.
 *
 * Who writes: on the filesystem's master host (state "formatted") the
 * one writer appends the DEVICE_ADD entries — the master mount when one
 * runs (it holds the writer lock; the grow ioctl, docs/fuse.md), else
 * famfsd's master handle. A host that adopted the filesystem only checks
 * that the master has added the devices and gives them to its running
 * mounts. Every check runs before anything is written; the set's new
 * devices are recorded once the filesystem has them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "famfs.h"
#include "famfs_mountq.h"
#include "famfsd.h"
#include "fsview.h"
#include "log.h"
#include "store/store.h"

struct grow {
	const char *set, *fs;            /* fs NULL: the set holds none */
	const char *cur[FAMFS_MAX_DEVICES], *add[FAMFS_MAX_DEVICES];
	char *add_path[FAMFS_MAX_DEVICES];
	unsigned ncur, nadd;
	char added[512];                 /* "emul2, emul3" for messages */
};

/* The device list may only add at the end: say what else it does. */
static int check_list(struct grow *g, json_object *devs, struct api_resp *r)
{
	size_t n = json_object_array_length(devs), len = 0;
	char gone[512] = "";

	if (api_set_check_list(devs, r))
		return -1;
	for (unsigned i = 0; i < g->ncur; i++) {
		bool kept = false;

		for (size_t j = 0; j < n && !kept; j++)
			kept = !strcmp(g->cur[i], json_object_get_string(
					json_object_array_get_idx(devs, j)));
		if (!kept && len < sizeof(gone) - 80)
			len += (size_t)snprintf(gone + len, sizeof(gone) - len,
						"%s%s", len ? ", " : "", g->cur[i]);
	}
	if (len)
		return api_error(r, 409, "conflict", "interleave set '%s' cannot "
				 "shrink: the request leaves out %s (a device "
				 "never leaves a set%s)", g->set, gone,
				 g->fs ? " that holds a filesystem" : "; delete "
				 "and create the set");
	for (unsigned i = 0; i < g->ncur; i++) {
		const char *d = json_object_get_string(
			json_object_array_get_idx(devs, i));

		if (strcmp(d, g->cur[i]))
			return api_error(r, 409, "conflict", "interleave set '%s' "
					 "keeps its devices in order: device %u "
					 "is '%s', the request puts '%s' there "
					 "(new devices go at the end)", g->set,
					 i, g->cur[i], d);
	}
	len = 0;
	for (size_t i = g->ncur; i < n; i++) {
		g->add[g->nadd++] = json_object_get_string(
			json_object_array_get_idx(devs, i));
		if (len < sizeof(g->added) - 80)
			len += (size_t)snprintf(g->added + len,
				sizeof(g->added) - len, "%s%s", len ? ", " : "",
				g->add[g->nadd - 1]);
	}
	return 0;
}

/* Each new member: usable (as for a new set), and its path on this host. */
static int check_new(struct grow *g, struct api_resp *r)
{
	for (unsigned i = 0; i < g->nadd; i++) {
		json_object *d;

		if (api_set_check_device(g->add[i], r))
			return -1;
		d = api_device_json(g->add[i]);
		g->add_path[i] = strdup(api_str(d, "path"));
		json_object_put(d);
		if (!g->add_path[i])
			return api_error(r, 500, "internal", "out of memory");
	}
	return 0;
}

static int record(struct grow *g, struct api_resp *r)
{
	for (unsigned i = 0; i < g->nadd; i++) {
		sqlite3_stmt *st = store_prep(famfsd.db, "INSERT INTO set_devices("
					      "set_name,device,idx) VALUES(?,?,?)");

		sqlite3_bind_text(st, 1, g->set, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, g->add[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (int64_t)(g->ncur + i));
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return api_error(r, 500, "internal", "%s",
					 sqlite3_errmsg(famfsd.db));
		}
		sqlite3_finalize(st);
	}
	return 0;
}

static int grow_error(struct grow *g, int e, const char *msg,
		      struct api_resp *r)
{
	const char *why = msg && *msg ? msg : strerror(-e);

	if (e == -EEXIST || e == -EBUSY || e == -EROFS || e == -EPERM)
		return api_error(r, 409, "conflict", "cannot grow filesystem "
				 "'%s' by %s: %s", g->fs, g->added, why);
	if (e == -EINVAL || e == -ENOSPC || e == -E2BIG)
		return api_error(r, 400, "invalid_value", "cannot grow "
				 "filesystem '%s' by %s: %s", g->fs, g->added, why);
	if (e == -ENOENT || e == -ENODEV || e == -EACCES || e == -ENODATA)
		return api_error(r, 422, "device_unusable", "cannot grow "
				 "filesystem '%s' by %s: %s", g->fs, g->added, why);
	return api_error(r, 500, "internal", "cannot grow filesystem '%s' by "
			 "%s: %s", g->fs, g->added, why);
}

/* This host's FUSE mounts of the filesystem with @role, and their state.
 * Kernel mounts take no part: famfsd writes their log itself and their
 * follow gives the module the set's devices (mounts/kernel_backend.c). */
static sqlite3_stmt *mounts_of(const char *fs, const char *role)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT name, path, state "
		"FROM mounts WHERE filesystem=? AND role=? AND "
		"backend<>'kernel' AND "
		"(desired='mounted' OR state<>'unmounted') ORDER BY name");

	sqlite3_bind_text(st, 1, fs, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, role, -1, SQLITE_STATIC);
	return st;
}

/* The one writer appends: the FUSE master mount, else famfsd's handle. */
static int add_as_master(struct grow *g, struct api_resp *r)
{
	sqlite3_stmt *st = mounts_of(g->fs, "master");
	char msg[640] = "", mnt[4096] = "", state[32] = "";
	struct famfs_err fe = { 0 };
	struct famfs_fs *fs;
	int e;

	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(mnt, sizeof(mnt), "%s", sqlite3_column_text(st, 1));
		snprintf(state, sizeof(state), "%s", sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	if (*mnt && strcmp(state, "mounted"))
		return api_error(r, 409, "conflict", "the master mount of '%s' "
				 "is %s: grow it once it is mounted", g->fs,
				 state);
	if (*mnt) {
		e = famfs_mountq_devices(mnt, FAMFS_IOC_ADD_DEVICES,
					 (const char *const *)g->add_path,
					 g->nadd, msg, sizeof(msg));
		return e ? grow_error(g, e, msg, r) : 0;
	}
	fs = fsmaster_get(g->fs, &e, msg, sizeof(msg));
	if (!fs)
		return grow_error(g, e, msg, r);
	e = famfs_devices_add(fs, (const char *const *)g->add_path, g->nadd,
			      &fe);
	return e ? grow_error(g, e, fe.msg, r) : 0;
}

/* A host that adopted the filesystem: the master must have added them. */
static int check_added(struct grow *g, struct api_resp *r)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ,
		.host_name = famfsd_cfg()->host_name };
	const char *all[FAMFS_MAX_DEVICES];
	struct famfs_err fe = { 0 };
	struct famfs_fs *fs;
	unsigned n = 0;
	char **paths;
	int e;

	if (fs_device_paths(g->fs, &paths, &n) || n != g->ncur) {
		if (paths)
			fs_paths_free(paths, n);
		return api_error(r, 500, "internal", "filesystem '%s' has %u "
				 "device paths, its set %u devices", g->fs, n,
				 g->ncur);
	}
	for (unsigned i = 0; i < n; i++)
		all[i] = paths[i];
	for (unsigned i = 0; i < g->nadd; i++)
		all[n + i] = g->add_path[i];
	e = famfs_open(all, n + g->nadd, &o, &fs, &fe);
	fs_paths_free(paths, n);
	if (!e) {
		n = famfs_fs_ndevices(fs);
		famfs_close(fs);
	}
	if (e || n != g->ncur + g->nadd)
		return api_error(r, 409, "conflict", "%s %s not part of "
				 "filesystem '%s' yet (%s): grow the set on the "
				 "filesystem's master host first", g->added,
				 g->nadd == 1 ? "is" : "are", g->fs,
				 e ? fe.msg : "the log does not add them");
	return 0;
}

/* Give the new devices to this host's running client mounts. */
static int attach_clients(struct grow *g, bool master_host,
			  struct api_resp *r)
{
	sqlite3_stmt *st = mounts_of(g->fs, "client");
	int ret = 0;

	while (!ret && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *state = (const char *)sqlite3_column_text(st, 2);
		char msg[640];
		int e;

		e = famfs_mountq_devices((const char *)sqlite3_column_text(st, 1),
					 FAMFS_IOC_ATTACH_DEVICES,
					 (const char *const *)g->add_path,
					 g->nadd, msg, sizeof(msg));
		/* one not mounted (yet, or restarting) starts with every
		 * device of the set; one still starting may have the old list
		 * and took them above if it could
		 */
		if (!e || strcmp(state, "mounted"))
			continue;
		if (!master_host) {
			/* nothing was written here: fail, the caller retries */
			ret = api_error(r, 500, "internal", "mount '%s' could not "
					"take %s: %s", name, g->added, msg);
		} else {
			/* the devices are in the log now; say so, go on */
			log_warn("mounts/%s: could not take %s: %s", name,
				 g->added, msg);
			store_event(famfsd.db, "warning", "mounts", "mount '%s' "
				    "could not take %s (%s): it waits at the "
				    "DEVICE_ADD until restarted", name,
				    g->added, msg);
		}
	}
	sqlite3_finalize(st);
	return ret;
}

/* The filesystem takes the devices (before the store: its handles open
 * the set's recorded devices, which the new ones are not yet).
 */
static int grow_fs(struct grow *g, bool *master, struct api_resp *r)
{
	json_object *f = api_fs_json(g->fs, false);

	*master = f && !strcmp(api_str(f, "state"), "formatted");
	json_object_put(f);
	return *master ? add_as_master(g, r) : check_added(g, r);
}

int api_set_grow(struct api_req *q, struct api_resp *r, const char *name)
{
	static const struct api_field f[] = {
		{ "devices", F_ARRAY, true }, API_FIELDS_END,
	};
	struct grow g = { .set = name };
	json_object *b, *o, *devs;
	char fsname[64] = "";
	bool master = false;
	int ret;

	if (!(b = api_body(q, f, r)))
		return -1;
	o = api_set_json(name);
	if (!o)
		return api_error(r, 404, "not_found", "no interleave set '%s'",
				 name);
	if (api_str(o, "filesystem")) {
		snprintf(fsname, sizeof(fsname), "%s", api_str(o, "filesystem"));
		g.fs = fsname;
	}
	json_object_object_get_ex(o, "devices", &devs);
	for (size_t i = 0; i < json_object_array_length(devs); i++)
		g.cur[g.ncur++] = json_object_get_string(
			json_object_array_get_idx(devs, i));
	json_object_object_get_ex(b, "devices", &devs);
	ret = check_list(&g, devs, r);
	if (!ret && !g.nadd) {
		json_object_put(o);
		return api_ok(r, 200, api_set_json(name));
	}
	if (!ret && g.fs && fsmaster_busy(g.fs))
		ret = api_error(r, 409, "in_use", "a job is writing to '%s'; "
				"grow it when the job is done", g.fs);
	if (!ret)
		ret = check_new(&g, r);
	if (!ret && g.fs)
		ret = grow_fs(&g, &master, r);
	if (!ret && (ret = record(&g, r)) && master)
		api_error(r, 500, "internal", "filesystem '%s' was grown by %s "
			  "but the set cannot record it: %s", g.fs, g.added,
			  sqlite3_errmsg(famfsd.db));
	if (!ret && g.fs) {
		fsview_drop(g.fs);  /* views reopen with every device */
		ret = attach_clients(&g, master, r);
	}
	if (!ret && g.fs)
		log_info("sets/%s: filesystem '%s' grown by %s", name, g.fs,
			 g.added);
	for (unsigned i = 0; i < g.nadd; i++)
		free(g.add_path[i]);
	json_object_put(o);
	return ret ? -1 : api_ok(r, 200, api_set_json(name));
}
