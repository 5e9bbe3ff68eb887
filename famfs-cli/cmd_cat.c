// SPDX-License-Identifier: Apache-2.0
/* famfs-cli cat: write a file's bytes to stdout, read through its map. */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "famfs_cleanup.h"

static void cat_usage(FILE *f)
{
	fprintf(f, "usage: famfs-cli cat -d DEV... PATH\n\n"
		"Write the bytes of PATH in the filesystem on DEV... to stdout.\n\n"
		"Exit status: 0 printed, 1 failed, 2 usage error.\n");
}

int cmd_cat(int argc, char **argv)
{
	struct cli_devices devs = { 0 };
	const char *host = NULL;
	int c, rc = CLI_EXIT_OK;

	c = cli_parse_device_args("cat", argc, argv, &devs, &host, cat_usage);
	if (c)
		return c > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (optind + 1 != argc) {
		cli_usage_error("cat", cat_usage);
		return CLI_EXIT_USAGE;
	}
	_cleanup_famfs_close_ struct famfs_fs *fs =
		cli_open_fs("cat", &devs, FAMFS_OPEN_READ, host);
	struct famfs_node *n;
	struct famfs_attr a;
	size_t bs = 4 << 20;
	_cleanup_free_ char *buf = malloc(bs);

	if (!fs || !buf)
		return CLI_EXIT_FAIL;
	n = famfs_lookup(fs, argv[optind]);
	if (n && famfs_node_is_symlink(n)) {
		cli_error("cat", "%s: is a symbolic link to '%s' (it has no data; "
			  "famfs-cli does not follow links: give the target's "
			  "path)", argv[optind], famfs_node_target(n));
		return CLI_EXIT_FAIL;
	}
	if (!n || famfs_node_is_dir(n)) {
		cli_error("cat", "%s: %s", argv[optind], n ? "is a directory" : "no such file");
		return CLI_EXIT_FAIL;
	}
	famfs_node_attr(n, &a);
	for (uint64_t off = 0; off < a.size;) {
		int64_t r = famfs_read(fs, famfs_node_map(n), a.size, off, buf, bs);

		if (r <= 0 || write(1, buf, (size_t)r) != r) {
			cli_error("cat", "%s: read or write failed at offset %llu",
				  argv[optind], (unsigned long long)off);
			rc = CLI_EXIT_FAIL;
			break;
		}
		off += (uint64_t)r;
	}
	return rc;
}
