// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli diff FILE: what apply would change, read from every host's
 * famfsd; changes nothing. Exit codes as `kubectl diff`: 0 no changes,
 * 1 changes, 2 error (usage, invalid file, a host not read, a conflict):
 * a script can only ever take 0 for "the cluster matches the file".
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "cluster/run.h"

#define DIFF_EXIT_CHANGES 1
#define DIFF_EXIT_ERROR 2

int cmd_diff(int argc, char **argv); /* called through main.c's table */

static void diff_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli diff [--prune [--force-delete-data]] [-o json] FILE\n"
		"\n"
		"Show what 'famfs-cli apply FILE' would change on every host of\n"
		"the cluster file (- : the standard input). Nothing is changed.\n"
		"\n"
		"  --prune               include the deletes apply --prune would do\n"
		"  --force-delete-data   ... also of filesystems holding files\n"
		"  -o, --output FORMAT   human (default) or json\n"
		"  -h, --help            show this help\n"
		"\n"
		"Exit status (as kubectl diff): 0 no changes, 1 there are changes,\n"
		"2 error: usage, invalid file, a host that cannot be read or\n"
		"answers under another name (its resources are shown as unknown),\n"
		"a conflict.\n");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "prune", no_argument, NULL, 'p' },
		{ "force-delete-data", no_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plan_opts po = { 0 };
	enum cli_output out = CLI_OUT_HUMAN;
	struct cluster_run run;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			po.prune = true;
			break;
		case 'F':
			po.force_delete_data = true;
			break;
		case 'o':
			if (cli_parse_output("diff", optarg, CLI_OUT(HUMAN) |
					     CLI_OUT(JSON), &out) < 0) {
				cli_usage_error("diff", diff_usage);
				return DIFF_EXIT_ERROR;
			}
			break;
		case 'h':
			diff_usage(stdout);
			return CLI_EXIT_OK;
		default:
			cli_usage_error("diff", diff_usage);
			return DIFF_EXIT_ERROR;
		}
	}
	if (optind != argc - 1) {
		cli_error("diff", "give exactly one cluster file");
		cli_usage_error("diff", diff_usage);
		return DIFF_EXIT_ERROR;
	}
	if (cluster_run_prepare("diff", argv[optind], &po, &run) < 0) {
		cluster_run_free(&run);
		return DIFF_EXIT_ERROR;
	}
	if (out == CLI_OUT_JSON) {
		json_object *j = plan_to_json(run.c, &run.p);

		printf("%s\n", json_object_to_json_string_ext(j,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		plan_print(run.c, &run.p, stdout);
	}
	rc = run.p.nunreadable || run.p.nconflicts ? DIFF_EXIT_ERROR :
	     run.p.n ? DIFF_EXIT_CHANGES : CLI_EXIT_OK;
	cluster_run_free(&run);
	return rc;
}
