// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli ingest: copy a dataset tree into famfs. Through famfsd (a job
 * on the master host) by default; offline with -d DEV... when no daemon
 * runs (the manifest then lives in --manifest FILE).
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client/client.h"
#include "ingest.h"
#include "manifest_sqlite.h"
#include "progress.h"
#include "skipped.h"
#include "symlinks.h"
#include "ticker.h"

static void ingest_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli ingest [options] SRC DST\n\n"
		"Copy the tree SRC (e.g. on XFS) into the famfs directory DST: every\n"
		"file pre-allocated, copied by parallel workers with an XXH3 checksum,\n"
		"and visible only once complete. Re-running copies only what is new;\n"
		"an interrupted ingest resumes. See docs/ingest.md.\n\n"
		"through famfsd (default):\n"
		"  -H, --host ENDPOINT    famfsd socket or https URL ($FAMFS_HOST)\n"
		"  -F, --filesystem NAME  famfsd filesystem (default: the only one)\n"
		"  -w, --wait             follow the job to its end with progress\n"
		"offline (no daemon; this process becomes the master):\n"
		"  -d, --device DEV       a device of the filesystem (repeat)\n"
		"  -m, --manifest FILE    SQLite manifest (default DEV0.manifest.db)\n"
		"      --plain-io         read the source with plain system calls,\n"
		"                         never io_uring (used where the kernel allows)\n"
		"both:\n"
		"  -t, --threads N        parallel copies (default: number of CPUs)\n"
		"  -v, --verify[=all]     read back each file this run copies and\n"
		"                         compare; =all: every file of the tree,\n"
		"                         also those already there (reads both)\n"
		"  -u, --update           copy the files changed at the source since\n"
		"                         they were ingested and rename each over its\n"
		"                         old copy (without it they are listed, kept,\n"
		"                         and the exit status is 3)\n"
		"  -c, --on-change P      the same as a policy: keep (default),\n"
		"                         replace (= --update), or fail\n"
		"  -D, --delete           remove from famfs the files (and, once\n"
		"                         empty, the directories) removed from\n"
		"                         the source since they were ingested\n"
		"                         (without it they are listed, exit status 3)\n"
		"  -r, --retries N        copy a file whose source changes while it\n"
		"                         is copied up to N more times (default 3);\n"
		"                         then it is not committed (exit status 3)\n"
		"  -l, --symlinks P       keep (default): symlinks become symlinks,\n"
		"                         their targets verbatim (never followed);\n"
		"                         skip: each is named as skipped\n"
		"  -s, --strict           fail, copying nothing, if any path would be\n"
		"                         skipped (fifo, socket, device node)\n\n"
		"Skipped paths are named on stderr (the first 20, then a count; the\n"
		"famfsd job's result names up to 1000).\n"
		"Progress goes to stderr: a bar on a terminal, a line every 10 s\n"
		"otherwise; \"planning…\" until the tree is counted; the last line\n"
		"gives the average rate over the job's wall time.\n\n"
		"Exit status: 0 copied (or, without --wait, the job started), 1 the\n"
		"copy or the job failed, 2 usage error, 3 the source changed: files\n"
		"changed while copying were not committed, or files changed since\n"
		"they were ingested were kept (see --update). docs/ingest.md.\n");
}

struct ingest_cmd {
	struct cli_devices devs;
	const char *host, *filesystem, *manifest, *src, *dst;
	unsigned threads, retries;
	bool verify, verify_all, wait, plain_io, retries_set, delete_removed;
	bool strict, skip_symlinks;
	enum ingest_changed_policy changed;
};

/* The source changed: files not committed, or changed ones kept. */
#define INGEST_EXIT_SOURCE_CHANGED 3
/* Names listed of each kind; the rest is a count. */
#define INGEST_NAMES_SHOWN 20

static atomic_bool interrupted;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&interrupted, true);
}

struct offline_run {
	struct ingest_progress prog;
	const char *how;	/* how the copy ended, set before the stop */
	struct ingest_ticker tick;
};

static void take_sample(struct offline_run *r, struct progress_sample *s)
{
	s->bytes_done = atomic_load(&r->prog.bytes_done);
	s->bytes_total = atomic_load(&r->prog.bytes_total);
	s->files_done = atomic_load(&r->prog.files_done);
	s->files_total = atomic_load(&r->prog.files_total);
}

static void *show_progress(void *arg)
{
	struct offline_run *r = arg;
	struct progress_view v;
	struct progress_sample s;
	double started = progress_now();

	progress_init(&v, "ingest");
	do {
		take_sample(r, &s);
		progress_show(&v, &s);
	} while (ingest_ticker_wait(&r->tick, 100));
	take_sample(r, &s);
	progress_finish(&v, &s, r->how, progress_now() - started, 0);
	return NULL;
}

/* "N what tail" and the first @cap names of @l, then a count. */
static void list_names(const struct ingest_names *l, uint64_t count, uint64_t cap,
		       const char *what, const char *tail)
{
	uint64_t shown = l->n < cap ? l->n : cap;

	if (!count)
		return;
	fprintf(stderr, "ingest: %llu %s%s\n", (unsigned long long)count, what, tail);
	for (uint64_t i = 0; i < shown; i++)
		fprintf(stderr, "  %s\n", l->v[i]);
	if (count > shown)
		fprintf(stderr, "  ... and %llu more\n", (unsigned long long)(count - shown));
}

/* What changed at the source, on stderr; the exit status it means. */
static int report_source_changes(const struct ingest_result *res,
				 const struct ingest_opts *o)
{
	/* each file not committed is named (up to INGEST_NAMES_KEPT) */
	list_names(&res->refused, res->files_refused, INGEST_NAMES_KEPT,
		   "files changed while copying, not committed", ":");
	if (o->changed != INGEST_CHANGED_REPLACE)
		list_names(&res->changed, res->files_changed, INGEST_NAMES_SHOWN,
			   "files changed at the source since they were ingested, "
			   "famfs keeps the old copy", " (--update copies them):");
	if (!o->delete_removed)
		list_names(&res->removed, res->files_removed, INGEST_NAMES_SHOWN,
			   "files removed from the source since they were ingested, "
			   "famfs keeps them", " (--delete removes them):");
	return ingest_result_source_changed(res, o) ? INGEST_EXIT_SOURCE_CHANGED
						    : CLI_EXIT_OK;
}

static int ingest_offline(struct ingest_cmd *c)
{
	struct famfs_fs *fs = cli_open_fs("ingest", &c->devs, FAMFS_OPEN_MASTER, NULL);
	struct ingest_opts o = { .source = c->src, .dest = c->dst, .threads = c->threads,
				 .verify = c->verify, .verify_all = c->verify_all, .changed = c->changed,
				 .plain_io = c->plain_io, .cancel = &interrupted,
				 .max_tries = c->retries + 1,
				 .delete_removed = c->delete_removed };
	struct ingest_sink sink;
	struct ingest_manifest man = { 0 };
	struct ingest_plan plan;
	struct ingest_result res;
	struct offline_run run = { 0 };
	char why[1024], mpath[4096];
	pthread_t t;
	int r;

	if (!fs)
		return CLI_EXIT_FAIL;
	snprintf(mpath, sizeof(mpath), "%s", c->manifest ? c->manifest : "");
	if (!c->manifest)
		snprintf(mpath, sizeof(mpath), "%s.manifest.db", c->devs.paths[0]);
	if (ingest_manifest_sqlite_open(&man, mpath, c->dst, why, sizeof(why)) ||
	    ingest_plan_build(c->src, c->dst, &plan, why, sizeof(why))) {
		cli_error("ingest", "%s", why);
		if (man.m)
			ingest_manifest_sqlite_close(&man);
		famfs_close(fs);
		return CLI_EXIT_FAIL;
	}
	if (c->skip_symlinks)
		ingest_plan_skip_symlinks(&plan);
	ingest_skipped_print(&plan, stderr);
	if (c->strict && ingest_skipped_refuse(&plan, why, sizeof(why))) {
		cli_error("ingest", "%s", why);
		ingest_plan_free(&plan);
		ingest_manifest_sqlite_close(&man);
		famfs_close(fs);
		return CLI_EXIT_FAIL;
	}
	ingest_sink_lib(&sink, fs);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ingest_ticker_init(&run.tick);
	/* without its thread the copy still runs, only unseen */
	bool shown = pthread_create(&t, NULL, show_progress, &run) == 0;

	if (!shown)
		cli_error("ingest", "cannot start the progress thread: progress "
			  "is not shown");
	r = ingest_run(&o, &plan, &sink, &man, &run.prog, &res);
	run.how = r ? "failed" : "done";
	ingest_ticker_stop(&run.tick);
	if (shown)
		pthread_join(t, NULL);
	ingest_ticker_destroy(&run.tick);
	printf("%llu copied, %llu already there, %llu changed at the source, "
	       "%llu verified; skipped %llu special files; %llu hard links copied "
	       "as files; %llu sparse files filled\n",
	       (unsigned long long)res.files_copied, (unsigned long long)res.files_skipped,
	       (unsigned long long)res.files_changed, (unsigned long long)res.files_verified,
	       (unsigned long long)res.skipped_special, (unsigned long long)res.hardlinks,
	       (unsigned long long)res.sparse);
	if (res.files_removed)
		printf("%llu removed from the source, %llu deleted from famfs\n",
		       (unsigned long long)res.files_removed,
		       (unsigned long long)res.files_deleted);
	if (res.files_rewritten)
		printf("%llu changed while copying: %llu copies made again, %llu "
		       "not committed\n", (unsigned long long)res.files_rewritten,
		       (unsigned long long)res.copies_retried,
		       (unsigned long long)res.files_refused);
	if (plan.symlinks)
		printf("symlinks: %llu made, %llu already there, %llu changed at the "
		       "source, %llu verified; %llu point outside the tree (kept "
		       "verbatim)\n", (unsigned long long)res.symlinks_made,
		       (unsigned long long)res.symlinks_already,
		       (unsigned long long)res.symlinks_changed,
		       (unsigned long long)res.symlinks_verified,
		       (unsigned long long)res.symlinks_outside);
	if (atomic_load(&run.prog.bytes_copied))
		printf("space: %llu bytes of data in %llu bytes allocated (%.3f x)\n",
		       (unsigned long long)atomic_load(&run.prog.bytes_copied),
		       (unsigned long long)atomic_load(&run.prog.alloc_bytes),
		       (double)atomic_load(&run.prog.alloc_bytes) /
		       (double)atomic_load(&run.prog.bytes_copied));
	if (res.dirs_deleted)
		printf("%llu directories no longer at the source were removed\n",
		       (unsigned long long)res.dirs_deleted);
	if (res.dirs_gone)
		printf("%llu directories no longer at the source are kept: %s\n",
		       (unsigned long long)res.dirs_gone, res.dirs_gone_names);
	if (res.dirs_removed)
		printf("%llu directories this run created and left empty were "
		       "removed\n", (unsigned long long)res.dirs_removed);
	fflush(stdout);
	int rc = report_source_changes(&res, &o);

	if (r)
		cli_error("ingest", "%s", res.message);
	ingest_result_free(&res);
	ingest_plan_free(&plan);
	ingest_manifest_sqlite_close(&man);
	famfs_close(fs);
	return r ? CLI_EXIT_FAIL : rc;
}

/* The job failed because its source changed (its error says so first,
 * docs/ingest.md): the same exit status as offline.
 */
static bool job_source_changed(struct famfs_client *cl, int64_t id)
{
	json_object *job = NULL, *e;
	char path[64], *err = NULL;
	long status;
	bool yes;

	snprintf(path, sizeof(path), "/v1/jobs/%lld", (long long)id);
	if (famfs_client_request(cl, "GET", path, NULL, &status, &job, &err)) {
		free(err);
		return false;
	}
	yes = json_object_object_get_ex(job, "error", &e) &&
	      !strncmp(json_object_get_string(e), "source changed:", 15);
	json_object_put(job);
	return yes;
}

static int ingest_daemon(struct ingest_cmd *c)
{
	struct famfs_client *cl = famfs_client_open(c->host, NULL);
	json_object *body = json_object_new_object(), *params = json_object_new_object();
	json_object *out = NULL, *idj;
	char *err = NULL, abs_src[4096];
	long status;
	int r;

	if (!cl) {
		cli_error("ingest", "cannot set up a client for %s", c->host ? c->host : "$FAMFS_HOST");
		return CLI_EXIT_FAIL;
	}
	if (!realpath(c->src, abs_src))
		snprintf(abs_src, sizeof(abs_src), "%s", c->src);
	json_object_object_add(body, "kind", json_object_new_string("ingest"));
	if (c->filesystem)
		json_object_object_add(params, "filesystem", json_object_new_string(c->filesystem));
	json_object_object_add(params, "source", json_object_new_string(abs_src));
	json_object_object_add(params, "dest", json_object_new_string(c->dst));
	if (c->threads)
		json_object_object_add(params, "threads", json_object_new_int((int)c->threads));
	if (c->verify_all)
		json_object_object_add(params, "verify", json_object_new_string("all"));
	else
		json_object_object_add(params, "verify", json_object_new_boolean(c->verify));
	if (c->changed != INGEST_CHANGED_KEEP)
		json_object_object_add(params, "on_change", json_object_new_string(
			c->changed == INGEST_CHANGED_REPLACE ? "replace" : "fail"));
	if (c->delete_removed)
		json_object_object_add(params, "delete", json_object_new_boolean(true));
	if (c->retries_set)
		json_object_object_add(params, "retries", json_object_new_int((int)c->retries));
	if (c->strict)
		json_object_object_add(params, "strict", json_object_new_boolean(true));
	if (c->skip_symlinks)
		json_object_object_add(params, "symlinks", json_object_new_string("skip"));
	json_object_object_add(body, "params", params);
	r = famfs_client_request(cl, "POST", "/v1/jobs", body, &status, &out, &err);
	json_object_put(body);
	if (r) {
		cli_error("ingest", "%s: %s", famfs_client_endpoint(cl), err ? err : "failed");
		free(err);
		famfs_client_close(cl);
		return CLI_EXIT_FAIL;
	}
	int64_t id = json_object_object_get_ex(out, "id", &idj) ? json_object_get_int64(idj) : -1;

	printf("ingest job %lld started on %s\n", (long long)id, famfs_client_endpoint(cl));
	fflush(stdout); /* before the progress on stderr, on a pipe too */
	json_object_put(out);
	r = c->wait ? cli_job_wait(cl, id, "ingest") : CLI_EXIT_OK;
	if (r == CLI_EXIT_FAIL && job_source_changed(cl, id))
		r = INGEST_EXIT_SOURCE_CHANGED;
	famfs_client_close(cl);
	return r;
}

int cmd_ingest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "filesystem", required_argument, NULL, 'F' },
		{ "wait", no_argument, NULL, 'w' },
		{ "device", required_argument, NULL, 'd' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "verify", optional_argument, NULL, 'v' },
		{ "on-change", required_argument, NULL, 'c' },
		{ "plain-io", no_argument, NULL, 'P' },
		{ "update", no_argument, NULL, 'u' },
		{ "delete", no_argument, NULL, 'D' },
		{ "retries", required_argument, NULL, 'r' },
		{ "strict", no_argument, NULL, 's' },
		{ "symlinks", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ingest_cmd c = { .retries = INGEST_DEFAULT_TRIES - 1 };
	int o;

	while ((o = getopt_long(argc, argv, "H:F:wd:m:t:vc:uDr:sl:h", opts, NULL)) != -1) {
		switch (o) {
		case 'H': c.host = optarg; break;
		case 'F': c.filesystem = optarg; break;
		case 'w': c.wait = true; break;
		case 'd': if (cli_devices_add("ingest", &c.devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'm': c.manifest = optarg; break;
		case 't':
			if (cli_parse_u32("ingest", "--threads", optarg, 1024,
					  &c.threads))
				return CLI_EXIT_USAGE;
			break;
		case 'v':
			c.verify = true;
			if (optarg && !strcmp(optarg, "all")) {
				c.verify_all = true;
			} else if (optarg && strcmp(optarg, "copied")) {
				cli_error("ingest", "--verify: copied (the default) or all, "
					  "not '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'P': c.plain_io = true; break;
		case 'u': c.changed = INGEST_CHANGED_REPLACE; break;
		case 'D': c.delete_removed = true; break;
		case 'r':
			if (cli_parse_u32("ingest", "--retries", optarg, 100,
					  &c.retries))
				return CLI_EXIT_USAGE;
			c.retries_set = true;
			break;
		case 's': c.strict = true; break;
		case 'l':
			if (strcmp(optarg, "keep") && strcmp(optarg, "skip")) {
				cli_error("ingest", "--symlinks: keep or skip, not '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			c.skip_symlinks = !strcmp(optarg, "skip");
			break;
		case 'c':
			if (!strcmp(optarg, "keep"))
				c.changed = INGEST_CHANGED_KEEP;
			else if (!strcmp(optarg, "replace"))
				c.changed = INGEST_CHANGED_REPLACE;
			else if (!strcmp(optarg, "fail"))
				c.changed = INGEST_CHANGED_FAIL;
			else {
				cli_error("ingest", "--on-change: keep, replace or fail, not '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'h': ingest_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("ingest", ingest_usage); return CLI_EXIT_USAGE;
		}
	}
	if (optind + 2 != argc) {
		cli_usage_error("ingest", ingest_usage);
		return CLI_EXIT_USAGE;
	}
	c.src = argv[optind];
	c.dst = argv[optind + 1];
	if (c.plain_io && !c.devs.n) {
		cli_error("ingest", "--plain-io works offline only (with -d DEV)");
		return CLI_EXIT_USAGE;
	}
	return c.devs.n ? ingest_offline(&c) : ingest_daemon(&c);
}
