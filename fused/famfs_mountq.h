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

#endif
