// SPDX-License-Identifier: Apache-2.0
/* famfs-cli ln -s: create a symbolic link offline (a SYMLINK entry). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void ln_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli ln -s -d DEV... [-u UID] [-g GID] TARGET PATH\n\n"
		"Create the symbolic link PATH to TARGET in the filesystem on\n"
		"DEV... (as its master). TARGET is stored as given (1-4095 bytes):\n"
		"famfs never resolves it, so it may be relative, absolute or\n"
		"dangling. famfs has no hard links: -s is required.\n"
		"  -s, --symbolic   make a symbolic link\n"
		"  -u, --uid UID    owner (default 0)\n"
		"  -g, --gid GID    group (default 0)\n\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n");
}

int cmd_ln(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "symbolic", no_argument, NULL, 's' },
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		CLI_DEVICE_OPTIONS, { 0 }
	};
	struct cli_devices devs = { 0 };
	struct famfs_err e = { 0 };
	const char *host = NULL;
	uint32_t uid = 0, gid = 0;
	bool symbolic = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "su:g:d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': symbolic = true; break;
		case 'u':
			if (cli_parse_u32("ln", "--uid", optarg, UINT32_MAX, &uid))
				return CLI_EXIT_USAGE;
			break;
		case 'g':
			if (cli_parse_u32("ln", "--gid", optarg, UINT32_MAX, &gid))
				return CLI_EXIT_USAGE;
			break;
		case 'd': if (cli_devices_add("ln", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': ln_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("ln", ln_usage); return CLI_EXIT_USAGE;
		}
	}
	if (!symbolic) {
		cli_error("ln", "famfs has no hard links: use ln -s TARGET PATH");
		return CLI_EXIT_USAGE;
	}
	if (argc - optind != 2) {
		cli_usage_error("ln", ln_usage);
		return CLI_EXIT_USAGE;
	}
	struct famfs_fs *fs = cli_open_fs("ln", &devs, FAMFS_OPEN_MASTER, host);

	if (!fs)
		return CLI_EXIT_FAIL;
	r = famfs_symlink(fs, argv[optind + 1], argv[optind], uid, gid, 0, &e);
	if (r)
		cli_error("ln", "%s", e.msg);
	famfs_close(fs);
	return r ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
