// SPDX-License-Identifier: Apache-2.0
/*
 * /v1/files: files of a filesystem this host masters. With a master mount
 * on this host the change goes through the mount (the FUSE server holds
 * the writer lock); without one famfsd opens the devices as master with
 * libfamfs for the one call. Reads use the cached read-only view.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "famfs.h"
#include "famfsd.h"
#include "fsview.h"
#include "mounts/supervisor.h"
#include "store/store.h"

static json_object *node_json(const struct famfs_node *n, const char *path)
{
	json_object *o = json_object_new_object(), *m;
	const struct famfs_fmap *map = famfs_node_map(n);
	struct famfs_attr a;
	char t[40];

	famfs_node_attr(n, &a);
	jset_str(o, "path", path);
	jset_str(o, "type", famfs_node_is_dir(n) ? "dir" :
		 famfs_node_is_symlink(n) ? "symlink" : "file");
	if (famfs_node_is_symlink(n))
		jset_str(o, "target", famfs_node_target(n));
	jset_int(o, "size", (int64_t)a.size);
	jset_int(o, "alloc", (int64_t)a.alloc_bytes);
	jset_int(o, "mode", a.mode & 07777);
	jset_int(o, "uid", a.uid);
	jset_int(o, "gid", a.gid);
	jset_int(o, "ino", (int64_t)a.ino);
	jset_str(o, "mtime", store_time_text((int64_t)(a.mtime_ns / 1000000000ULL),
					     t, sizeof(t)));
	jset_int(o, "mtime_ns", (int64_t)a.mtime_ns);
	if (map) {
		m = json_object_new_object();
		jset_str(m, "type", map->type == FAMFS_MAP_INTERLEAVE ?
			 "interleave" : "extents");
		jset_int(m, "chunk", (int64_t)map->chunk);
		jset_int(m, map->type == FAMFS_MAP_INTERLEAVE ? "strips" :
			 "extents", map->nitems);
		json_object_object_add(o, "map", m);
	}
	return o;
}

static void walk(struct famfs_node *dir, json_object *a)
{
	for (struct famfs_node *c = famfs_node_first_child(dir); c;
	     c = famfs_node_next_sibling(c)) {
		char path[FAMFS_PATH_MAX + 1];

		if (famfs_node_path(c, path, sizeof(path)) < 0)
			continue;
		json_object_array_add(a, node_json(c, path));
		if (famfs_node_is_dir(c))
			walk(c, a);
	}
}

static struct famfs_fs *view(const char *fsname, struct api_resp *r)
{
	struct famfs_fs *fs;
	json_object *o = api_fs_json(fsname, false);
	char err[640];

	if (!o) {
		api_error(r, 404, "not_found", "no filesystem '%s'", fsname);
		return NULL;
	}
	json_object_put(o);
	fs = fsview_get(fsname, err, sizeof(err));
	if (!fs)
		api_error(r, 422, "device_unusable", "cannot read filesystem "
			  "'%s': %s", fsname, err);
	return fs;
}

static int get(struct api_resp *r, const char *fsname, const char *path)
{
	struct famfs_node *n;
	struct famfs_fs *fs = view(fsname, r);
	json_object *o;

	if (!fs)
		return -1;
	famfs_fs_rdlock(fs);
	if (!path) {
		json_object *a = json_object_new_array();

		walk(famfs_root(fs), a);
		famfs_fs_unlock(fs);
		return api_ok(r, 200, jitems(a));
	}
	n = famfs_lookup(fs, path);
	o = n ? node_json(n, path) : NULL;
	famfs_fs_unlock(fs);
	if (!o)
		return api_error(r, 404, "not_found", "no file %s in '%s'", path,
				 fsname);
	return api_ok(r, 200, o);
}

/*
 * The path of this host's running FUSE master mount of @fsname, if any. A
 * kernel master mount writes no log: famfsd stays the writer and the
 * mount follows (mounts_follow_fs()).
 */
static bool master_mount(const char *fsname, char *mnt, size_t len)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT path FROM mounts "
		"WHERE filesystem=? AND role='master' AND state='mounted' "
		"AND backend='fuse'");
	bool found = false;

	sqlite3_bind_text(st, 1, fsname, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(mnt, len, "%s", sqlite3_column_text(st, 0));
		found = true;
	}
	sqlite3_finalize(st);
	return found;
}

static int errno_resp(struct api_resp *r, int e, const char *what)
{
	if (e == -EEXIST)
		return api_error(r, 409, "already_exists", "%s", what);
	if (e == -ENOENT)
		return api_error(r, 404, "not_found", "%s", what);
	if (e == -ENOSPC || e == -EINVAL || e == -ENAMETOOLONG ||
	    e == -ENOTDIR || e == -EISDIR || e == -EFBIG)
		return api_error(r, 400, "invalid_value", "%s", what);
	if (e == -ENOTEMPTY || e == -EBUSY || e == -EAGAIN || e == -EROFS ||
	    e == -EWOULDBLOCK || e == -EPERM)
		return api_error(r, 409, "conflict", "%s", what);
	return api_error(r, 500, "internal", "%s", what);
}

static int open_master(const char *fsname, struct famfs_fs **fs,
		       struct api_resp *r)
{
	char err[640], msg[700];
	int rc;

	char **paths;
	unsigned n;

	*fs = fsmaster_get(fsname, &rc, err, sizeof(err));
	if (*fs)
		return 0;
	snprintf(msg, sizeof(msg), "cannot open '%s' as master: %s", fsname, err);
	/* the filesystem is known: a failure is its devices' (a file gone,
	 * replaced or no longer famfs), never a missing file of the API's */
	if (rc != -EMFILE && rc != -ENOMEM && !fs_device_paths(fsname, &paths, &n)) {
		fs_paths_free(paths, n);
		return api_error(r, 422, "device_unusable", "%s", msg);
	}
	return errno_resp(r, rc, msg);
}

/* The master handle is shared with ingest jobs, which commit through it
 * from their own threads: look up under its read lock.
 */
static bool node_exists(struct famfs_fs *fs, const char *path)
{
	bool found;

	famfs_fs_rdlock(fs);
	found = famfs_lookup(fs, path) != NULL;
	famfs_fs_unlock(fs);
	return found;
}

/* mkdir -p of @path's parents, inside libfamfs or under a mount. */
static int make_parents(struct famfs_fs *fs, const char *mnt, const char *path,
			struct famfs_err *e)
{
	char buf[FAMFS_PATH_MAX + 1], full[FAMFS_PATH_MAX + 4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mnt) {
			snprintf(full, sizeof(full), "%s%s", mnt, buf);
			if (mkdir(full, 0755) && errno != EEXIST) {
				snprintf(e->msg, sizeof(e->msg), "mkdir %.500s: %s",
					 full, strerror(errno));
				return -errno;
			}
		} else if (!node_exists(fs, buf)) {
			int rc = famfs_mkdir(fs, buf, 0755, 0, 0, e);

			if (rc)
				return rc;
		}
		*s = '/';
	}
	return 0;
}

static int create_via_mount(const char *mnt, const char *path, uint64_t size,
			    uint32_t mode, struct famfs_err *e)
{
	char full[FAMFS_PATH_MAX + 4096];
	int fd, rc;

	rc = make_parents(NULL, mnt, path, e);
	if (rc)
		return rc;
	snprintf(full, sizeof(full), "%s%s", mnt, path);
	fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0) {
		rc = -errno;
		snprintf(e->msg, sizeof(e->msg), "create %.500s: %s", full,
			 strerror(errno));
		return rc;
	}
	if (ftruncate(fd, (off_t)size)) {
		rc = -errno;
		snprintf(e->msg, sizeof(e->msg), "ftruncate %.500s to %llu: %s",
			 full, (unsigned long long)size, strerror(errno));
		close(fd);
		unlink(full);
		return rc;
	}
	if (close(fd)) {
		rc = -errno;
		snprintf(e->msg, sizeof(e->msg), "close %.500s: %s", full,
			 strerror(errno));
		return rc;
	}
	return 0;
}

/*
 * The mount's server says only ENOSPC: the allocator's reason (the size
 * asked for, its strips, each device's room) from the same rule over the
 * committed log (famfsd's read-only view; the server's reservations in
 * flight are not in it, so it may not say more).
 */
static void nospace_reason(const char *fsname, const char *path,
			   uint64_t size, struct famfs_err *e)
{
	struct famfs_place_result res;
	struct famfs_err pe = { 0 };
	struct famfs_fs *view;
	char err[256];

	view = fsview_get(fsname, err, sizeof(err));
	if (view && famfs_place_plan(view, &size, 1, NULL, &res, &pe) == -ENOSPC)
		snprintf(e->msg, sizeof(e->msg), "%.200s: %.430s", path, pe.msg);
}

static int create(struct api_req *q, struct api_resp *r)
{
	static const struct api_field f[] = {
		{ "filesystem", F_STRING, true }, { "path", F_STRING, true },
		{ "size", F_SIZE, true }, { "mode", F_INT, false },
		{ "uid", F_INT, false }, { "gid", F_INT, false },
		{ "strips", F_INT, false }, { "chunk", F_SIZE, false },
		API_FIELDS_END,
	};
	char path[FAMFS_PATH_MAX + 1], mnt[4096];
	struct famfs_err e = { 0 };
	struct famfs_file_attr fa = { 0 };
	struct famfs_alloc_policy pol = { 0 };
	const char *fsname;
	struct famfs_fs *fs;
	json_object *b;
	uint64_t size, chunk;
	int rc;

	if (!(b = api_body(q, f, r)))
		return -1;
	fsname = api_str(b, "filesystem");
	if (api_size(b, "size", 0, &size, r) ||
	    api_size(b, "chunk", policy_chunk(), &chunk, r))
		return -1;
	if (famfs_path_normalize(api_str(b, "path"), path, sizeof(path), &e) < 0)
		return api_error(r, 400, "invalid_value", "%s", e.msg);
	if (!strcmp(path, "/"))
		return api_error(r, 400, "invalid_value", "path must name a file");
	if (chunk % FAMFS_UNIT_SIZE || !chunk)
		return api_error(r, 400, "invalid_value", "chunk must be a "
				 "multiple of 2 MiB");
	if (api_int(b, "strips", 0) < 0 ||
	    api_int(b, "strips", 0) > FAMFS_MAX_STRIPS)
		return api_error(r, 400, "invalid_value", "strips must be 0..%d",
				 FAMFS_MAX_STRIPS);
	fa.size = size;
	fa.mode = (uint32_t)api_int(b, "mode", 0644) & 07777;
	fa.uid = (uint32_t)api_int(b, "uid", 0);
	fa.gid = (uint32_t)api_int(b, "gid", 0);
	pol.nstrips = (uint32_t)api_int(b, "strips", policy_strips());
	pol.chunk = chunk;
	if (master_mount(fsname, mnt, sizeof(mnt))) {
		if (api_has(b, "strips") || api_has(b, "chunk") ||
		    api_has(b, "uid") || api_has(b, "gid"))
			return api_error(r, 409, "mounted", "'%s' has a master "
					 "mount at %s: files are created through"
					 " it with its default policy; leave out"
					 " strips, chunk, uid and gid", fsname,
					 mnt);
		rc = create_via_mount(mnt, path, size, fa.mode, &e);
		if (rc == -ENOSPC)
			nospace_reason(fsname, path, size, &e);
	} else {
		if (open_master(fsname, &fs, r))
			return -1;
		rc = make_parents(fs, NULL, path, &e);
		if (!rc)
			rc = famfs_create_file(fs, path, &fa, &pol, NULL, &e);
	}
	if (rc)
		return errno_resp(r, rc, e.msg[0] ? e.msg : strerror(-rc));
	mounts_follow_fs(fsname);
	return get(r, fsname, path) ? -1 : api_ok(r, 201, r->json);
}

static int delete(struct api_resp *r, const char *fsname, const char *p)
{
	char path[FAMFS_PATH_MAX + 1], mnt[4096], full[FAMFS_PATH_MAX + 4096];
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	struct stat st;
	int rc;

	if (famfs_path_normalize(p, path, sizeof(path), &e) < 0)
		return api_error(r, 400, "invalid_value", "%s", e.msg);
	if (master_mount(fsname, mnt, sizeof(mnt))) {
		snprintf(full, sizeof(full), "%s%s", mnt, path);
		rc = lstat(full, &st) ? -errno : S_ISDIR(st.st_mode) ?
		     (rmdir(full) ? -errno : 0) : (unlink(full) ? -errno : 0);
		if (rc)
			snprintf(e.msg, sizeof(e.msg), "%.500s: %s", full,
				 strerror(-rc));
	} else {
		if (open_master(fsname, &fs, r))
			return -1;
		rc = famfs_unlink(fs, path, &e);
	}
	if (rc)
		return errno_resp(r, rc, e.msg[0] ? e.msg : strerror(-rc));
	mounts_follow_fs(fsname);
	return api_ok(r, 204, NULL);
}

int api_files(struct api_req *q, struct api_resp *r)
{
	if (q->nseg == 2) {
		q->route = "/v1/files";
		if (api_is(q, "POST"))
			return create(q, r);
		return api_method_not_allowed(q, r);
	}
	if (q->nseg == 3) {
		q->route = "/v1/files/{fs}";
		if (api_is(q, "GET"))
			return get(r, q->seg[2], NULL);
		return api_method_not_allowed(q, r);
	}
	q->route = "/v1/files/{fs}/{path}";
	if (api_is(q, "GET"))
		return get(r, q->seg[2], q->rest);
	if (api_is(q, "DELETE"))
		return delete(r, q->seg[2], q->rest);
	return api_method_not_allowed(q, r);
}
