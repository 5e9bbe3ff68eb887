// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli apply FILE: make every host's famfsd match the cluster file.
 * Prints the plan, then runs it step by step; the first failed step stops
 * the run and the report says what was done and what was not (the next
 * apply plans from what is there, so it continues where this one
 * stopped). A second apply of the same file is a no-op.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "cluster/run.h"

int cmd_apply(int argc, char **argv); /* called through main.c's table */

#define APPLY_EXIT_FAILED 1 /* a step failed, or refused for a conflict */
#define APPLY_EXIT_ERROR 2  /* usage, invalid file, a host not read */

static void apply_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli apply [--dry-run] [--prune [--force-delete-data]]\n"
		"                       [-o json] FILE\n"
		"\n"
		"Make the hosts of a cluster file (docs/cluster-yaml.md) match it:\n"
		"devices, regions, interleave sets, filesystems, mounts, datasets.\n"
		"FILE - reads the standard input.\n"
		"\n"
		"  --dry-run             print the plan, change nothing\n"
		"  --prune               also delete what the hosts have and the\n"
		"                        file does not name (datasets, mounts,\n"
		"                        filesystems, sets, emulated devices)\n"
		"  --force-delete-data   let --prune delete filesystems that hold\n"
		"                        files\n"
		"  --no-wait             start dataset ingest jobs and return; by\n"
		"                        default apply follows them with progress\n"
		"                        and fails if one fails\n"
		"  -o, --output FORMAT   human (default) or json (the plan with\n"
		"                        each step's status)\n"
		"  -h, --help            show this help\n"
		"\n"
		"Exit status: 0 applied (or nothing to do), 1 apply failed or\n"
		"refused (a step failed, a conflict: see the report), 2 error:\n"
		"usage, invalid file, a host that cannot be read or answers under\n"
		"another name (the other hosts are applied; its resources are\n"
		"unknown).\n");
}

static void report_unreadable(const struct cluster_run *run, FILE *f)
{
	for (size_t i = 0; i < run->p.nunreadable; i++)
		fprintf(f, "Not applied on %s: its state is unknown.\n",
			run->p.unreadable[i]);
}

/* @jobs_failed: every step ran, but an ingest job it started failed. */
static void report(const struct cluster_run *run, bool jobs_failed, FILE *f)
{
	size_t done = 0, total = run->p.n;

	for (size_t i = 0; i < total; i++)
		done += run->p.steps[i].status == STEP_DONE;
	if (done == total && jobs_failed) {
		fprintf(f, "\nApply failed: all %zu steps done, but an ingest "
			"job above failed; run apply again once the cause is "
			"fixed.\n", total);
		report_unreadable(run, f);
		return;
	}
	if (done == total) {
		size_t n[3];

		plan_count(&run->p, n);
		fprintf(f, "\nApply %s: %zu created, %zu updated, %zu "
			"deleted%s.\n", run->p.nunreadable ? "incomplete" :
			"complete", n[PLAN_CREATE], n[PLAN_UPDATE],
			n[PLAN_DELETE], run->p.nunreadable ? " on the hosts "
			"that could be read" : "");
		report_unreadable(run, f);
		return;
	}
	fprintf(f, "\nApply stopped: %zu of %zu steps done.\n", done, total);
	for (size_t i = 0; i < total; i++) {
		const struct plan_step *s = &run->p.steps[i];
		const char *what = s->status == STEP_DONE ? "done" :
			s->status == STEP_FAILED ? "FAILED" :
			s->status == STEP_SKIPPED ? "skipped" : "not done";

		fprintf(f, "  %-8s %s %s %s on %s%s%s\n", what,
			plan_op_name(s->op), plan_kind_name(s->kind), s->name,
			run->c->hosts[s->host].name, s->error ? ": " : "",
			s->error ? s->error : "");
	}
	report_unreadable(run, f);
	fprintf(f, "Run apply again once the cause is fixed: it continues "
		"from what is there.\n");
}

static void print_json(const struct cluster_run *run, const char *result)
{
	json_object *j = plan_to_json(run->c, &run->p);

	json_object_object_add(j, "result", json_object_new_string(result));
	printf("%s\n", json_object_to_json_string_ext(j,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}

/* Follow every dataset job this apply started, with its progress. */
static int wait_datasets(struct cluster_run *run, bool quiet)
{
	int rc = 0;

	for (size_t i = 0; i < run->p.n; i++) {
		const struct plan_step *s = &run->p.steps[i];
		char label[160];

		if (s->status != STEP_DONE || !s->job_id || !run->r.clients[s->host])
			continue;
		snprintf(label, sizeof(label), "dataset %s", s->name);
		if (!quiet)
			printf("\nFollowing %s (%s job %lld on %s):\n", s->name,
			       s->op == PLAN_DELETE ? "delete" : "ingest",
			       s->job_id, run->c->hosts[s->host].name);
		if (cli_job_wait(run->r.clients[s->host], s->job_id, label) != CLI_EXIT_OK)
			rc = -1;
	}
	return rc;
}

static int apply_run(struct cluster_run *run, bool dry_run, bool json, bool wait)
{
	FILE *log = json ? NULL : stdout;
	int rc;

	if (!json)
		plan_print(run->c, &run->p, stdout);
	if (run->p.nconflicts) {
		if (json)
			print_json(run, "refused");
		else
			printf("\nApply refused: %zu conflict%s above; nothing "
			       "was changed.\n", run->p.nconflicts,
			       run->p.nconflicts == 1 ? "" : "s");
		return APPLY_EXIT_FAILED;
	}
	if (!run->p.n || dry_run) {
		if (json)
			print_json(run, run->p.n ? "dry-run" :
				   run->p.nunreadable ? "incomplete" :
				   "no-changes");
		else if (run->p.n)
			printf("\nDry run: nothing was changed.\n");
		return run->p.nunreadable ? APPLY_EXIT_ERROR : CLI_EXIT_OK;
	}
	if (log)
		fprintf(log, "\nApplying:\n");
	bool jobs_failed = false;

	rc = remote_apply(&run->r, &run->p, log);
	if (!rc && wait && wait_datasets(run, json)) {
		jobs_failed = true;
		rc = -1;
	}
	if (json)
		print_json(run, rc ? "failed" : run->p.nunreadable ?
			   "incomplete" : "applied");
	else
		report(run, jobs_failed, stdout);
	if (run->p.nunreadable)
		return APPLY_EXIT_ERROR;
	return rc ? APPLY_EXIT_FAILED : CLI_EXIT_OK;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "prune", no_argument, NULL, 'p' },
		{ "force-delete-data", no_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plan_opts po = { 0 };
	bool wait = true;
	enum cli_output out = CLI_OUT_HUMAN;
	struct cluster_run run;
	bool dry_run = false;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry_run = true;
			break;
		case 'p':
			po.prune = true;
			break;
		case 'F':
			po.force_delete_data = true;
			break;
		case 'W':
			wait = false;
			break;
		case 'o':
			if (cli_parse_output("apply", optarg, CLI_OUT(HUMAN) |
					     CLI_OUT(JSON), &out) < 0) {
				cli_usage_error("apply", apply_usage);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'h':
			apply_usage(stdout);
			return CLI_EXIT_OK;
		default:
			cli_usage_error("apply", apply_usage);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		cli_error("apply", "give exactly one cluster file");
		cli_usage_error("apply", apply_usage);
		return CLI_EXIT_USAGE;
	}
	if (po.force_delete_data && !po.prune) {
		cli_error("apply", "--force-delete-data only makes sense with "
			  "--prune");
		return CLI_EXIT_USAGE;
	}
	if (cluster_run_prepare("apply", argv[optind], &po, &run) < 0) {
		cluster_run_free(&run);
		return APPLY_EXIT_ERROR;
	}
	rc = apply_run(&run, dry_run, out == CLI_OUT_JSON, wait);
	cluster_run_free(&run);
	return rc;
}
