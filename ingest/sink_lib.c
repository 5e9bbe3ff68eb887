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
	r = famfs_alloc(fs, size, NULL, &t->map, &e);
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
	.read = lib_read, .remove = lib_remove, .commit_batch = lib_commit_batch,
	.symlink = lib_symlink, .readlink = lib_readlink,
};

void ingest_sink_lib(struct ingest_sink *k, struct famfs_fs *fs)
{
	k->ops = &lib_ops;
	k->s = fs;
	k->ndev = famfs_fs_ndevices(fs);
}
