// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli validate FILE...: check cluster files against the contract
 * (schemas/cluster.schema.json plus the references between names) without
 * talking to any famfsd. Every problem is printed as
 * FILE:LINE:COL: KEY.PATH: message.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cluster/model.h"

int cmd_validate(int argc, char **argv); /* called through main.c's table */

static void validate_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli validate [-q] FILE...\n"
		"\n"
		"Check cluster.yaml files (see docs/cluster-yaml.md) and print\n"
		"every problem as FILE:LINE:COL: KEY.PATH: message.\n"
		"\n"
		"  -q, --quiet   print nothing when a file is valid\n"
		"  --schema-only only the rules of schemas/cluster.schema.json\n"
		"                (no references between names, no duplicate\n"
		"                keys): to compare with JSON Schema validators\n"
		"  -h, --help    show this help\n"
		"\n"
		"Exit status: 0 all files valid, 1 a file is invalid or\n"
		"unreadable, 2 usage error.\n");
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "schema-only", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned flags = 0;
	bool quiet = false;
	int rc = CLI_EXIT_OK, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 'S':
			flags |= CLUSTER_LOAD_SCHEMA_ONLY;
			break;
		case 'h':
			validate_usage(stdout);
			return CLI_EXIT_OK;
		default:
			validate_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_error("validate", "no file given");
		validate_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct diag d = { .file = argv[i] };
		struct cluster *cl;

		if (cluster_load_flags(argv[i], flags, &cl, &d) < 0) {
			diag_print(&d, stderr);
			fprintf(stderr, "%s: invalid (%zu problem%s)\n", argv[i],
				d.n + d.dropped, d.n + d.dropped == 1 ? "" : "s");
			rc = CLI_EXIT_FAIL;
		} else {
			if (!quiet)
				printf("%s: valid (%zu hosts, %zu devices, %zu "
				       "sets, %zu filesystems, %zu mounts, %zu "
				       "datasets)\n", argv[i], cl->nhosts,
				       cl->ndevices, cl->nsets,
				       cl->nfilesystems, cl->nmounts,
				       cl->ndatasets);
			cluster_free(cl);
		}
		diag_free(&d);
	}
	return rc;
}
