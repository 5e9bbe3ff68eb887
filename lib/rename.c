// SPDX-License-Identifier: Apache-2.0
/*
 * rename(2) on the master: one RENAME entry (format 1.2) moves a file or a
 * directory and, as rename(2) does, deletes what held the new name. The
 * node keeps its inode and map, so rsync's temp-file-then-rename and mv
 * cost one small entry, not a copy. RENAME_EXCHANGE is one EXCHANGE entry
 * (format 1.5): a dataset's new generation takes its path in one step.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Whether @a is @n or an ancestor of it. */
static bool holds(const struct famfs_node *a, const struct famfs_node *n)
{
	for (; n; n = n->parent)
		if (n == a)
			return true;
	return false;
}

/* RENAME_EXCHANGE: one EXCHANGE entry (format 1.5) swaps two names;
 * @op and @np are normalized. Called with the write lock held.
 */
static int exchange_locked(struct famfs_fs *fs, const char *op, int olen,
			   const char *np, int nplen, struct famfs_err *e)
{
	char paths[2 * FAMFS_PATH_MAX];
	struct famfs_entry_exchange x = { 0 };
	struct famfs_node *a = famfs_lookup(fs, op), *b = famfs_lookup(fs, np);
	int r;

	if (!a || !b)
		return famfs_set_err(e, -ENOENT, "exchange: %s: no such file or "
				     "directory", a ? np : op);
	if (a == b)
		return 0;  /* rename(2): the same file, nothing to do */
	if (a == fs->root || b == fs->root)
		return famfs_set_err(e, -EBUSY, "the root directory cannot be "
				     "exchanged");
	if (holds(a, b) || holds(b, a))
		return famfs_set_err(e, -EINVAL, "exchange: %s holds %s",
				     holds(a, b) ? op : np,
				     holds(a, b) ? np : op);
	x.a_seq = a->create_seq;
	x.b_seq = b->create_seq;
	x.a_len = (uint16_t)olen;
	x.b_len = (uint16_t)nplen;
	memcpy(paths, op, (size_t)olen);
	memcpy(paths + olen, np, (size_t)nplen);
	famfs_sb_raise_minor(fs, 5);
	r = famfs_log_append(fs, FAMFS_ENTRY_EXCHANGE, &x, sizeof(x), paths,
			     (uint32_t)(olen + nplen), e);
	return r;
}

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
	if (flags & ~(FAMFS_RENAME_NOREPLACE | FAMFS_RENAME_EXCHANGE))
		return famfs_set_err(e, -EINVAL, "rename: unknown flags 0x%x",
				     flags & ~(FAMFS_RENAME_NOREPLACE |
					       FAMFS_RENAME_EXCHANGE));
	if ((flags & FAMFS_RENAME_NOREPLACE) && (flags & FAMFS_RENAME_EXCHANGE))
		return famfs_set_err(e, -EINVAL, "rename: NOREPLACE and "
				     "EXCHANGE exclude each other");
	olen = famfs_path_normalize(oldpath, op, sizeof(op), e);
	if (olen < 0)
		return olen;
	nplen = famfs_path_normalize(newpath, np, sizeof(np), e);
	if (nplen < 0)
		return nplen;
	pthread_rwlock_wrlock(&fs->lock);
	if (flags & FAMFS_RENAME_EXCHANGE) {
		r = exchange_locked(fs, op, olen, np, nplen, e);
		pthread_rwlock_unlock(&fs->lock);
		return r;
	}
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
