// SPDX-License-Identifier: Apache-2.0
/* famfs-cli mkfs: format one or more devices as one filesystem. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

static void mkfs_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli mkfs [options] DEV...\n\n"
		"Format DEV... (DAX devices, pmem block devices or emulated device\n"
		"files) as one famfs filesystem; the first DEV holds the superblock\n"
		"and the log. Nothing is written unless every check passes.\n\n"
		"  -l, --log-size SIZE   metadata log size (default 64MiB; about\n"
		"                        6,500 small files per MiB, see docs/format.md)\n"
		"  -m, --master NAME     the master host (default: this host)\n"
		"  -s, --slots N         client slots (default 64, max 256)\n"
		"  -f, --force           overwrite an existing famfs filesystem\n"
		"  -h, --help\n\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n");
}

int cmd_mkfs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log-size", required_argument, NULL, 'l' },
		{ "master", required_argument, NULL, 'm' },
		{ "slots", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct famfs_mkfs_opts o = { 0 };
	struct famfs_uuid u;
	struct famfs_err e = { 0 };
	char us[37];
	int c;

	o.master_name = getenv("FAMFS_HOST_NAME");
	while ((c = getopt_long(argc, argv, "l:m:s:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (famfs_parse_size(optarg, &o.log_size)) {
				cli_error("mkfs", "bad log size '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'm': o.master_name = optarg; break;
		case 's':
			if (cli_parse_u32("mkfs", "--slots", optarg, FAMFS_MAX_SLOTS,
					  &o.nslots))
				return CLI_EXIT_USAGE;
			break;
		case 'f': o.force = true; break;
		case 'h': mkfs_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("mkfs", mkfs_usage); return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_usage_error("mkfs", mkfs_usage);
		return CLI_EXIT_USAGE;
	}
	if (famfs_mkfs((const char *const *)argv + optind, (unsigned)(argc - optind),
		       &o, &u, &e)) {
		cli_error("mkfs", "%s", e.msg);
		return CLI_EXIT_FAIL;
	}
	famfs_uuid_unparse(&u, us);
	printf("famfs filesystem %s created on %d device(s)\n", us, argc - optind);
	return CLI_EXIT_OK;
}
