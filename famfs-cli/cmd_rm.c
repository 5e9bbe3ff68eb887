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
		"is reused once every live client has replayed past it.\n\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n");
}

int cmd_rm(int argc, char **argv)
{
	struct cli_devices devs = { 0 };
	const char *host = NULL;
	int c, rc = CLI_EXIT_OK;

	c = cli_parse_device_args("rm", argc, argv, &devs, &host, rm_usage);
	if (c)
		return c > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (optind >= argc) {
		cli_usage_error("rm", rm_usage);
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
