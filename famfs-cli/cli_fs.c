// SPDX-License-Identifier: Apache-2.0
/* Opening a filesystem for the offline commands. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

int cli_devices_add(const char *cmd, struct cli_devices *d, const char *path)
{
	if (d->n >= FAMFS_MAX_DEVICES) {
		cli_error(cmd, "at most %d devices", FAMFS_MAX_DEVICES);
		return -1;
	}
	d->paths[d->n++] = path;
	return 0;
}

struct famfs_fs *cli_open_fs(const char *cmd, const struct cli_devices *d,
			     unsigned flags, const char *host_name)
{
	struct famfs_open_opts o = { .flags = flags };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;

	if (d->n == 0) {
		cli_error(cmd, "no device given (-d DEV, once per device)");
		return NULL;
	}
	o.host_name = host_name ? host_name : getenv("FAMFS_HOST_NAME");
	if (famfs_open(d->paths, d->n, &o, &fs, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		return NULL;
	}
	return fs;
}

int cli_parse_device_args(const char *cmd, int argc, char **argv,
			  struct cli_devices *d, const char **host,
			  void (*usage)(FILE *f))
{
	static const struct option opts[] = { CLI_DEVICE_OPTIONS, { 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (cli_devices_add(cmd, d, optarg))
				return -1;
			break;
		case 'H':
			*host = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			cli_usage_error(cmd, usage);
			return -1;
		}
	}
	return 0;
}
