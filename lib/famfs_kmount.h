/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libfamfs: mounts through the famfs kernel module (kmod/). The module
 * presents an empty tree plus .meta/devN; user space replays the log
 * (read through those meta files) and shapes the tree with the module's
 * ioctls. famfs-cli mount --kernel and famfsd's kernel backend both go
 * through these calls.
 */
#ifndef FAMFS_KMOUNT_H
#define FAMFS_KMOUNT_H

#include <stdbool.h>

#include "famfs.h"

/* What one pass changed in the mount. */
struct famfs_kmount_count {
	unsigned dirs;            /* directories added */
	unsigned files;           /* files added */
	unsigned removed;         /* deleted or replaced entries removed */
	unsigned existing;        /* already in the mount, unchanged */
	unsigned busy;            /* new files whose memory a removed file
				   * still open or mapped holds: retried */
	unsigned devices;         /* devices added (DEVICE_ADD) */
	unsigned attrs;           /* entries in the mount whose mode, owner
				   * or times a SETATTR changed */
	unsigned symlinks;        /* symbolic links added (SYMLINK) */
	unsigned exchanged;       /* EXCHANGEs swapped in place (format 1.5) */
};

/* A kernel mount followed by this process: the log read via .meta. */
struct famfs_kmount;

/*
 * famfs_kmount_attach() - open the log of the kernel mount at @mnt. A
 * device the log added that the mount does not have yet is looked for
 * among @devs (by its label) and added to the mount first. Free with
 * famfs_kmount_detach(). Returns 0 or a negative errno with @e set.
 */
int famfs_kmount_attach(const char *mnt, const char *const *devs,
			unsigned ndev, struct famfs_kmount **out,
			struct famfs_err *e);
/* Stop following. A client slot stays with the mount: a later claim
 * adopts it, and the module frees it when the mount goes away.
 */
void famfs_kmount_detach(struct famfs_kmount *km);

/*
 * famfs_kmount_claim_slot() - hold a client slot for the mount, as a FUSE
 * client does (lib/slots.c, written with FAMFS_IOC_SLOT_WRITE): the slot
 * the module says this mount made live is adopted (a restarted follower),
 * else a free one is claimed under @host_name (NULL: this host's). Each
 * famfs_kmount_sync() then publishes how far the mount follows the log,
 * never past the delete of a removed file the kernel still has open or
 * mapped (FAMFS_IOC_HELD), so the master does not reuse its memory.
 */
int famfs_kmount_claim_slot(struct famfs_kmount *km, const char *host_name,
			    struct famfs_err *e);

/*
 * famfs_kmount_sync() - replay what was logged since the last call and
 * make the mount's tree match the log: add new directories and files,
 * remove deleted ones (and those replaced by a newer file of the same
 * name), add new devices (found among @devs). A new file whose memory a
 * removed one still holds counts in @n->busy and is added by a later
 * call. Returns 0 or a negative errno with @e naming the entry.
 */
int famfs_kmount_sync(struct famfs_kmount *km, const char *const *devs,
		      unsigned ndev, struct famfs_kmount_count *n,
		      struct famfs_err *e);

/*
 * famfs_kmount_mount() - mount the filesystem on @devs (all of its
 * devices, any order) at @mnt with the kernel module, read-only for a
 * @client, and replay the log into it. On failure nothing stays mounted.
 * @desc receives "SOURCE [OPTIONS]" as given to mount(2).
 */
int famfs_kmount_mount(const char *const *devs, unsigned ndev,
		       const char *mnt, bool client,
		       struct famfs_kmount_count *n, char *desc,
		       size_t desclen, struct famfs_err *e);

#endif
