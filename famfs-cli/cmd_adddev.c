// SPDX-License-Identifier: Apache-2.0
/* famfs-cli adddev: grow a filesystem by one device (a DEVICE_ADD entry). */
#include <getopt.h>

#include "cli.h"

static void adddev_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli adddev -d DEV... NEWDEV\n\n"
		"Add NEWDEV (unformatted, a multiple of 2 MiB) to the filesystem on\n"
		"DEV... as its next device: it is labeled, then a DEVICE_ADD log entry\n"
		"makes every host see it. New files are interleaved over it too; every\n"
		"later open (mounts, tools) must be given it. Run as the master.\n\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n");
}

int cmd_adddev(int argc, char **argv)
{
	struct cli_devices devs = { 0 };
	struct famfs_err e = { 0 };
	const char *host = NULL;
	int c, rc = CLI_EXIT_OK;

	c = cli_parse_device_args("adddev", argc, argv, &devs, &host, adddev_usage);
	if (c)
		return c > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (optind + 1 != argc) {
		cli_usage_error("adddev", adddev_usage);
		return CLI_EXIT_USAGE;
	}
	struct famfs_fs *fs = cli_open_fs("adddev", &devs, FAMFS_OPEN_MASTER, host);

	if (!fs)
		return CLI_EXIT_FAIL;
	if (famfs_device_add(fs, argv[optind], &e)) {
		cli_error("adddev", "%s", e.msg);
		rc = CLI_EXIT_FAIL;
	} else {
		printf("%s is device %u of the filesystem\n", argv[optind],
		       famfs_fs_ndevices(fs) - 1);
	}
	famfs_close(fs);
	return rc;
}
