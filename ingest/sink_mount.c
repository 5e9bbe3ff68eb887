// SPDX-License-Identifier: Apache-2.0
/*
 * The mount sink: the filesystem is mounted as master by famfs-fused,
 * which alone writes the log. A file is created and sized through the
 * mount (the server allocates its map), its map read from the xattr
 * user.famfs.map, its bytes copied straight into the devices (mapped
 * here), and it is committed through the mount: docs/ingest.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ingest.h"
#include "sink_mount.h"
#include "map_json.h"

#define XATTR_MAP "user.famfs.map"
#define XATTR_PENDING "user.famfs.pending"  /* commit only when told */
#define XATTR_POLICY "user.famfs.policy"    /* "chunk=N strips=M" */
#define XATTR_COMMIT "user.famfs.commit"

struct mount_sink {
	char *mnt;
	pthread_mutex_t lock;
	unsigned ndev;
	char *dev_path[FAMFS_MAX_DEVICES];
	struct famfs_dev *dev[FAMFS_MAX_DEVICES];
};

struct mount_file {
	int fd;
	bool pending;           /* the server commits only on XATTR_COMMIT */
};

static char *full(struct mount_sink *m, const char *path)
{
	char *s;

	return asprintf(&s, "%s%s", m->mnt, path) < 0 ? NULL : s;
}

static int ms_stat(void *s, const char *path, struct famfs_attr *a)
{
	char *p = full(s, path);
	struct stat st;
	int r = p && lstat(p, &st) == 0 ? 0 : -errno;   /* a link is itself */

	free(p);
	if (r)
		return r;
	memset(a, 0, sizeof(*a));
	a->ino = st.st_ino;
	a->mode = st.st_mode;
	a->uid = st.st_uid;
	a->gid = st.st_gid;
	a->size = (uint64_t)st.st_size;
	a->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec;
	return 0;
}

/* Put DAC override back into this thread's effective set: changing the
 * fsuid away from 0 drops it, but the permission check on the parent must
 * still be root's (the parent may belong to someone else).
 */
static void keep_dac_override(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return;
	d[0].effective |= d[0].permitted & ((1u << CAP_DAC_OVERRIDE) |
					    (1u << CAP_DAC_READ_SEARCH) |
					    (1u << CAP_FOWNER));
	syscall(SYS_capset, &h, d);
}

/*
 * A directory is committed to the log by mkdir itself and famfs has no
 * attribute changes, so it must be born with its owner and mode: the FUSE
 * request carries the caller's fsuid/fsgid (per thread on Linux, so only
 * this thread changes) and the mode the kernel masked with the umask
 * (per process, hence the lock and the short window).
 */
static int ms_mkdir(void *s, const char *path, uint32_t mode, uint32_t uid, uint32_t gid)
{
	static pthread_mutex_t umask_lock = PTHREAD_MUTEX_INITIALIZER;
	char *p = full(s, path);
	int r;

	if (!p)
		return -ENOMEM;
	pthread_mutex_lock(&umask_lock);
	mode_t old = umask(0);
	int ofsgid = setfsgid(gid), ofsuid = setfsuid(uid);

	keep_dac_override();
	r = mkdir(p, mode) == 0 ? 0 : -errno;
	setfsuid((uid_t)ofsuid);
	setfsgid((gid_t)ofsgid);
	umask(old);
	pthread_mutex_unlock(&umask_lock);
	free(p);
	return r;
}

/* The devices named in a map, opened once and kept. */
static int device_index(struct mount_sink *m, const char *path, uint32_t idx,
			char *why, size_t whylen)
{
	struct famfs_err e = { 0 };
	int r = 0;

	if (idx >= FAMFS_MAX_DEVICES)
		return -ERANGE;
	pthread_mutex_lock(&m->lock);
	if (!m->dev[idx]) {
		r = famfs_dev_open(path, true, &m->dev[idx], &e);
		if (r)
			snprintf(why, whylen, "%s", e.msg);
		else if (idx >= m->ndev)
			m->ndev = idx + 1;
	}
	pthread_mutex_unlock(&m->lock);
	return r;
}

/*
 * Where files may lie on device @idx: past the label unit, and on device
 * 0 past the log the superblock there describes. Called with m->lock.
 */
static struct famfs_map_dev device_area(struct mount_sink *m, uint32_t idx)
{
	struct famfs_map_dev d = { 0, FAMFS_UNIT_SIZE };
	const struct famfs_superblock *sb;
	uint64_t end;

	if (!m->dev[idx])
		return d;
	d.size = famfs_dev_size(m->dev[idx]);
	if (idx == 0) {
		sb = (const void *)(famfs_dev_base(m->dev[0]) + FAMFS_SB_OFFSET);
		d.data_start = d.size; /* no superblock: nothing is safe */
		if (sb->magic == FAMFS_SB_MAGIC &&
		    !__builtin_add_overflow(sb->log_offset, sb->log_size, &end) &&
		    end <= d.size - FAMFS_UNIT_SIZE)
			d.data_start = (end + FAMFS_UNIT_SIZE - 1) /
				       FAMFS_UNIT_SIZE * FAMFS_UNIT_SIZE;
	}
	return d;
}

/* The server's map, parsed and checked before a byte is written through
 * it: a bad one must not scribble over the log or another file.
 */
static int parse_map(struct mount_sink *m, const char *json, uint64_t size,
		     struct ingest_target *t, char *why, size_t whylen)
{
	json_object *root = json_tokener_parse(json), *map;
	struct famfs_map_dev devs[FAMFS_MAX_DEVICES];
	char what[200];
	int r = -EBADMSG;

	snprintf(what, sizeof(what), "no \"map\" object");
	if (!root || !json_object_object_get_ex(root, "map", &map))
		goto out;
	r = map_json_parse(map, &t->map, what, sizeof(what));
	if (r)
		goto out;
	for (unsigned i = 0; i < t->map->nitems; i++) {
		struct famfs_map_item *mi = &t->map->items[i];

		r = device_index(m, map_json_device(map, i), mi->dev_index,
				 why, whylen);
		if (r)
			goto out;
		t->dev_base[mi->dev_index] = famfs_dev_base(m->dev[mi->dev_index]);
	}
	/* other copy threads may be opening devices of their maps meanwhile */
	pthread_mutex_lock(&m->lock);
	for (uint32_t d = 0; d < FAMFS_MAX_DEVICES; d++)
		devs[d] = device_area(m, d);
	pthread_mutex_unlock(&m->lock);
	r = famfs_fmap_check(t->map, size, devs, FAMFS_MAX_DEVICES, what,
			     sizeof(what));
out:
	if (r == -EBADMSG || r == -EINVAL) {
		snprintf(why, whylen, "the server's %s is not a usable map (%s): "
			 "%.200s", XATTR_MAP, what, json);
		r = -EBADMSG;
	}
	json_object_put(root);
	return r;
}

static int ms_begin(void *s, const char *path, uint64_t size, struct ingest_target *t,
		    char *why, size_t whylen)
{
	struct mount_sink *m = s;
	struct mount_file *f = calloc(1, sizeof(*f));
	char *p = full(m, path), buf[16384];
	ssize_t n;
	int r = 0;

	if (!f || !p) {
		free(f);
		free(p);
		return -ENOMEM;
	}
	f->fd = open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		r = -errno;
		snprintf(why, whylen, "create: %s", strerror(errno));
		goto fail;
	}
	f->pending = fsetxattr(f->fd, XATTR_PENDING, "1", 1, 0) == 0;
	if (t->policy && (t->policy->chunk || t->policy->nstrips)) {
		char pol[64];
		int len = snprintf(pol, sizeof(pol), "chunk=%llu strips=%u",
				   (unsigned long long)t->policy->chunk,
				   t->policy->nstrips);

		if (fsetxattr(f->fd, XATTR_POLICY, pol, (size_t)len, 0) != 0) {
			r = -errno;
			snprintf(why, whylen, "interleave (%s %s): %s%s", XATTR_POLICY,
				 pol, strerror(errno), errno == ENOTSUP ?
				 " (this famfs-fused takes no per-file interleave)" : "");
			goto fail;
		}
	}
	if (size && fallocate(f->fd, 0, 0, (off_t)size) != 0 &&
	    ftruncate(f->fd, (off_t)size) != 0) {
		char how[800];

		r = -errno;
		/* the server's ENOSPC says no more: the allocator's reason,
		 * from the same rule over the committed log
		 */
		if (r == -ENOSPC &&
		    ingest_nospace_mount(m->mnt, size, how, sizeof(how)) == -ENOSPC)
			snprintf(why, whylen, "allocate %llu bytes: %s",
				 (unsigned long long)size, how);
		else
			snprintf(why, whylen, "allocate %llu bytes: %s",
				 (unsigned long long)size, strerror(-r));
		goto fail;
	}
	n = fgetxattr(f->fd, XATTR_MAP, buf, sizeof(buf) - 1);
	if (n < 0) {
		r = -errno;
		snprintf(why, whylen, "read map (%s): %s", XATTR_MAP, strerror(errno));
		goto fail;
	}
	buf[n] = '\0';
	r = parse_map(m, buf, size, t, why, whylen);
	if (r)
		goto fail;
	t->sink_private = f;
	free(p);
	return 0;
fail:
	if (f->fd >= 0) {
		close(f->fd);
		unlink(p);
	}
	free(t->map);
	t->map = NULL;
	free(f);
	free(p);
	return r;
}

static int ms_remove(void *s, const char *path);

static int ms_commit(void *s, struct ingest_target *t, const char *path,
		     const struct famfs_file_attr *a, char *why, size_t whylen)
{
	struct mount_sink *m = s;
	struct mount_file *f = t->sink_private;
	struct timespec ts[2];
	int r = 0;

	(void)path;
	/* the data must be durable before the commit makes it visible */
	for (unsigned i = 0; i < t->map->nitems && !r; i++)
		r = famfs_dev_flush(m->dev[t->map->items[i].dev_index],
				    t->map->items[i].offset, t->map->items[i].length);
	if (r) {
		snprintf(why, whylen, "flush of the file's data: %s", strerror(-r));
		return r;
	}
	ts[0].tv_sec = ts[1].tv_sec = (time_t)(a->mtime_ns / 1000000000ULL);
	ts[0].tv_nsec = ts[1].tv_nsec = (long)(a->mtime_ns % 1000000000ULL);
	if (fchown(f->fd, a->uid, a->gid) || fchmod(f->fd, a->mode) ||
	    futimens(f->fd, ts) ||
	    (f->pending && fsetxattr(f->fd, XATTR_COMMIT, "1", 1, 0))) {
		r = -errno;
		snprintf(why, whylen, "commit: %s", strerror(errno));
	}
	if (close(f->fd) && !r) {
		r = -errno;
		snprintf(why, whylen, "commit (close): %s", strerror(errno));
	}
	free(f);
	t->sink_private = NULL;
	return r;
}

static void ms_abort(void *s, struct ingest_target *t, const char *path)
{
	struct mount_file *f = t->sink_private;

	/* pending: the server drops the file at close, it never appeared;
	 * a server without pending files committed it at close: delete it
	 */
	if (f) {
		close(f->fd);
		if (!f->pending)
			ms_remove(s, path);
		free(f);
	}
	free(t->map);
	t->map = NULL;
	t->sink_private = NULL;
}

static uint64_t ms_free_bytes(void *s)
{
	struct mount_sink *m = s;
	struct statvfs v;

	return statvfs(m->mnt, &v) == 0 ? (uint64_t)v.f_bfree * v.f_frsize : 0;
}

static int ms_place_plan(void *s, const uint64_t *sizes, uint64_t n,
			 uint64_t *failed, char *why, size_t whylen)
{
	struct mount_sink *m = s;

	return ingest_place_plan_mount(m->mnt, sizes, n, failed, why, whylen);
}

static int64_t ms_read(void *s, const char *path, uint64_t off, void *buf, uint64_t len)
{
	char *p = full(s, path);
	int fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n;

	free(p);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)off);
	close(fd);
	return n < 0 ? -errno : n;
}

static int ms_remove(void *s, const char *path)
{
	char *p = full(s, path);
	int r = p && unlink(p) == 0 ? 0 : -errno;

	free(p);
	return r;
}

static int ms_rename(void *s, const char *from, const char *to)
{
	char *f = full(s, from), *t = full(s, to);
	int r = f && t && rename(f, t) == 0 ? 0 : -errno;

	free(f);
	free(t);
	return r;
}

/* Directories below @path (mount-relative "/x"), pre-order. */
static int ms_walk_dirs(struct mount_sink *m, const char *path,
			void (*fn)(void *arg, const char *path), void *arg)
{
	char *p = full(m, path);
	DIR *d = p ? opendir(p) : NULL;
	struct dirent *e;
	int r = 0;

	free(p);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!r && (e = readdir(d))) {
		char *c;

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") ||
		    !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&c, "%s/%s", strcmp(path, "/") ? path : "", e->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		fn(arg, c);
		r = ms_walk_dirs(m, c, fn, arg);
		free(c);
	}
	closedir(d);
	return r;
}

static int ms_list_dirs(void *s, const char *dir,
			void (*fn)(void *arg, const char *path), void *arg)
{
	return ms_walk_dirs(s, dir, fn, arg);
}

static int ms_rmdir(void *s, const char *path)
{
	char *p = full(s, path);
	int r = p && rmdir(p) == 0 ? 0 : -errno;

	free(p);
	return r;
}

static int ms_symlink(void *s, const char *path, const char *target,
		      uint32_t uid, uint32_t gid, uint64_t mtime_ns)
{
	char *p = full(s, path);
	struct timespec ts[2] = {
		{ .tv_nsec = UTIME_OMIT },
		{ (time_t)(mtime_ns / 1000000000ULL), (long)(mtime_ns % 1000000000ULL) },
	};
	int r = -ENOMEM;

	if (p)
		r = symlink(target, p) || lchown(p, uid, gid) ||
		    utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	free(p);
	return r;
}

static int ms_readlink(void *s, const char *path, char *buf, size_t len)
{
	char *p = full(s, path);
	ssize_t n = p ? readlink(p, buf, len ? len - 1 : 0) : -1;
	int r = n < 0 ? -errno : (int)n;

	if (n >= 0)
		buf[n] = '\0';
	free(p);
	return r;
}

static const struct ingest_sink_ops mount_ops = {
	.stat = ms_stat, .mkdir = ms_mkdir, .begin = ms_begin, .commit = ms_commit,
	.abort = ms_abort, .free_bytes = ms_free_bytes, .read = ms_read,
	.remove = ms_remove, .rename = ms_rename, .rmdir = ms_rmdir,
	.list_dirs = ms_list_dirs, .place_plan = ms_place_plan,
	.symlink = ms_symlink, .readlink = ms_readlink,
};

int ingest_sink_mount_open(struct ingest_sink *k, const char *mountpoint,
			   unsigned ndev)
{
	struct mount_sink *m = calloc(1, sizeof(*m));

	if (!m || !(m->mnt = strdup(mountpoint))) {
		free(m);
		return -ENOMEM;
	}
	pthread_mutex_init(&m->lock, NULL);
	k->ops = &mount_ops;
	k->s = m;
	k->ndev = ndev;
	return 0;
}

void ingest_sink_mount_close(struct ingest_sink *k)
{
	struct mount_sink *m = k->s;

	if (!m)
		return;
	for (unsigned i = 0; i < FAMFS_MAX_DEVICES; i++)
		famfs_dev_close(m->dev[i]);
	pthread_mutex_destroy(&m->lock);
	free(m->mnt);
	free(m);
	k->s = NULL;
}
