// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: the devices of a mount.
 *
 * Device 0 is the block device the filesystem is mounted from; it holds
 * the superblock and the log. Devices 1.. are named with dev= mount
 * options, in index order, opened exclusively, and must carry the label
 * the superblock expects (same filesystem, same index, same device uuid).
 * Each must be DAX-capable: fs_dax_get_by_bdev() gives its dax_device.
 */
#include <linux/blkdev.h>
#include <linux/crc32.h>
#include <linux/dax.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "famfs_kmod.h"

u32 famfs_crc32c(const void *buf, size_t len)
{
	return ~__crc32c_le(~0U, buf, len);
}

int famfs_dax_read(struct famfs_kdev *dev, u64 off, void *buf, size_t len)
{
	u64 pos = dev->part_off + off;
	long nr = PHYS_PFN(offset_in_page(pos) + len + PAGE_SIZE - 1);
	void *kaddr;
	long avail;
	int id;

	id = dax_read_lock();
	avail = dax_direct_access(dev->dax_dev, PHYS_PFN(pos), nr, DAX_ACCESS,
				  &kaddr, NULL);
	if (avail >= nr)
		memcpy(buf, kaddr + offset_in_page(pos), len);
	dax_read_unlock(id);
	if (avail < 0)
		return avail;
	return avail >= nr ? 0 : -EIO;
}

int famfs_get_dax(struct fs_context *fc, struct super_block *sb,
		  struct block_device *bdev)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_kdev *dev = &sbi->dev[sbi->ndev];

	dev->dax_dev = fs_dax_get_by_bdev(bdev, &dev->part_off, sb, NULL);
	if (!dev->dax_dev)
		return invalf(fc, "famfs: %pg is not a DAX device (or is in use)",
			      bdev);
	dev->bdev = bdev;
	sbi->ndev++;
	return 0;
}

static int famfs_check_label(struct fs_context *fc, struct famfs_kdev *dev,
			     unsigned int index,
			     const struct famfs_superblock *fsb)
{
	struct famfs_dev_label *l;
	u32 crc;
	int rc;

	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	rc = famfs_dax_read(dev, FAMFS_LABEL_OFFSET, l, sizeof(*l));
	if (rc) {
		errorf(fc, "famfs: %pg: cannot read the label: %d", dev->bdev,
		       rc);
		goto out;
	}
	crc = l->crc;
	l->crc = 0;
	if (l->magic != FAMFS_LABEL_MAGIC || famfs_crc32c(l, sizeof(*l)) != crc)
		rc = invalf(fc, "famfs: %pg has no valid famfs label",
			    dev->bdev);
	else if (memcmp(&l->fs_uuid, &fsb->fs_uuid, sizeof(l->fs_uuid)))
		rc = invalf(fc, "famfs: %pg belongs to another filesystem",
			    dev->bdev);
	else if (l->dev_index != index ||
		 memcmp(&l->dev_uuid, &fsb->devices[index].dev_uuid,
			sizeof(l->dev_uuid)))
		rc = invalf(fc, "famfs: %pg is device %u, not %u", dev->bdev,
			    l->dev_index, index);
out:
	kfree(l);
	return rc;
}

int famfs_open_extra_devices(struct fs_context *fc, struct super_block *sb,
			     const struct famfs_superblock *fsb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct block_device *bdev;
	unsigned int i;
	u64 size;
	int rc;

	sbi->extra_mode = FMODE_READ | FMODE_EXCL |
			  (sb_rdonly(sb) ? 0 : FMODE_WRITE);
	for (i = 1; i < fsb->ndevices; i++) {
		bdev = blkdev_get_by_path(sbi->extra[i - 1], sbi->extra_mode,
					  sb);
		if (IS_ERR(bdev))
			return invalf(fc, "famfs: cannot open %s: %ld",
				      sbi->extra[i - 1], PTR_ERR(bdev));
		rc = famfs_get_dax(fc, sb, bdev);
		if (rc) {
			blkdev_put(bdev, sbi->extra_mode);
			return rc;
		}
		rc = famfs_check_label(fc, &sbi->dev[i], i, fsb);
		if (rc)
			return rc;
		size = fsb->devices[i].dev_size;
		if (size < 2 * FAMFS_UNIT_SIZE || size % FAMFS_UNIT_SIZE ||
		    size > bdev_nr_bytes(bdev))
			return invalf(fc, "famfs: device %u size %llu does not fit %pg",
				      i, size, bdev);
		sbi->geom.dev[i].size = size;
		/* the first unit holds the label */
		sbi->geom.dev[i].data_start = FAMFS_UNIT_SIZE;
	}
	sbi->geom.ndev = fsb->ndevices;
	return 0;
}

void famfs_put_devices(struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_kdev *dev;

	while (sbi->ndev > 0) {
		dev = &sbi->dev[--sbi->ndev];
		fs_put_dax(dev->dax_dev, sb);
		/* device 0 is the superblock's own, put by the VFS */
		if (sbi->ndev > 0)
			blkdev_put(dev->bdev, sbi->extra_mode);
		dev->dax_dev = NULL;
		dev->bdev = NULL;
	}
}
