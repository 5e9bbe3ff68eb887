// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli: the one dispatch table. Each command lives in its own file as
 * `int cmd_<name>(int argc, char **argv)` (argv[0] is the command name) and
 * prints its own --help. Commands are declared weak so that the table can
 * name every command of the product while parts are still being built: a
 * command whose file is not linked in is simply not offered.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"


struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cli_command commands[] = {
	{ "mkfs", cmd_mkfs, "format devices as one famfs filesystem" },
	{ "fsck", cmd_fsck, "check superblock, log and allocations" },
	{ "log", cmd_log, "dump the metadata log" },
	{ "getmap", cmd_getmap, "print a file's map" },
	{ "create", cmd_create, "create a pre-allocated file (offline)" },
	{ "mkdir", cmd_mkdir, "create a directory (offline)" },
	{ "ln", cmd_ln, "create a symbolic link (offline)" },
	{ "rm", cmd_rm, "delete a file, symlink or empty directory (offline)" },
	{ "ls", cmd_ls, "list a directory (offline)" },
	{ "cat", cmd_cat, "print a file's bytes (offline)" },
	{ "mkemul", cmd_mkemul, "create an emulated (file-backed) device" },
	{ "clients", cmd_clients, "list or evict client slots" },
	{ "adddev", cmd_adddev, "grow a filesystem by one device (offline)" },
	{ "mount", cmd_mount, "mount through the kernel module" },
	{ "umount", cmd_umount, "unmount a kernel module mount" },
	{ "validate", cmd_validate, "validate a cluster.yaml file" },
	{ "diff", cmd_diff, "show what apply would change" },
	{ "apply", cmd_apply, "make the cluster match a cluster.yaml" },
	{ "get", cmd_get, "list resources from famfsd" },
	{ "describe", cmd_describe, "show one resource from famfsd" },
	{ "ingest", cmd_ingest, "copy a dataset tree into famfs" },
	{ "job", cmd_job, "manage famfsd jobs" },
	{ "rollout", cmd_rollout, "list or undo a dataset's generations" },
	{ "release", cmd_release, "release holds on datasets' generations" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: famfs-cli <command> [options] [args]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].fn)
			fprintf(f, "  %-10s %s\n", commands[i].name,
				commands[i].summary);
	fprintf(f, "\n'famfs-cli <command> --help' describes each command and its\n"
		"exit status: 0 success, 1 failure, 2 usage error unless the\n"
		"command says otherwise (fsck: 0, 4, 8, 16; diff: 0 no changes,\n"
		"1 changes, 2 error).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: famfs-cli <command> [options] [args]\n"
			"see 'famfs-cli --help'\n");
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("famfs-cli %s\n", FAMFS_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].fn && !strcmp(commands[i].name, argv[1]))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "famfs-cli: unknown command '%s'\n"
		"usage: famfs-cli <command> [options] [args]\n"
		"see 'famfs-cli --help'\n", argv[1]);
	return CLI_EXIT_USAGE;
}
