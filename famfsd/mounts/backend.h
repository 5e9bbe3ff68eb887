/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A mount backend turns "filesystem F on devices D at path P, as master or
 * client" into a mount: "fuse" (famfs-fused, one supervised process per
 * mount) or "kernel" (the famfs kernel module: start() mounts and returns
 * pid 0, stop() unmounts, follow() keeps the mount up to the log).
 */
#ifndef FAMFSD_MOUNT_BACKEND_H
#define FAMFSD_MOUNT_BACKEND_H

#include <stdbool.h>
#include <sys/types.h>

struct mount_spec {
	const char *name;
	const char *path;
	bool client;
	const char *options;         /* backend options, space separated */
	char **devs;                 /* device paths, set order */
	unsigned ndev;
	const char *host_name;
	const char *log_path;        /* where the backend's stderr goes */
};

struct mount_backend {
	const char *name;
	/* Start mounting; *pid is the process to supervise (0: none). An
	 * error that is known at once (exec failed) is returned here.
	 */
	int (*start)(const struct mount_spec *m, pid_t *pid, char *err,
		     size_t errlen);
	/* Unmount and make @pid (if any) exit; waits up to a few seconds. */
	int (*stop)(const char *path, pid_t pid, bool our_child);
	/* Is something (anything) mounted at @path? */
	bool (*is_mounted)(const char *path);
	/* Is @pid a server of this backend (for adopting after a restart)? */
	bool (*owns_pid)(pid_t pid);
	/* Remove a mount whose server is gone ("Transport endpoint..."). */
	void (*clean_stale)(const char *path);
	/*
	 * Backends without a server process (NULL for fuse): follow() is
	 * called every tick while mounted and after famfsd changed the
	 * filesystem; adopt() takes over a mount found after a restart.
	 */
	int (*follow)(const struct mount_spec *m, char *err, size_t errlen);
	int (*adopt)(const struct mount_spec *m, char *err, size_t errlen);
};

const struct mount_backend *mount_backend_find(const char *name);
extern const struct mount_backend kernel_backend;
/*
 * mount_backend_default() - "kernel" when the famfs module is loaded and
 * every one of @devs is a DAX block device (fsdax), else "fuse".
 */
const char *mount_backend_default(char *const *devs, unsigned ndev);

/* /proc/self/mountinfo: is @path a mount point? */
bool mountinfo_has(const char *path);
/* The "major:minor" of the mount on top at @path (mountinfo, no stat(2):
 * a hung FUSE server cannot block it); false when @path is no mount.
 */
bool mountinfo_dev(const char *path, char *dev, size_t len);

#endif
