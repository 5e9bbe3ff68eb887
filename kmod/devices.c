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
#include <linux/crc32poly.h>
#include <linux/dax.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "famfs/crc32c.h"
#include "famfs_kmod.h"

/* The CRC of include/famfs/crc32c.h, as libfamfs computes it. */
u32 famfs_crc32c(const void *buf, size_t len)
{
	BUILD_BUG_ON(CRC32C_POLY_LE != FAMFS_CRC32C_POLY);
	return ~__crc32c_le(~0U, buf, len);
}

/* Copy @len bytes between @buf and offset @off of @dev through its
 * dax_device; a write is flushed to the media.
 */
static int famfs_dax_copy(struct famfs_kdev *dev, u64 off, void *buf,
			  size_t len, bool write)
{
	u64 pos = dev->part_off + off;
	long nr = PHYS_PFN(offset_in_page(pos) + len + PAGE_SIZE - 1);
	void *kaddr;
	long avail;
	int id;

	id = dax_read_lock();
	avail = dax_direct_access(dev->dax_dev, PHYS_PFN(pos), nr, DAX_ACCESS,
				  &kaddr, NULL);
	if (avail >= nr && write) {
		memcpy(kaddr + offset_in_page(pos), buf, len);
		dax_flush(dev->dax_dev, kaddr + offset_in_page(pos), len);
	} else if (avail >= nr) {
		memcpy(buf, kaddr + offset_in_page(pos), len);
	}
	dax_read_unlock(id);
	if (avail < 0)
		return avail;
	return avail >= nr ? 0 : -EIO;
}

int famfs_dax_read(struct famfs_kdev *dev, u64 off, void *buf, size_t len)
{
	return famfs_dax_copy(dev, off, buf, len, false);
}

int famfs_dax_write(struct famfs_kdev *dev, u64 off, const void *buf,
		    size_t len)
{
	return famfs_dax_copy(dev, off, (void *)buf, len, true);
}

int famfs_get_dax(struct fs_context *fc, struct super_block *sb,
		  struct block_device *bdev)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_kdev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->claims = RB_ROOT;
	dev->dax_dev = fs_dax_get_by_bdev(bdev, &dev->part_off, sb, NULL);
	if (!dev->dax_dev) {
		kfree(dev);
		famfs_errorf(fc, "famfs: %pg is not a DAX device (or is in use)",
			     bdev);
		return -EINVAL;
	}
	dev->bdev = bdev;
	sbi->dev[sbi->ndev++] = dev;
	return 0;
}

/*
 * The label of device @index: this filesystem's, this index and, when
 * @dev_uuid is given (devices of the superblock), that device uuid. A
 * device added later is named only by the log, which user space checks
 * against the label when it replays the DEVICE_ADD entry.
 */
static int famfs_check_label(struct fs_context *fc, struct famfs_kdev *dev,
			     unsigned int index, const struct famfs_uuid *fs_uuid,
			     const struct famfs_uuid *dev_uuid, u64 *size)
{
	struct famfs_dev_label *l;
	u32 crc;
	int rc;

	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	rc = famfs_dax_read(dev, FAMFS_LABEL_OFFSET, l, sizeof(*l));
	if (rc) {
		famfs_errorf(fc, "famfs: %pg: cannot read the label: %d",
			     dev->bdev, rc);
		goto out;
	}
	crc = l->crc;
	l->crc = 0;
	rc = -EINVAL;
	if (l->magic != FAMFS_LABEL_MAGIC || famfs_crc32c(l, sizeof(*l)) != crc)
		famfs_errorf(fc, "famfs: %pg has no valid famfs label",
			     dev->bdev);
	else if (memcmp(&l->fs_uuid, fs_uuid, sizeof(l->fs_uuid)))
		famfs_errorf(fc, "famfs: %pg belongs to another filesystem",
			     dev->bdev);
	else if (l->dev_index != index ||
		 (dev_uuid && memcmp(&l->dev_uuid, dev_uuid,
				     sizeof(l->dev_uuid))))
		famfs_errorf(fc, "famfs: %pg is device %u, not %u", dev->bdev,
			     l->dev_index, index);
	else
		rc = 0;
	*size = l->dev_size;
out:
	kfree(l);
	return rc;
}

/* Device @i's size: whole 2 MiB units, the label's unit and one more. */
static int famfs_set_dev_geom(struct fs_context *fc, struct famfs_sb_info *sbi,
			      unsigned int i, u64 size)
{
	struct block_device *bdev = sbi->dev[i]->bdev;

	if (size < 2 * FAMFS_UNIT_SIZE || size % FAMFS_UNIT_SIZE ||
	    size > bdev_nr_bytes(bdev)) {
		famfs_errorf(fc, "famfs: device %u size %llu does not fit %pg",
			     i, size, bdev);
		return -EINVAL;
	}
	sbi->geom.dev[i].size = size;
	/* the first unit holds the label */
	sbi->geom.dev[i].data_start = FAMFS_UNIT_SIZE;
	return 0;
}

/* Open @path exclusively as device sbi->ndev and take its dax_device. */
static int famfs_open_device(struct fs_context *fc, struct super_block *sb,
			     const char *path)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct block_device *bdev;
	struct file *handle;
	int rc;

	bdev = famfs_bdev_open(path, sbi->extra_write, sb, &handle);
	if (IS_ERR(bdev)) {
		famfs_errorf(fc, "famfs: cannot open %s: %ld", path,
			     PTR_ERR(bdev));
		return -EINVAL;
	}
	rc = famfs_get_dax(fc, sb, bdev);
	if (rc)
		famfs_bdev_close(bdev, sbi->extra_write, handle);
	else
		sbi->dev[sbi->ndev - 1]->bdev_handle = handle;
	return rc;
}

int famfs_open_extra_devices(struct fs_context *fc, struct super_block *sb,
			     const struct famfs_superblock *fsb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	unsigned int i;
	u64 size;
	int rc;

	sbi->fs_uuid = fsb->fs_uuid;
	sbi->extra_write = !sb_rdonly(sb);
	for (i = 1; i < fsb->ndevices; i++) {
		rc = famfs_open_device(fc, sb, sbi->extra[i - 1]);
		if (rc)
			return rc;
		rc = famfs_check_label(fc, sbi->dev[i], i, &fsb->fs_uuid,
				       &fsb->devices[i].dev_uuid, &size);
		if (rc)
			return rc;
		rc = famfs_set_dev_geom(fc, sbi, i, fsb->devices[i].dev_size);
		if (rc)
			return rc;
	}
	sbi->geom.ndev = fsb->ndevices;
	return 0;
}

/* Give back the last device opened. */
static void famfs_put_last_device(struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_kdev *dev = sbi->dev[--sbi->ndev];

	fs_put_dax(dev->dax_dev, sb);
	/* device 0 is the superblock's own, put by the VFS */
	if (sbi->ndev > 0)
		famfs_bdev_close(dev->bdev, sbi->extra_write,
				 dev->bdev_handle);
	dev->dax_dev = NULL;
	dev->bdev = NULL;
	dev->bdev_handle = NULL;
}

int famfs_device_add(struct super_block *sb, const char *path, u32 index)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	u64 size;
	int rc;

	mutex_lock(&sbi->dev_lock);
	if (index != sbi->geom.ndev || index >= FAMFS_KMOD_MAX_DEVICES ||
	    sbi->ndev != sbi->geom.ndev) {
		pr_err("famfs: cannot add device %u: the mount has %u (at most %u)\n",
		       index, sbi->geom.ndev, FAMFS_KMOD_MAX_DEVICES);
		rc = -EINVAL;
		goto out;
	}
	rc = famfs_open_device(NULL, sb, path);
	if (rc)
		goto out;
	rc = famfs_check_label(NULL, sbi->dev[index], index, &sbi->fs_uuid,
			       NULL, &size);
	if (!rc)
		rc = famfs_set_dev_geom(NULL, sbi, index, size);
	if (!rc)
		rc = famfs_add_meta_dev(sb, index);
	if (rc) {
		famfs_put_last_device(sb);
		kfree(sbi->dev[index]);
		sbi->dev[index] = NULL;
		goto out;
	}
	/* Maps may name the device from now on. */
	sbi->geom.ndev = index + 1;
	pr_info("famfs: %pg added as device %u\n", sbi->dev[index]->bdev,
		index);
out:
	mutex_unlock(&sbi->dev_lock);
	return rc;
}

void famfs_put_devices(struct super_block *sb)
{
	while (FAMFS_SB(sb)->ndev > 0)
		famfs_put_last_device(sb);
}

void famfs_free_devices(struct famfs_sb_info *sbi)
{
	unsigned int i;

	for (i = 0; i < FAMFS_KMOD_MAX_DEVICES; i++) {
		kfree(sbi->dev[i]);
		sbi->dev[i] = NULL;
	}
}
