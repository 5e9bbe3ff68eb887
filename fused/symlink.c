// SPDX-License-Identifier: Apache-2.0
/*
 * Symbolic links: symlink() on the master appends a SYMLINK entry (format
 * 1.3, famfs_symlink()); readlink() on both mounts returns the target as
 * the log holds it. The kernel resolves the target on each path walk;
 * famfs never does. unlink, rename and setattr (lchown, utimensat with
 * AT_SYMLINK_NOFOLLOW) of a link go through the handlers every node uses
 * (ops_write.c): DELETE, RENAME and SETATTR entries.
 */
#include <errno.h>
#include <string.h>

#include "fused.h"
#include "pending.h"

static void op_symlink(fuse_req_t req, const char *target, fuse_ino_t parent,
		       const char *name)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	char path[FAMFS_PATH_MAX + 2];
	struct fuse_entry_param e;
	struct famfs_err err = { 0 };
	int r;

	if (fused.o.client) {
		fuse_reply_err(req, EROFS);
		return;
	}
	/* a pending (uncommitted) file may hold the name (as in mkdir) */
	if (pend_lookup(parent, name, &e) == 0) {
		if (e.ino & FUSED_PENDING_INO)
			pend_forget(e.ino, 1);
		fuse_reply_err(req, EEXIST);
		return;
	}
	r = fused_child_path(parent, name, path, sizeof(path));
	if (!r)
		r = famfs_symlink(fused.fs, path, target, ctx->uid, ctx->gid, 0,
				  &err);
	if (!r)
		r = fused_lookup_committed(parent, name, &e);
	if (r) {
		if (err.msg[0] && r != -EEXIST && r != -ENOENT)
			fused_log("symlink %s: %s", path, err.msg);
		fuse_reply_err(req, -r);
		return;
	}
	fuse_reply_entry(req, &e);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char buf[FAMFS_SYMLINK_MAX + 1];
	struct famfs_node *n;
	int r = -ENOENT;

	famfs_fs_rdlock(fused.fs);
	n = famfs_node_by_ino(fused.fs, ino);
	if (n)
		r = famfs_node_readlink(n, buf, sizeof(buf));
	famfs_fs_unlock(fused.fs);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fuse_reply_readlink(req, buf);
}

void fused_ops_symlink(struct fuse_lowlevel_ops *ops)
{
	ops->symlink = op_symlink;
	ops->readlink = op_readlink;
}
