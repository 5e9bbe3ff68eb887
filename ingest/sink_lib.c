// SPDX-License-Identifier: Apache-2.0
/*
 * The libfamfs sink: the ingesting process holds the filesystem open as
 * master itself (famfsd when the filesystem is not mounted, the tests and
 * the benchmark). Reservations are famfs_alloc(), commits famfs_commit_file().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest.h"

static int lib_stat(void *s, const char *path, struct famfs_attr *a)
{
	struct famfs_fs *fs = s;
	struct famfs_node *n;
	int r = -ENOENT;

	famfs_fs_rdlock(fs);
	n = famfs_lookup(fs, path);
	if (n) {
		famfs_node_attr(n, a);
		r = 0;
	}
	famfs_fs_unlock(fs);
	return r;
}

static int lib_mkdir(void *s, const char *path, uint32_t mode, uint32_t uid,
		     uint32_t gid)
{
	struct famfs_err e;

	return famfs_mkdir(s, path, mode, uid, gid, &e);
}

static int lib_begin(void *s, const char *path, uint64_t size,
		     struct ingest_target *t, char *why, size_t whylen)
{
	struct famfs_fs *fs = s;
	struct famfs_err e = { 0 };
	int r;

	(void)path;
	r = famfs_alloc(fs, size, t->policy, &t->map, &e);
	if (r) {
		snprintf(why, whylen, "%s", e.msg);
		return r;
	}
	for (unsigned i = 0; i < famfs_fs_ndevices(fs); i++)
		t->dev_base[i] = famfs_dev_base(famfs_fs_dev(fs, i));
	return 0;
}

static int flush_map(struct famfs_fs *fs, const struct famfs_fmap *m)
{
	int r = 0;

	for (unsigned i = 0; i < m->nitems && !r; i++)
		r = famfs_dev_flush(famfs_fs_dev(fs, m->items[i].dev_index),
				    m->items[i].offset, m->items[i].length);
	return r;
}

static int lib_commit(void *s, struct ingest_target *t, const char *path,
		      const struct famfs_file_attr *a, char *why, size_t whylen)
{
	struct famfs_fs *fs = s;
	struct famfs_err e = { 0 };
	int r;

	/* the data must be durable before the commit makes it visible */
	r = flush_map(fs, t->map);
	if (r)
		snprintf(e.msg, sizeof(e.msg), "flush of the file's data: %s",
			 strerror(-r));
	else
		r = famfs_commit_file(fs, path, a, t->map, &e);
	if (r) {
		snprintf(why, whylen, "%s", e.msg);
		famfs_alloc_release(fs, t->map);
	}
	return r;
}

static int lib_commit_batch(void *s, struct ingest_target *const *t,
			    struct famfs_commit_req *reqs, unsigned n,
			    char *why, size_t whylen)
{
	struct famfs_fs *fs = s;
	struct famfs_err e = { 0 };
	int r;

	for (unsigned i = 0; i < n; i++) {
		flush_map(fs, t[i]->map);
		reqs[i].map = t[i]->map;
	}
	r = famfs_commit_files(fs, reqs, n, &e);
	if (r < 0)
		snprintf(why, whylen, "%s", e.msg);
	for (unsigned i = 0; i < n; i++)
		if (r < 0 || reqs[i].result)
			famfs_alloc_release(fs, t[i]->map);
	return r;
}

static void lib_abort(void *s, struct ingest_target *t, const char *path)
{
	(void)path;
	famfs_alloc_release(s, t->map);
	free(t->map);
	t->map = NULL;
}

static int lib_place_plan(void *s, const uint64_t *sizes, uint64_t n,
			  uint64_t *failed, char *why, size_t whylen)
{
	return ingest_place_plan_fs(s, sizes, n, failed, why, whylen);
}

static uint64_t lib_free_bytes(void *s)
{
	struct famfs_space sp;

	famfs_statfs(s, &sp);
	return sp.free_bytes;
}

static int64_t lib_read(void *s, const char *path, uint64_t off, void *buf,
			uint64_t len)
{
	struct famfs_fs *fs = s;
	struct famfs_node *n;
	int64_t r = -ENOENT;

	famfs_fs_rdlock(fs);
	n = famfs_lookup(fs, path);
	if (n && !famfs_node_is_dir(n) && !famfs_node_is_symlink(n)) {
		struct famfs_attr a;

		famfs_node_attr(n, &a);
		r = famfs_read(fs, famfs_node_map(n), a.size, off, buf, len);
	}
	famfs_fs_unlock(fs);
	return r;
}

static int lib_remove(void *s, const char *path)
{
	struct famfs_err e;

	return famfs_unlink(s, path, &e);
}

static int lib_rename(void *s, const char *from, const char *to)
{
	struct famfs_err e;

	return famfs_rename(s, from, to, 0, &e);
}

/* Directories below @n, pre-order; called with the fs read-locked. */
static int walk_dirs(struct famfs_node *n, char *buf, size_t len,
		     void (*fn)(void *arg, const char *path), void *arg)
{
	for (struct famfs_node *c = famfs_node_first_child(n); c;
	     c = famfs_node_next_sibling(c)) {
		int r;

		if (!famfs_node_is_dir(c))
			continue;
		r = famfs_node_path(c, buf, len);
		if (r < 0)
			return r;
		fn(arg, buf);
		r = walk_dirs(c, buf, len, fn, arg);
		if (r)
			return r;
	}
	return 0;
}

static int lib_list_dirs(void *s, const char *dir,
			 void (*fn)(void *arg, const char *path), void *arg)
{
	char buf[FAMFS_PATH_MAX + 2];
	struct famfs_node *n;
	int r = 0;

	famfs_fs_rdlock(s);
	n = famfs_lookup(s, dir);
	if (n && famfs_node_is_dir(n))
		r = walk_dirs(n, buf, sizeof(buf), fn, arg);
	famfs_fs_unlock(s);
	return r;
}

static int lib_rmdir(void *s, const char *path)
{
	struct famfs_attr a;
	struct famfs_err e;
	int r = lib_stat(s, path, &a);

	if (r)
		return r;
	if ((a.mode & 0170000) != 0040000)
		return -ENOTDIR;
	/* famfs_unlink() refuses a directory that is not empty */
	return famfs_unlink(s, path, &e);
}

static int lib_symlink(void *s, const char *path, const char *target,
		       uint32_t uid, uint32_t gid, uint64_t mtime_ns)
{
	struct famfs_err e;

	return famfs_symlink(s, path, target, uid, gid, mtime_ns, &e);
}

static int lib_readlink(void *s, const char *path, char *buf, size_t len)
{
	struct famfs_fs *fs = s;
	struct famfs_node *n;
	int r = -ENOENT;

	famfs_fs_rdlock(fs);
	n = famfs_lookup(fs, path);
	if (n)
		r = famfs_node_readlink(n, buf, len);
	famfs_fs_unlock(fs);
	return r;
}

static const struct ingest_sink_ops lib_ops = {
	.stat = lib_stat, .mkdir = lib_mkdir, .begin = lib_begin,
	.commit = lib_commit, .abort = lib_abort, .free_bytes = lib_free_bytes,
	.read = lib_read, .remove = lib_remove, .rmdir = lib_rmdir,
	.list_dirs = lib_list_dirs, .place_plan = lib_place_plan,
	.commit_batch = lib_commit_batch, .rename = lib_rename,
	.symlink = lib_symlink, .readlink = lib_readlink,
};

void ingest_sink_lib(struct ingest_sink *k, struct famfs_fs *fs)
{
	k->ops = &lib_ops;
	k->s = fs;
	k->ndev = famfs_fs_ndevices(fs);
}
