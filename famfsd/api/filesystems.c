// SPDX-License-Identifier: Apache-2.0
/* /v1/filesystems: mkfs (libfamfs famfs_mkfs) on an interleave set, or
 * adopt one another host made on shared devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "famfs.h"
#include "famfsd.h"
#include "killpoint.h"
#include "fsview.h"
#include "store/store.h"

/* "devices_free": the free bytes of each device, in device order. */
static void add_device_free(json_object *s, const struct famfs_space *sp)
{
	json_object *a = json_object_new_array();

	for (uint32_t d = 0; d < sp->ndev && d < FAMFS_SPACE_MAX_DEV; d++)
		json_object_array_add(a, json_object_new_int64(
			(int64_t)sp->dev_free_bytes[d]));
	json_object_object_add(s, "devices_free", a);
}

static void add_space(json_object *o, const char *name)
{
	struct famfs_log_status ls;
	struct famfs_space sp;
	struct famfs_fs *fs;
	json_object *s, *l;
	char err[640];

	fs = fsview_get(name, err, sizeof(err));
	if (!fs) {
		jset_str(o, "error", err);
		return;
	}
	famfs_statfs(fs, &sp);
	famfs_log_status(fs, &ls);
	s = json_object_new_object();
	jset_int(s, "total", (int64_t)sp.total_bytes);
	jset_int(s, "free", (int64_t)sp.free_bytes);
	jset_int(s, "largest_file", (int64_t)sp.largest_file_bytes);
	jset_int(s, "striped", (int64_t)sp.striped_bytes);
	jset_int(s, "pending", (int64_t)sp.pending_bytes);
	jset_int(s, "file_bytes", (int64_t)sp.file_bytes);
	jset_int(s, "files", (int64_t)sp.nfiles);
	jset_int(s, "dirs", (int64_t)sp.ndirs);
	add_device_free(s, &sp);
	json_object_object_add(o, "space", s);
	l = json_object_new_object();
	jset_int(l, "entries", (int64_t)ls.entries);
	jset_int(l, "used_bytes", (int64_t)ls.used_bytes);
	jset_int(l, "size_bytes", (int64_t)ls.size_bytes);
	jset_int(l, "last_seq", (int64_t)ls.last_seq);
	jset_str(l, "tail", ls.tail_state == FAMFS_TAIL_CLEAN ? "clean" :
		 ls.tail_state == FAMFS_TAIL_WAITING ? "waiting" :
		 ls.tail_state == FAMFS_TAIL_CORRUPT ? "corrupt" : "torn");
	if (ls.tail_state == FAMFS_TAIL_CORRUPT) {
		/* committed entries are lost: that outranks the stored state */
		jset_int(l, "lost_first_seq", (int64_t)ls.corrupt_first);
		jset_int(l, "lost_last_seq", (int64_t)ls.corrupt_last);
		jset_str(o, "state", "corrupt");
		jset_str(o, "state_reason", ls.tail_reason);
	}
	json_object_object_add(o, "log", l);
}

static json_object *fs_row(sqlite3_stmt *st)
{
	json_object *o = json_object_new_object();

	jset_str(o, "name", (const char *)sqlite3_column_text(st, 0));
	jset_str(o, "set", (const char *)sqlite3_column_text(st, 1));
	jset_str(o, "uuid", (const char *)sqlite3_column_text(st, 2));
	jset_int(o, "log_size", sqlite3_column_int64(st, 3));
	jset_str(o, "master", (const char *)sqlite3_column_text(st, 4));
	jset_str(o, "state", (const char *)sqlite3_column_text(st, 5));
	jset_time(o, "created", sqlite3_column_int64(st, 6));
	return o;
}

json_object *api_fs_json(const char *name, bool with_space)
{
	json_object *o, *m;
	sqlite3_stmt *st;

	o = api_named_row("SELECT name, set_name, uuid, log_size, master, "
			  "state, created FROM filesystems WHERE name=?",
			  name, fs_row);
	if (!o)
		return NULL;
	m = json_object_new_array();
	st = store_prep(famfsd.db, "SELECT name FROM mounts WHERE filesystem=?"
			" ORDER BY name");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(m, json_object_new_string(
			(const char *)sqlite3_column_text(st, 0)));
	sqlite3_finalize(st);
	json_object_object_add(o, "mounts", m);
	if (with_space)
		add_space(o, name);
	return o;
}

static int list(struct api_req *q, struct api_resp *r)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"SELECT name FROM filesystems ORDER BY name");
	json_object *a = json_object_new_array();

	(void)q;  /* the table's signature; no query here */
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, api_fs_json(
			(const char *)sqlite3_column_text(st, 0), true));
	sqlite3_finalize(st);
	return api_ok(r, 200, jitems(a));
}

static int mkfs_error(struct api_resp *r, int e, const struct famfs_err *fe)
{
	const char *msg = fe->msg[0] ? fe->msg : strerror(-e);

	if (e == -EEXIST)
		return api_error(r, 409, "conflict", "%s (pass \"force\": "
				 "true to overwrite)", msg);
	if (e == -EINVAL || e == -ENOSPC || e == -E2BIG || e == -ENAMETOOLONG)
		return api_error(r, 400, "invalid_value", "%s", msg);
	if (e == -EBUSY || e == -EAGAIN)
		return api_error(r, 409, "conflict", "%s", msg);
	/* a device file gone, replaced or unreadable: the message names it */
	if (e == -ENODEV || e == -EPERM || e == -EACCES || e == -ENOENT ||
	    e == -ENXIO || e == -ENOTBLK || e == -ENODATA || e == -ESTALE ||
	    e == -EIO || e == -ENOTDIR || e == -ELOOP)
		return api_error(r, 422, "device_unusable", "%s", msg);
	return api_error(r, 500, "internal", "%s", msg);
}

/* Any mount of this filesystem not fully unmounted? */
static bool fs_mounted(const char *name)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT 1 FROM mounts WHERE "
		"filesystem=? AND (desired='mounted' OR state<>'unmounted')");
	bool m;

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	m = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return m;
}

/* Every device of @set is online (a DAX device reconfigured to system-ram
 * since the set was made must not be touched).
 */
static int set_devices_online(const char *set, struct api_resp *r)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT d.name, d.state, "
		"d.reason FROM set_devices s JOIN devices d ON d.name=s.device "
		"WHERE s.set_name=? AND d.state<>'online' ORDER BY s.idx");
	int ret = 0;

	sqlite3_bind_text(st, 1, set, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		ret = api_error(r, 422, "device_unusable", "device '%s' of set "
				"'%s' is %s%s%s", sqlite3_column_text(st, 0), set,
				sqlite3_column_text(st, 1),
				*sqlite3_column_text(st, 2) ? ": " : "",
				sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
	return ret;
}

/* The device paths of @set for mkfs or adopt: every device online, at
 * least one. Free them with fs_paths_free().
 */
static int usable_set_paths(const char *set, char ***paths, unsigned *n,
			    struct api_resp *r)
{
	if (set_devices_online(set, r))
		return -1;
	if (set_device_paths(set, paths, n))
		return api_error(r, 400, "invalid_value", "interleave set '%s' "
				 "has no devices", set);
	return 0;
}

static int do_mkfs(const char *set, uint64_t log_size, const char *master,
		   bool force, char uuid[37], struct api_resp *r)
{
	struct famfs_mkfs_opts o = { .log_size = log_size,
		.master_name = master, .force = force };
	struct famfs_err fe = { 0 };
	struct famfs_uuid u;
	char **paths;
	unsigned n;
	int e;

	if (usable_set_paths(set, &paths, &n, r))
		return -1;
	e = famfs_mkfs((const char *const *)paths, n, &o, &u, &fe);
	fs_paths_free(paths, n);
	if (e)
		return mkfs_error(r, e, &fe);
	famfs_uuid_unparse(&u, uuid);
	return 0;
}

/* Read the superblock of a filesystem another host made. */
static int do_adopt(const char *set, char uuid[37], uint64_t *log_size,
		    char master[FAMFS_HOSTNAME_LEN + 1], struct api_resp *r)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	const struct famfs_superblock *sb;
	struct famfs_err fe = { 0 };
	struct famfs_fs *fs;
	char **paths;
	unsigned n;
	int e;

	if (usable_set_paths(set, &paths, &n, r))
		return -1;
	e = famfs_open((const char *const *)paths, n, &o, &fs, &fe);
	fs_paths_free(paths, n);
	if (e)
		return api_error(r, 422, "device_unusable", "cannot adopt: %s",
				 fe.msg[0] ? fe.msg : strerror(-e));
	sb = famfs_fs_sb(fs);
	famfs_uuid_unparse(&sb->fs_uuid, uuid);
	*log_size = sb->log_size;
	snprintf(master, FAMFS_HOSTNAME_LEN + 1, "%.*s", FAMFS_HOSTNAME_LEN,
		 sb->master_name);
	famfs_close(fs);
	return 0;
}

/* Record @value under @key at once, ahead of the request's transaction
 * (which holds only reads so far): it must survive a crash mid-request.
 */
static void intent_commit(const char *key, const char *value)
{
	store_kv_set(famfsd.db, key, value);
	api_commit_early();
}

static int create(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "name", F_STRING, true }, { "set", F_STRING, true },
		{ "log_size", F_SIZE, false }, { "master", F_STRING, false },
		{ "force", F_BOOL, false }, { "adopt", F_BOOL, false },
		API_FIELDS_END,
	};
	char uuid[37], master[FAMFS_HOSTNAME_LEN + 1], intent[200], was[200];
	const char *name, *set;
	json_object *b, *o;
	sqlite3_stmt *st;
	uint64_t log_size;
	bool adopt, redo;

	if (!(b = api_body(q, f, r)))
		return -1;
	name = api_str(b, "name");
	set = api_str(b, "set");
	adopt = api_bool(b, "adopt", false);
	if (api_check_name("filesystem", name, r) ||
	    api_size(b, "log_size", policy_log_size(), &log_size, r))
		return -1;
	if ((o = api_fs_json(name, false))) {
		json_object_put(o);
		return api_error(r, 409, "already_exists",
				 "filesystem '%s' already exists", name);
	}
	if (!(o = api_set_json(set)))
		return api_error(r, 400, "invalid_value",
				 "no interleave set '%s'", set);
	if (json_object_object_get_ex(o, "filesystem", NULL) &&
	    api_str(o, "filesystem")) {
		api_error(r, 409, "already_exists", "interleave set '%s' already"
			  " holds filesystem '%s'", set, api_str(o, "filesystem"));
		json_object_put(o);
		return -1;
	}
	json_object_put(o);
	if (!adopt && (log_size < FAMFS_LOG_MIN_SIZE ||
		       log_size % FAMFS_UNIT_SIZE))
		return api_error(r, 400, "invalid_value", "log_size must be a "
				 "multiple of 2 MiB of at least 2 MiB");
	snprintf(master, sizeof(master), "%s", api_str(b, "master") ?
		 api_str(b, "master") : famfsd_cfg()->host_name);
	/* The intent goes in first: a famfsd killed between its mkfs and the
	 * row below left devices that hold a filesystem nobody knows; the
	 * same request repeated may then overwrite it (tests/killmatrix).
	 */
	snprintf(intent, sizeof(intent), "mkfs_intent:%s", set);
	store_kv_get(famfsd.db, intent, was, sizeof(was));
	redo = !adopt && !strcmp(was, name);
	if (!adopt)
		intent_commit(intent, name);
	if (adopt ? do_adopt(set, uuid, &log_size, master, r) :
	    do_mkfs(set, log_size, master, redo || api_bool(b, "force", false),
		    uuid, r)) {
		if (!adopt && !redo)
			intent_commit(intent, "");
		return -1;
	}
	FAMFS_KILL_POINT("famfsd.fs_mkfs_done");
	st = store_prep(famfsd.db, "INSERT INTO filesystems(name,set_name,uuid,"
			"log_size,master,state,created) VALUES(?,?,?,?,?,?,?)");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, set, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, uuid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)log_size);
	sqlite3_bind_text(st, 5, master, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, adopt ? "adopted" : "formatted", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, store_now());
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return api_error(r, 500, "internal", "%s",
				 sqlite3_errmsg(famfsd.db));
	}
	sqlite3_finalize(st);
	if (!adopt)
		store_kv_set(famfsd.db, intent, "");
	fsview_drop(name);
	return api_ok(r, 201, api_fs_json(name, true));
}

static int remkfs(struct api_req *q, struct api_resp *r, const char *name)
{
	static const struct api_field f[] = {
		{ "force", F_BOOL, false }, { "log_size", F_SIZE, false },
		API_FIELDS_END,
	};
	json_object *b, *o = api_fs_json(name, false);
	sqlite3_stmt *st;
	uint64_t log_size;
	char uuid[37], set[64];

	if (!o)
		return api_error(r, 404, "not_found", "no filesystem '%s'", name);
	snprintf(set, sizeof(set), "%s", api_str(o, "set"));
	log_size = (uint64_t)api_int(o, "log_size", 0);
	json_object_put(o);
	if (!(b = api_body(q, f, r)) ||
	    api_size(b, "log_size", log_size, &log_size, r))
		return -1;
	if (fs_mounted(name))
		return api_error(r, 409, "mounted", "filesystem '%s' is mounted; "
				 "delete its mounts first", name);
	if (fsmaster_busy(name))
		return api_error(r, 409, "in_use", "a job is writing to '%s'",
				 name);
	fsview_drop(name);
	if (do_mkfs(set, log_size, famfsd_cfg()->host_name,
		    api_bool(b, "force", true), uuid, r))
		return -1;
	st = store_prep(famfsd.db, "UPDATE filesystems SET uuid=?, log_size=?,"
			" master=?, state='formatted' WHERE name=?");
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)log_size);
	sqlite3_bind_text(st, 3, famfsd_cfg()->host_name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
	/* the devices are formatted already; the record must say so or the
	 * request fail (the caller rolls the transaction back)
	 */
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return api_error(r, 500, "internal", "'%s' was formatted (uuid "
				 "%s) but cannot be recorded: %s", name, uuid,
				 sqlite3_errmsg(famfsd.db));
	}
	sqlite3_finalize(st);
	return api_ok(r, 200, api_fs_json(name, true));
}

/*
 * The inverse of mkfs: zero every device's label, and device 0's superblock
 * and its backup, so that a later mkfs on these devices (without force)
 * finds them blank. Files' bytes are not touched.
 */
static int wipe_devices(const char *set, struct api_resp *r)
{
	static const struct { uint64_t off; size_t len; bool dev0_only; } area[] = {
		{ FAMFS_LABEL_OFFSET, 4096, false },
		{ FAMFS_SB_OFFSET, 4096, true },
		{ FAMFS_SB_BACKUP_OFFSET, 4096, true },
	};
	static const char zero[4096];
	char **paths;
	unsigned n;

	if (set_device_paths(set, &paths, &n) || !n)
		return api_error(r, 500, "internal", "set '%s' has no devices",
				 set);
	for (unsigned i = 0; i < n; i++) {
		int fd = open(paths[i], O_WRONLY | O_CLOEXEC);

		for (size_t a = 0; fd >= 0 && a < sizeof(area) / sizeof(area[0]);
		     a++) {
			if (area[a].dev0_only && i)
				continue;
			if (pwrite(fd, zero, area[a].len, (off_t)area[a].off) !=
			    (ssize_t)area[a].len) {
				close(fd);
				fd = -1;
			}
		}
		if (fd < 0 || fsync(fd) || close(fd)) {
			api_error(r, 500, "internal", "cannot wipe %s: %s",
				  paths[i], strerror(errno));
			fs_paths_free(paths, n);
			return -1;
		}
	}
	fs_paths_free(paths, n);
	return 0;
}

static int delete(struct api_req *q, struct api_resp *r, const char *name)
{
	json_object *o = api_fs_json(name, false), *m;
	const char *wipe = api_query(q, "wipe");
	char set[128], state[16];

	if (!o)
		return api_error(r, 404, "not_found", "no filesystem '%s'", name);
	json_object_object_get_ex(o, "mounts", &m);
	if (json_object_array_length(m)) {
		api_error(r, 409, "in_use", "filesystem '%s' has mounts (%s); "
			  "delete them first", name, json_object_get_string(
				  json_object_array_get_idx(m, 0)));
		json_object_put(o);
		return -1;
	}
	snprintf(set, sizeof(set), "%s", api_str(o, "set") ? api_str(o, "set") : "");
	snprintf(state, sizeof(state), "%s",
		 api_str(o, "state") ? api_str(o, "state") : "");
	json_object_put(o);
	if (fsmaster_busy(name))
		return api_error(r, 409, "in_use", "a job is writing to '%s'",
				 name);
	if (wipe && strcmp(wipe, "0") && strcmp(state, "formatted"))
		return api_error(r, 409, "conflict", "filesystem '%s' was "
				 "adopted here, not formatted: only its master "
				 "host may wipe it", name);
	fsview_drop(name);
	if (wipe && strcmp(wipe, "0") && wipe_devices(set, r))
		return -1;
	store_delete_named(famfsd.db, "filesystems", name);
	return api_ok(r, 204, NULL);
}

static json_object *fs_get(const char *name)
{
	return api_fs_json(name, true);
}

int api_filesystems(struct api_req *q, struct api_resp *r)
{
	static const struct api_resource res = {
		.route = "/v1/filesystems",
		.item_route = "/v1/filesystems/{name}", .what = "filesystem",
		.list = list, .create = create, .get = fs_get, .del = delete,
		.action = "mkfs", .action_route = "/v1/filesystems/{name}/mkfs",
		.act = remkfs,
	};

	return api_resource(q, r, &res);
}
