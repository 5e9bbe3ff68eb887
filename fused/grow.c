// SPDX-License-Identifier: Apache-2.0
/*
 * Devices added while mounted (docs/fuse.md). famfsd grows a filesystem
 * through an ioctl on the mount's root: the master mount holds the writer
 * lock, so it is the one that labels the devices and appends the
 * DEVICE_ADD entries; a client mount learns of them from the log but not
 * where they are on this host, so it is told (attach) and replays on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "famfs_mountq.h"
#include "fused.h"

static int set_err(struct famfs_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(struct famfs_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = code;
	return code;
}

/* Split q->paths into q->ndev strings; -EINVAL when they do not add up. */
static int split_paths(struct famfs_ioc_devices *q, const char **paths)
{
	size_t off = 0;

	if (!q->ndev || q->ndev > FAMFS_MAX_DEVICES)
		return -EINVAL;
	for (unsigned i = 0; i < q->ndev; i++) {
		const char *end = memchr(q->paths + off, '\0',
					 sizeof(q->paths) - off);

		if (!end || end == q->paths + off)
			return -EINVAL;
		paths[i] = q->paths + off;
		off = (size_t)(end - q->paths) + 1;
		if (off >= sizeof(q->paths) && i + 1 < q->ndev)
			return -EINVAL;
	}
	return 0;
}

static int add_devices(const char **paths, unsigned n, struct famfs_err *e)
{
	int r;

	if (fused.o.client)
		return set_err(e, -EROFS, "a client mount cannot add "
					    "devices: the master mount does");
	r = famfs_devices_add(fused.fs, paths, n, e);
	if (!r)
		fused_log("grown by %u device%s: now %u devices (first new: %s)",
			  n, n == 1 ? "" : "s", famfs_fs_ndevices(fused.fs),
			  paths[0]);
	return r;
}

static int attach_devices(const char **paths, unsigned n, struct famfs_err *e)
{
	int r = 0;

	if (!fused.o.client)
		return set_err(e, -EINVAL, "the master mount adds "
					    "devices; attaching is for clients");
	for (unsigned i = 0; i < n && !r; i++)
		r = famfs_device_attach(fused.fs, paths[i], e);
	if (r)
		return r;
	r = famfs_replay(fused.fs, e);   /* takes libfamfs's own lock */
	if (r >= 0)
		fused_log("attached %u device%s (first: %s): now %u devices",
			  n, n == 1 ? "" : "s", paths[0],
			  famfs_fs_ndevices(fused.fs));
	return r < 0 ? r : 0;
}

static void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		     struct fuse_file_info *fi, unsigned flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	const char *paths[FAMFS_MAX_DEVICES];
	struct famfs_ioc_devices *q;
	struct famfs_err e = { 0 };
	unsigned c = (unsigned)cmd;

	(void)arg; (void)fi; (void)flags;
	if ((c != (unsigned)FAMFS_IOC_ADD_DEVICES &&
	     c != (unsigned)FAMFS_IOC_ATTACH_DEVICES) || ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	/* what the server's user (famfsd) or root may do, nobody else */
	if (ctx->uid != 0 && ctx->uid != getuid()) {
		fuse_reply_err(req, EPERM);
		return;
	}
	if (in_bufsz != sizeof(*q) || out_bufsz < sizeof(*q)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	q = malloc(sizeof(*q));
	if (!q) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	memcpy(q, in_buf, sizeof(*q));
	q->paths[sizeof(q->paths) - 1] = '\0';
	if (split_paths(q, paths))
		q->result = set_err(&e, -EINVAL, "%u device paths "
						 "expected, the request does "
						 "not hold them", q->ndev);
	else if (c == (unsigned)FAMFS_IOC_ADD_DEVICES)
		q->result = add_devices(paths, q->ndev, &e);
	else
		q->result = attach_devices(paths, q->ndev, &e);
	if (q->result)
		fused_log("%s devices: %s", c == (unsigned)FAMFS_IOC_ADD_DEVICES ?
			  "adding" : "attaching", e.msg);
	memset(q->msg, 0, sizeof(q->msg));
	memcpy(q->msg, e.msg, strnlen(e.msg, sizeof(q->msg) - 1));
	fuse_reply_ioctl(req, 0, q, sizeof(*q));
	free(q);
}

void fused_ops_grow(struct fuse_lowlevel_ops *ops)
{
	ops->ioctl = op_ioctl;
}
