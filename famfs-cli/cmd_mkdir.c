// SPDX-License-Identifier: Apache-2.0
/* famfs-cli mkdir: create directories offline. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void mkdir_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli mkdir -d DEV... [-p] [-m MODE] [-u UID] [-g GID] PATH...\n\n"
		"Create directories in the filesystem on DEV... (as its master).\n"
		"  -p, --parents   create missing parents, no error if it exists\n\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n");
}

/* mkdir -p: every missing prefix of @path, then @path. */
static int mkdir_parents(struct famfs_fs *fs, const char *path, uint32_t mode,
			 uint32_t uid, uint32_t gid, struct famfs_err *e)
{
	char norm[FAMFS_PATH_MAX + 2];
	int len = famfs_path_normalize(path, norm, sizeof(norm), e);

	if (len < 0)
		return len;
	for (int i = 1; i <= len; i++) {
		struct famfs_node *n;

		if (i < len && norm[i] != '/')
			continue;
		norm[i] = '\0';
		n = famfs_lookup(fs, norm);
		if (!n) {
			int r = famfs_mkdir(fs, norm, mode, uid, gid, e);

			if (r)
				return r;
		} else if (!famfs_node_is_dir(n)) {
			snprintf(e->msg, sizeof(e->msg), "%.200s: exists and is not a directory", norm);
			return -ENOTDIR;
		}
		if (i < len)
			norm[i] = '/';
	}
	return 0;
}

int cmd_mkdir(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "parents", no_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		CLI_DEVICE_OPTIONS, { 0 }
	};
	struct cli_devices devs = { 0 };
	const char *host = NULL;
	uint32_t mode = 0755, uid = 0, gid = 0;
	bool parents = false;
	int c, rc = CLI_EXIT_OK;
	long m;

	while ((c = getopt_long(argc, argv, "pm:u:g:d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': parents = true; break;
		case 'm':
			if ((m = cli_parse_mode(optarg)) < 0) {
				cli_error("mkdir", "bad mode '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			mode = (uint32_t)m;
			break;
		case 'u':
			if (cli_parse_u32("mkdir", "--uid", optarg, UINT32_MAX, &uid))
				return CLI_EXIT_USAGE;
			break;
		case 'g':
			if (cli_parse_u32("mkdir", "--gid", optarg, UINT32_MAX, &gid))
				return CLI_EXIT_USAGE;
			break;
		case 'd': if (cli_devices_add("mkdir", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': mkdir_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("mkdir", mkdir_usage); return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_usage_error("mkdir", mkdir_usage);
		return CLI_EXIT_USAGE;
	}
	struct famfs_fs *fs = cli_open_fs("mkdir", &devs, FAMFS_OPEN_MASTER, host);

	if (!fs)
		return CLI_EXIT_FAIL;
	for (int i = optind; i < argc; i++) {
		struct famfs_err e = { 0 };
		int r = parents ? mkdir_parents(fs, argv[i], mode, uid, gid, &e) :
				  famfs_mkdir(fs, argv[i], mode, uid, gid, &e);

		if (r) {
			cli_error("mkdir", "%s", e.msg);
			rc = CLI_EXIT_FAIL;
		}
	}
	famfs_close(fs);
	return rc;
}
