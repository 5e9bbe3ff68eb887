// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: inodes and the directory tree.
 *
 * The tree lives only in the dcache, as in ramfs: every dentry is pinned
 * by one reference from the moment it is added until unmount, when
 * famfs_unpin_tree() drops the pins. Entries are added only by the ioctls
 * (replaying the log), never by create/mkdir/unlink from the VFS, so the
 * tree always matches the log.
 */
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/pagemap.h>

#include "famfs_kmod.h"
#include "famfs/famfs_ioctl.h"

struct inode *famfs_new_inode(struct super_block *sb, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	inode_set_ctime_to_ts(inode,
			      inode_set_mtime_to_ts(inode,
			      inode_set_atime_to_ts(inode, current_time(inode))));
	if (S_ISDIR(mode)) {
		inode->i_op = &famfs_dir_inode_operations;
		inode->i_fop = &famfs_dir_operations;
		set_nlink(inode, 2);
	} else if (S_ISLNK(mode)) {
		inode->i_op = &famfs_symlink_inode_operations;
	} else {
		inode->i_op = &famfs_file_inode_operations;
		inode->i_fop = &famfs_file_operations;
		inode->i_mapping->a_ops = &famfs_dax_aops;
		inode->i_flags |= S_DAX;
		mapping_set_unevictable(inode->i_mapping);
	}
	return inode;
}

/*
 * famfs_add_entry() - link @inode as @name in @parent and pin the dentry;
 * with @claim, first claim the device ranges of its map. Consumes the
 * inode reference: on failure the inode is put (and its map freed by
 * eviction). Returns 0, -EEXIST, -EINVAL (overlap) or another errno.
 */
static int famfs_add_entry(struct dentry *parent, const char *name,
			   struct inode *inode, bool claim)
{
	struct inode *dir = d_inode(parent);
	struct dentry *dentry;
	int rc = 0;

	inode_lock(dir);
	dentry = lookup_one_len(name, parent, strlen(name));
	if (IS_ERR(dentry)) {
		rc = PTR_ERR(dentry);
		goto out_unlock;
	}
	if (d_really_is_positive(dentry))
		rc = -EEXIST;
	else if (claim && famfs_inode_map(inode))
		rc = famfs_claim_map(FAMFS_SB(dir->i_sb),
				     famfs_inode_map(inode), inode);
	if (rc) {
		dput(dentry);
		goto out_unlock;
	}
	if (S_ISDIR(inode->i_mode))
		inc_nlink(dir);
	inode_set_ctime_to_ts(dir, inode_set_mtime_to_ts(dir, current_time(dir)));
	/* The lookup reference becomes the pin. */
	d_instantiate(dentry, inode);
	inode = NULL;
out_unlock:
	inode_unlock(dir);
	if (inode)
		iput(inode);
	return rc;
}

static void famfs_set_attr(struct inode *inode, const struct famfs_attrs *a)
{
	/* The log's number: what user space compares when it follows. */
	if (a->ino)
		inode->i_ino = a->ino;
	inode->i_uid = a->uid;
	inode->i_gid = a->gid;
	inode_set_mtime_to_ts(inode, a->mtime);
	inode_set_ctime_to_ts(inode, a->ctime);
}

int famfs_add_file(struct dentry *parent, const char *name,
		   struct famfs_kmap *map, const struct famfs_attrs *a)
{
	struct inode *inode;

	inode = famfs_new_inode(parent->d_sb, S_IFREG | (a->mode & 07777));
	if (!inode) {
		kfree(map);
		return -ENOMEM;
	}
	famfs_set_attr(inode, a);
	if (a->fops)
		inode->i_fop = a->fops;
	inode->i_private = map;
	i_size_write(inode, a->size);
	return famfs_add_entry(parent, name, inode, a->claim);
}

int famfs_add_dir(struct dentry *parent, const char *name,
		  const struct famfs_attrs *a)
{
	struct inode *inode;

	inode = famfs_new_inode(parent->d_sb, S_IFDIR | (a->mode & 07777));
	if (!inode)
		return -ENOMEM;
	famfs_set_attr(inode, a);
	return famfs_add_entry(parent, name, inode, false);
}

int famfs_add_symlink(struct dentry *parent, const char *name, char *target,
		      const struct famfs_attrs *a)
{
	struct inode *inode;

	inode = famfs_new_inode(parent->d_sb, S_IFLNK | 0777);
	if (!inode) {
		kfree(target);
		return -ENOMEM;
	}
	famfs_set_attr(inode, a);
	/* The target is in memory for good: no page, no ->get_link work. */
	inode->i_link = target;
	i_size_write(inode, strlen(target));
	return famfs_add_entry(parent, name, inode, false);
}

int famfs_remove(struct dentry *parent, const char *name, u64 ino, u64 seq)
{
	struct inode *dir = d_inode(parent);
	struct dentry *dentry;
	struct inode *inode;
	int rc = 0;

	inode_lock(dir);
	dentry = lookup_one_len(name, parent, strlen(name));
	if (IS_ERR(dentry)) {
		rc = PTR_ERR(dentry);
		goto out_unlock;
	}
	inode = d_inode(dentry);
	if (!inode)
		rc = -ENOENT;
	else if (inode->i_ino != ino)
		rc = -ESTALE;
	else if (IS_ROOT(parent) && !strcmp(name, FAMFS_KMOD_META_DIR))
		rc = -EPERM;
	else if (S_ISDIR(inode->i_mode) && !simple_empty(dentry))
		rc = -ENOTEMPTY;
	/* Before the pin goes: eviction forgets it again. */
	if (!rc && seq && S_ISREG(inode->i_mode) && famfs_inode_map(inode))
		rc = famfs_removed_add(inode, seq);
	if (rc)
		goto out_put;
	inode_set_ctime_to_ts(inode,
			      inode_set_ctime_to_ts(dir,
			      inode_set_mtime_to_ts(dir, current_time(dir))));
	if (S_ISDIR(inode->i_mode)) {
		clear_nlink(inode);
		drop_nlink(dir);
	} else {
		drop_nlink(inode);
	}
	/* Unhash it (new lookups fail) and drop the pin; open files and
	 * mappings hold their own references.
	 */
	d_delete(dentry);
	dput(dentry);
out_put:
	dput(dentry);
out_unlock:
	inode_unlock(dir);
	return rc;
}

/*
 * Swap @a and @b (both parents locked by lock_rename()) with d_move(),
 * as d_exchange() is not exported: each moves onto a fresh unhashed
 * dentry of the other's name. In between, the name @a left has no
 * dentry (a lookup takes the slow path and waits for the parent's lock,
 * which we hold) and @b's name has both (a lookup finds the one or the
 * other): never a miss, never a mix.
 */
static int famfs_swap_dentries(struct dentry *a, struct dentry *b)
{
	struct dentry *to_b = d_alloc(b->d_parent, &b->d_name);
	struct dentry *to_a = d_alloc(a->d_parent, &a->d_name);

	if (!to_a || !to_b) {
		if (to_a)
			dput(to_a);
		if (to_b)
			dput(to_b);
		return -ENOMEM;
	}
	d_move(a, to_b);
	d_move(b, to_a);
	dput(to_a);
	dput(to_b);
	return 0;
}

/* @d holds inode @ino, and is not the root's .meta. */
static int famfs_exchange_check(struct dentry *d, u64 ino)
{
	if (IS_ERR(d))
		return PTR_ERR(d);
	if (d_really_is_negative(d))
		return -ENOENT;
	if (d_inode(d)->i_ino != ino)
		return -ESTALE;
	if (IS_ROOT(d->d_parent) && !strcmp(d->d_name.name, FAMFS_KMOD_META_DIR))
		return -EINVAL;
	return 0;
}

int famfs_exchange(struct dentry *pa, const char *na, u64 ino_a,
		   struct dentry *pb, const char *nb, u64 ino_b)
{
	struct inode *da = d_inode(pa), *db = d_inode(pb);
	struct dentry *a, *b, *trap;
	struct timespec64 now;
	int rc;

	if (pa->d_sb != pb->d_sb)
		return -EXDEV;
	trap = lock_rename(pa, pb);
	if (IS_ERR(trap))
		return PTR_ERR(trap);
	a = lookup_one_len(na, pa, strlen(na));
	b = lookup_one_len(nb, pb, strlen(nb));
	rc = famfs_exchange_check(a, ino_a);
	if (!rc)
		rc = famfs_exchange_check(b, ino_b);
	/* one of them is an ancestor of the other's directory */
	if (!rc && (a == trap || b == trap))
		rc = -EINVAL;
	if (rc || a == b)
		goto out;
	rc = famfs_swap_dentries(a, b);
	if (rc)
		goto out;
	/* the nlink of a directory's parent follows the directory */
	simple_rename_exchange(da, a, db, b);
	now = current_time(da);
	inode_set_ctime_to_ts(d_inode(a), now);
	inode_set_ctime_to_ts(d_inode(b), now);
	inode_set_ctime_to_ts(da, inode_set_mtime_to_ts(da, now));
	inode_set_ctime_to_ts(db, inode_set_mtime_to_ts(db, now));
out:
	if (!IS_ERR(b))
		dput(b);
	if (!IS_ERR(a))
		dput(a);
	unlock_rename(pa, pb);
	return rc;
}

int famfs_change_attrs(struct dentry *parent, const char *name,
		       const struct famfs_attrs *a, struct timespec64 atime)
{
	struct dentry *dentry;
	struct inode *inode;
	int rc = 0;

	dentry = lookup_one_len_unlocked(name, parent, strlen(name));
	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	inode = d_inode(dentry);
	if (!inode)
		rc = -ENOENT;
	else if (inode->i_ino != a->ino)
		rc = -ESTALE;
	else if (IS_ROOT(parent) && !strcmp(name, FAMFS_KMOD_META_DIR))
		rc = -EPERM;
	if (!rc) {
		inode_lock(inode);
		inode->i_mode = (inode->i_mode & S_IFMT) | (a->mode & 07777);
		famfs_set_attr(inode, a);
		inode_set_atime_to_ts(inode, atime);
		inode_unlock(inode);
	}
	dput(dentry);
	return rc;
}

/*
 * Size, mode and owner come from the log; the VFS may not change them
 * (a truncate would silently desert the allocation). Times may change.
 */
int famfs_setattr(FAMFS_IDMAP *idmap, struct dentry *dentry,
		  struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	int rc;

	if (attr->ia_valid & (ATTR_SIZE | ATTR_MODE | ATTR_UID | ATTR_GID))
		return -EPERM;
	rc = setattr_prepare(idmap, dentry, attr);
	if (rc)
		return rc;
	setattr_copy(idmap, inode, attr);
	return 0;
}

void famfs_evict_inode(struct inode *inode)
{
	struct famfs_kmap *map = famfs_inode_map(inode);

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	/* The last user is gone: the memory may be mapped again. */
	if (S_ISREG(inode->i_mode) && map) {
		famfs_removed_del(inode);
		famfs_unclaim_map(FAMFS_SB(inode->i_sb), map, inode);
	}
	kfree(inode->i_private);
	inode->i_private = NULL;
	if (S_ISLNK(inode->i_mode)) {
		kfree(inode->i_link);
		inode->i_link = NULL;
	}
}

/* Owner and times of a link come from the log, as a file's do. */
const struct inode_operations famfs_symlink_inode_operations = {
	.get_link	= simple_get_link,
	.setattr	= famfs_setattr,
};

const struct inode_operations famfs_dir_inode_operations = {
	.lookup		= simple_lookup,
	.setattr	= famfs_setattr,
};

const struct file_operations famfs_dir_operations = {
	.open		= dcache_dir_open,
	.release	= dcache_dir_close,
	.llseek		= dcache_dir_lseek,
	.read		= generic_read_dir,
	.iterate_shared	= dcache_readdir,
	.fsync		= noop_fsync,
	.unlocked_ioctl	= famfs_dir_ioctl,
};
