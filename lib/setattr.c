// SPDX-License-Identifier: Apache-2.0
/*
 * The master's metadata changes after commit: one SETATTR entry (format
 * 1.1) for mode, owner, times and, within a file's map, its size. So that
 * cp -a, rsync -a, tar x and touch keep what they set, on every client.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Zero [from, to) of @m on the devices: a grown file must read zeros
 * where an earlier shrink left old bytes.
 */
static int zero_range(struct famfs_fs *fs, const struct famfs_fmap *m,
		      uint64_t from, uint64_t to)
{
	while (from < to) {
		struct famfs_loc loc;
		struct famfs_dev *d;
		uint64_t n;

		if (famfs_fmap_resolve(m, from, &loc))
			return -EFBIG;
		d = loc.dev_index < FAMFS_MAX_DEVICES ? fs->dev[loc.dev_index] : NULL;
		if (!d || loc.dev_offset + loc.length > d->size)
			return -EIO;
		n = to - from < loc.length ? to - from : loc.length;
		memset(d->base + loc.dev_offset, 0, n);
		famfs_dev_flush(d, loc.dev_offset, n);
		from += n;
	}
	return 0;
}

/* Drop the bits of @a that would change nothing on @n. */
static uint32_t effective_bits(const struct famfs_node *n,
			       const struct famfs_setattr *a)
{
	uint32_t v = a->valid;

	if ((v & FAMFS_SETATTR_MODE) && (n->mode & 07777) == (a->mode & 07777))
		v &= ~(uint32_t)FAMFS_SETATTR_MODE;
	if ((v & FAMFS_SETATTR_UID) && n->uid == a->uid)
		v &= ~(uint32_t)FAMFS_SETATTR_UID;
	if ((v & FAMFS_SETATTR_GID) && n->gid == a->gid)
		v &= ~(uint32_t)FAMFS_SETATTR_GID;
	if ((v & FAMFS_SETATTR_ATIME) && n->atime_ns == a->atime_ns)
		v &= ~(uint32_t)FAMFS_SETATTR_ATIME;
	if ((v & FAMFS_SETATTR_MTIME) && n->mtime_ns == a->mtime_ns)
		v &= ~(uint32_t)FAMFS_SETATTR_MTIME;
	if ((v & FAMFS_SETATTR_SIZE) && n->size == a->size)
		v &= ~(uint32_t)FAMFS_SETATTR_SIZE;
	return v;
}

FAMFS_EXPORT int famfs_setattr(struct famfs_fs *fs, uint64_t ino,
			       const struct famfs_setattr *a,
			       struct famfs_err *e)
{
	char path[FAMFS_PATH_MAX + 2];
	struct famfs_entry_setattr s = { 0 };
	struct famfs_node *n;
	int plen, r;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS,
			"the filesystem is not open as master (read-only here)");
	if (a->valid & ~FAMFS_SETATTR_ALL)
		return famfs_set_err(e, -EINVAL, "setattr: unknown bits 0x%x",
				     a->valid & ~FAMFS_SETATTR_ALL);
	pthread_rwlock_wrlock(&fs->lock);
	n = famfs_node_by_ino(fs, ino);
	if (!n || n->deleted) {
		pthread_rwlock_unlock(&fs->lock);
		return famfs_set_err(e, -ENOENT, "setattr: inode %llu is not live",
				     (unsigned long long)ino);
	}
	plen = famfs_node_path(n, path, sizeof(path));
	if (plen < 0) {
		pthread_rwlock_unlock(&fs->lock);
		return famfs_set_err(e, plen, "setattr: inode %llu: path too long",
				     (unsigned long long)ino);
	}
	if (S_ISLNK_MODE(n->mode) && (a->valid & FAMFS_SETATTR_MODE))
		r = famfs_set_err(e, -EOPNOTSUPP,
				  "%s: a symlink's mode cannot change", path);
	else if (S_ISLNK_MODE(n->mode) && (a->valid & FAMFS_SETATTR_SIZE))
		r = famfs_set_err(e, -EINVAL, "%s: a symlink has no size to set",
				  path);
	else if ((a->valid & FAMFS_SETATTR_SIZE) && !S_ISREG_MODE(n->mode))
		r = famfs_set_err(e, -EISDIR, "%s: a directory has no size", path);
	else if ((a->valid & FAMFS_SETATTR_SIZE) &&
		 a->size > (famfs_node_map_of(n) ? famfs_fmap_bytes(n->map) : 0))
		r = famfs_set_err(e, -EFBIG,
			"%s: size %llu is beyond its allocation of %llu bytes",
			path, (unsigned long long)a->size,
			(unsigned long long)(famfs_node_map_of(n) ? famfs_fmap_bytes(n->map) : 0));
	else
		r = 0;
	s.valid = r ? 0 : effective_bits(n, a);
	if (r || !s.valid) {
		pthread_rwlock_unlock(&fs->lock);
		return r;
	}
	if ((s.valid & FAMFS_SETATTR_SIZE) && a->size > n->size) {
		r = zero_range(fs, n->map, n->size, a->size);
		if (r) {
			pthread_rwlock_unlock(&fs->lock);
			return famfs_set_err(e, r, "%s: cannot zero the grown range",
					     path);
		}
	}
	s.target_seq = n->create_seq;
	s.mode = a->mode & 07777;
	s.uid = a->uid;
	s.gid = a->gid;
	s.size = a->size;
	s.atime_ns = a->atime_ns;
	s.mtime_ns = a->mtime_ns;
	s.ctime_ns = famfs_now_ns();
	s.path_len = (uint16_t)plen;
	famfs_sb_raise_minor(fs, 1);
	r = famfs_log_append(fs, FAMFS_ENTRY_SETATTR, &s, sizeof(s), path,
			     (uint32_t)plen, e);
	pthread_rwlock_unlock(&fs->lock);
	if (r && e && !strstr(e->msg, path)) {
		char msg[sizeof(e->msg)];

		memcpy(msg, e->msg, sizeof(msg));
		famfs_set_err(e, r, "%s: %s", path, msg);
	}
	return r;
}
