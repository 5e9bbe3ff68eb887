// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-fuse-ceiling: the stock-FUSE ceiling for bench/fuse. The smallest
 * low-level server that serves one famfs file as /data: no locks, no
 * holds, no log, a single-threaded loop, and a read handler that replies
 * straight from the device mapping (fuse_reply_iov over the resolver's
 * pieces). Whatever famfs-fused loses against this is its own overhead.
 *
 *   famfs-fuse-ceiling [--direct-io] [--read-ahead-kb N] FILE DEV... MNT
 */
#define FUSE_USE_VERSION 34
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "famfs.h"

static struct famfs_fs *fs;
static const struct famfs_fmap *map;
static uint64_t fsize;
static int direct_io;
static unsigned ra_kb;
static const char *mnt;

static void fill_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_nlink = 1;
	if (ino == 1) {
		st->st_mode = S_IFDIR | 0755;
	} else {
		st->st_mode = S_IFREG | 0444;
		st->st_size = (off_t)fsize;
	}
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = { 0 };

	if (parent != 1 || strcmp(name, "data")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	e.ino = 2;
	e.attr_timeout = e.entry_timeout = 3600;
	fill_stat(2, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	fill_stat(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	fi->keep_cache = 1;
	fi->direct_io = direct_io;
	fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct iovec iov[64];
	uint64_t o = (uint64_t)off, done = 0, len = size;
	int n = 0;

	(void)ino;
	(void)fi;
	if (o >= fsize) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (len > fsize - o)
		len = fsize - o;
	while (done < len && n < 64) {
		struct famfs_loc loc;

		if (famfs_fmap_resolve(map, o + done, &loc)) {
			fuse_reply_err(req, EIO);
			return;
		}
		if (loc.length > len - done)
			loc.length = len - done;
		iov[n].iov_base = famfs_dev_base(famfs_fs_dev(fs, loc.dev_index)) +
				  loc.dev_offset;
		iov[n++].iov_len = loc.length;
		done += loc.length;
	}
	fuse_reply_iov(req, iov, n);
}

/* Raise the mount's readahead once the kernel has the INIT reply. */
static void *tune(void *arg)
{
	char path[96], val[32];
	struct stat st;
	int fd;

	(void)arg;
	if (stat(mnt, &st))
		return NULL;
	if (ra_kb) {
		snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
		snprintf(val, sizeof(val), "%u", ra_kb);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, val, strlen(val)) < 0)
			perror(path);
		if (fd >= 0)
			close(fd);
	}
	printf("ceiling: ready\n");
	fflush(stdout);
	return NULL;
}

static void op_init(void *ud, struct fuse_conn_info *conn)
{
	(void)ud;
	conn->max_readahead = UINT32_MAX;
}

int main(int argc, char **argv)
{
	static const struct fuse_lowlevel_ops ops = {
		.init = op_init, .lookup = op_lookup, .getattr = op_getattr,
		.open = op_open, .read = op_read,
	};
	char *fargv[] = { argv[0], "-o", "ro,default_permissions,fsname=ceiling",
			  NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, fargv);
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_READ };
	struct famfs_err e = { 0 };
	struct fuse_session *se;
	struct famfs_node *n;
	struct famfs_attr a;
	pthread_t t;
	int i = 1, r;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--direct-io"))
			direct_io = 1;
		else if (!strcmp(argv[i], "--read-ahead-kb") && i + 1 < argc)
			ra_kb = (unsigned)atoi(argv[++i]);
	}
	if (argc - i < 3) {
		fprintf(stderr, "usage: %s [--direct-io] [--read-ahead-kb N] "
			"FILE DEV... MNT\n", argv[0]);
		return 2;
	}
	mnt = argv[argc - 1];
	r = famfs_open((const char *const *)&argv[i + 1],
		       (unsigned)(argc - i - 2), &oo, &fs, &e);
	if (r) {
		fprintf(stderr, "ceiling: %s\n", e.msg);
		return 1;
	}
	n = famfs_lookup(fs, argv[i]);
	if (!n || famfs_node_is_dir(n)) {
		fprintf(stderr, "ceiling: %s: no such file\n", argv[i]);
		return 1;
	}
	map = famfs_node_map(n);
	famfs_node_attr(n, &a);
	fsize = a.size;
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se || fuse_set_signal_handlers(se) || fuse_session_mount(se, mnt))
		return 1;
	pthread_create(&t, NULL, tune, NULL);
	r = fuse_session_loop(se);
	pthread_join(t, NULL);
	fuse_session_unmount(se);
	fuse_remove_signal_handlers(se);
	fuse_session_destroy(se);
	famfs_close(fs);
	return r ? 1 : 0;
}
