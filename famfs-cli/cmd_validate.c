// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli validate FILE...: check cluster files against the contract
 * (schemas/cluster.schema.json plus the references between names) without
 * talking to any famfsd. Every problem is printed as
 * FILE:LINE:COL: KEY.PATH: message, or with -o json|yaml as a list of
 * {file, line, column, path, message} per file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client/client.h"
#include "cluster/model.h"

int cmd_validate(int argc, char **argv); /* called through main.c's table */

static void validate_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli validate [-q] [-o human|json|yaml] FILE...\n"
		"\n"
		"Check cluster.yaml files (see docs/cluster-yaml.md) and print\n"
		"every problem as FILE:LINE:COL: KEY.PATH: message. FILE - reads\n"
		"the standard input.\n"
		"\n"
		"  -q, --quiet   print nothing when a file is valid\n"
		"  -o, --output FORMAT  human (default), or json / yaml: on stdout\n"
		"                {\"valid\": BOOL, \"files\": [{\"file\", \"valid\",\n"
		"                \"errors\": [{\"file\", \"line\", \"column\", \"path\",\n"
		"                \"message\"}]}]}\n"
		"  --schema-only only the rules of schemas/cluster.schema.json\n"
		"                (no references between names, no duplicate\n"
		"                keys): to compare with JSON Schema validators\n"
		"  -h, --help    show this help\n"
		"\n"
		"Exit status: 0 all files valid, 1 a file is invalid or\n"
		"unreadable, 2 usage error.\n");
}

/* One file: printed (human) or added to @files (json, yaml); 0 if valid. */
static int validate_one(const char *file, unsigned flags, bool quiet,
			struct json_object *files)
{
	const char *name = ydoc_file_name(file);
	struct diag d = { .file = name };
	struct cluster *cl;
	int r = cluster_load_flags(file, flags, &cl, &d);

	if (files) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "file", json_object_new_string(name));
		json_object_object_add(o, "valid", json_object_new_boolean(r == 0));
		json_object_object_add(o, "errors", diag_to_json(&d));
		json_object_array_add(files, o);
	} else if (r < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "%s: invalid (%zu problem%s)\n", name,
			d.n + d.dropped, d.n + d.dropped == 1 ? "" : "s");
	} else if (!quiet) {
		printf("%s: valid (%zu hosts, %zu devices, %zu sets, %zu "
		       "filesystems, %zu mounts, %zu datasets)\n", name,
		       cl->nhosts, cl->ndevices, cl->nsets, cl->nfilesystems,
		       cl->nmounts, cl->ndatasets);
	}
	if (!r)
		cluster_free(cl);
	diag_free(&d);
	return r;
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "output", required_argument, NULL, 'o' },
		{ "schema-only", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cli_output out = CLI_OUT_HUMAN;
	struct json_object *files = NULL;
	unsigned flags = 0;
	bool quiet = false;
	int rc = CLI_EXIT_OK, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+qo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 'o':
			if (cli_parse_output("validate", optarg, CLI_OUT(HUMAN) |
					     CLI_OUT(JSON) | CLI_OUT(YAML), &out)) {
				cli_usage_error("validate", validate_usage);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'S':
			flags |= CLUSTER_LOAD_SCHEMA_ONLY;
			break;
		case 'h':
			validate_usage(stdout);
			return CLI_EXIT_OK;
		default:
			cli_usage_error("validate", validate_usage);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_error("validate", "no file given");
		cli_usage_error("validate", validate_usage);
		return CLI_EXIT_USAGE;
	}
	if (out != CLI_OUT_HUMAN)
		files = json_object_new_array();
	for (int i = optind; i < argc; i++)
		if (validate_one(argv[i], flags, quiet, files))
			rc = CLI_EXIT_FAIL;
	if (files) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "valid", json_object_new_boolean(rc == 0));
		json_object_object_add(o, "files", files);
		if (out == CLI_OUT_JSON)
			famfs_print_json(stdout, o);
		else
			famfs_print_yaml(stdout, o);
		json_object_put(o);
	}
	return rc;
}
