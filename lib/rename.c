// SPDX-License-Identifier: Apache-2.0
/*
 * rename(2) on the master: one RENAME entry (format 1.2) moves a file or a
 * directory and, as rename(2) does, deletes what held the new name. The
 * node keeps its inode and map, so rsync's temp-file-then-rename and mv
 * cost one small entry, not a copy.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

FAMFS_EXPORT int famfs_rename(struct famfs_fs *fs, const char *oldpath,
			      const char *newpath, unsigned flags,
			      struct famfs_err *e)
{
	char op[FAMFS_PATH_MAX + 2], np[FAMFS_PATH_MAX + 2];
	char paths[2 * FAMFS_PATH_MAX];
	struct famfs_entry_rename a = { 0 };
	struct famfs_node *n, *dir, *victim;
	const char *name;
	size_t nlen;
	int olen, nplen, r;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS,
			"the filesystem is not open as master (read-only here)");
	if (flags & ~FAMFS_RENAME_NOREPLACE)
		return famfs_set_err(e, -EINVAL, "rename: unknown flags 0x%x",
				     flags & ~FAMFS_RENAME_NOREPLACE);
	olen = famfs_path_normalize(oldpath, op, sizeof(op), e);
	if (olen < 0)
		return olen;
	nplen = famfs_path_normalize(newpath, np, sizeof(np), e);
	if (nplen < 0)
		return nplen;
	pthread_rwlock_wrlock(&fs->lock);
	n = famfs_lookup(fs, op);
	dir = famfs_ns_parent(fs, np, (size_t)nplen, &name, &nlen);
	victim = dir ? famfs_ns_child(fs, dir, name, nlen) : NULL;
	if (!n || n == fs->root || nplen == 1)
		r = famfs_set_err(e, n ? -EBUSY : -ENOENT, n ?
				  "the root directory cannot be renamed" :
				  "%s: no such file or directory", op);
	else if (victim && (flags & FAMFS_RENAME_NOREPLACE))
		r = victim == n ? 0 : famfs_set_err(e, -EEXIST, "%s: exists", np);
	else if (victim == n)
		r = 0;  /* rename(2): the same file, nothing to do */
	else
		r = 1;
	if (r <= 0) {
		pthread_rwlock_unlock(&fs->lock);
		return r;
	}
	a.target_seq = n->create_seq;
	a.replaced_seq = victim ? victim->create_seq : 0;
	a.old_len = (uint16_t)olen;
	a.new_len = (uint16_t)nplen;
	memcpy(paths, op, (size_t)olen);
	memcpy(paths + olen, np, (size_t)nplen);
	famfs_sb_raise_minor(fs, 2);
	r = famfs_log_append(fs, FAMFS_ENTRY_RENAME, &a, sizeof(a), paths,
			     (uint32_t)(olen + nplen), e);
	if (!r)
		famfs_reclaim_locked(fs);
	pthread_rwlock_unlock(&fs->lock);
	return r;
}
