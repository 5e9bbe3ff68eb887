// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: the ioctls through which user space, replaying the
 * log, adds directories and files with their maps. Every map is checked
 * by famfs_kmap_validate() before the kernel uses it.
 */
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/uaccess.h>
#include <linux/cred.h>

#include "famfs_kmod.h"
#include "famfs/famfs_ioctl.h"

static_assert(sizeof(struct famfs_ioc_item) == sizeof(struct famfs_map_item));
static_assert(offsetof(struct famfs_ioc_item, offset) ==
	      offsetof(struct famfs_map_item, offset));
static_assert(offsetof(struct famfs_ioc_item, length) ==
	      offsetof(struct famfs_map_item, length));
static_assert(FAMFS_IOC_MAX_ITEMS == FAMFS_MAX_EXTENTS);
static_assert(FAMFS_IOC_MAX_ITEMS == FAMFS_MAX_STRIPS);

/* One path component: 1..255 bytes, NUL-terminated, no '/', not . or .. */
static int famfs_check_name(const char *name)
{
	size_t len = strnlen(name, FAMFS_IOC_NAME_MAX + 1);

	if (len == 0 || len > FAMFS_IOC_NAME_MAX)
		return -EINVAL;
	if (strchr(name, '/'))
		return -EINVAL;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	return 0;
}

static int famfs_attrs_from_user(u32 mode, u32 uid, u32 gid, u64 mtime_ns,
				 u64 ctime_ns, struct famfs_attrs *a)
{
	if (mode & ~07777)
		return -EINVAL;
	a->mode = mode;
	a->uid = make_kuid(current_user_ns(), uid);
	a->gid = make_kgid(current_user_ns(), gid);
	if (!uid_valid(a->uid) || !gid_valid(a->gid))
		return -EINVAL;
	a->mtime = ns_to_timespec64(mtime_ns);
	a->ctime = ns_to_timespec64(ctime_ns);
	return 0;
}

/* Copy a map and its items from user space; NULL map for nitems == 0. */
static int famfs_kmap_from_user(const struct famfs_ioc_map *um,
				struct famfs_kmap **out)
{
	struct famfs_kmap *m;

	*out = NULL;
	if (um->nitems > FAMFS_IOC_MAX_ITEMS || um->reserved)
		return -EINVAL;
	m = kzalloc(famfs_kmap_bytes(um->nitems), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->map_type = um->map_type;
	m->nitems = um->nitems;
	m->chunk = um->chunk;
	if (copy_from_user(m->items, u64_to_user_ptr(um->items),
			   um->nitems * sizeof(m->items[0]))) {
		kfree(m);
		return -EFAULT;
	}
	*out = m;
	return 0;
}

static long famfs_ioc_create(struct file *dirf, void __user *arg)
{
	struct famfs_sb_info *sbi = FAMFS_SB(file_inode(dirf)->i_sb);
	struct famfs_ioc_create *req;
	struct famfs_kmap *map = NULL;
	struct famfs_attrs a = {};
	long rc;

	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	rc = famfs_check_name(req->name);
	if (!rc && req->reserved)
		rc = -EINVAL;
	if (!rc)
		rc = famfs_attrs_from_user(req->mode, req->uid, req->gid,
					   req->mtime_ns, req->ctime_ns, &a);
	if (rc)
		goto out;
	a.size = req->size;
	a.claim = true;
	a.ino = req->ino;
	rc = famfs_kmap_from_user(&req->map, &map);
	if (rc)
		goto out;
	/* Devices are only added, so a map valid now stays valid. */
	mutex_lock(&sbi->dev_lock);
	rc = famfs_kmap_validate(map, req->size, &sbi->geom);
	mutex_unlock(&sbi->dev_lock);
	if (rc)
		goto out;
	if (map->nitems == 0) {
		kfree(map);
		map = NULL;
	}
	rc = famfs_add_file(file_dentry(dirf), req->name, map, &a);
	map = NULL;	/* owned by the inode, or freed */
out:
	kfree(map);
	kfree(req);
	return rc;
}

static long famfs_ioc_mkdir(struct file *dirf, void __user *arg)
{
	struct famfs_ioc_mkdir *req;
	struct famfs_attrs a = {};
	long rc;

	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	rc = famfs_check_name(req->name);
	if (!rc && req->reserved)
		rc = -EINVAL;
	if (!rc)
		rc = famfs_attrs_from_user(req->mode, req->uid, req->gid,
					   req->mtime_ns, req->mtime_ns, &a);
	a.ino = req->ino;
	if (!rc)
		rc = famfs_add_dir(file_dentry(dirf), req->name, &a);
	kfree(req);
	return rc;
}

/* The target of a SYMLINK: 1..4095 bytes from user space, no NUL. */
static char *famfs_target_from_user(u64 uptr, u32 len)
{
	char *t;

	if (len == 0 || len > FAMFS_IOC_SYMLINK_MAX)
		return ERR_PTR(-EINVAL);
	t = memdup_user_nul(u64_to_user_ptr(uptr), len);
	if (!IS_ERR(t) && strlen(t) != len) {
		kfree(t);
		return ERR_PTR(-EINVAL);
	}
	return t;
}

static long famfs_ioc_symlink(struct file *dirf, void __user *arg)
{
	struct famfs_ioc_symlink *req;
	struct famfs_attrs a = {};
	char *target = NULL;
	long rc;

	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	rc = famfs_check_name(req->name);
	if (!rc && req->reserved)
		rc = -EINVAL;
	if (!rc)
		rc = famfs_attrs_from_user(0777, req->uid, req->gid,
					   req->mtime_ns, req->mtime_ns, &a);
	if (!rc) {
		target = famfs_target_from_user(req->target, req->target_len);
		if (IS_ERR(target))
			rc = PTR_ERR(target);
	}
	a.ino = req->ino;
	if (!rc)
		rc = famfs_add_symlink(file_dentry(dirf), req->name, target,
				       &a);
	kfree(req);
	return rc;
}

static long famfs_ioc_remove(struct file *dirf, void __user *arg)
{
	struct famfs_ioc_remove *req;
	long rc;

	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	rc = famfs_check_name(req->name);
	if (!rc)
		rc = famfs_remove(file_dentry(dirf), req->name, req->ino,
				  req->seq);
	kfree(req);
	return rc;
}

static long famfs_ioc_exchange(struct file *dirf, void __user *arg)
{
	struct famfs_ioc_exchange *req;
	struct file *fb = NULL;
	long rc;

	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	rc = famfs_check_name(req->name_a);
	if (!rc)
		rc = famfs_check_name(req->name_b);
	if (!rc && req->reserved)
		rc = -EINVAL;
	if (!rc) {
		fb = fget(req->dirfd_b);
		if (!fb)
			rc = -EBADF;
		else if (!S_ISDIR(file_inode(fb)->i_mode))
			rc = -ENOTDIR;
	}
	if (!rc)
		rc = famfs_exchange(file_dentry(dirf), req->name_a, req->ino_a,
				    file_dentry(fb), req->name_b, req->ino_b);
	if (fb)
		fput(fb);
	kfree(req);
	return rc;
}

static long famfs_ioc_setattr(struct file *dirf, void __user *arg)
{
	struct famfs_ioc_setattr *req;
	struct famfs_attrs a = {};
	long rc;

	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	rc = famfs_check_name(req->name);
	if (!rc && req->reserved)
		rc = -EINVAL;
	if (!rc)
		rc = famfs_attrs_from_user(req->mode, req->uid, req->gid,
					   req->mtime_ns, req->ctime_ns, &a);
	a.ino = req->ino;
	if (!rc)
		rc = famfs_change_attrs(file_dentry(dirf), req->name, &a,
					ns_to_timespec64(req->atime_ns));
	kfree(req);
	return rc;
}

static long famfs_ioc_device_add(struct file *dirf, void __user *arg)
{
	struct dentry *dentry = file_dentry(dirf);
	struct famfs_ioc_device_add *req;
	long rc = -EINVAL;

	if (!IS_ROOT(dentry))
		return -EINVAL;
	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	if (!req->reserved && strnlen(req->path, sizeof(req->path)) > 0 &&
	    strnlen(req->path, sizeof(req->path)) < sizeof(req->path))
		rc = famfs_device_add(dentry->d_sb, req->path, req->dev_index);
	kfree(req);
	return rc;
}

long famfs_dir_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	/* Only the replaying agent may shape the tree. */
	switch (cmd) {
	case FAMFS_IOC_CREATE:
	case FAMFS_IOC_MKDIR:
	case FAMFS_IOC_REMOVE:
	case FAMFS_IOC_DEVICE_ADD:
	case FAMFS_IOC_SLOT_WRITE:
	case FAMFS_IOC_SETATTR:
	case FAMFS_IOC_SYMLINK:
	case FAMFS_IOC_EXCHANGE:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		break;
	case FAMFS_IOC_SYNCED_SET:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return famfs_ioc_synced(file, cmd, uarg);
	case FAMFS_IOC_SYNCED_GET:
		return famfs_ioc_synced(file, cmd, uarg);
	case FAMFS_IOC_HELD:
		return famfs_ioc_held(file, uarg);
	default:
		return -ENOTTY;
	}
	if (cmd == FAMFS_IOC_CREATE)
		return famfs_ioc_create(file, uarg);
	if (cmd == FAMFS_IOC_MKDIR)
		return famfs_ioc_mkdir(file, uarg);
	if (cmd == FAMFS_IOC_REMOVE)
		return famfs_ioc_remove(file, uarg);
	if (cmd == FAMFS_IOC_SLOT_WRITE)
		return famfs_ioc_slot_write(file, uarg);
	if (cmd == FAMFS_IOC_SETATTR)
		return famfs_ioc_setattr(file, uarg);
	if (cmd == FAMFS_IOC_SYMLINK)
		return famfs_ioc_symlink(file, uarg);
	if (cmd == FAMFS_IOC_EXCHANGE)
		return famfs_ioc_exchange(file, uarg);
	return famfs_ioc_device_add(file, uarg);
}

long famfs_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct inode *inode = file_inode(file);
	struct famfs_kmap *map = famfs_inode_map(inode);
	struct famfs_ioc_mapinfo info = { .size = i_size_read(inode) };

	if (cmd != FAMFS_IOC_MAPINFO)
		return -ENOTTY;
	if (map) {
		info.map_type = map->map_type;
		info.nitems = map->nitems;
		info.chunk = map->chunk;
		info.map_bytes = famfs_kmap_bytes(map->nitems);
	}
	if (copy_to_user((void __user *)arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}
