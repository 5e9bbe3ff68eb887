// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: the filesystem type and mount.
 *
 * A mount takes an fsdax block device (/dev/pmemN), reaches its memory
 * through fs_dax_get_by_bdev(), checks the famfs superblock on it and
 * presents an empty tree plus .meta/dev0, a file mapping the whole
 * device so that user space reads and appends the log through DAX.
 * User space then replays the log into the mount with the ioctls.
 * A read-only mount (-o ro) is a client; a read-write mount the master.
 */
#include <linux/blkdev.h>
#include <linux/crc32.h>
#include <linux/dax.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/statfs.h>

#include "famfs_kmod.h"
#include "uapi/famfs_ioctl.h"

/* CRC32C as lib/ computes it: initial ~0, final inversion. */
static u32 famfs_crc32c(const void *buf, size_t len)
{
	return ~__crc32c_le(~0U, buf, len);
}

/* Read @len bytes at device offset @off through the dax_device. */
static int famfs_dax_read(struct famfs_sb_info *sbi, u64 off, void *buf,
			  size_t len)
{
	u64 pos = sbi->dax_part_off + off;
	long nr = PHYS_PFN(offset_in_page(pos) + len + PAGE_SIZE - 1);
	void *kaddr;
	long avail;
	int id;

	id = dax_read_lock();
	avail = dax_direct_access(sbi->dax_dev, PHYS_PFN(pos), nr, DAX_ACCESS,
				  &kaddr, NULL);
	if (avail >= nr)
		memcpy(buf, kaddr + offset_in_page(pos), len);
	dax_read_unlock(id);
	if (avail < 0)
		return avail;
	return avail >= nr ? 0 : -EIO;
}

static int famfs_check_super(struct fs_context *fc, struct famfs_sb_info *sbi,
			     struct famfs_superblock *fsb, u64 bdev_size)
{
	u32 crc = fsb->crc;
	u64 dev_size, log_end;

	if (fsb->magic != FAMFS_SB_MAGIC)
		return invalf(fc, "famfs: no famfs superblock on this device");
	fsb->crc = 0;
	if (famfs_crc32c(fsb, sizeof(*fsb)) != crc)
		return invalf(fc, "famfs: superblock checksum mismatch");
	fsb->crc = crc;
	if (fsb->format_major != FAMFS_FORMAT_MAJOR)
		return invalf(fc, "famfs: unsupported format %u.%u",
			      fsb->format_major, fsb->format_minor);
	if (fsb->ndevices != 1)
		return invalf(fc, "famfs: %u devices; the module mounts one",
			      fsb->ndevices);
	dev_size = fsb->devices[0].dev_size;
	if (dev_size == 0 || dev_size % FAMFS_UNIT_SIZE || dev_size > bdev_size)
		return invalf(fc, "famfs: device size %llu does not fit %llu",
			      dev_size, bdev_size);
	if (fsb->log_offset < FAMFS_LOG_OFFSET ||
	    fsb->log_size < FAMFS_LOG_MIN_SIZE ||
	    check_add_overflow(fsb->log_offset, fsb->log_size, &log_end) ||
	    log_end > dev_size)
		return invalf(fc, "famfs: log outside the device");
	sbi->geom.dev_size = dev_size;
	sbi->geom.data_start = ALIGN(log_end, FAMFS_UNIT_SIZE);
	return 0;
}

static int famfs_read_super(struct fs_context *fc, struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_superblock *fsb;
	int rc;

	fsb = kmalloc(sizeof(*fsb), GFP_KERNEL);
	if (!fsb)
		return -ENOMEM;
	rc = famfs_dax_read(sbi, FAMFS_SB_OFFSET, fsb, sizeof(*fsb));
	if (rc)
		errorf(fc, "famfs: cannot read the superblock: %d", rc);
	else
		rc = famfs_check_super(fc, sbi, fsb,
				       bdev_nr_bytes(sb->s_bdev));
	kfree(fsb);
	return rc;
}

/* .meta/dev0: one extent over all of device 0, root only. */
static int famfs_add_meta(struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_attrs a = { .mode = 0700 };
	struct dentry *meta;
	struct famfs_kmap *map;
	int rc;

	ktime_get_real_ts64(&a.mtime);
	a.ctime = a.mtime;
	rc = famfs_add_dir(sb->s_root, FAMFS_KMOD_META_DIR, &a);
	if (rc)
		return rc;
	meta = lookup_one_len_unlocked(FAMFS_KMOD_META_DIR, sb->s_root,
					strlen(FAMFS_KMOD_META_DIR));
	if (IS_ERR(meta))
		return PTR_ERR(meta);
	if (d_really_is_negative(meta)) {
		dput(meta);
		return -ENOENT;
	}

	map = kzalloc(famfs_kmap_bytes(1), GFP_KERNEL);
	rc = -ENOMEM;
	if (map) {
		map->map_type = FAMFS_MAP_EXTENTS;
		map->nitems = 1;
		map->items[0].length = sbi->geom.dev_size;
		a.mode = 0600;
		a.size = sbi->geom.dev_size;
		a.fops = &famfs_meta_file_operations;
		rc = famfs_add_file(meta, FAMFS_KMOD_META_DEV, map, &a);
	}
	dput(meta);
	return rc;
}

static void famfs_put_super(struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);

	if (sbi->dax_dev)
		fs_put_dax(sbi->dax_dev, sb);
	sbi->dax_dev = NULL;
}

static int famfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct famfs_sb_info *sbi = FAMFS_SB(dentry->d_sb);

	simple_statfs(dentry, buf);
	buf->f_blocks = sbi->geom.dev_size >> PAGE_SHIFT;
	return 0;
}

static const struct super_operations famfs_super_ops = {
	.statfs		= famfs_statfs,
	.drop_inode	= generic_delete_inode,
	.evict_inode	= famfs_evict_inode,
	.put_super	= famfs_put_super,
};

static int famfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct inode *root;
	int rc;

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = FAMFS_KMOD_SUPER_MAGIC;
	sb->s_op = &famfs_super_ops;
	sb->s_time_gran = 1;

	sbi->dax_dev = fs_dax_get_by_bdev(sb->s_bdev, &sbi->dax_part_off, sb,
					  NULL);
	if (!sbi->dax_dev)
		return invalf(fc, "famfs: %pg is not a DAX device (or is in use)",
			      sb->s_bdev);
	rc = famfs_read_super(fc, sb);
	if (rc)
		return rc;

	root = famfs_new_inode(sb, S_IFDIR | 0755);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return famfs_add_meta(sb);
}

static int famfs_get_tree(struct fs_context *fc)
{
	return get_tree_bdev(fc, famfs_fill_super);
}

static void famfs_free_fc(struct fs_context *fc)
{
	kfree(fc->s_fs_info);
}

static const struct fs_context_operations famfs_context_ops = {
	.free		= famfs_free_fc,
	.get_tree	= famfs_get_tree,
};

static int famfs_init_fs_context(struct fs_context *fc)
{
	struct famfs_sb_info *sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);

	if (!sbi)
		return -ENOMEM;
	mutex_init(&sbi->claims_lock);
	sbi->claims = RB_ROOT;
	fc->s_fs_info = sbi;
	fc->ops = &famfs_context_ops;
	return 0;
}

static void famfs_kill_sb(struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);

	/* Drop the pins that kept the tree in the dcache. */
	if (sb->s_root)
		d_genocide(sb->s_root);
	kill_block_super(sb);
	/* put_super is not called when fill_super failed early. */
	if (sbi && sbi->dax_dev)
		fs_put_dax(sbi->dax_dev, sb);
	if (sbi)
		famfs_free_claims(sbi);
	kfree(sbi);
}

static struct file_system_type famfs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= FAMFS_KMOD_FSTYPE,
	.init_fs_context	= famfs_init_fs_context,
	.kill_sb		= famfs_kill_sb,
	.fs_flags		= FS_REQUIRES_DEV,
};

static int __init famfs_init(void)
{
	return register_filesystem(&famfs_fs_type);
}

static void __exit famfs_exit(void)
{
	unregister_filesystem(&famfs_fs_type);
}

module_init(famfs_init);
module_exit(famfs_exit);
MODULE_ALIAS_FS(FAMFS_KMOD_FSTYPE);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("famfs: DAX files with maps computed from user-space descriptors");
