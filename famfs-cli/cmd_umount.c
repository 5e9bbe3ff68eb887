// SPDX-License-Identifier: Apache-2.0
/* famfs-cli umount: unmount a famfs kernel module mount. */
#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "cli.h"
#include "famfs/famfs_ioctl.h"

static const char usage[] =
"usage: famfs-cli umount MOUNTPOINT\n"
"\n"
"Unmount a famfs kernel mount (other filesystems are refused).\n"
"Exit status: 0 unmounted, 1 failed, 2 usage error.\n";

/* Is @path (canonical) a mount point of type famfs? */
static bool is_famfs_mount(const char *path)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool found = false;

	if (!f)
		return false;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_dir, path))
			found = !strcmp(m->mnt_type, FAMFS_KMOD_FSTYPE);
	endmntent(f);
	return found;
}

int cmd_umount(int argc, char **argv);
int cmd_umount(int argc, char **argv)
{
	char path[PATH_MAX];

	if (argc == 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return CLI_EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '-') {
		cli_usage_error_text("umount", usage);
		return CLI_EXIT_USAGE;
	}
	if (!realpath(argv[1], path)) {
		cli_error("umount", "%s: %s", argv[1], strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (!is_famfs_mount(path)) {
		cli_error("umount", "%s is not a famfs kernel mount", path);
		return CLI_EXIT_FAIL;
	}
	if (umount2(path, 0) != 0) {
		cli_error("umount", "cannot unmount %s: %s%s", path,
			  strerror(errno), errno == EBUSY ?
			  " (files are open or mapped)" : "");
		return CLI_EXIT_FAIL;
	}
	printf("unmounted %s\n", path);
	return CLI_EXIT_OK;
}
