// SPDX-License-Identifier: Apache-2.0
/* famfs-cli job: list, follow or cancel famfsd jobs. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "client/cmdline.h"
#include "progress.h"

static uint64_t num(json_object *o, const char *path)
{
	json_object *v = famfs_json_path(o, path);

	return v ? (uint64_t)json_object_get_int64(v) : 0;
}

static void sample(json_object *job, struct progress_sample *s)
{
	s->bytes_done = num(job, "progress.bytes_done");
	s->bytes_total = num(job, "progress.bytes_total");
	s->files_done = num(job, "progress.files_done");
	s->files_total = num(job, "progress.files_total");
}

/* famfsd's "2026-12-03T06:00:00Z" as seconds since the epoch; -1 if absent. */
static double api_time(json_object *job, const char *key)
{
	json_object *v = famfs_json_path(job, key);
	struct tm tm = { 0 };
	const char *end;

	if (!v || !json_object_is_type(v, json_type_string))
		return -1;
	end = strptime(json_object_get_string(v), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return end && !*end ? (double)timegm(&tm) : -1;
}

/* Paths the job did not copy (an ingest's result.skipped), as the offline
 * ingest names them: the first 20, then how many more.
 */
static void print_skipped(json_object *job)
{
	json_object *a = famfs_json_path(job, "result.skipped");
	json_object *n = famfs_json_path(job, "result.skipped_count");
	size_t len = a ? json_object_array_length(a) : 0, shown = 0;
	int64_t total = n ? json_object_get_int64(n) : (int64_t)len;

	for (; shown < len && shown < 20; shown++) {
		json_object *e = json_object_array_get_idx(a, shown);

		fprintf(stderr, "skipped %s: %s\n",
			json_object_get_string(famfs_json_path(e, "path")),
			json_object_get_string(famfs_json_path(e, "why")));
	}
	if (total > (int64_t)shown)
		fprintf(stderr, "skipped %lld more paths (famfs-cli get jobs -o "
			"yaml names up to 1000)\n", (long long)(total - (int64_t)shown));
}

/* The end of a job: its totals and average rate, then its state. */
static int job_ended(struct progress_view *v, json_object *job, int64_t id,
		     const char *state)
{
	double started = api_time(job, "started"), finished = api_time(job, "finished");
	json_object *e = famfs_json_path(job, "error");
	struct progress_sample s;

	sample(job, &s);
	print_skipped(job);
	/* famfsd stamps whole seconds: the job took finished - started */
	progress_finish(v, &s, state, started >= 0 && finished >= started ?
			finished - started : 0, 1);
	fprintf(stderr, "job %lld %s%s%s\n", (long long)id, state,
		e && *json_object_get_string(e) ? ": " : "",
		e ? json_object_get_string(e) : "");
	return !strcmp(state, "succeeded") ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* Poll the job twice a second, draw its progress, exit by its end state. */
int cli_job_wait(struct famfs_client *cl, int64_t id, const char *label)
{
	struct progress_view v;
	char path[64];

	progress_init(&v, label);
	snprintf(path, sizeof(path), "/v1/jobs/%lld", (long long)id);
	for (;;) {
		json_object *job = NULL, *st;
		struct progress_sample s;
		const char *state;
		char *err = NULL;
		long status;

		if (famfs_client_request(cl, "GET", path, NULL, &status, &job, &err)) {
			cli_error("job", "%s: %s", famfs_client_endpoint(cl), err ? err : "failed");
			free(err);
			return CLI_EXIT_FAIL;
		}
		state = json_object_object_get_ex(job, "state", &st) ?
			json_object_get_string(st) : "?";
		if (strcmp(state, "queued") && strcmp(state, "running")) {
			int rc = job_ended(&v, job, id, state);

			json_object_put(job);
			return rc;
		}
		sample(job, &s);
		progress_show(&v, &s);
		json_object_put(job);
		usleep(500000);
	}
}

static const char usage[] =
"usage: famfs-cli job list [ID...] [-o FORMAT] [--no-headers] [--host ENDPOINT]\n"
"       famfs-cli job wait|cancel ID [--host ENDPOINT]\n"
"\n"
"  list [ID...]  the jobs (or the ones named), as 'get jobs'; -o table\n"
"                (default), wide, name, json, yaml\n"
"  wait ID       follow a job with its progress until it ends; the last\n"
"                line gives its average rate\n"
"  cancel ID     stop a job; files not yet complete never become visible\n"
"\n"
"Exit status: 0 listed / the job succeeded / cancel requested, 1 famfsd\n"
"could not be asked, a job was not found, or the job failed or was\n"
"cancelled, 2 usage error.\n";

static int job_cancel(struct famfs_client *cl, long long id)
{
	char path[64], *err = NULL;
	json_object *out = NULL;
	long status;
	int rc = CLI_EXIT_OK;

	snprintf(path, sizeof(path), "/v1/jobs/%lld/cancel", id);
	if (famfs_client_request(cl, "POST", path, NULL, &status, &out, &err)) {
		cli_error("job", "cancel %lld: %s", id, err ? err : "failed");
		rc = CLI_EXIT_FAIL;
	} else {
		printf("job %lld: cancel requested\n", id);
	}
	free(err);
	json_object_put(out);
	return rc;
}

int cmd_job(int argc, char **argv)
{
	struct client_opts o;
	long long id;
	char *end;
	int r;

	r = client_parse_opts("job", argc, argv, CLI_OUT_TABLE, CLI_OUTS_READ,
			      usage, &o);
	if (r)
		return r > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (o.argc >= 1 && !strcmp(o.argv[0], "list"))
		return cli_job_list(&o, o.argv + 1, o.argc - 1);
	if (o.argc != 2 || (strcmp(o.argv[0], "wait") && strcmp(o.argv[0], "cancel"))) {
		cli_usage_error_text("job", usage);
		return CLI_EXIT_USAGE;
	}
	if (o.view.out != CLI_OUT_TABLE) {
		cli_error("job", "-o is for 'job list'");
		cli_usage_error_text("job", usage);
		return CLI_EXIT_USAGE;
	}
	id = strtoll(o.argv[1], &end, 10);
	if (*end || id <= 0) {
		cli_error("job", "bad job id '%s'", o.argv[1]);
		return CLI_EXIT_USAGE;
	}
	struct famfs_client *cl = famfs_client_open(o.host, o.token);

	if (!cl) {
		cli_error("job", "cannot set up a client");
		return CLI_EXIT_FAIL;
	}
	r = !strcmp(o.argv[0], "wait") ? cli_job_wait(cl, id, "job") :
	    job_cancel(cl, id);
	famfs_client_close(cl);
	return r;
}
