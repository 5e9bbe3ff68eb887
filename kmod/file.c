// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: the DAX data path.
 *
 * Every read, write and fault goes through famfs_iomap_begin(), which
 * turns a file offset into a device offset with famfs_resolve_items()
 * (include/famfs/fmap_resolve.h). An interleaved file is never expanded
 * into extents: each call computes its strip and stripe from the
 * descriptor.
 * Files never change size; writes stop at the end of the file.
 */
#include <linux/fs.h>
#include <linux/dax.h>
#include <linux/huge_mm.h>
#include <linux/iomap.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/uio.h>

#include "famfs_kmod.h"

static int famfs_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			     unsigned int flags, struct iomap *iomap,
			     struct iomap *srcmap)
{
	struct famfs_sb_info *sbi = FAMFS_SB(inode->i_sb);
	struct famfs_kmap *map = famfs_inode_map(inode);
	loff_t start = pos & PAGE_MASK;
	struct famfs_loc loc;
	struct famfs_kdev *dev;

	if (!map || pos >= i_size_read(inode))
		return -EINVAL;
	if (famfs_kmap_resolve(map, start, &loc))
		return -EINVAL;
	/* Validated at create: every item's device is open. */
	dev = sbi->dev[loc.dev_index];

	iomap->type = IOMAP_MAPPED;
	iomap->flags = 0;
	iomap->offset = start;
	iomap->length = loc.length;
	iomap->addr = loc.dev_offset + dev->part_off;
	iomap->bdev = dev->bdev;
	iomap->dax_dev = dev->dax_dev;
	return 0;
}

const struct iomap_ops famfs_iomap_ops = {
	.iomap_begin	= famfs_iomap_begin,
};

static ssize_t famfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	if (!iov_iter_count(to))
		return 0;
	inode_lock_shared(inode);
	/* iomap_begin refuses offsets past the map, so EOF is found here. */
	if (iocb->ki_pos >= i_size_read(inode))
		ret = 0;
	else
		ret = dax_iomap_rw(iocb, to, &famfs_iomap_ops);
	inode_unlock_shared(inode);
	file_accessed(iocb->ki_filp);
	return ret;
}

static ssize_t famfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	loff_t size;
	ssize_t ret;

	inode_lock(inode);
	ret = generic_write_checks(iocb, from);
	if (ret <= 0)
		goto out_unlock;
	size = i_size_read(inode);
	if (iocb->ki_pos >= size) {
		/* The allocation is fixed when the file is logged. */
		ret = -EFBIG;
		goto out_unlock;
	}
	iov_iter_truncate(from, size - iocb->ki_pos);
	ret = file_remove_privs(iocb->ki_filp);
	if (ret)
		goto out_unlock;
	ret = dax_iomap_rw(iocb, from, &famfs_iomap_ops);
out_unlock:
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

static vm_fault_t famfs_huge_fault(struct vm_fault *vmf,
				   FAMFS_FAULT_SIZE pe_size)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	bool write = (vmf->flags & FAULT_FLAG_WRITE) &&
		     (vmf->vma->vm_flags & VM_SHARED);
	vm_fault_t ret;

	if (write)
		sb_start_pagefault(inode->i_sb);
	filemap_invalidate_lock_shared(inode->i_mapping);
	ret = dax_iomap_fault(vmf, pe_size, NULL, NULL, &famfs_iomap_ops);
	filemap_invalidate_unlock_shared(inode->i_mapping);
	if (write)
		sb_end_pagefault(inode->i_sb);
	return ret;
}

static vm_fault_t famfs_fault(struct vm_fault *vmf)
{
	return famfs_huge_fault(vmf, FAMFS_FAULT_PTE);
}

static const struct vm_operations_struct famfs_vm_ops = {
	.fault		= famfs_fault,
	.huge_fault	= famfs_huge_fault,
	.page_mkwrite	= famfs_fault,
	.pfn_mkwrite	= famfs_fault,
};

static int famfs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &famfs_vm_ops;
	/* Ask for PMD faults; dax_iomap_fault() falls back where unaligned. */
	vm_flags_set(vma, VM_HUGEPAGE);
	return 0;
}

static int famfs_fsync(struct file *file, loff_t start, loff_t end,
		       int datasync)
{
	/* Writes back CPU caches of dirty DAX ranges (famfs_writepages). */
	return file_write_and_wait_range(file, start, end);
}

const struct inode_operations famfs_file_inode_operations = {
	.setattr	= famfs_setattr,
	.getattr	= simple_getattr,
};

const struct file_operations famfs_file_operations = {
	.llseek			= generic_file_llseek,
	.read_iter		= famfs_read_iter,
	.write_iter		= famfs_write_iter,
	.mmap			= famfs_file_mmap,
	.get_unmapped_area	= thp_get_unmapped_area,
	.fsync			= famfs_fsync,
	.splice_read		= famfs_splice_read,
	.unlocked_ioctl		= famfs_file_ioctl,
};

/*
 * .meta/devN maps the whole device N, file data included, so its pages
 * are also mapped by the files. fsdax on 6.1 lets a page belong to one
 * address_space only (page->mapping), so the meta file must not insert
 * DAX entries: it maps raw device pfns, 4 KiB at a time, and keeps no
 * page cache state. Private writable mappings would need a CoW copy and
 * are refused.
 */
/* A meta file's one extent names its device. */
static struct famfs_kdev *famfs_meta_dev(struct inode *inode)
{
	struct famfs_kmap *map = famfs_inode_map(inode);

	return FAMFS_SB(inode->i_sb)->dev[map->items[0].dev_index];
}

static vm_fault_t famfs_meta_fault(struct vm_fault *vmf)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	struct famfs_kdev *dev = famfs_meta_dev(inode);
	u64 pos = (u64)vmf->pgoff << PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	void *kaddr;
	pfn_t pfn;
	int id;

	if (pos >= i_size_read(inode))
		return VM_FAULT_SIGBUS;
	id = dax_read_lock();
	if (dax_direct_access(dev->dax_dev, PHYS_PFN(dev->part_off + pos),
			      1, DAX_ACCESS, &kaddr, &pfn) == 1) {
		if (vmf->flags & FAULT_FLAG_WRITE)
			ret = famfs_insert_mixed_write(vmf->vma, vmf->address,
						       pfn);
		else
			ret = vmf_insert_mixed(vmf->vma, vmf->address, pfn);
	}
	dax_read_unlock(id);
	return ret;
}

static const struct vm_operations_struct famfs_meta_vm_ops = {
	.fault		= famfs_meta_fault,
};

static int famfs_meta_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED)) {
		if (vma->vm_flags & VM_WRITE)
			return -EINVAL;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	file_accessed(file);
	vma->vm_ops = &famfs_meta_vm_ops;
	return 0;
}

/* msync/fsync on the meta file: write back CPU caches of the range. */
static int famfs_meta_fsync(struct file *file, loff_t start, loff_t end,
			    int datasync)
{
	struct inode *inode = file_inode(file);
	struct famfs_kdev *dev = famfs_meta_dev(inode);
	loff_t size = i_size_read(inode);
	loff_t pos = start & PAGE_MASK;
	long nr;
	void *kaddr;
	int id, rc = 0;

	if (end >= size)
		end = size - 1;
	id = dax_read_lock();
	while (pos <= end) {
		nr = dax_direct_access(dev->dax_dev,
				       PHYS_PFN(dev->part_off + pos),
				       PHYS_PFN(end - pos) + 1, DAX_ACCESS,
				       &kaddr, NULL);
		if (nr <= 0) {
			rc = nr ? nr : -EIO;
			break;
		}
		nr = min_t(loff_t, (loff_t)nr << PAGE_SHIFT, end + 1 - pos);
		dax_flush(dev->dax_dev, kaddr, nr);
		pos += nr;
	}
	dax_read_unlock(id);
	return rc;
}

const struct file_operations famfs_meta_file_operations = {
	.llseek			= generic_file_llseek,
	.read_iter		= famfs_read_iter,
	.write_iter		= famfs_write_iter,
	.mmap			= famfs_meta_mmap,
	.fsync			= famfs_meta_fsync,
};

static int famfs_writepages(struct address_space *mapping,
			    struct writeback_control *wbc)
{
	struct famfs_sb_info *sbi = FAMFS_SB(mapping->host->i_sb);

	/*
	 * The dax_device only gates the cache write-back (its write-cache
	 * flag); the flushed addresses come from each entry's pfn, so device
	 * 0 serves files that span several devices too.
	 */
	return dax_writeback_mapping_range(mapping, sbi->dev[0]->dax_dev, wbc);
}

const struct address_space_operations famfs_dax_aops = {
	.writepages	= famfs_writepages,
	.direct_IO	= noop_direct_IO,
	.dirty_folio	= noop_dirty_folio,
};
