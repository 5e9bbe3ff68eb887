/* SPDX-License-Identifier: Apache-2.0 */
/*
 * famfsd jobs: long-running work with progress, kept in the jobs table
 * and run each in its own thread. A runner registers a kind once at start
 * (jobs_register(), before the API is served):
 *
 *	static const struct job_kind ingest_kind = {
 *		.name = "ingest", .validate = ingest_validate,
 *		.run = ingest_run, .resumable = true,
 *	};
 *	jobs_register(&ingest_kind);   // from famfsd/main.c's job list
 *
 * validate() runs under the state lock inside the POST /v1/jobs
 * transaction (it may read the store through famfsd.db). run() runs in the
 * job's thread WITHOUT the state lock: it reports with jobs_progress(),
 * polls job_cancelled(), and returns 0 (succeeded) or a negative errno with
 * job_set_error() (failed). To touch famfsd's state it takes famfsd_lock().
 * For its own tables (a manifest) it may open its own connection with
 * store_open_conn(famfsd.db_path, ...). A resumable kind's run() is called
 * again after a famfsd restart for a job that was running.
 */
#ifndef FAMFSD_JOBS_H
#define FAMFSD_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

struct famfs_fs;

struct job;

struct job_kind {
	const char *name;
	int (*validate)(json_object *params, char *why, size_t whylen);
	int (*run)(struct job *j);
	bool resumable;
};

int jobs_register(const struct job_kind *k);

/*
 * ingest_job_plan() - the dry run of an ingest job with @params (the
 * job's own, validated as for POST /v1/jobs): walk the source and place
 * every file the job would copy on paper (jobs/ingest.c). With
 * @geometry ({"devices": [bytes...], "log_size"}) on the filesystem mkfs
 * would make there, instead of params.filesystem's (not made yet). Takes the state
 * lock itself, only to read famfsd's state: call it without. 0 with the
 * answer in *@out (its "fits" false when a file does not fit); else a
 * negative errno, the HTTP status in *@status and the reason in @why.
 */
int ingest_job_plan(json_object *params, json_object *geometry,
		    json_object **out, int *status, char *why, size_t whylen);
const struct job_kind *jobs_find_kind(const char *name);
/* The name of the @i-th registered kind (from 0), NULL past the last. */
const char *jobs_kind_name(int i);

/* For the runner (any thread, takes the lock itself). */
int64_t job_id(const struct job *j);
json_object *job_params(const struct job *j);   /* owned by the job */
bool job_cancelled(const struct job *j);
void jobs_progress(struct job *j, uint64_t bytes_done, uint64_t bytes_total,
		   uint64_t files_done, uint64_t files_total);
void job_set_error(struct job *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* What job_set_error() set last ("" if nothing): the job's thread only. */
const char *job_error(const struct job *j);
/* What the job reports when it ends, whatever its state (GET /v1/jobs
 * "result"): a JSON object; the job takes @result over. */
void job_set_result(struct job *j, json_object *result);

/*
 * job_hold_master() - famfsd's master handle of @fsname for the job's
 * writes (the writer lock is famfsd's: a job must not famfs_open() the
 * devices as master itself). Any thread; takes the state lock. Held until
 * job_release_master() or the end of the job; while held, a master mount,
 * mkfs or delete of the filesystem is refused with 409. NULL with @err
 * (and *@rc, a negative errno) when it cannot be opened, e.g. -EBUSY-like
 * errors when a FUSE master mount holds the writer lock: then write
 * through job_master_mount_path() instead.
 */
struct famfs_fs *job_hold_master(struct job *j, const char *fsname, int *rc,
				 char *err, size_t errlen);
void job_release_master(struct job *j);
/* 0 and the path of this host's mounted FUSE master mount of @fsname,
 * or -ENOENT. A kernel master mount writes no log (famfsd does, and the
 * mount follows), so it is not one. Any thread; takes the state lock.
 */
int job_master_mount_path(const char *fsname, char *buf, size_t len);

/* For famfsd (state lock held unless said otherwise). */
/* Insert a queued job; 0, -ENOENT (no such kind) or -EINVAL (@why). */
int jobs_submit(const char *kind, json_object *params, int64_t *id,
		char *why, size_t whylen);
/* 0, -ENOENT, or -EALREADY if it has finished. */
int jobs_cancel(int64_t id);
/* At start: running jobs become queued (resumable) or failed. */
void jobs_recover(void);
/* Start threads for queued jobs. Call WITHOUT the state lock. */
void jobs_kick(void);
/* Ask every job to stop and wait for the threads. Without the lock. */
void jobs_shutdown(void);
/* Register every kind linked into famfsd (jobs/kinds.c), at start. */
void jobs_builtin_init(void);

#endif
