// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli mount: mount a famfs filesystem through the kernel module and
 * replay its log into the mount (libfamfs's famfs_kmount_*(), which
 * famfsd's kernel backend uses too).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "famfs.h"
#include "famfs_kmount.h"

static const char usage[] =
"usage: famfs-cli mount --kernel [--client] [--force] DEVICE... MOUNTPOINT\n"
"       famfs-cli mount --replay MOUNTPOINT [DEVICE...]\n"
"\n"
"  --kernel   mount the filesystem on DEVICE... (fsdax /dev/pmemN, all of\n"
"             its devices, in any order) with the famfs kernel module and\n"
"             replay the log into it (master: read-write)\n"
"  --client   mount read-only, as a client host\n"
"  --force    mount even though the log is corrupt (committed entries\n"
"             lost; the files before them are served)\n"
"  --replay   bring MOUNTPOINT up to the log: add new files and\n"
"             directories, remove deleted ones, add devices the log\n"
"             added (found among DEVICE... by their labels)\n"
"\n"
"Exit status: 0 mounted or replayed, 1 failed, 2 usage error.\n";

/* A corrupt log is refused before anything is mounted (unless forced). */
static int refuse_corrupt(char *const *devs, unsigned ndev, bool force)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	int r;

	if (famfs_open((const char *const *)devs, ndev, &o, &fs, &e))
		return 0; /* the mount itself says what is wrong */
	r = famfs_mount_check(fs, &e);
	famfs_close(fs);
	if (!r)
		return 0;
	if (force) {
		fprintf(stderr, "famfs-cli mount: warning: mounting anyway "
			"(--force): %s\n", e.msg);
		return 0;
	}
	cli_error("mount", "refused: %s", e.msg);
	return -1;
}

static int mount_kernel(char *const *devs, unsigned ndev, const char *mnt,
			bool client, bool force)
{
	struct famfs_kmount_count n;
	struct famfs_err e = { 0 };
	char desc[8192 + 4096];

	if (refuse_corrupt(devs, ndev, force))
		return CLI_EXIT_FAIL;
	if (famfs_kmount_mount((const char *const *)devs, ndev, mnt, client,
			       &n, desc, sizeof(desc), &e)) {
		cli_error("mount", "%s", e.msg);
		return CLI_EXIT_FAIL;
	}
	printf("mounted %s on %s (%s): %u directories, %u files", desc, mnt,
	       client ? "client, read-only" : "master, read-write", n.dirs,
	       n.files);
	if (n.symlinks)
		printf(", %u symlinks", n.symlinks);
	if (n.devices)
		printf(", %u added devices", n.devices);
	printf("\n");
	return CLI_EXIT_OK;
}

static int replay_mounted(const char *mnt, char *const *devs, unsigned ndev)
{
	const char *const *d = (const char *const *)devs;
	struct famfs_kmount_count n;
	struct famfs_err e = { 0 };
	struct famfs_kmount *km;
	int r;

	r = famfs_kmount_attach(mnt, d, ndev, &km, &e);
	if (!r) {
		r = famfs_kmount_sync(km, d, ndev, &n, &e);
		famfs_kmount_detach(km);
	}
	if (r) {
		cli_error("mount", "%s", e.msg);
		return CLI_EXIT_FAIL;
	}
	printf("replayed into %s: %u new directories, %u new files, "
	       "%u new symlinks, %u removed, %u already there, %u waiting for a removed "
	       "file's last user, %u added devices, %u with new attributes, "
	       "%u exchanged\n",
	       mnt, n.dirs, n.files, n.symlinks, n.removed, n.existing, n.busy, n.devices,
	       n.attrs, n.exchanged);
	return CLI_EXIT_OK;
}

int cmd_mount(int argc, char **argv);
int cmd_mount(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", no_argument, NULL, 'k' },
		{ "client", no_argument, NULL, 'c' },
		{ "replay", no_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool kernel = false, client = false, replay = false, force = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernel = true; break;
		case 'c': client = true; break;
		case 'r': replay = true; break;
		case 'F': force = true; break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: cli_usage_error_text("mount", usage); return CLI_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (replay && !kernel && !client && argc >= 1 &&
	    argc <= FAMFS_MAX_DEVICES + 1)
		return replay_mounted(argv[0], argv + 1, (unsigned)argc - 1);
	if (kernel && !replay && argc >= 2 && argc <= FAMFS_MAX_DEVICES + 1)
		return mount_kernel(argv, (unsigned)argc - 1, argv[argc - 1],
				    client, force);
	if (!kernel && !replay)
		cli_error("mount", "only --kernel mounts are made here; FUSE "
			  "mounts are famfs-fused's");
	cli_usage_error_text("mount", usage);
	return CLI_EXIT_USAGE;
}
