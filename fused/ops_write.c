// SPDX-License-Identifier: Apache-2.0
/*
 * Operations that change the filesystem: the master's. A client mount is
 * mounted read-only (the kernel answers most of these with EROFS itself)
 * and every handler here refuses with EROFS as well.
 *
 * Files created here are pending (pending.c) until their first close
 * commits them. A committed file has a fixed map: writes inside the size
 * go to the device in place; mode, owner, times and (within the map) size
 * of committed files and directories change by SETATTR log entries, which
 * the clients replay. Growing past the map is EFBIG.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pending.h"

static bool refuse_client(fuse_req_t req)
{
	if (!fused.o.client)
		return false;
	fuse_reply_err(req, EROFS);
	return true;
}

static bool is_pending(uint64_t ino)
{
	return ino & FUSED_PENDING_INO;
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct fuse_entry_param e;
	struct ofile *of;
	int r;

	if (refuse_client(req))
		return;
	if (!S_ISREG(mode)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	of = fused_ofile_new();
	if (!of) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r = pend_create(parent, name, mode, ctx->uid, ctx->gid, true, &of->pf, &e);
	if (r) {
		fused_ofile_free(of);
		fuse_reply_err(req, -r);
		return;
	}
	of->ino = e.ino;
	fi->fh = (uintptr_t)of;
	fused_master_open_mode(fi);
	if (fuse_reply_create(req, &e, fi) == -ENOENT) {
		/* the creator was interrupted: nobody will close this */
		pend_release(of->pf);
		fused_ofile_free(of);
	}
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct fuse_entry_param e;
	int r;

	(void)rdev;
	if (refuse_client(req))
		return;
	if (!S_ISREG(mode)) {
		fuse_reply_err(req, EPERM); /* famfs holds files and directories */
		return;
	}
	r = pend_create(parent, name, mode, ctx->uid, ctx->gid, false, NULL, &e);
	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_entry(req, &e);
}

/* In-place write to committed node @n, limited to its size. */
static void write_committed(fuse_req_t req, struct famfs_node *n,
			    struct fuse_bufvec *src, size_t size, uint64_t off)
{
	const struct famfs_fmap *m = famfs_node_map(n);
	struct famfs_attr a;
	int64_t w;

	famfs_node_attr(n, &a);
	if (off >= a.size || !m) {
		fuse_reply_err(req, size ? EFBIG : 0);
		return;
	}
	if (size > a.size - off)
		size = (size_t)(a.size - off); /* short write; the next is EFBIG */
	w = fused_put(m, off, src, size);
	if (w < 0)
		fuse_reply_err(req, (int)-w);
	else
		fuse_reply_write(req, (size_t)w);
}

/* write_buf, not write: a spliced request's bytes stay in the pipe (put.c) */
static void op_write_buf(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_bufvec *src, off_t off,
			 struct fuse_file_info *fi)
{
	struct ofile *of = (void *)(uintptr_t)fi->fh;
	size_t size = fuse_buf_size(src);
	struct pstore st;
	uint64_t cino;
	int64_t w;

	(void)ino;
	if (refuse_client(req))
		return;
	if (of->node) {
		write_committed(req, of->node, src, size, (uint64_t)off);
		return;
	}
	cino = pend_committed_ino(of->pf);
	if (cino) {
		struct famfs_node *n = fused_hold_node(cino);

		if (!n) {
			fuse_reply_err(req, ENOENT);
			return;
		}
		write_committed(req, n, src, size, (uint64_t)off);
		fused_release_node(n);
		return;
	}
	/* acknowledged before the bytes are stored: see pending_data.c */
	w = pend_write_begin(of->pf, size, (uint64_t)off, &st);
	if (w < 0) {
		fuse_reply_err(req, (int)-w);
		return;
	}
	fuse_reply_write(req, (size_t)w);
	pend_write_store(&st, src);
}

static uint64_t timespec_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

/* A committed file or directory: one SETATTR entry (famfs_setattr) that
 * every client replays. Sizes stay within the file's map (EFBIG beyond).
 */
static int setattr_committed(uint64_t ino, const struct stat *st, int to_set)
{
	struct famfs_setattr a = { 0 };
	struct famfs_err err = { 0 };
	uint64_t now = famfs_now_ns();
	int r;

	if (to_set & FUSE_SET_ATTR_MODE) {
		a.valid |= FAMFS_SETATTR_MODE;
		a.mode = st->st_mode & 07777;
	}
	if (to_set & FUSE_SET_ATTR_UID) {
		a.valid |= FAMFS_SETATTR_UID;
		a.uid = st->st_uid;
	}
	if (to_set & FUSE_SET_ATTR_GID) {
		a.valid |= FAMFS_SETATTR_GID;
		a.gid = st->st_gid;
	}
	if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW)) {
		a.valid |= FAMFS_SETATTR_ATIME;
		a.atime_ns = (to_set & FUSE_SET_ATTR_ATIME_NOW) ? now :
			     timespec_ns(&st->st_atim);
	}
	if (to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW)) {
		a.valid |= FAMFS_SETATTR_MTIME;
		a.mtime_ns = (to_set & FUSE_SET_ATTR_MTIME_NOW) ? now :
			     timespec_ns(&st->st_mtim);
	}
	if (to_set & FUSE_SET_ATTR_SIZE) {
		if (st->st_size < 0)
			return -EINVAL;
		a.valid |= FAMFS_SETATTR_SIZE;
		a.size = (uint64_t)st->st_size;
	}
	if (!a.valid)
		return 0; /* ctime alone: it changes with every entry anyway */
	r = famfs_setattr(fused.fs, ino, &a, &err);
	if (r && r != -EFBIG && r != -EISDIR && r != -ENOENT)
		fused_log("setattr: %s", err.msg);
	return r;
}

/* ftruncate(fd, 0) of a committed file the master has open only through
 * @of: as open(O_TRUNC), a pending file replaces it, so that the writes
 * that follow can grow it. Open elsewhere, it stays a SETATTR entry.
 */
static int replace_on_ftruncate(struct ofile *of, uint64_t kernel_ino)
{
	struct pfile *pf;
	int r = pend_replace(of->ino, kernel_ino, 1, &pf);

	if (r == -ETXTBSY)
		return 0;
	if (r)
		return r;
	fused_release_node(of->node);
	of->node = NULL;
	of->pf = pf;
	of->ino = pf->ino;
	return 0;
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct ofile *of = fi ? (void *)(uintptr_t)fi->fh : NULL;
	uint64_t kernel_ino = ino;
	struct stat out;
	uint64_t cino;
	int r = 0;

	if (refuse_client(req))
		return;
	ino = pend_resolve(ino);
	if (of && of->node && (to_set & FUSE_SET_ATTR_SIZE) && attr->st_size == 0) {
		r = replace_on_ftruncate(of, kernel_ino);
		if (r < 0) {
			fuse_reply_err(req, -r);
			return;
		}
		if (of->pf)
			ino = of->pf->ino;
	}
	cino = ino;
	if (is_pending(ino)) {
		r = pend_setattr(ino, attr, to_set, &out, &cino);
		if (r || !cino) {
			out.st_ino = kernel_ino;
			if (r)
				fuse_reply_err(req, -r);
			else
				fuse_reply_attr(req, &out, fused.entry_timeout);
			return;
		}
	}
	r = setattr_committed(cino, attr, to_set);
	if (!r)
		r = fused_node_stat(cino, &out);
	if (r) {
		fuse_reply_err(req, -r);
		return;
	}
	out.st_ino = kernel_ino;
	fuse_reply_attr(req, &out, fused.entry_timeout);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	struct ofile *of = (void *)(uintptr_t)fi->fh;
	uint64_t cino = 0;
	struct stat cur;
	int r;

	(void)ino;
	if (refuse_client(req))
		return;
	if (off < 0 || len <= 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (of->pf && !(cino = pend_committed_ino(of->pf))) {
		r = pend_fallocate(of->pf, mode, (uint64_t)off, (uint64_t)len);
		fuse_reply_err(req, -r);
		return;
	}
	/* committed: only what it already holds */
	r = fused_node_stat(of->node ? of->ino : cino, &cur);
	if (!r && (mode & ~FALLOC_FL_KEEP_SIZE))
		r = -EOPNOTSUPP;
	if (!r && (uint64_t)off + (uint64_t)len > (uint64_t)cur.st_size)
		r = -EFBIG;
	fuse_reply_err(req, -r);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ofile *of = (void *)(uintptr_t)fi->fh;
	int r = 0;

	(void)ino;
	if (of->pf)
		r = pend_flush(of->pf);
	fuse_reply_err(req, -r);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	struct ofile *of = (void *)(uintptr_t)fi->fh;

	(void)ino;
	(void)datasync;
	/* a pending file's acknowledged writes may still be storing; each
	 * store is flushed to the device when it ends
	 */
	fuse_reply_err(req, of && of->pf ? -pend_sync(of->pf) : 0);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	char path[FAMFS_PATH_MAX + 2];
	struct fuse_entry_param e;
	struct famfs_err err = { 0 };
	int r;

	if (refuse_client(req))
		return;
	r = pend_lookup(parent, name, &e);
	if (r == 0) {
		if (is_pending(e.ino))
			pend_forget(e.ino, 1);
		fuse_reply_err(req, EEXIST);
		return;
	}
	r = fused_child_path(parent, name, path, sizeof(path));
	if (!r)
		r = famfs_mkdir(fused.fs, path, mode & 07777, ctx->uid, ctx->gid,
				&err);
	if (!r)
		r = fused_lookup_committed(parent, name, &e);
	if (r) {
		if (err.msg[0] && r != -EEXIST)
			fused_log("mkdir %s: %s", path, err.msg);
		fuse_reply_err(req, -r);
		return;
	}
	fuse_reply_entry(req, &e);
}

/* Delete committed @name in @parent; @dir says which kind it must be. */
static int remove_committed(uint64_t parent, const char *name, bool dir)
{
	char path[FAMFS_PATH_MAX + 2];
	struct fuse_entry_param e;
	struct famfs_err err = { 0 };
	int r = fused_lookup_committed_raw(parent, name, &e);

	if (r)
		return r;
	if (dir != S_ISDIR(e.attr.st_mode))
		return dir ? -ENOTDIR : -EISDIR;
	if (dir && pend_dir_has_children(e.ino))
		return -ENOTEMPTY;
	r = fused_child_path(parent, name, path, sizeof(path));
	if (r)
		return r;
	r = famfs_unlink(fused.fs, path, &err);
	if (r && r != -ENOTEMPTY && r != -ENOENT)
		fused_log("delete %s: %s", path, err.msg);
	if (!r && !dir)
		fused_inomap_deleted(e.ino);
	return r;
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int r;

	if (refuse_client(req))
		return;
	r = pend_unlink(parent, name);
	if (r == -ENOENT)
		r = remove_committed(parent, name, false);
	fuse_reply_err(req, -r);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	if (refuse_client(req))
		return;
	fuse_reply_err(req, -remove_committed(parent, name, true));
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	if (refuse_client(req))
		return;
	if (flags == RENAME_EXCHANGE) {
		/* one EXCHANGE entry: every host swaps the two at once */
		fuse_reply_err(req, -pend_exchange(parent, name, newparent,
						   newname));
		return;
	}
	if (flags & ~RENAME_NOREPLACE) {
		fused_log("rename %s: flags 0x%x are not supported (EINVAL)",
			  name, flags);
		fuse_reply_err(req, EINVAL);
		return;
	}
	fuse_reply_err(req, -pend_rename(parent, name, newparent, newname,
					 flags & RENAME_NOREPLACE));
}

/* "chunk=BYTES strips=N" (either may be left out): 0, or -EINVAL. */
static int parse_policy(const char *value, size_t size,
			struct famfs_alloc_policy *p)
{
	char buf[96], *tok, *save = NULL, *end;

	if (size >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, value, size);
	buf[size] = '\0';
	memset(p, 0, sizeof(*p));
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		unsigned long long v;

		if (strncmp(tok, "chunk=", 6) && strncmp(tok, "strips=", 7))
			return -EINVAL;
		errno = 0;
		v = strtoull(strchr(tok, '=') + 1, &end, 10);
		if (errno || *end || end == strchr(tok, '=') + 1)
			return -EINVAL;
		if (tok[0] == 'c' && (v % FAMFS_UNIT_SIZE || v > FAMFS_MAX_CHUNK))
			return -EINVAL;
		if (tok[0] == 's' && v > FAMFS_MAX_STRIPS)
			return -EINVAL;
		if (tok[0] == 'c')
			p->chunk = v;
		else
			p->nstrips = (uint32_t)v;
	}
	return 0;
}

/* user.famfs.remove_tree on a committed file or directory: it and all it
 * holds go by famfs_remove_tree() (BATCHes of deletes, not one entry and
 * one flush per name as `rm -rf` costs): a dataset's retired generation.
 */
static int remove_tree(uint64_t ino)
{
	char path[FAMFS_PATH_MAX + 2], name[FAMFS_NAME_MAX + 1];
	struct famfs_err e = { 0 };
	struct famfs_node *n = famfs_node_by_ino(fused.fs, ino);
	struct famfs_attr pa;
	int64_t r;

	if (!n)
		return -ENOENT;
	if (n == famfs_root(fused.fs))
		return -EBUSY;
	if (famfs_node_is_dir(n) && pend_dir_has_children(ino))
		return -EBUSY;  /* a file below is still being written */
	if (famfs_node_path(n, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	snprintf(name, sizeof(name), "%s", famfs_node_name(n));
	famfs_node_attr(famfs_node_parent(n), &pa);
	r = famfs_remove_tree(fused.fs, path, &e);
	if (r < 0) {
		fused_log("remove tree %s: %s", path, e.msg);
		return (int)r;
	}
	/* the kernel drops its names of the tree */
	fused_notify_entry(pa.ino, name);
	fused_log("removed %s: %lld names", path, (long long)r);
	return 0;
}

/* The writable virtual xattrs steer an ingest's file (docs/fuse.md):
 * when it commits, and its interleave; user.famfs.remove_tree removes a
 * tree; the user.famfs.* values are otherwise read-only.
 */
static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	bool pending = !strcmp(name, "user.famfs.pending");
	bool commit = !strcmp(name, "user.famfs.commit");
	bool policy = !strcmp(name, "user.famfs.policy");
	struct famfs_alloc_policy pol;

	(void)flags;
	if (refuse_client(req))
		return;
	if (policy) {
		int r = parse_policy(value, size, &pol);

		ino = pend_resolve(ino);
		if (!r && !is_pending(ino))
			r = -EINVAL;
		fuse_reply_err(req, r ? -r : -pend_set_policy(ino, &pol));
		return;
	}
	if (!strcmp(name, "user.famfs.remove_tree")) {
		/* a committed file may be known by its provisional number */
		ino = pend_resolve(ino);
		fuse_reply_err(req, is_pending(ino) ? EINVAL : -remove_tree(ino));
		return;
	}
	if (!pending && !commit) {
		fuse_reply_err(req, ENOTSUP);
		return;
	}
	ino = pend_resolve(ino);
	if (!is_pending(ino)) {
		fuse_reply_err(req, EINVAL); /* committed, or a directory */
		return;
	}
	fuse_reply_err(req, -pend_set_commit_mode(ino, commit));
}

void fused_ops_write(struct fuse_lowlevel_ops *ops)
{
	ops->create = op_create;
	ops->mknod = op_mknod;
	ops->write_buf = op_write_buf;
	ops->setattr = op_setattr;
	ops->fallocate = op_fallocate;
	ops->flush = op_flush;
	ops->fsync = op_fsync;
	ops->mkdir = op_mkdir;
	ops->unlink = op_unlink;
	ops->rmdir = op_rmdir;
	ops->rename = op_rename;
	ops->setxattr = op_setxattr;
}
