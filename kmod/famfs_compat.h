/* SPDX-License-Identifier: GPL-2.0 */
/*
 * famfs kernel module: the kernel interfaces that changed between 6.1 and
 * 6.12 (Debian 12's two kernels), each behind one name here so that the
 * rest of the module reads the same on both. docs/kmod.md lists them.
 * Kernels 6.5 to 6.8 had a third block device open API and are refused.
 */
#ifndef FAMFS_COMPAT_H
#define FAMFS_COMPAT_H

#include <linux/blkdev.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/version.h>

#define FAMFS_KV(a, b) (KERNEL_VERSION(a, b, 0) <= LINUX_VERSION_CODE)

/* 6.3: setattr and friends take the mount's idmap, not a user_namespace */
#if FAMFS_KV(6, 3)
#define FAMFS_IDMAP struct mnt_idmap
#else
#define FAMFS_IDMAP struct user_namespace
#endif

/* 6.3: vm_flags may only change through these */
#if !FAMFS_KV(6, 3)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 6.7: atime and mtime are set through accessors (ctime's came with 6.6
 * and are in Debian's 6.1 stable kernel too)
 */
#if !FAMFS_KV(6, 7)
static inline struct timespec64 inode_set_mtime_to_ts(struct inode *inode,
						      struct timespec64 ts)
{
	inode->i_mtime = ts;
	return ts;
}

static inline struct timespec64 inode_set_atime_to_ts(struct inode *inode,
						      struct timespec64 ts)
{
	inode->i_atime = ts;
	return ts;
}
#endif

/*
 * A write fault on a shared mapping of a raw range. 6.12 does not export
 * vmf_insert_mixed_mkwrite(); the PTE is then mapped as the VMA allows,
 * and a write through a write-protected one takes a second fault that
 * makes it writable (wp_pfn_shared(), as there is no ->pfn_mkwrite).
 */
#if FAMFS_KV(6, 9)
#define famfs_insert_mixed_write vmf_insert_mixed
#else
#define famfs_insert_mixed_write vmf_insert_mixed_mkwrite
#endif

/* 6.5: generic_file_splice_read() is gone; DAX files copy */
#if FAMFS_KV(6, 5)
#define famfs_splice_read copy_splice_read
#else
#define famfs_splice_read generic_file_splice_read
#endif

/* 6.6: ->huge_fault() and dax_iomap_fault() take a page order */
#if FAMFS_KV(6, 6)
#define FAMFS_FAULT_SIZE unsigned int
#define FAMFS_FAULT_PTE 0
#else
#define FAMFS_FAULT_SIZE enum page_entry_size
#define FAMFS_FAULT_PTE PE_SIZE_PTE
#endif

/*
 * Exclusive opens of a filesystem's further devices (@holder: the
 * super_block). 6.9 returns a struct file that is the handle to give
 * back; 6.1 gives back the block device with its open mode.
 */
#if FAMFS_KV(6, 9)
static inline struct block_device *
famfs_bdev_open(const char *path, bool write, void *holder,
		struct file **handle)
{
	struct file *f;

	f = bdev_file_open_by_path(path,
				   BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0),
				   holder, NULL);
	if (IS_ERR(f))
		return ERR_CAST(f);
	*handle = f;
	return file_bdev(f);
}

static inline void famfs_bdev_close(struct block_device *bdev, bool write,
				    struct file *handle)
{
	bdev_fput(handle);
}
#elif !FAMFS_KV(6, 5)
static inline fmode_t famfs_bdev_mode(bool write)
{
	return FMODE_READ | FMODE_EXCL | (write ? FMODE_WRITE : 0);
}

static inline struct block_device *
famfs_bdev_open(const char *path, bool write, void *holder,
		struct file **handle)
{
	*handle = NULL;
	return blkdev_get_by_path(path, famfs_bdev_mode(write), holder);
}

static inline void famfs_bdev_close(struct block_device *bdev, bool write,
				    struct file *handle)
{
	blkdev_put(bdev, famfs_bdev_mode(write));
}
#else
#error "famfs: kernels 6.5 to 6.8 are not supported (6.1 and 6.9+ are)"
#endif

/*
 * Unmount: drop the one pin every dentry of the tree holds (inode.c).
 * 6.1 exports d_genocide(); 6.8 made it internal, so later kernels walk
 * the tree here, leaves first. Nothing else uses the tree at unmount;
 * the parent's d_lock keeps its child list still against the shrinker.
 */
#if FAMFS_KV(6, 8)
static inline struct dentry *famfs_first_pinned_child(struct dentry *parent)
{
	struct dentry *c;

	spin_lock(&parent->d_lock);
	for (c = d_first_child(parent); c; c = d_next_sibling(c))
		if (d_really_is_positive(c) && !d_unhashed(c))
			break;
	spin_unlock(&parent->d_lock);
	return c;
}

static inline void famfs_unpin_tree(struct dentry *root)
{
	struct dentry *d = root, *child, *parent;

	for (;;) {
		child = famfs_first_pinned_child(d);
		if (child) {
			d = child;
			continue;
		}
		if (d == root)
			return;
		parent = d->d_parent;
		/* unhashed, the last dput frees it and its parent's ref */
		d_drop(d);
		dput(d);
		d = parent;
	}
}
#else
static inline void famfs_unpin_tree(struct dentry *root)
{
	d_genocide(root);
}
#endif

#endif /* FAMFS_COMPAT_H */
