// SPDX-License-Identifier: Apache-2.0
/*
 * Mounts through the famfs kernel module (mount(2) is kmount_mount.c's):
 * the log (read through MNT/.meta/devN, the same DAX memory the files
 * map) replayed into the mount with the module's ioctls. A sync compares the mount's
 * tree with the replayed one by inode number (the module reports the
 * log's: 1 + the seq of the creating entry), so it needs no memory of
 * earlier passes: what the mount has and the log no longer has (deleted,
 * or replaced by a newer file of the same name) is removed, what the log
 * has and the mount not is added.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "famfs_kmount.h"
#include "internal.h"
#include "famfs/famfs_ioctl.h"

FAMFS_STATIC_ASSERT(sizeof(struct famfs_ioc_item) ==
		    sizeof(struct famfs_map_item), "uapi item differs");
FAMFS_STATIC_ASSERT(FAMFS_IOC_NAME_MAX == FAMFS_NAME_MAX, "name limits");
FAMFS_STATIC_ASSERT(FAMFS_IOC_SYMLINK_MAX == FAMFS_SYMLINK_MAX,
		    "symlink target limits");

/* A file the log deleted (or renamed another over), by the entry that
 * freed its memory: what a REMOVE tells the module.
 */
struct freed {
	uint64_t ino;
	uint64_t seq;
};

/* The EXCHANGE the last replay ended with (kmount_walk() swaps it). */
struct exchange {
	bool pending;
	uint64_t ino_a, ino_b;
	char a[FAMFS_PATH_MAX + 1], b[FAMFS_PATH_MAX + 1];
};

struct famfs_kmount {
	char mnt[FAMFS_PATH_MAX + 1];
	struct exchange xchg;
	struct famfs_fs *fs;
	bool dirty;               /* entries replayed or busy since the walk */
	unsigned added;           /* devices attach added, for the next count */
	struct freed *freed;      /* replayed since the last sync */
	size_t nfreed, capfreed;
};

struct sync_ctx {
	struct famfs_kmount *km;
	struct famfs_fs *fs;
	struct famfs_kmount_count *n;
	struct famfs_err *e;
	const char *mnt;
	bool removing;            /* pass 1 removes, pass 2 adds */
};

/* MNT/.meta/dev0, dev1, ...: the devices the mount has. */
static unsigned meta_paths(const char *mnt, char (*buf)[FAMFS_PATH_MAX],
			   const char **paths)
{
	struct stat st;
	unsigned n;

	for (n = 0; n < FAMFS_MAX_DEVICES; n++) {
		snprintf(buf[n], FAMFS_PATH_MAX, "%s/%s/%s%u", mnt,
			 FAMFS_KMOD_META_DIR, FAMFS_KMOD_META_DEV_PREFIX, n);
		if (stat(buf[n], &st) != 0)
			break;
		paths[n] = buf[n];
	}
	return n;
}

static int read_at(const char *path, uint64_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = pread(fd, buf, len, (off_t)off);
	close(fd);
	return got == (ssize_t)len ? 0 : -EIO;
}

/*
 * The device among @devs whose label says it is device @index of the
 * filesystem whose superblock dev0 of the mount holds: added to the mount.
 */
static int add_device(const char *mnt, const char *dev0, unsigned index,
		      const char *const *devs, unsigned ndev,
		      struct famfs_err *e)
{
	struct famfs_ioc_device_add req = { .dev_index = index };
	struct famfs_superblock sb;
	struct famfs_dev_label l;
	int fd, r;

	r = read_at(dev0, FAMFS_SB_OFFSET, &sb, sizeof(sb));
	if (r)
		return famfs_set_err(e, r, "%s: cannot read the superblock",
				     dev0);
	for (unsigned i = 0; i < ndev; i++) {
		if (read_at(devs[i], FAMFS_LABEL_OFFSET, &l, sizeof(l)) ||
		    famfs_label_check(&l, devs[i], NULL) ||
		    memcmp(&l.fs_uuid, &sb.fs_uuid, sizeof(l.fs_uuid)) ||
		    l.dev_index != index)
			continue;
		if (strlen(devs[i]) >= sizeof(req.path))
			return famfs_set_err(e, -ENAMETOOLONG, "%s: path too "
					     "long", devs[i]);
		snprintf(req.path, sizeof(req.path), "%s", devs[i]);
		fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return famfs_set_err(e, -errno, "cannot open %s: %s",
					     mnt, strerror(errno));
		r = ioctl(fd, FAMFS_IOC_DEVICE_ADD, &req) ? -errno : 0;
		close(fd);
		if (r)
			return famfs_set_err(e, r, "%s: the kernel refused it "
					     "as device %u: %s (see dmesg)",
					     devs[i], index, strerror(-r));
		return 0;
	}
	return famfs_set_err(e, -ENODEV, "the log added device %u; none of "
			     "the %u devices given carries its label", index,
			     ndev);
}

/* Replay's change callback (write lock held): note what frees memory. */
static void note_freed(void *arg, const struct famfs_entry_hdr *h,
		       struct famfs_node *node, struct famfs_node *parent,
		       const char *name)
{
	struct famfs_kmount *km = arg;
	uint64_t target = 0;
	struct freed *grown;

	(void)parent;
	(void)name;
	if (h->type == FAMFS_ENTRY_EXCHANGE && node && !km->xchg.pending) {
		const struct famfs_entry_exchange *x = (const void *)(h + 1);
		const char *pa = (const char *)(x + 1);

		km->xchg.pending = true;
		km->xchg.ino_a = FAMFS_ROOT_INO + x->a_seq;
		km->xchg.ino_b = FAMFS_ROOT_INO + x->b_seq;
		snprintf(km->xchg.a, sizeof(km->xchg.a), "%.*s", (int)x->a_len, pa);
		snprintf(km->xchg.b, sizeof(km->xchg.b), "%.*s", (int)x->b_len,
			 pa + x->a_len);
		return;
	}
	if (h->type == FAMFS_ENTRY_DELETE)
		target = ((const struct famfs_entry_delete *)(h + 1))->target_seq;
	else if (h->type == FAMFS_ENTRY_RENAME && !node)
		target = ((const struct famfs_entry_rename *)(h + 1))->replaced_seq;
	if (!target)
		return;
	if (km->nfreed == km->capfreed) {
		size_t cap = km->capfreed ? km->capfreed * 2 : 64;

		grown = realloc(km->freed, cap * sizeof(*grown));
		if (!grown)
			return;   /* the lower bound is used: still safe */
		km->freed = grown;
		km->capfreed = cap;
	}
	km->freed[km->nfreed++] = (struct freed){ FAMFS_ROOT_INO + target,
						  h->seq };
}

/*
 * The seq a REMOVE of inode @ino names: the entry that freed it when
 * replay saw it, else @ino itself, a lower bound (the delete comes after
 * the creating entry, seq ino - 1), e.g. for deletes replayed by attach.
 * When the log still has the inode, it moved (a renamed directory: a
 * retired dataset generation): its memory is not freed yet, but the
 * inode removed here is the one an open file or a mapping keeps, and
 * the file at the new name is a new inode (not even added while the old
 * one maps the memory, claims.c). So the old one is held from the entry
 * after the log's last: whatever deletes the file later comes after it.
 */
static uint64_t freed_seq(struct sync_ctx *c, uint64_t ino)
{
	if (famfs_node_by_ino(c->fs, ino))
		return c->fs->last_seq + 1;
	for (size_t i = 0; i < c->km->nfreed; i++)
		if (c->km->freed[i].ino == ino)
			return c->km->freed[i].seq;
	return ino;
}

/* Open the log via .meta, adding the devices the log added first. */
static int open_log(const char *mnt, const char *const *devs, unsigned ndev,
		    struct famfs_fs **fs, unsigned *added, struct famfs_err *e)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	char (*buf)[FAMFS_PATH_MAX] = calloc(FAMFS_MAX_DEVICES, sizeof(*buf));
	struct famfs_ioc_synced s;
	int fd;

	/* Replay in steps past where the mount was brought (an agent before
	 * this one): each EXCHANGE is swapped in place. A module without
	 * the seq: all at once, exchanges by remove and add.
	 */
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && !ioctl(fd, FAMFS_IOC_SYNCED_GET, &s)) {
		o.flags |= FAMFS_OPEN_EXCHANGE_STEPS;
		o.steps_after = s.seq;
	}
	if (fd >= 0)
		close(fd);
	const char *paths[FAMFS_MAX_DEVICES];
	unsigned nmeta;
	int r;

	if (!buf)
		return famfs_set_err(e, -ENOMEM, "out of memory");
	for (;;) {
		nmeta = meta_paths(mnt, buf, paths);
		if (nmeta == 0) {
			r = famfs_set_err(e, -ENOENT, "%s is not a famfs "
					  "kernel mount (no %s/%s0)", mnt,
					  FAMFS_KMOD_META_DIR,
					  FAMFS_KMOD_META_DEV_PREFIX);
			break;
		}
		r = famfs_open(paths, nmeta, &o, fs, e);
		if (r != -ENODEV)
			break;
		r = add_device(mnt, paths[0], nmeta, devs, ndev, e);
		if (r)
			break;
		(*added)++;
	}
	free(buf);
	return r;
}

/* (Re)open the log and listen to its changes. */
static int kmount_open(struct famfs_kmount *km, const char *const *devs,
		       unsigned ndev, unsigned *added, struct famfs_err *e)
{
	int r = open_log(km->mnt, devs, ndev, &km->fs, added, e);

	if (!r)
		famfs_set_change_cb(km->fs, note_freed, km);
	return r;
}

FAMFS_EXPORT int famfs_kmount_attach(const char *mnt, const char *const *devs,
				     unsigned ndev, struct famfs_kmount **out,
				     struct famfs_err *e)
{
	struct famfs_kmount *km = calloc(1, sizeof(*km));
	int r;

	if (!km)
		return famfs_set_err(e, -ENOMEM, "out of memory");
	snprintf(km->mnt, sizeof(km->mnt), "%s", mnt);
	r = kmount_open(km, devs, ndev, &km->added, e);
	if (r) {
		free(km);
		return r;
	}
	km->dirty = true;
	*out = km;
	return 0;
}

FAMFS_EXPORT void famfs_kmount_detach(struct famfs_kmount *km)
{
	if (!km)
		return;
	km->fs->slot = -1;        /* the mount keeps it for the next attach */
	famfs_close(km->fs);
	free(km->freed);
	free(km);
}


static int sync_dir(struct sync_ctx *c, int dirfd, struct famfs_node *dir);

static int create_file(int dirfd, struct famfs_node *n,
		       const struct famfs_attr *a)
{
	const struct famfs_fmap *m = famfs_node_map(n);
	struct famfs_ioc_create req;

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", famfs_node_name(n));
	req.ino = a->ino;
	req.size = a->size;
	req.mtime_ns = a->mtime_ns;
	req.ctime_ns = a->ctime_ns;
	req.mode = a->mode & 07777;
	req.uid = a->uid;
	req.gid = a->gid;
	if (m) {
		req.map.map_type = m->type;
		req.map.nitems = m->nitems;
		req.map.chunk = m->chunk;
		req.map.items = (uint64_t)(uintptr_t)m->items;
	}
	return ioctl(dirfd, FAMFS_IOC_CREATE, &req) ? -errno : 0;
}

static int create_dir(int dirfd, struct famfs_node *n,
		      const struct famfs_attr *a)
{
	struct famfs_ioc_mkdir req;

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", famfs_node_name(n));
	req.ino = a->ino;
	req.mtime_ns = a->mtime_ns;
	req.mode = a->mode & 07777;
	req.uid = a->uid;
	req.gid = a->gid;
	return ioctl(dirfd, FAMFS_IOC_MKDIR, &req) ? -errno : 0;
}

static int create_symlink(int dirfd, struct famfs_node *n,
			  const struct famfs_attr *a)
{
	const char *target = famfs_node_target(n);
	struct famfs_ioc_symlink req;

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", famfs_node_name(n));
	req.ino = a->ino;
	req.mtime_ns = a->mtime_ns;
	req.uid = a->uid;
	req.gid = a->gid;
	req.target = (uint64_t)(uintptr_t)target;
	req.target_len = (uint32_t)strlen(target);
	return ioctl(dirfd, FAMFS_IOC_SYMLINK, &req) ? -errno : 0;
}

static int remove_entry(int dirfd, const char *name, uint64_t ino,
			uint64_t seq)
{
	struct famfs_ioc_remove req = { .ino = ino, .seq = seq };

	snprintf(req.name, sizeof(req.name), "%s", name);
	return ioctl(dirfd, FAMFS_IOC_REMOVE, &req) ? -errno : 0;
}

static int remove_tree(struct sync_ctx *c, int dirfd, const char *name,
		       uint64_t ino, bool is_dir);

/* Remove everything in the directory open as @dirfd. */
static int empty_dir(struct sync_ctx *c, int dirfd)
{
	_cleanup_close_ int fd = dup(dirfd);
	_cleanup_closedir_ DIR *dir = NULL;
	struct dirent *d;
	int r = 0;

	if (fd < 0 || !(dir = fdopendir(fd)))
		return -errno;
	(void)TAKE_FD(fd); /* the DIR's now */
	while (!r && (d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			r = remove_tree(c, dirfd, d->d_name, d->d_ino,
					d->d_type == DT_DIR);
	return r;
}

static int remove_tree(struct sync_ctx *c, int dirfd, const char *name,
		       uint64_t ino, bool is_dir)
{
	int fd, r = 0;

	if (is_dir) {
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		r = empty_dir(c, fd);
		close(fd);
	}
	if (!r)
		r = remove_entry(dirfd, name, ino,
				 is_dir ? 0 : freed_seq(c, ino));
	if (!r)
		c->n->removed++;
	return r;
}

/* Remove what the mount has in @dir and the log does not (any more). */
static int remove_stale(struct sync_ctx *c, int dirfd, struct famfs_node *dir,
			bool root)
{
	_cleanup_close_ int fd = dup(dirfd);
	_cleanup_closedir_ DIR *dh = NULL;
	struct famfs_node *n;
	struct famfs_attr a;
	struct dirent *d;
	int r = 0;

	if (fd < 0 || !(dh = fdopendir(fd)))
		return famfs_set_err(c->e, -errno, "cannot read a directory "
				     "of %s", c->mnt);
	(void)TAKE_FD(fd); /* the DIR's now */
	while (!r && (d = readdir(dh))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    (root && !strcmp(d->d_name, FAMFS_KMOD_META_DIR)))
			continue;
		n = famfs_lookup_child(c->fs, dir, d->d_name);
		if (n) {
			famfs_node_attr(n, &a);
			if (a.ino == d->d_ino &&
			    famfs_node_is_dir(n) == (d->d_type == DT_DIR))
				continue;
		}
		r = remove_tree(c, dirfd, d->d_name, d->d_ino,
				d->d_type == DT_DIR);
		if (r)
			famfs_set_err(c->e, r, "%s: cannot remove %s: %s",
				      c->mnt, d->d_name, strerror(-r));
	}
	return r;
}

static uint64_t ts_ns(struct timespec t)
{
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/*
 * @n is in the mount already: give it what later SETATTR entries set
 * (mode, owner, a file's mtime; the module's directories keep their own
 * times, changed by every add and remove).
 */
static int update_attrs(struct sync_ctx *c, int dirfd, struct famfs_node *n,
			const struct famfs_attr *a)
{
	struct famfs_ioc_setattr req;
	struct stat st;

	if (fstatat(dirfd, famfs_node_name(n), &st, AT_SYMLINK_NOFOLLOW) ||
	    st.st_ino != a->ino)
		return 0;
	if ((st.st_mode & 07777) == (a->mode & 07777) && st.st_uid == a->uid &&
	    st.st_gid == a->gid &&
	    (S_ISDIR(st.st_mode) || ts_ns(st.st_mtim) == a->mtime_ns))
		return 0;
	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", famfs_node_name(n));
	req.ino = a->ino;
	req.mtime_ns = a->mtime_ns;
	req.ctime_ns = a->ctime_ns;
	req.atime_ns = a->atime_ns;
	req.mode = a->mode & 07777;
	req.uid = a->uid;
	req.gid = a->gid;
	if (ioctl(dirfd, FAMFS_IOC_SETATTR, &req))
		return -errno;
	c->n->attrs++;
	return 0;
}

/* Add @n to the directory open as @dirfd unless the mount has it. */
static int add_one(struct sync_ctx *c, int dirfd, struct famfs_node *n)
{
	char path[FAMFS_PATH_MAX + 1];
	struct famfs_attr a;
	int r;

	famfs_node_attr(n, &a);
	r = famfs_node_is_dir(n) ? create_dir(dirfd, n, &a) :
	    famfs_node_is_symlink(n) ? create_symlink(dirfd, n, &a) :
	    create_file(dirfd, n, &a);
	if (!r && famfs_node_is_dir(n))
		c->n->dirs++;
	else if (!r && famfs_node_is_symlink(n))
		c->n->symlinks++;
	else if (!r)
		c->n->files++;
	else if (r == -EEXIST && !(r = update_attrs(c, dirfd, n, &a)))
		c->n->existing++;
	else if (r == -EBUSY)
		c->n->busy++;
	if (r && r != -EEXIST && r != -EBUSY) {
		famfs_node_path(n, path, sizeof(path));
		return famfs_set_err(c->e, r, "%s%s: %s%s", c->mnt,
				     path, strerror(-r), r == -EINVAL ?
				     " (the kernel refused its map; "
				     "see dmesg)" : "");
	}
	return 0;
}

/* Add the log's children of @dir that the mount lacks, depth first (pass
 * 2); pass 1 walks the same directories for remove_stale() only.
 */
static int add_missing(struct sync_ctx *c, int dirfd, struct famfs_node *dir)
{
	struct famfs_node *n;
	int r;

	for (n = famfs_node_first_child(dir); n; n = famfs_node_next_sibling(n)) {
		r = c->removing ? 0 : add_one(c, dirfd, n);
		if (r)
			return r;
		if (!famfs_node_is_dir(n))
			continue;
		_cleanup_close_ int fd = openat(dirfd, famfs_node_name(n),
						O_RDONLY | O_DIRECTORY |
						O_CLOEXEC);
		if (fd < 0 && c->removing && errno == ENOENT)
			continue;  /* not in the mount yet: nothing to remove */
		if (fd < 0)
			return famfs_set_err(c->e, -errno, "cannot open a "
					     "directory of %s", c->mnt);
		r = sync_dir(c, fd, n);
		if (r)
			return r;
	}
	return 0;
}

static int sync_dir(struct sync_ctx *c, int dirfd, struct famfs_node *dir)
{
	int r = c->removing ? remove_stale(c, dirfd, dir,
					   dir == famfs_root(c->fs)) : 0;

	return r ? r : add_missing(c, dirfd, dir);
}

/* The module's FAMFS_IOC_HELD, on the mount's root. */
static int kmount_held(const char *mnt, struct famfs_ioc_held *h)
{
	int fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = ioctl(fd, FAMFS_IOC_HELD, h) ? -errno : 0;
	close(fd);
	return r;
}

/* libfamfs's slot writer for a kernel mount (slots.c's slot_write()). */
static void kmount_slot_store(void *arg, unsigned i,
			      const struct famfs_client_slot *s)
{
	struct famfs_kmount *km = arg;
	struct famfs_ioc_slot req = { .index = i };
	int fd = open(km->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	memcpy(req.slot, s, sizeof(req.slot));
	if (ioctl(fd, FAMFS_IOC_SLOT_WRITE, &req))
		fprintf(stderr, "famfs: %s: cannot write client slot %u: %s\n",
			km->mnt, i, strerror(errno));
	close(fd);
}

FAMFS_EXPORT int famfs_kmount_claim_slot(struct famfs_kmount *km,
					 const char *host_name,
					 struct famfs_err *e)
{
	struct famfs_fs *fs = km->fs;
	struct famfs_ioc_held h;
	int r;

	if (fs->slot >= 0)
		return 0;
	r = kmount_held(km->mnt, &h);
	if (r)
		return famfs_set_err(e, r, "%s: the famfs module does not "
				     "report held files (FAMFS_IOC_HELD): %s",
				     km->mnt, strerror(-r));
	fs->slot_store = kmount_slot_store;
	fs->slot_store_arg = km;
	if (host_name)
		snprintf(fs->host_name, sizeof(fs->host_name), "%s", host_name);
	pthread_rwlock_wrlock(&fs->lock);
	if (h.slot >= 0 && !famfs_slot_adopt(fs, (unsigned)h.slot,
					     (const void *)h.slot_uuid)) {
		/* a restarted follower: stay where the last one was */
		fs->publish_cap = fs->published_seq;
		r = 0;
	} else {
		/* nothing is published past the mount's first sync */
		fs->publish_cap = 0;
		r = famfs_slot_claim(fs, e);
	}
	pthread_rwlock_unlock(&fs->lock);
	return r;
}

/*
 * After a sync: publish how far the mount follows the log, but not past
 * the delete of a removed file the kernel still has open or mapped.
 */
static int publish_position(struct famfs_kmount *km, struct famfs_err *e)
{
	struct famfs_fs *fs = km->fs;
	struct famfs_ioc_held h;
	uint64_t cap;
	int r;

	if (fs->slot < 0)
		return 0;
	r = kmount_held(km->mnt, &h);
	if (r)
		return famfs_set_err(e, r, "%s: FAMFS_IOC_HELD: %s", km->mnt,
				     strerror(-r));
	pthread_rwlock_wrlock(&fs->lock);
	cap = fs->last_seq;
	if (h.count && h.min_seq - 1 < cap)
		cap = h.min_seq - 1;
	fs->publish_cap = cap;
	famfs_slot_publish(fs);
	pthread_rwlock_unlock(&fs->lock);
	return 0;
}

static int kmount_walk(struct famfs_kmount *km, const char *const *devs,
		       unsigned ndev, struct famfs_kmount_count *n,
		       struct famfs_err *e);
static int kmount_converge(struct famfs_kmount *km,
			   struct famfs_kmount_count *n, struct famfs_err *e);

FAMFS_EXPORT int famfs_kmount_sync(struct famfs_kmount *km,
				   const char *const *devs, unsigned ndev,
				   struct famfs_kmount_count *n,
				   struct famfs_err *e)
{
	int r = kmount_walk(km, devs, ndev, n, e);

	km->nfreed = 0;
	return r ? r : publish_position(km, e);
}

/*
 * A DEVICE_ADD for a device the mount lacks: add it and open the log
 * again, keeping the client slot (the new handle adopts it).
 */
static int reopen_log(struct famfs_kmount *km, const char *const *devs,
		      unsigned ndev, unsigned *added, struct famfs_err *e)
{
	bool had_slot = km->fs->slot >= 0;
	char host[FAMFS_HOSTNAME_LEN];
	int r;

	snprintf(host, sizeof(host), "%s", km->fs->host_name);
	km->fs->slot = -1;
	famfs_close(km->fs);
	km->fs = NULL;
	r = kmount_open(km, devs, ndev, added, e);
	return r || !had_slot ? r : famfs_kmount_claim_slot(km, host, e);
}

/* Open the directory of @path (normalized) in the mount; its last name
 * into @name.
 */
static int open_parent(const char *mnt, const char *path, const char **name)
{
	char dir[2 * FAMFS_PATH_MAX + 2];
	const char *slash = strrchr(path, '/');

	*name = slash + 1;
	snprintf(dir, sizeof(dir), "%s/%.*s", mnt, (int)(slash - path), path);
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/*
 * The EXCHANGE replay just applied, swapped in the mount in one step
 * (FAMFS_IOC_EXCHANGE) when the mount has the two inodes at the two
 * names (it was in step before the entry: replay stopped there). Else,
 * or if the module refuses, the walk's remove and add passes converge
 * the mount the slow way.
 */
static void kmount_exchange(struct famfs_kmount *km,
			    struct famfs_kmount_count *n)
{
	struct famfs_ioc_exchange req = { .ino_a = km->xchg.ino_a,
					  .ino_b = km->xchg.ino_b };
	const char *na, *nb;
	int fa, fb;

	km->xchg.pending = false;
	fa = open_parent(km->mnt, km->xchg.a, &na);
	fb = open_parent(km->mnt, km->xchg.b, &nb);
	if (fa >= 0 && fb >= 0 && strlen(na) < sizeof(req.name_a) &&
	    strlen(nb) < sizeof(req.name_b)) {
		snprintf(req.name_a, sizeof(req.name_a), "%s", na);
		snprintf(req.name_b, sizeof(req.name_b), "%s", nb);
		req.dirfd_b = fb;
		if (!ioctl(fa, FAMFS_IOC_EXCHANGE, &req))
			n->exchanged++;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
}

static int kmount_walk(struct famfs_kmount *km, const char *const *devs,
		       unsigned ndev, struct famfs_kmount_count *n,
		       struct famfs_err *e)
{
	int r;

	memset(n, 0, sizeof(*n));
	n->devices = km->added;
	km->added = 0;
	/* replay stops before and after each EXCHANGE: the mount is brought
	 * up to the entry, the entry swaps the two names in place, on
	 */
	for (;;) {
		if (km->dirty) {
			r = kmount_converge(km, n, e);
			if (r)
				return r;
		}
		r = famfs_replay(km->fs, e);
		if (r < 0)
			return r;
		if (r == 0 && !km->fs->missing_dev[0])
			return 0;
		km->dirty = true;
		if (km->fs->missing_dev[0]) {
			/* A DEVICE_ADD for a device the mount lacks: add
			 * it, reopen.
			 */
			r = reopen_log(km, devs, ndev, &n->devices, e);
			if (r)
				return r;
		}
		if (km->xchg.pending)
			kmount_exchange(km, n);
	}
}

/* The remove pass, then the add pass, over the whole tree. */
static int kmount_converge(struct famfs_kmount *km,
			   struct famfs_kmount_count *n, struct famfs_err *e)
{
	struct sync_ctx c = { .km = km, .n = n, .e = e, .mnt = km->mnt };
	int rootfd, r;

	rootfd = open(km->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return famfs_set_err(e, -errno, "cannot open %s: %s", km->mnt,
				     strerror(errno));
	c.fs = km->fs;
	famfs_fs_rdlock(km->fs);
	/* Every removal before any add: a renamed file (RENAME entry, same
	 * inode and map at a new name) is added only after its old name is
	 * gone, else the module sees its map claimed twice.
	 */
	c.removing = true;
	r = sync_dir(&c, rootfd, famfs_root(km->fs));
	c.removing = false;
	if (!r)
		r = sync_dir(&c, rootfd, famfs_root(km->fs));
	if (!r) {
		/* every EXCHANGE up to here is in the mount */
		struct famfs_ioc_synced s = { .seq = km->fs->last_seq };

		ioctl(rootfd, FAMFS_IOC_SYNCED_SET, &s);
	}
	famfs_fs_unlock(km->fs);
	close(rootfd);
	/* Busy files are tried again next time. */
	km->dirty = r || n->busy;
	return r;
}
