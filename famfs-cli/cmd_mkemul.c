// SPDX-License-Identifier: Apache-2.0
/* famfs-cli mkemul: create emulated (file-backed) devices. */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static void mkemul_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli mkemul --size SIZE PATH...\n\n"
		"Create emulated devices: regular files of SIZE bytes (a multiple\n"
		"of 2 MiB, e.g. 256MiB, 1G), allocated now. Put them on tmpfs or\n"
		"hugetlbfs for memory speed; several processes (\"hosts\") can map\n"
		"the same file, as they would share one CXL memory device.\n"
		"An existing PATH is refused.\n\n"
		"Exit status: 0 created, 1 failed, 2 usage error.\n");
}

int cmd_mkemul(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t size = 0;
	int c, rc = CLI_EXIT_OK;

	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (famfs_parse_size(optarg, &size)) {
				cli_error("mkemul", "bad size '%s' (e.g. 256MiB, 1G)", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'h':
			mkemul_usage(stdout);
			return CLI_EXIT_OK;
		default:
			cli_usage_error("mkemul", mkemul_usage);
			return CLI_EXIT_USAGE;
		}
	}
	if (!size || optind >= argc) {
		cli_usage_error("mkemul", mkemul_usage);
		return CLI_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct famfs_err e = { 0 };

		if (famfs_emul_create(argv[i], size, &e)) {
			cli_error("mkemul", "%s", e.msg);
			rc = CLI_EXIT_FAIL;
		}
	}
	return rc;
}
