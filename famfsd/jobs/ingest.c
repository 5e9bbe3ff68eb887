// SPDX-License-Identifier: Apache-2.0
/*
 * The "ingest" job (docs/ingest.md): famfsd runs the ingest engine on the
 * master host. With a FUSE master mount of the filesystem on this host
 * the copy goes through that mount (famfs-fused writes the log); without
 * one (or with a kernel master mount, which writes no log) famfsd holds
 * the filesystem open as master itself. The manifest lives in
 * famfsd's database, so a job killed with famfsd resumes when it restarts.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "datasets.h"
#include "famfsd.h"
#include "fsview.h"
#include "ingest.h"
#include "jobs/generation.h"
#include "jobs/ingest_job.h"
#include "jobs/jobs.h"
#include "jobs/switch.h"
#include "killpoint.h"
#include "log.h"
#include "manifest_sqlite.h"
#include "metrics.h"
#include "sink_mount.h"
#include "store/store.h"
#include "skipped.h"
#include "symlinks.h"
#include "ticker.h"

static const char *const ingest_fields[] = {
	"filesystem", "source", "dest", "threads", "verify", "on_change", "retries",
	"delete", "strict", "symlinks", "dataset", "chunk", "strips", "keep",
	NULL,
};

/* params.dataset, params.chunk and params.strips; 0 or -EINVAL. */
static int dataset_validate(json_object *params, char *why, size_t whylen)
{
	json_object *v;

	if (json_object_object_get_ex(params, "dataset", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	     !api_name_valid(json_object_get_string(v)))) {
		snprintf(why, whylen, "params.dataset: a name "
			 "([A-Za-z0-9][A-Za-z0-9._-]{0,62}) is required");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "chunk", &v) &&
	    (!json_object_is_type(v, json_type_int) ||
	     json_object_get_int64(v) < 0 ||
	     (uint64_t)json_object_get_int64(v) % FAMFS_UNIT_SIZE ||
	     (uint64_t)json_object_get_int64(v) > FAMFS_MAX_CHUNK)) {
		snprintf(why, whylen, "params.chunk: bytes, a multiple of %u up "
			 "to %llu (0: the filesystem's default)", (unsigned)FAMFS_UNIT_SIZE,
			 (unsigned long long)FAMFS_MAX_CHUNK);
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "strips", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int(v) < 0 ||
	     json_object_get_int(v) > FAMFS_MAX_STRIPS)) {
		snprintf(why, whylen, "params.strips: an integer from 0 to %d "
			 "(0: the filesystem's default)", FAMFS_MAX_STRIPS);
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "keep", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int(v) < 0 ||
	     json_object_get_int(v) > GEN_MAX_KEEP)) {
		snprintf(why, whylen, "params.keep: an integer from 0 to %d "
			 "(previous generations kept; default 1)", GEN_MAX_KEEP);
		return -EINVAL;
	}
	return 0;
}

int ingest_validate(json_object *params, char *why, size_t whylen)
{
	json_object *v;

	json_object_object_foreach(params, key, val) {
		bool known = false;

		(void)val;
		for (int i = 0; ingest_fields[i]; i++)
			known = known || !strcmp(key, ingest_fields[i]);
		if (!known) {
			snprintf(why, whylen, "params.%s: unknown field", key);
			return -EINVAL;
		}
	}
	if (!json_object_object_get_ex(params, "source", &v) ||
	    !json_object_is_type(v, json_type_string) || json_object_get_string(v)[0] != '/') {
		snprintf(why, whylen, "params.source: an absolute directory path is required");
		return -EINVAL;
	}
	if (access(json_object_get_string(v), R_OK | X_OK) != 0) {
		snprintf(why, whylen, "params.source: %s: %s", json_object_get_string(v),
			 strerror(errno));
		return -EINVAL;
	}
	if (!json_object_object_get_ex(params, "dest", &v) ||
	    !json_object_is_type(v, json_type_string) || json_object_get_string(v)[0] != '/') {
		snprintf(why, whylen, "params.dest: an absolute path inside the filesystem is required");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "threads", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int(v) < 1 ||
	     json_object_get_int(v) > 64)) {
		snprintf(why, whylen, "params.threads: an integer from 1 to 64");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "retries", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int(v) < 0 ||
	     json_object_get_int(v) > 100)) {
		snprintf(why, whylen, "params.retries: an integer from 0 to 100");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "verify", &v) &&
	    !json_object_is_type(v, json_type_boolean) &&
	    !(json_object_is_type(v, json_type_string) &&
	      !strcmp(json_object_get_string(v), "all"))) {
		snprintf(why, whylen, "params.verify: true, false or \"all\"");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "delete", &v) &&
	    !json_object_is_type(v, json_type_boolean)) {
		snprintf(why, whylen, "params.delete: true or false");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "strict", &v) &&
	    !json_object_is_type(v, json_type_boolean)) {
		snprintf(why, whylen, "params.strict: true or false");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "symlinks", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	     (strcmp(json_object_get_string(v), "keep") &&
	      strcmp(json_object_get_string(v), "skip")))) {
		snprintf(why, whylen, "params.symlinks: keep or skip");
		return -EINVAL;
	}
	if (json_object_object_get_ex(params, "on_change", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	     (strcmp(json_object_get_string(v), "keep") &&
	      strcmp(json_object_get_string(v), "replace") &&
	      strcmp(json_object_get_string(v), "fail")))) {
		snprintf(why, whylen, "params.on_change: keep, replace or fail");
		return -EINVAL;
	}
	return dataset_validate(params, why, whylen);
}

const char *ingest_str_param(json_object *p, const char *k,
			     const char *dflt)
{
	json_object *v;

	return json_object_object_get_ex(p, k, &v) ? json_object_get_string(v) : dflt;
}

/* The filesystem named, or the only one famfsd has. */
int ingest_pick_filesystem(const char *want, char *out, size_t len,
			   char *why, size_t whylen)
{
	sqlite3_stmt *st = store_prep(famfsd.db, want ?
		"SELECT name FROM filesystems WHERE name = ?" :
		"SELECT name FROM filesystems");
	int n = 0;

	if (want)
		store_bind_text(st, 1, want);
	while (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
		n++;
	}
	sqlite3_finalize(st);
	if (n == 1)
		return 0;
	if (want)
		snprintf(why, whylen, "no filesystem '%s'", want);
	else
		snprintf(why, whylen, "%d filesystems: say which one (params.filesystem)", n);
	return -ENOENT;
}

struct watcher {
	struct job *job;
	struct ingest_progress *prog;
	atomic_bool cancel;
	struct ingest_ticker tick;      /* stopped when the engine returns */
	const char *fsname;
	uint64_t counted_bytes, counted_files;  /* already in the metrics */
};

/* Add what was copied since the last call to the filesystem's ingest
 * counters. bytes_copied, not bytes_done: files skipped as already there
 * are progress, not ingest traffic.
 */
static void count_copied(struct watcher *w)
{
	uint64_t b = atomic_load(&w->prog->bytes_copied);
	uint64_t n = atomic_load(&w->prog->files_copied);

	metrics_ingest_add(w->fsname, b - w->counted_bytes, n - w->counted_files);
	w->counted_bytes = b;
	w->counted_files = n;
}

/* Report progress to the jobs table and pass a cancel on to the engine. */
static void *watch(void *arg)
{
	struct watcher *w = arg;

	do {
		count_copied(w);
		jobs_progress(w->job, atomic_load(&w->prog->bytes_done),
			      atomic_load(&w->prog->bytes_total),
			      atomic_load(&w->prog->files_done),
			      atomic_load(&w->prog->files_total));
		if (job_cancelled(w->job))
			atomic_store(&w->cancel, true);
	} while (ingest_ticker_wait(&w->tick, 200));
	return NULL;
}

/* Append "a, b, ... and N more" of @l (@count names) to @buf. */
static void add_names(char *buf, size_t len, const struct ingest_names *l,
		      uint64_t count)
{
	size_t used = strlen(buf);
	uint64_t i;

	for (i = 0; i < l->n && used + strlen(l->v[i]) + 40 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 l->v[i]);
	if (i < count)
		snprintf(buf + used, len - used, "%s%llu more", i ? " and " : "",
			 (unsigned long long)(count - i));
}

/*
 * The job fails when its source changed (docs/ingest.md): the error
 * starts "source changed:" (famfs-cli exits 3 on it) and names the files
 * not committed, then those kept though changed since they were ingested.
 */
static int source_changed_error(struct job *j, const struct ingest_result *res,
				const struct ingest_opts *o)
{
	char msg[480] = "source changed: ";

	if (!ingest_result_source_changed(res, o))
		return 0;
	if (res->files_refused) {
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
			 "%llu changed while copying, not committed: ",
			 (unsigned long long)res->files_refused);
		add_names(msg, sizeof(msg) / 2, &res->refused, res->files_refused);
	}
	if (res->files_changed && o->changed != INGEST_CHANGED_REPLACE) {
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
			 "%s%llu changed since ingested, kept (on_change replace "
			 "updates them): ", res->files_refused ? "; " : "",
			 (unsigned long long)res->files_changed);
		add_names(msg, sizeof(msg) * 3 / 4, &res->changed, res->files_changed);
	}
	if (res->files_removed > res->files_deleted) {
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
			 "%s%llu removed from the source, kept (delete removes "
			 "them): ", strlen(msg) > 16 ? "; " : "",
			 (unsigned long long)res->files_removed);
		add_names(msg, sizeof(msg), &res->removed, res->files_removed);
	}
	job_set_error(j, "%s", msg);
	return -ESTALE;
}

/* The job's result: its counts and the paths it did not copy, named. */
static json_object *result_json(const struct ingest_plan *p,
				const struct ingest_result *res)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "files_copied", json_object_new_int64((int64_t)res->files_copied));
	json_object_object_add(o, "files_already_there",
			       json_object_new_int64((int64_t)res->files_skipped));
	json_object_object_add(o, "files_changed", json_object_new_int64((int64_t)res->files_changed));
	json_object_object_add(o, "files_verified", json_object_new_int64((int64_t)res->files_verified));
	json_object_object_add(o, "hardlinks_copied", json_object_new_int64((int64_t)p->hardlinks));
	json_object_object_add(o, "sparse_filled", json_object_new_int64((int64_t)p->sparse));
	json_object_object_add(o, "symlinks", json_object_new_int64((int64_t)p->symlinks));
	json_object_object_add(o, "symlinks_made", json_object_new_int64((int64_t)res->symlinks_made));
	json_object_object_add(o, "symlinks_already_there",
			       json_object_new_int64((int64_t)res->symlinks_already));
	json_object_object_add(o, "symlinks_changed", json_object_new_int64((int64_t)res->symlinks_changed));
	json_object_object_add(o, "symlinks_verified", json_object_new_int64((int64_t)res->symlinks_verified));
	json_object_object_add(o, "symlinks_outside", json_object_new_int64((int64_t)p->symlinks_outside));
	json_object_object_add(o, "files_rewritten", json_object_new_int64((int64_t)res->files_rewritten));
	json_object_object_add(o, "copies_retried", json_object_new_int64((int64_t)res->copies_retried));
	json_object_object_add(o, "files_refused", json_object_new_int64((int64_t)res->files_refused));
	json_object_object_add(o, "files_removed", json_object_new_int64((int64_t)res->files_removed));
	json_object_object_add(o, "files_deleted", json_object_new_int64((int64_t)res->files_deleted));
	json_object_object_add(o, "skipped_count", json_object_new_int64((int64_t)p->skipped));
	json_object_object_add(o, "skipped", ingest_skipped_json(p, INGEST_SKIPPED_IN_RESULT));
	return o;
}

/* The job's copy into @dest (NULL: params.dest). */
static int ingest_copy(struct job *j, const struct famfs_alloc_policy *pol,
		       const char *dest)
{
	json_object *p = job_params(j), *v;
	char fsname[128], mnt[4096], why[1024] = "", dataset[4400];
	struct ingest_opts o = { 0 };
	struct ingest_sink sink = { 0 };
	struct ingest_manifest man = { 0 };
	struct ingest_plan plan;
	struct ingest_result res;
	struct ingest_progress prog;
	struct watcher w = { .job = j, .prog = &prog };
	struct famfs_fs *fs = NULL;
	sqlite3 *db = NULL;
	bool via_mount;
	char **paths = NULL;
	unsigned ndev = 0;
	pthread_t t;
	int r, rc;

	memset(&prog, 0, sizeof(prog));
	o.source = ingest_str_param(p, "source", NULL);
	o.dest = dest ? dest : ingest_str_param(p, "dest", NULL);
	o.threads = json_object_object_get_ex(p, "threads", &v) ? (unsigned)json_object_get_int(v) : 0;
	o.verify = json_object_object_get_ex(p, "verify", &v) && json_object_get_boolean(v);
	o.verify_all = o.verify && json_object_is_type(v, json_type_string);
	o.delete_removed = json_object_object_get_ex(p, "delete", &v) &&
			   json_object_get_boolean(v);
	o.max_tries = json_object_object_get_ex(p, "retries", &v) ?
		      (unsigned)json_object_get_int(v) + 1 : 0;
	const char *oc = ingest_str_param(p, "on_change", "keep");

	o.changed = !strcmp(oc, "replace") ? INGEST_CHANGED_REPLACE :
		    !strcmp(oc, "fail") ? INGEST_CHANGED_FAIL : INGEST_CHANGED_KEEP;
	o.cancel = &w.cancel;
	o.policy = *pol;

	famfsd_lock();
	r = ingest_pick_filesystem(ingest_str_param(p, "filesystem", NULL),
				   fsname, sizeof(fsname), why, sizeof(why));
	if (!r)
		r = fs_device_paths(fsname, &paths, &ndev);
	famfsd_unlock();
	fs_paths_free(paths, ndev);
	/* with a FUSE master mount its server writes the log; else (also
	 * with a kernel master mount, which follows the log) famfsd's
	 * own master handle, held for the whole job (no mount/mkfs meanwhile)
	 */
	via_mount = !r && job_master_mount_path(fsname, mnt, sizeof(mnt)) == 0;
	if (!r && via_mount)
		r = ingest_sink_mount_open(&sink, mnt, ndev);
	else if (!r && !(fs = job_hold_master(j, fsname, &rc, why, sizeof(why))))
		r = rc ? rc : -EIO;
	if (!r && fs)
		ingest_sink_lib(&sink, fs);
	if (r) {
		job_set_error(j, "%s", why[0] ? why : strerror(-r));
		return r;
	}
	w.fsname = fsname;
	snprintf(dataset, sizeof(dataset), "%s:%s", fsname, o.dest);
	if (store_open_conn(famfsd.db_path, &db, why, sizeof(why)) ||
	    ingest_manifest_sqlite_attach(&man, db, dataset) ||
	    (r = ingest_plan_build(o.source, o.dest, &plan, why, sizeof(why)))) {
		job_set_error(j, "%s", why[0] ? why : "cannot open the manifest");
		r = r ? r : -EIO;
		goto out;
	}
	if (!strcmp(ingest_str_param(p, "symlinks", "keep"), "skip"))
		ingest_plan_skip_symlinks(&plan);
	if (json_object_object_get_ex(p, "strict", &v) && json_object_get_boolean(v) &&
	    (r = ingest_skipped_refuse(&plan, why, sizeof(why)))) {
		memset(&res, 0, sizeof(res));
		job_set_result(j, result_json(&plan, &res));
		job_set_error(j, "%s", why);
		ingest_plan_free(&plan);
		goto out;
	}
	ingest_ticker_init(&w.tick);
	/* without the watcher the job runs, reporting progress only at its end */
	bool watching = pthread_create(&t, NULL, watch, &w) == 0;

	if (!watching)
		log_warn("ingest into %s: cannot start the progress thread; "
			 "progress is reported at the end", fsname);
	r = ingest_run(&o, &plan, &sink, &man, &prog, &res);
	ingest_ticker_stop(&w.tick);
	if (watching)
		pthread_join(t, NULL);
	ingest_ticker_destroy(&w.tick);
	count_copied(&w);
	jobs_progress(j, atomic_load(&prog.bytes_done), atomic_load(&prog.bytes_total),
		      atomic_load(&prog.files_done), atomic_load(&prog.files_total));
	if (r)
		job_set_error(j, "%s", res.message);
	else
		r = source_changed_error(j, &res, &o);
	if (res.files_rewritten)
		log_info("ingest into %s: %llu files changed while copying: %llu "
			 "copies made again, %llu not committed", fsname,
			 (unsigned long long)res.files_rewritten,
			 (unsigned long long)res.copies_retried,
			 (unsigned long long)res.files_refused);
	job_set_result(j, result_json(&plan, &res));
	ingest_result_free(&res);
	ingest_plan_free(&plan);
out:
	if (man.m)
		ingest_manifest_sqlite_close(&man);
	if (db)
		store_close(db);
	if (via_mount)
		ingest_sink_mount_close(&sink);
	if (fs)
		job_release_master(j);
	return r;
}

static int64_t ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Generation N+1 of a dataset that has N, ingested into the staging
 * directory and switched with the dataset's path (generation.h). 0, or a
 * negative errno with the job's error set; *@retired gets where the old
 * tree went once the switch happened ("" before). From the switch on the
 * switch lock is held (*@locked): the caller records the switch, then
 * lets it go (gen_lock()).
 */
static int ingest_generation(struct job *j, const struct dataset_spec *d,
			     const struct famfs_alloc_policy *pol,
			     char *retired, size_t len, bool *locked)
{
	char staging[4200], why[1024];
	bool switched;
	int r;

	retired[0] = '\0';
	gen_staging_path(staging, sizeof(staging), d->name, d->next);
	r = gen_prepare(j, d->filesystem, why, sizeof(why));
	if (r) {
		job_set_error(j, "staging generation %lld: %s", d->next, why);
		return r;
	}
	FAMFS_KILL_POINT("dataset.staging_made");
	/* killed after its exchange, before the store recorded it: the
	 * new tree serves (the record says so, jobs/switch.h), only the
	 * rename of the old one and the record are left
	 */
	gen_lock();
	*locked = true;
	r = job_switch_resume(j, d->name, d->filesystem, d->dest, d->serving,
			      retired, len, why, sizeof(why));
	if (r < 0) {
		retired[0] = '\0';
		job_set_error(j, "generation %lld: %s", d->next, why);
		return r;
	}
	if (r == 1)
		return 0;
	retired[0] = '\0';
	gen_unlock();
	*locked = false;
	/* a staging tree left by a job killed before its switch is resumed
	 * (its manifest is the staging path's)
	 */
	r = ingest_copy(j, pol, staging);
	if (r)
		return r;
	FAMFS_KILL_POINT("dataset.ingested");
	gen_lock();
	*locked = true;
	gen_retired_path(retired, len, d->name, d->serving);
	r = job_switch(j, d->name, d->filesystem, d->next, staging, d->dest,
		       retired, &switched, why, sizeof(why));
	if (!switched) {
		retired[0] = '\0';
	} else if (r) {
		/* the rename failed: the old tree stays where the
		 * exchange put it, and is kept there
		 */
		snprintf(retired, len, "%s", staging);
	} else {
		/* switched, not yet recorded: resumed, the switch
		 * record says so (above)
		 */
		FAMFS_KILL_POINT("dataset.switched");
	}
	if (r)
		job_set_error(j, "%s generation %lld: %s", switched ?
			      "switched to" : "cannot switch to",
			      d->next, why);
	return r;
}

/*
 * An ingest given params.dataset records the dataset (datasets.h): the
 * source summary is taken before the copy, so that what changes during
 * it is seen as a change next time, and stored once the copy succeeded.
 * A dataset that has a generation gets the next one beside it, switched
 * atomically, where this build can (generation.h); else it is updated in
 * place.
 */
static int ingest_run_job(struct job *j)
{
	json_object *p = job_params(j), *v;
	struct famfs_alloc_policy pol = { 0 };
	struct dataset_spec d = { 0 };
	struct source_summary sum;
	struct timespec t0;
	char why[1024], retired[4200] = "";
	bool locked = false, recorded = false;
	int r;

	if (json_object_object_get_ex(p, "chunk", &v))
		pol.chunk = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(p, "strips", &v))
		pol.nstrips = (uint32_t)json_object_get_int(v);
	d.name = ingest_str_param(p, "dataset", NULL);
	if (!d.name)
		return ingest_copy(j, &pol, NULL);
	d.filesystem = ingest_str_param(p, "filesystem", "");
	d.source = ingest_str_param(p, "source", NULL);
	d.dest = ingest_str_param(p, "dest", NULL);
	d.chunk = pol.chunk;
	d.strips = pol.nstrips;
	d.keep = json_object_object_get_ex(p, "keep", &v) ?
		 (unsigned)json_object_get_int(v) : 1;
	d.job = job_id(j);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!*d.filesystem) {
		job_set_error(j, "params.filesystem: a dataset's ingest names "
			      "its filesystem");
		return -EINVAL;
	}
	if (dataset_begin(&d)) {
		job_set_error(j, "dataset %s: cannot record it (see famfsd's "
			      "log)", d.name);
		return -EIO;
	}
	/* resumed after its generation was recorded (killed while it
	 * removed the expired ones): only that removal is left
	 */
	if (d.serving > 0 && d.serving_job == d.job) {
		dataset_stopped(&d);
		dataset_expire(j, &d);
		return 0;
	}
	r = source_summary_scan(d.source, &sum, why, sizeof(why));
	if (r) {
		job_set_error(j, "source unreadable: %s", why);
		dataset_failed(&d, job_error(j));
		source_summary_free(&sum);
		return r;
	}
	if (d.serving > 0 && gen_switch_supported())
		r = ingest_generation(j, &d, &pol, retired, sizeof(retired),
				      &locked);
	else
		r = ingest_copy(j, &pol, NULL);
	if (r && !retired[0] && job_cancelled(j)) {
		dataset_stopped(&d);
	} else if (r && !retired[0]) {
		dataset_failed(&d, job_error(j));
	} else if (dataset_succeeded(&d, d.dest, retired[0] ? retired : NULL,
				     &sum, ms_since(&t0))) {
		job_set_error(j, "dataset %s: copied, but its summary could "
			      "not be recorded (see famfsd's log)", d.name);
		r = -EIO;
	} else {
		recorded = true;
	}
	if (locked)
		gen_unlock();
	if (recorded && retired[0])
		dataset_expire(j, &d);
	source_summary_free(&sum);
	return r;
}

const struct job_kind job_kind_ingest = {
	.name = "ingest",
	.validate = ingest_validate,
	.run = ingest_run_job,
	.resumable = true,
};
