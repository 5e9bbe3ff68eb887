/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libfamfs_mountq: find the filesystem behind a path inside a famfs-fused
 * mount, for tools that take device paths (famfs-cli getmap, fsck). It
 * reads the server's virtual xattrs (docs/fuse.md):
 *   user.famfs.devices  JSON array of the device paths, index order
 *   user.famfs.path     the node's path inside the filesystem ("/a/b")
 *   user.famfs.map      a file's map, the shape of getmap -o json
 * A path outside famfs-fused gives -ENODATA or -EOPNOTSUPP.
 */
#ifndef FAMFS_MOUNTQ_H
#define FAMFS_MOUNTQ_H

/*
 * famfs_mountq_xattr() - read user.famfs.<@what> of @path into *@out
 * (malloc'ed, NUL-terminated; the caller frees). Returns 0 or -errno.
 */
int famfs_mountq_xattr(const char *path, const char *what, char **out);

/*
 * famfs_mountq_resolve() - the devices and in-filesystem path of @path.
 * *@devs is a malloc'ed array of *@ndev malloc'ed strings (free with
 * famfs_mountq_free()); *@fs_path is malloc'ed. Returns 0 or -errno.
 */
int famfs_mountq_resolve(const char *path, char ***devs, unsigned *ndev,
			 char **fs_path);
void famfs_mountq_free(char **devs, unsigned ndev);

/*
 * Growing a mounted filesystem (docs/fuse.md "Devices added while
 * mounted"): an ioctl on the mount's root directory, by the server's own
 * user or root. The paths are this host's paths of the new devices, in
 * index order, NUL-separated.
 *   FAMFS_IOC_ADD_DEVICES     master mount: check all, then label each and
 *                             append its DEVICE_ADD (famfs_devices_add())
 *   FAMFS_IOC_ATTACH_DEVICES  client mount: open devices the master added
 *                             (famfs_device_attach()) and replay on
 * The answer is in result (0 or -errno) and msg.
 */
#include <linux/ioctl.h>
#include <stddef.h>
#include <stdint.h>

#define FAMFS_IOC_PATHS_MAX 8192

struct famfs_ioc_devices {
	int32_t result;                  /* out */
	uint32_t ndev;                   /* in */
	char msg[640];                   /* out: what failed, naming it */
	char paths[FAMFS_IOC_PATHS_MAX]; /* in: ndev NUL-terminated paths */
};

#define FAMFS_IOC_ADD_DEVICES    _IOWR('f', 0x41, struct famfs_ioc_devices)
#define FAMFS_IOC_ATTACH_DEVICES _IOWR('f', 0x42, struct famfs_ioc_devices)

/*
 * famfs_mountq_devices() - send @cmd with @n device paths to the
 * famfs-fused mount at @mountpoint. Returns 0 or -errno; a message naming
 * what failed goes to @msg (@msglen bytes).
 */
int famfs_mountq_devices(const char *mountpoint, unsigned long cmd,
			 const char *const *paths, unsigned n, char *msg,
			 size_t msglen);

#endif
