// SPDX-License-Identifier: Apache-2.0
/*
 * The "kernel" mount backend: the famfs kernel module, mounted by famfsd
 * itself with libfamfs's famfs_kmount_mount() (what famfs-cli mount
 * --kernel does). There is no server process: the mount's state is
 * /proc/self/mountinfo, and famfsd follows the log for it (the module
 * learns about files only through ioctls), every tick and after each
 * change famfsd makes: famfs_kmount_sync() adds new files, removes
 * deleted ones and adds devices. After a famfsd restart an existing
 * kernel mount is adopted (attached again), never remounted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "famfs_kmount.h"
#include "log.h"
#include "mounts/backend.h"
#include "famfs/famfs_ioctl.h"

#define MAX_KMOUNTS 256

/* The kernel mounts famfsd follows: attached logs, by mount point. */
static struct kfollow {
	char path[4096];
	struct famfs_kmount *km;
} follows[MAX_KMOUNTS];

static struct kfollow *follow_find(const char *path, bool add)
{
	struct kfollow *empty = NULL;

	for (int i = 0; i < MAX_KMOUNTS; i++) {
		if (follows[i].km && !strcmp(follows[i].path, path))
			return &follows[i];
		if (!follows[i].km && !empty)
			empty = &follows[i];
	}
	if (add && empty)
		snprintf(empty->path, sizeof(empty->path), "%s", path);
	return add ? empty : NULL;
}

/* Stop following @path; a client slot stays with the mount, which gives
 * it back when it goes (the module frees it at unmount).
 */
static void follow_drop(const char *path)
{
	struct kfollow *f = follow_find(path, false);

	if (f) {
		famfs_kmount_detach(f->km);
		f->km = NULL;
		f->path[0] = 0;
	}
}

static int follow_attach(const struct mount_spec *m, char *err, size_t errlen)
{
	struct kfollow *f = follow_find(m->path, true);
	struct famfs_err e = { 0 };
	int r;

	if (!f) {
		snprintf(err, errlen, "famfsd follows %d kernel mounts already",
			 MAX_KMOUNTS);
		return -ENOSPC;
	}
	if (f->km)
		return 0;
	r = famfs_kmount_attach(m->path, (const char *const *)m->devs,
				m->ndev, &f->km, &e);
	/* A client host: the master must not reuse memory this mount's
	 * files still map (a restarted famfsd adopts the same slot).
	 */
	if (!r && m->client) {
		r = famfs_kmount_claim_slot(f->km, m->host_name, &e);
		if (r)
			famfs_kmount_detach(f->km);
	}
	if (r) {
		f->km = NULL;
		f->path[0] = 0;
		snprintf(err, errlen, "%s", e.msg);
	}
	return r;
}

static int kernel_start(const struct mount_spec *m, pid_t *pid, char *err,
			size_t errlen)
{
	struct famfs_kmount_count n;
	struct famfs_err e = { 0 };
	char desc[8192];
	int r;

	*pid = 0;
	follow_drop(m->path);
	r = famfs_kmount_mount((const char *const *)m->devs, m->ndev, m->path,
			       m->client, &n, desc, sizeof(desc), &e);
	if (r) {
		snprintf(err, errlen, "%s", e.msg);
		return r;
	}
	log_info("mounts/%s: mounted %s on %s with the kernel module (%s): "
		 "%u directories, %u files", m->name, desc, m->path,
		 m->client ? "client" : "master", n.dirs, n.files);
	r = follow_attach(m, err, errlen);
	if (r) {
		umount2(m->path, 0);
		return r;
	}
	return 0;
}

static int kernel_adopt(const struct mount_spec *m, char *err, size_t errlen)
{
	return follow_attach(m, err, errlen);
}

static int kernel_follow(const struct mount_spec *m, char *err, size_t errlen)
{
	struct famfs_kmount_count n;
	struct famfs_err e = { 0 };
	struct kfollow *f;
	int r;

	r = follow_attach(m, err, errlen);
	if (r)
		return r;
	f = follow_find(m->path, false);
	r = famfs_kmount_sync(f->km, (const char *const *)m->devs, m->ndev,
			      &n, &e);
	if (r) {
		snprintf(err, errlen, "%s", e.msg);
		/* attach again next time: a fresh replay of the whole log */
		follow_drop(m->path);
		return r;
	}
	if (n.dirs || n.files || n.removed || n.devices || n.attrs)
		log_info("mounts/%s: followed the log: %u directories and %u "
			 "files added, %u removed, %u devices added, %u "
			 "with new attributes, %u waiting for a removed file's "
			 "last user", m->name, n.dirs, n.files, n.removed,
			 n.devices, n.attrs, n.busy);
	return 0;
}

static int kernel_stop(const char *path, pid_t pid, bool our_child)
{
	(void)pid;
	(void)our_child;
	follow_drop(path);
	if (mountinfo_has(path) && umount2(path, 0) != 0)
		return -errno;
	return 0;
}

static bool kernel_owns_pid(pid_t pid)
{
	(void)pid;
	return false;
}

static void kernel_clean_stale(const char *path)
{
	follow_drop(path);
	umount2(path, MNT_DETACH);
}

const struct mount_backend kernel_backend = {
	.name = "kernel",
	.start = kernel_start,
	.stop = kernel_stop,
	.is_mounted = mountinfo_has,
	.owns_pid = kernel_owns_pid,
	.clean_stale = kernel_clean_stale,
	.follow = kernel_follow,
	.adopt = kernel_adopt,
};

/* Is the famfs filesystem type registered (the module loaded)? */
static bool module_loaded(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *t = strrchr(line, '\t');

		line[strcspn(line, "\n")] = 0;
		found = t && !strcmp(t + 1, FAMFS_KMOD_FSTYPE);
	}
	fclose(f);
	return found;
}

/* A block device whose queue does DAX (an fsdax namespace, /dev/pmemN). */
static bool is_dax_blockdev(const char *path)
{
	char sys[128], v[8] = "";
	struct stat st;
	FILE *f;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return false;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/queue/dax",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(sys, "re");
	if (!f) {
		/* a partition: its disk's queue */
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/../queue/dax",
			 major(st.st_rdev), minor(st.st_rdev));
		f = fopen(sys, "re");
	}
	if (!f)
		return false;
	if (!fgets(v, sizeof(v), f))
		v[0] = 0;
	fclose(f);
	return v[0] == '1';
}

const char *mount_backend_default(char *const *devs, unsigned ndev)
{
	if (ndev == 0 || !module_loaded())
		return "fuse";
	for (unsigned i = 0; i < ndev; i++)
		if (!is_dax_blockdev(devs[i]))
			return "fuse";
	return "kernel";
}
