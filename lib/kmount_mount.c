// SPDX-License-Identifier: Apache-2.0
/*
 * famfs_kmount_mount(): mount(2) of a filesystem through the famfs kernel
 * module (device 0, the other devices as mount options), then the first
 * sync of the log into it (kmount.c). A mount that cannot be synced is
 * unmounted again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "famfs_kmount.h"
#include "internal.h"
#include "famfs/famfs_ioctl.h"

/*
 * "dev=P1,dev=P2,..." for devices 1.. of the superblock (devices added
 * later are added after the mount by famfs_kmount_sync()); device 0's
 * path into @dev0. With one device nothing is opened.
 */
static int mount_options(const char *const *devs, unsigned ndev, char *dev0,
			 size_t dev0len, char *opts, size_t optlen,
			 struct famfs_err *e)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_fs *fs;
	size_t used = 0;
	unsigned nsb;
	int r;

	opts[0] = '\0';
	snprintf(dev0, dev0len, "%s", devs[0]);
	if (ndev == 1)
		return 0;
	r = famfs_open(devs, ndev, &o, &fs, e);
	if (r)
		return r;
	nsb = famfs_fs_sb(fs)->ndevices;
	snprintf(dev0, dev0len, "%s", famfs_dev_path(famfs_fs_dev(fs, 0)));
	for (unsigned i = 1; i < nsb && !r; i++) {
		const char *p = famfs_dev_path(famfs_fs_dev(fs, i));

		if (strchr(p, ','))
			r = famfs_set_err(e, -EINVAL, "%s: a device path with "
					  "',' cannot be passed to mount(2)", p);
		else if ((size_t)snprintf(opts + used, optlen - used,
					  "%s%s=%s", used ? "," : "",
					  FAMFS_KMOD_MOUNT_OPT_DEV, p) >=
			 optlen - used)
			r = famfs_set_err(e, -E2BIG, "too many device paths");
		else
			used += strlen(opts + used);
	}
	famfs_close(fs);
	return r;
}

static int mount_error(struct famfs_err *e, const char *dev, const char *mnt,
		       int err)
{
	if (err == ENODEV)
		return famfs_set_err(e, -err, "filesystem type '%s' is "
				     "unknown: load the kernel module "
				     "(modprobe famfs)", FAMFS_KMOD_FSTYPE);
	if (err == EINVAL)
		return famfs_set_err(e, -err, "%s refused: not an fsdax (DAX) "
				     "device, no valid famfs superblock, or a "
				     "device of the filesystem missing (see "
				     "dmesg)", dev);
	return famfs_set_err(e, -err, "cannot mount %s on %s: %s", dev, mnt,
			     strerror(err));
}

FAMFS_EXPORT int famfs_kmount_mount(const char *const *devs, unsigned ndev,
				    const char *mnt, bool client,
				    struct famfs_kmount_count *n, char *desc,
				    size_t desclen, struct famfs_err *e)
{
	char opts[8192], dev0[FAMFS_PATH_MAX];
	struct famfs_kmount *km;
	struct stat st;
	int r;

	if (stat(mnt, &st) != 0 || !S_ISDIR(st.st_mode))
		return famfs_set_err(e, -ENOTDIR, "%s is not a directory", mnt);
	r = mount_options(devs, ndev, dev0, sizeof(dev0), opts, sizeof(opts),
			  e);
	if (r)
		return r;
	snprintf(desc, desclen, "%s%s%s", dev0, opts[0] ? " " : "", opts);
	if (mount(dev0, mnt, FAMFS_KMOD_FSTYPE, client ? MS_RDONLY : 0,
		  opts[0] ? opts : NULL) != 0)
		return mount_error(e, dev0, mnt, errno);
	r = famfs_kmount_attach(mnt, devs, ndev, &km, e);
	if (!r) {
		r = famfs_kmount_sync(km, devs, ndev, n, e);
		famfs_kmount_detach(km);
	}
	/* Never leave a half-replayed mount behind. */
	if (r && umount2(mnt, 0) != 0) {
		char why[sizeof(e->msg)];

		snprintf(why, sizeof(why), "%s", e->msg);
		famfs_set_err(e, r, "%.400s; and cannot unmount %s again: %s",
			      why, mnt, strerror(errno));
	}
	return r;
}
