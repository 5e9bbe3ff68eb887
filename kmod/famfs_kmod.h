/* SPDX-License-Identifier: GPL-2.0 */
/*
 * famfs kernel module: declarations shared by its files.
 */
#ifndef FAMFS_KMOD_H
#define FAMFS_KMOD_H

#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>

#include "famfs_compat.h"
#include "famfs_map.h"

struct dax_device;
struct fs_context;

/* One device of a mount; device 0 is the mount's own block device. */
struct famfs_kdev {
	struct block_device *bdev;
	struct file *bdev_handle;	/* famfs_bdev_open()'s, devices 1.. */
	struct dax_device *dax_dev;
	u64 part_off;		/* byte offset of the bdev in the dax_device */
	struct rb_root claims;	/* ranges the files use (claims.c) */
};

/*
 * One mounted filesystem: its devices and what maps are checked against.
 * dev[i] and geom.dev[i] are set before geom.ndev (under dev_lock) grows
 * past i and never change afterwards, so a map validated under dev_lock
 * may use them without a lock.
 */
struct famfs_sb_info {
	unsigned int ndev;	/* devices opened so far */
	struct famfs_kdev *dev[FAMFS_KMOD_MAX_DEVICES];
	struct famfs_kgeom geom;
	struct mutex dev_lock;	/* geom against DEVICE_ADD */
	struct mutex claims_lock;
	struct famfs_uuid fs_uuid;
	/* dev= mount options: devices 1.. in index order */
	unsigned int nextra;
	char *extra[FAMFS_KMOD_MAX_DEVICES - 1];
	bool extra_write;	/* devices 1.. are open for writing */
	/* follow.c: removed files still in use, the agent's client slot */
	spinlock_t removed_lock;
	struct list_head removed;
	int slot;		/* made live by SLOT_WRITE; -1: none */
	struct famfs_uuid slot_uuid;	/* its host_uuid */
	u64 synced_seq;		/* SYNCED_SET: the log seq the agent is at */
	u64 slots_offset;	/* the slot table on device 0 */
	u32 nslots;		/* 0: no sane table, SLOT_WRITE refused */
};

/* Errors go to the mount's log during mount (@fc), to dmesg otherwise. */
#define famfs_errorf(fc, fmt, ...) \
	logfc((fc) ? (fc)->log.log : NULL, NULL, 'e', fmt, ##__VA_ARGS__)

static inline struct famfs_sb_info *FAMFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/*
 * A regular file's map lives in i_private; NULL for an empty file (and for
 * directories and symlinks, whose target is in i_link).
 */
static inline struct famfs_kmap *famfs_inode_map(struct inode *inode)
{
	return inode->i_private;
}

/* What a new file or directory gets; size only matters for files. */
struct famfs_attrs {
	umode_t mode;		/* permission bits */
	kuid_t uid;
	kgid_t gid;
	struct timespec64 mtime;
	struct timespec64 ctime;
	u64 size;
	/* NULL: famfs_file_operations */
	const struct file_operations *fops;
	/* refuse a map that overlaps another file's (famfs_claim_map) */
	bool claim;
	u64 ino;		/* the log's inode number; 0: a new one */
};

/* devices.c */
u32 famfs_crc32c(const void *buf, size_t len);
/* Copy @len bytes at offset @off of @dev through its dax_device. */
int famfs_dax_read(struct famfs_kdev *dev, u64 off, void *buf, size_t len);
int famfs_dax_write(struct famfs_kdev *dev, u64 off, const void *buf,
		    size_t len);
/* Take the dax_device of @bdev as device number sbi->ndev. */
int famfs_get_dax(struct fs_context *fc, struct super_block *sb,
		  struct block_device *bdev);
/* Open devices 1.. from the dev= options and check their labels. */
int famfs_open_extra_devices(struct fs_context *fc, struct super_block *sb,
			     const struct famfs_superblock *fsb);
/*
 * famfs_device_add() - open @path as device @index of a mounted
 * filesystem (the next one) and add .meta/dev<index>. Returns 0 or a
 * negative errno with the reason in dmesg.
 */
int famfs_device_add(struct super_block *sb, const char *path, u32 index);
/* Release every device opened (idempotent). */
void famfs_put_devices(struct super_block *sb);
/* Free the devices' state (after famfs_put_devices()). */
void famfs_free_devices(struct famfs_sb_info *sbi);

/* inode.c */
struct inode *famfs_new_inode(struct super_block *sb, umode_t mode);
/*
 * famfs_add_file() - add a regular file backed by @map (validated by the
 * caller; NULL for an empty file), which the new inode then owns; on
 * failure the map is freed. famfs_add_dir() adds a directory. Both take
 * the parent's lock, pin the new dentry until unmount and return 0,
 * -EEXIST or another negative errno.
 */
int famfs_add_file(struct dentry *parent, const char *name,
		   struct famfs_kmap *map, const struct famfs_attrs *a);
int famfs_add_dir(struct dentry *parent, const char *name,
		  const struct famfs_attrs *a);
/*
 * famfs_add_symlink() - add a symbolic link to @target (NUL-ended,
 * kmalloc'ed; the inode owns it, freed on failure too) as famfs_add_dir()
 * adds a directory.
 */
int famfs_add_symlink(struct dentry *parent, const char *name, char *target,
		      const struct famfs_attrs *a);
/*
 * famfs_remove() - unlink @name from @parent if it is inode @ino (a file
 * or an empty directory). New lookups fail at once; the inode, its map
 * and its claims live until the last open file or mapping is gone.
 * Returns 0, -ENOENT, -ESTALE (another inode), -ENOTEMPTY or -EPERM.
 */
int famfs_remove(struct dentry *parent, const char *name, u64 ino, u64 seq);
/*
 * famfs_exchange() - an EXCHANGE of the log: @na in @pa (inode @ino_a)
 * and @nb in @pb (inode @ino_b) swap, under lock_rename() as the VFS
 * renames. Returns 0, -ENOENT, -ESTALE (another inode), -EINVAL (one
 * holds the other, or .meta) or -EXDEV.
 */
int famfs_exchange(struct dentry *pa, const char *na, u64 ino_a,
		   struct dentry *pb, const char *nb, u64 ino_b);
/*
 * famfs_change_attrs() - a SETATTR of the log: set mode bits, owner and
 * times of @name in @parent if it is inode @a->ino. Returns 0, -ENOENT,
 * -ESTALE (another inode) or -EPERM (.meta).
 */
int famfs_change_attrs(struct dentry *parent, const char *name,
		       const struct famfs_attrs *a, struct timespec64 atime);
/* .meta/dev<index>: the whole device, for user space's log access. */
int famfs_add_meta_dev(struct super_block *sb, unsigned int index);
void famfs_evict_inode(struct inode *inode);
int famfs_setattr(FAMFS_IDMAP *idmap, struct dentry *dentry,
		  struct iattr *attr);
extern const struct inode_operations famfs_dir_inode_operations;
extern const struct inode_operations famfs_symlink_inode_operations;
extern const struct file_operations famfs_dir_operations;

/* file.c */
extern const struct inode_operations famfs_file_inode_operations;
extern const struct file_operations famfs_file_operations;
extern const struct file_operations famfs_meta_file_operations;
extern const struct address_space_operations famfs_dax_aops;
extern const struct iomap_ops famfs_iomap_ops;

/* claims.c */
int famfs_claim_map(struct famfs_sb_info *sbi, const struct famfs_kmap *map,
		    struct inode *owner);
void famfs_unclaim_map(struct famfs_sb_info *sbi, const struct famfs_kmap *map,
		       struct inode *owner);
void famfs_free_claims(struct famfs_sb_info *sbi);

/* follow.c */
void famfs_follow_init(struct famfs_sb_info *sbi);
/* Remember that removed file @inode frees the memory at log seq @seq. */
int famfs_removed_add(struct inode *inode, u64 seq);
/* Forget it (eviction: the last user is gone). */
void famfs_removed_del(struct inode *inode);
long famfs_ioc_held(struct file *dirf, void __user *arg);
long famfs_ioc_slot_write(struct file *dirf, void __user *arg);
long famfs_ioc_synced(struct file *dirf, unsigned int cmd, void __user *arg);
void famfs_follow_release_slot(struct super_block *sb);

/* ioctl.c */
long famfs_dir_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
long famfs_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* FAMFS_KMOD_H */
