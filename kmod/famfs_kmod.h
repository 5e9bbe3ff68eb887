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

#include "famfs_map.h"

struct dax_device;
struct fs_context;

/* One device of a mount; device 0 is the mount's own block device. */
struct famfs_kdev {
	struct block_device *bdev;
	struct dax_device *dax_dev;
	u64 part_off;		/* byte offset of the bdev in the dax_device */
	struct rb_root claims;	/* ranges the files use (claims.c) */
};

/* One mounted filesystem: its devices and what maps are checked against. */
struct famfs_sb_info {
	unsigned int ndev;	/* devices opened so far */
	struct famfs_kdev dev[FAMFS_KMOD_MAX_DEVICES];
	struct famfs_kgeom geom;
	struct mutex claims_lock;
	/* dev= mount options: devices 1.. in index order */
	unsigned int nextra;
	char *extra[FAMFS_KMOD_MAX_DEVICES - 1];
	fmode_t extra_mode;
};

static inline struct famfs_sb_info *FAMFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/* A regular file's map lives in i_private; NULL for an empty file. */
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
};

/* devices.c */
u32 famfs_crc32c(const void *buf, size_t len);
/* Copy @len bytes at offset @off of @dev through its dax_device. */
int famfs_dax_read(struct famfs_kdev *dev, u64 off, void *buf, size_t len);
/* Take the dax_device of @bdev as device number sbi->ndev. */
int famfs_get_dax(struct fs_context *fc, struct super_block *sb,
		  struct block_device *bdev);
/* Open devices 1.. from the dev= options and check their labels. */
int famfs_open_extra_devices(struct fs_context *fc, struct super_block *sb,
			     const struct famfs_superblock *fsb);
/* Release every device opened (idempotent). */
void famfs_put_devices(struct super_block *sb);

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
void famfs_evict_inode(struct inode *inode);
int famfs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		  struct iattr *attr);
extern const struct inode_operations famfs_dir_inode_operations;
extern const struct file_operations famfs_dir_operations;

/* file.c */
extern const struct inode_operations famfs_file_inode_operations;
extern const struct file_operations famfs_file_operations;
extern const struct file_operations famfs_meta_file_operations;
extern const struct address_space_operations famfs_dax_aops;
extern const struct iomap_ops famfs_iomap_ops;

/* claims.c */
int famfs_claim_map(struct famfs_sb_info *sbi, const struct famfs_kmap *map);
void famfs_free_claims(struct famfs_sb_info *sbi);

/* ioctl.c */
long famfs_dir_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
long famfs_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* FAMFS_KMOD_H */
