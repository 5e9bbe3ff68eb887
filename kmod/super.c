// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: the filesystem type and mount.
 *
 * A mount takes an fsdax block device (/dev/pmemN) as device 0 and any
 * further devices of the filesystem as dev= options, reaches their memory
 * through fs_dax_get_by_bdev(), checks the famfs superblock and labels
 * and presents an empty tree plus .meta/devN, files mapping each whole
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
#include "famfs/famfs_ioctl.h"

static int famfs_check_super(struct fs_context *fc, struct famfs_sb_info *sbi,
			     struct famfs_superblock *fsb, u64 bdev_size)
{
	u32 crc = fsb->crc;
	u64 dev_size, log_end, slots_end;

	if (fsb->magic != FAMFS_SB_MAGIC)
		return invalf(fc, "famfs: no famfs superblock on this device");
	fsb->crc = 0;
	if (famfs_crc32c(fsb, sizeof(*fsb)) != crc)
		return invalf(fc, "famfs: superblock checksum mismatch");
	fsb->crc = crc;
	if (fsb->format_major != FAMFS_FORMAT_MAJOR)
		return invalf(fc, "famfs: unsupported format %u.%u",
			      fsb->format_major, fsb->format_minor);
	if (fsb->ndevices == 0 || fsb->ndevices > FAMFS_KMOD_MAX_DEVICES)
		return invalf(fc, "famfs: %u devices; the format has 1 to %u",
			      fsb->ndevices, FAMFS_KMOD_MAX_DEVICES);
	if (fsb->ndevices != sbi->nextra + 1)
		return invalf(fc, "famfs: the filesystem has %u devices, the mount names %u (dev= for devices 1..)",
			      fsb->ndevices, sbi->nextra + 1);
	dev_size = fsb->devices[0].dev_size;
	if (dev_size == 0 || dev_size % FAMFS_UNIT_SIZE || dev_size > bdev_size)
		return invalf(fc, "famfs: device size %llu does not fit %llu",
			      dev_size, bdev_size);
	if (fsb->log_offset < FAMFS_LOG_OFFSET ||
	    fsb->log_size < FAMFS_LOG_MIN_SIZE ||
	    check_add_overflow(fsb->log_offset, fsb->log_size, &log_end) ||
	    log_end > dev_size)
		return invalf(fc, "famfs: log outside the device");
	sbi->geom.ndev = 1;
	sbi->geom.dev[0].size = dev_size;
	sbi->geom.dev[0].data_start = ALIGN(log_end, FAMFS_UNIT_SIZE);
	/* The slot table, for SLOT_WRITE: only where it cannot hit the log. */
	if (fsb->nslots <= 256 && fsb->slots_offset >= FAMFS_SB_OFFSET &&
	    IS_ALIGNED(fsb->slots_offset, sizeof(struct famfs_client_slot)) &&
	    !check_add_overflow(fsb->slots_offset, (u64)fsb->nslots *
				sizeof(struct famfs_client_slot), &slots_end) &&
	    slots_end <= fsb->log_offset) {
		sbi->slots_offset = fsb->slots_offset;
		sbi->nslots = fsb->nslots;
	}
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
	rc = famfs_dax_read(sbi->dev[0], FAMFS_SB_OFFSET, fsb, sizeof(*fsb));
	if (rc)
		errorf(fc, "famfs: cannot read the superblock: %d", rc);
	else
		rc = famfs_check_super(fc, sbi, fsb,
				       bdev_nr_bytes(sb->s_bdev));
	if (!rc)
		rc = famfs_open_extra_devices(fc, sb, fsb);
	kfree(fsb);
	return rc;
}

/* .meta/devN: one extent over all of device N, root only. */
int famfs_add_meta_dev(struct super_block *sb, unsigned int index)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_attrs a = { .mode = 0600 };
	struct famfs_kmap *map;
	struct dentry *meta;
	char name[16];
	int rc;

	meta = lookup_one_len_unlocked(FAMFS_KMOD_META_DIR, sb->s_root,
				       strlen(FAMFS_KMOD_META_DIR));
	if (IS_ERR(meta))
		return PTR_ERR(meta);
	if (d_really_is_negative(meta)) {
		dput(meta);
		return -ENOENT;
	}
	map = kzalloc(famfs_kmap_bytes(1), GFP_KERNEL);
	if (!map) {
		dput(meta);
		return -ENOMEM;
	}
	map->map_type = FAMFS_MAP_EXTENTS;
	map->nitems = 1;
	map->items[0].dev_index = index;
	map->items[0].length = sbi->geom.dev[index].size;
	ktime_get_real_ts64(&a.mtime);
	a.ctime = a.mtime;
	a.size = sbi->geom.dev[index].size;
	a.fops = &famfs_meta_file_operations;
	snprintf(name, sizeof(name), FAMFS_KMOD_META_DEV_PREFIX "%u", index);
	rc = famfs_add_file(meta, name, map, &a);
	dput(meta);
	return rc;
}

static int famfs_add_meta(struct super_block *sb)
{
	struct famfs_attrs a = { .mode = 0700 };
	unsigned int i;
	int rc;

	ktime_get_real_ts64(&a.mtime);
	a.ctime = a.mtime;
	rc = famfs_add_dir(sb->s_root, FAMFS_KMOD_META_DIR, &a);
	for (i = 0; i < FAMFS_SB(sb)->geom.ndev && !rc; i++)
		rc = famfs_add_meta_dev(sb, i);
	return rc;
}

static void famfs_put_super(struct super_block *sb)
{
	famfs_put_devices(sb);
}

static int famfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct famfs_sb_info *sbi = FAMFS_SB(dentry->d_sb);
	unsigned int i;

	simple_statfs(dentry, buf);
	for (i = 0; i < sbi->geom.ndev; i++)
		buf->f_blocks += sbi->geom.dev[i].size >> PAGE_SHIFT;
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
	struct inode *root;
	int rc;

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = FAMFS_KMOD_SUPER_MAGIC;
	sb->s_op = &famfs_super_ops;
	sb->s_time_gran = 1;

	rc = famfs_get_dax(fc, sb, sb->s_bdev);
	if (rc)
		return rc;
	rc = famfs_read_super(fc, sb);
	if (rc)
		return rc;

	root = famfs_new_inode(sb, S_IFDIR | 0755);
	if (root)
		root->i_ino = FAMFS_KMOD_ROOT_INO;
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return famfs_add_meta(sb);
}

static int famfs_get_tree(struct fs_context *fc)
{
	return get_tree_bdev(fc, famfs_fill_super);
}

static void famfs_free_sbi(struct famfs_sb_info *sbi)
{
	unsigned int i;

	if (!sbi)
		return;
	famfs_free_claims(sbi);
	famfs_free_devices(sbi);
	for (i = 0; i < sbi->nextra; i++)
		kfree(sbi->extra[i]);
	kfree(sbi);
}

static void famfs_free_fc(struct fs_context *fc)
{
	famfs_free_sbi(fc->s_fs_info);
}

/* dev=PATH names the next device (1, 2, ...); "source" is device 0. */
static int famfs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct famfs_sb_info *sbi = fc->s_fs_info;

	if (strcmp(param->key, "dev"))
		return -ENOPARAM;
	if (param->type != fs_value_is_string || !*param->string)
		return invalfc(fc, "dev= needs a device path");
	if (sbi->nextra >= FAMFS_KMOD_MAX_DEVICES - 1)
		return invalfc(fc, "at most %u devices", FAMFS_KMOD_MAX_DEVICES);
	sbi->extra[sbi->nextra++] = param->string;
	param->string = NULL;
	return 0;
}

static const struct fs_context_operations famfs_context_ops = {
	.free		= famfs_free_fc,
	.parse_param	= famfs_parse_param,
	.get_tree	= famfs_get_tree,
};

static int famfs_init_fs_context(struct fs_context *fc)
{
	struct famfs_sb_info *sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);

	if (!sbi)
		return -ENOMEM;
	mutex_init(&sbi->dev_lock);
	mutex_init(&sbi->claims_lock);
	famfs_follow_init(sbi);
	fc->s_fs_info = sbi;
	fc->ops = &famfs_context_ops;
	return 0;
}

static void famfs_kill_sb(struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);

	/* Drop the pins that kept the tree in the dcache. */
	if (sb->s_root)
		famfs_unpin_tree(sb->s_root);
	/* No user is left: the agent's client slot is free again. */
	if (sbi && sb->s_root)
		famfs_follow_release_slot(sb);
	kill_block_super(sb);
	/* put_super is not called when fill_super failed early. */
	if (sbi)
		famfs_put_devices(sb);
	famfs_free_sbi(sbi);
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
