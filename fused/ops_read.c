// SPDX-License-Identifier: Apache-2.0
/*
 * Operations both mounts serve: lookup, getattr, readdir, open, read,
 * release, statfs, xattrs. Reads of a committed file reply straight from
 * the device mapping (fuse_reply_iov over the pieces the one resolver
 * returns), so the only copy is the kernel's into the reader's pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "pending.h"

#define XATTR_MAP "user.famfs.map"
#define XATTR_DEVICES "user.famfs.devices"
#define XATTR_PATH "user.famfs.path"
#define READ_IOV_MAX 64

static bool is_pending(uint64_t ino)
{
	return !fused.o.client && (ino & FUSED_PENDING_INO);
}

/* The master: the inode a kernel inode number stands for now (pending.h) */
static uint64_t resolve(uint64_t ino)
{
	return fused.o.client ? ino : pend_resolve(ino);
}

static void forget_one(uint64_t ino, uint64_t n)
{
	if (is_pending(ino))
		pend_forget(ino, n);
	else if (!fused.o.client)
		pend_forget_committed(ino);
}

static void op_init(void *ud, struct fuse_conn_info *conn)
{
	(void)ud;
	conn->max_readahead = UINT32_MAX;    /* the kernel clamps it */
	/* 1 MiB per WRITE, the most either side allows: libfuse 3.14's
	 * request buffer holds 256 pages and the kernel's max_pages limit
	 * (fs.fuse.max_pages_limit) defaults to 256; libfuse asks for
	 * max_pages to match.
	 */
	conn->max_write = 1u << 20;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/* famfsd grows the filesystem by an ioctl on the root (grow.c) */
	if (conn->capable & FUSE_CAP_IOCTL_DIR)
		conn->want |= FUSE_CAP_IOCTL_DIR;
	/* files do not change under a client; nothing to re-validate */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	/* No splice of requests (libfuse turns it on for write_buf): its pipe
	 * must hold a whole 1 MiB request plus header, more than
	 * fs.pipe-max-size allows without CAP_SYS_RESOURCE, and libfuse then
	 * falls back after an extra system call per thread (put.c).
	 */
	conn->want &= ~FUSE_CAP_SPLICE_READ;
	fused_dio_mmap_want(conn);
	conn->time_gran = 1;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	int r;

	if (fused.o.client)
		r = fused_lookup_committed(parent, name, &e);
	else
		r = pend_lookup(parent, name, &e);
	if (r == -ENOENT) {
		/* a cached negative entry; a client drops it on notify */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = fused.entry_timeout;
		fuse_reply_entry(req, &e);
		return;
	}
	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_entry(req, &e);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t n)
{
	forget_one(ino, n);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count,
			    struct fuse_forget_data *f)
{
	for (size_t i = 0; i < count; i++)
		forget_one(f[i].ino, f[i].nlookup);
	fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	uint64_t target = resolve(ino);
	struct stat st;
	int r;

	(void)fi;
	r = is_pending(target) ? pend_getattr(target, &st) :
	    fused_node_stat(target, &st);
	/* the number the kernel asked by: an O_TRUNC replacement's own
	 * provisional number is never shown (pending_trunc.c)
	 */
	st.st_ino = ino;
	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, fused.entry_timeout);
}

/* A directory listing is a snapshot taken at opendir. Every snapshot is
 * on a list: at unmount the kernel may not have sent RELEASEDIR for the
 * last ones yet (a `find` just before `fusermount3 -u`).
 */
struct dir_snap {
	size_t n, cap;
	struct { char *name; uint64_t ino; mode_t mode; } *e;
	struct dir_snap *prev, *next;
};

static pthread_mutex_t snaps_mu = PTHREAD_MUTEX_INITIALIZER;
static struct dir_snap *snaps;

static void snap_add(void *arg, const char *name, uint64_t ino)
{
	struct dir_snap *d = arg;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		void *p = realloc(d->e, cap * sizeof(*d->e));

		if (!p)
			return;
		d->e = p;
		d->cap = cap;
	}
	d->e[d->n].name = strdup(name);
	d->e[d->n].ino = ino;
	d->e[d->n].mode = S_IFREG;
	if (d->e[d->n].name)
		d->n++;
}

static void snap_link(struct dir_snap *d)
{
	pthread_mutex_lock(&snaps_mu);
	d->next = snaps;
	if (snaps)
		snaps->prev = d;
	snaps = d;
	pthread_mutex_unlock(&snaps_mu);
}

static void snap_free(struct dir_snap *d)
{
	pthread_mutex_lock(&snaps_mu);
	if (d->prev)
		d->prev->next = d->next;
	else if (snaps == d)
		snaps = d->next;
	if (d->next)
		d->next->prev = d->prev;
	pthread_mutex_unlock(&snaps_mu);
	for (size_t i = 0; i < d->n; i++)
		free(d->e[i].name);
	free(d->e);
	free(d);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dir_snap *d = calloc(1, sizeof(*d));
	struct famfs_node *dir, *c;
	struct famfs_attr a;
	int r = 0;

	if (!d) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (!fused.o.client)
		pthread_mutex_lock(&fused.pend_mu); /* no commit in between */
	famfs_fs_rdlock(fused.fs);
	dir = famfs_node_by_ino(fused.fs, ino);
	if (!dir || !famfs_node_is_dir(dir)) {
		r = dir ? ENOTDIR : ENOENT;
	} else {
		famfs_node_attr(famfs_node_parent(dir), &a);
		snap_add(d, ".", ino);
		snap_add(d, "..", a.ino);
		d->e[0].mode = d->e[1].mode = S_IFDIR;
		for (c = famfs_node_first_child(dir); c; c = famfs_node_next_sibling(c)) {
			famfs_node_attr(c, &a);
			snap_add(d, famfs_node_name(c), S_ISREG(a.mode) ?
				 fused_inomap_kernel(a.ino) : a.ino);
			d->e[d->n - 1].mode = a.mode & S_IFMT;
		}
	}
	famfs_fs_unlock(fused.fs);
	if (!r && !fused.o.client)
		pend_foreach_in(ino, snap_add, d);
	if (!fused.o.client)
		pthread_mutex_unlock(&fused.pend_mu);
	if (r) {
		snap_free(d);
		fuse_reply_err(req, r);
		return;
	}
	snap_link(d);
	fi->fh = (uintptr_t)d;
	fi->cache_readdir = 0;
	fuse_reply_open(req, fi);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct dir_snap *d = (void *)(uintptr_t)fi->fh;
	char *buf = malloc(size);
	size_t used = 0;

	(void)ino;
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (size_t i = (size_t)off; i < d->n; i++) {
		struct stat st = { .st_ino = d->e[i].ino, .st_mode = d->e[i].mode };
		size_t l = fuse_add_direntry(req, buf + used, size - used,
					     d->e[i].name, &st, (off_t)(i + 1));

		if (l > size - used)
			break;
		used += l;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	(void)ino;
	snap_free((void *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ofile *of = fused_ofile_new();
	uint64_t target = ino;
	int r = 0;

	if (!of) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (fused.o.client && (fi->flags & O_ACCMODE) != O_RDONLY)
		r = -EROFS;
	target = resolve(ino);
	if (!r && is_pending(target)) {
		uint64_t committed;

		r = pend_open(target, &of->pf, &committed);
		if (!r && committed)
			target = committed;
		if (!r && of->pf && (fi->flags & O_TRUNC) &&
		    (r = pend_open_trunc(of->pf)))
			pend_release(of->pf);
	}
	/* O_TRUNC of a committed file: a fresh pending file replaces it
	 * (FUSE_CAP_ATOMIC_O_TRUNC: the kernel sends no SETATTR for it)
	 */
	if (!r && !of->pf && !fused.o.client && (fi->flags & O_TRUNC))
		r = pend_replace(target, ino, 0, &of->pf);
	if (!r && !of->pf && !(of->node = fused_hold_node(target)))
		r = -ENOENT;
	if (r) {
		fused_ofile_free(of);
		fuse_reply_err(req, -r);
		return;
	}
	of->ino = of->pf ? of->pf->ino : target;
	fi->fh = (uintptr_t)of;
	if (fused.o.client && of->node) {
		/* committed files never change size: keep pages across opens */
		fi->keep_cache = 1;
		fi->direct_io = fused.o.direct_io;
	}
	fused_master_open_mode(fi);
	fuse_reply_open(req, fi);
}

/* Reply with iovecs pointing into the device mappings; fall back to a copy. */
void fused_read_committed(fuse_req_t req, struct famfs_node *n, size_t len,
			   uint64_t off)
{
	const struct famfs_fmap *m = famfs_node_map(n);
	struct iovec iov[READ_IOV_MAX];
	struct famfs_attr a;
	uint64_t done = 0;
	int cnt = 0;

	famfs_node_attr(n, &a);
	if (!m || off >= a.size) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (len > a.size - off)
		len = (size_t)(a.size - off);
	while (done < len && cnt < READ_IOV_MAX) {
		struct famfs_loc loc;
		struct famfs_dev *d;
		uint64_t k;

		if (famfs_fmap_resolve(m, off + done, &loc) ||
		    !(d = famfs_fs_dev(fused.fs, loc.dev_index)) ||
		    loc.dev_offset + loc.length > famfs_dev_size(d)) {
			fuse_reply_err(req, EIO);
			return;
		}
		k = len - done < loc.length ? len - done : loc.length;
		if (fused.o.client)
			famfs_dev_invalidate(d, loc.dev_offset, k);
		iov[cnt].iov_base = famfs_dev_base(d) + loc.dev_offset;
		iov[cnt++].iov_len = k;
		done += k;
	}
	if (done == len) {
		fuse_reply_iov(req, iov, cnt);
		return;
	}
	void *buf = malloc(len);
	int64_t got = buf ? famfs_read(fused.fs, m, a.size, off, buf, len) : -ENOMEM;

	if (got < 0)
		fuse_reply_err(req, (int)-got);
	else
		fuse_reply_buf(req, buf, (size_t)got);
	free(buf);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct ofile *of = (void *)(uintptr_t)fi->fh;

	(void)ino;
	if (of->node) {
		fused_read_committed(req, of->node, size, (uint64_t)off);
		return;
	}
	if (pend_committed_ino(of->pf)) {
		/* committed while this handle stayed open (e.g. mmap) */
		struct famfs_node *n = fused_hold_node(pend_committed_ino(of->pf));

		if (!n) {
			fuse_reply_err(req, ENOENT);
			return;
		}
		fused_read_committed(req, n, size, (uint64_t)off);
		fused_release_node(n);
		return;
	}
	void *buf = malloc(size);
	int64_t got = buf ? pend_read(of->pf, buf, size, (uint64_t)off) : -ENOMEM;

	if (got < 0)
		fuse_reply_err(req, (int)-got);
	else
		fuse_reply_buf(req, buf, (size_t)got);
	free(buf);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ofile *of = (void *)(uintptr_t)fi->fh;

	(void)ino;
	if (of->pf) {
		pend_release(of->pf);
	} else {
		fused_release_node(of->node);
	}
	fused_ofile_free(of);
	fuse_reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct famfs_log_status ls;
	struct famfs_space s;
	struct statvfs v = { 0 };

	(void)ino;
	famfs_statfs(fused.fs, &s);
	famfs_log_status(fused.fs, &ls);
	v.f_bsize = FAMFS_BLOCK_SIZE;
	v.f_frsize = FAMFS_BLOCK_SIZE;
	v.f_blocks = s.total_bytes / FAMFS_BLOCK_SIZE;
	v.f_bfree = s.free_bytes / FAMFS_BLOCK_SIZE;
	/* df's "Avail": what one file can use, the largest file the
	 * allocator places now (docs/fuse.md); f_bfree stays the raw total
	 */
	v.f_bavail = s.largest_file_bytes / FAMFS_BLOCK_SIZE;
	/* inodes: what the log can still describe (a FILE entry ~ 160 B) */
	v.f_ffree = (ls.size_bytes - ls.used_bytes) / 160;
	v.f_files = s.nfiles + s.ndirs + 1 + v.f_ffree;
	v.f_favail = v.f_ffree;
	v.f_namemax = FAMFS_NAME_MAX;
	fuse_reply_statfs(req, &v);
}

static char *xattr_map_committed(uint64_t ino, int *err)
{
	char path[FAMFS_PATH_MAX + 2];
	struct famfs_node *n;
	struct famfs_attr a;
	char *json = NULL;

	*err = 0;
	famfs_fs_rdlock(fused.fs);
	n = famfs_node_by_ino(fused.fs, ino);
	if (!n)
		*err = -ENOENT;
	else if (famfs_node_is_dir(n) || !famfs_node_map(n))
		*err = -ENODATA;
	else if ((*err = famfs_node_path(n, path, sizeof(path))) >= 0) {
		*err = 0;
		famfs_node_attr(n, &a);
		json = fused_map_json(path, a.size, a.alloc_bytes,
				      famfs_node_map(n), true);
		if (!json)
			*err = -ENOMEM;
	}
	famfs_fs_unlock(fused.fs);
	return json;
}

/* The path of committed @ino inside the filesystem, as the log names it. */
static char *node_path(uint64_t ino, int *err)
{
	char path[FAMFS_PATH_MAX + 2];
	struct famfs_node *n;
	uint64_t committed = ino;

	*err = 0;
	if (is_pending(ino)) {
		free(pend_xattr_map(ino, &committed, err));
		if (*err)
			return NULL;
		if (!committed) {
			*err = -ENODATA; /* not in the log yet */
			return NULL;
		}
	}
	famfs_fs_rdlock(fused.fs);
	n = famfs_node_by_ino(fused.fs, committed);
	*err = n ? famfs_node_path(n, path, sizeof(path)) : -ENOENT;
	famfs_fs_unlock(fused.fs);
	if (*err < 0)
		return NULL;
	*err = 0;
	return strdup(path);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			size_t size)
{
	char *json = NULL;
	int err = 0;

	if (!strcmp(name, XATTR_DEVICES)) {
		json = fused_devices_json();
		err = json ? 0 : -ENOMEM;
	} else if (!strcmp(name, XATTR_PATH)) {
		json = node_path(resolve(ino), &err);
	} else if (!strcmp(name, XATTR_MAP)) {
		uint64_t committed = 0;

		ino = resolve(ino);
		if (is_pending(ino))
			json = pend_xattr_map(ino, &committed, &err);
		else
			committed = ino;
		if (!err && committed)
			json = xattr_map_committed(committed, &err);
	} else {
		err = -ENODATA;
	}
	if (!err && !json)
		err = -ENOMEM;
	if (err)
		fuse_reply_err(req, -err);
	else if (size == 0)
		fuse_reply_xattr(req, strlen(json));
	else if (size < strlen(json))
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, json, strlen(json));
	free(json);
}

/* The user.famfs.* attributes are virtual and not listed, so that
 * `cp -a` out of famfs does not copy them onto the destination.
 */
static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	(void)ino;
	if (size == 0)
		fuse_reply_xattr(req, 0);
	else
		fuse_reply_buf(req, NULL, 0);
}

void fused_ops_read(struct fuse_lowlevel_ops *ops)
{
	ops->init = op_init;
	ops->lookup = op_lookup;
	ops->forget = op_forget;
	ops->forget_multi = op_forget_multi;
	ops->getattr = op_getattr;
	ops->opendir = op_opendir;
	ops->readdir = op_readdir;
	ops->releasedir = op_releasedir;
	ops->open = op_open;
	ops->read = op_read;
	ops->release = op_release;
	ops->statfs = op_statfs;
	ops->getxattr = op_getxattr;
	ops->listxattr = op_listxattr;
}

void fused_dirs_free_all(void)
{
	while (snaps)
		snap_free(snaps);
}
