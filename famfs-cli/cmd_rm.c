// SPDX-License-Identifier: Apache-2.0
/* famfs-cli rm: delete files or empty directories offline (tombstones). */
#include <getopt.h>

#include "cli.h"

static void rm_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli rm -d DEV... PATH...\n\n"
		"Delete files or empty directories from the filesystem on DEV... (as\n"
		"its master). Each delete appends a tombstone to the log; the space\n"
		"is reused once every live client has replayed past it.\n");
}

int cmd_rm(int argc, char **argv)
{
	static const struct option opts[] = { CLI_DEVICE_OPTIONS, { 0 } };
	struct cli_devices devs = { 0 };
	const char *host = NULL;
	int c, rc = CLI_EXIT_OK;

	while ((c = getopt_long(argc, argv, "d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': if (cli_devices_add("rm", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': rm_usage(stdout); return CLI_EXIT_OK;
		default: rm_usage(stderr); return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		rm_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	struct famfs_fs *fs = cli_open_fs("rm", &devs, FAMFS_OPEN_MASTER, host);

	if (!fs)
		return CLI_EXIT_FAIL;
	for (int i = optind; i < argc; i++) {
		struct famfs_err e = { 0 };

		if (famfs_unlink(fs, argv[i], &e)) {
			cli_error("rm", "%s", e.msg);
			rc = CLI_EXIT_FAIL;
		}
	}
	famfs_close(fs);
	return rc;
}
