// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfsd.h"
#include "killpoint.h"
#include "fsview.h"
#include "jobs/jobs.h"
#include "log.h"
#include "store/store.h"

#define MAX_KINDS 16
#define MAX_RUNNING 64

struct job {
	int64_t id;
	const struct job_kind *kind;
	json_object *params;
	atomic_bool cancel;
	pthread_t thread;
	atomic_bool done;
	char error[512];
	json_object *result;      /* job_set_result(), stored at the end */
	struct famfs_fs *master;  /* job_hold_master() */
};

static const struct job_kind *kinds[MAX_KINDS];
static int nkinds;
static struct job *running[MAX_RUNNING];
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool shutting_down;   /* read by job threads unlocked */

int jobs_register(const struct job_kind *k)
{
	if (nkinds == MAX_KINDS || jobs_find_kind(k->name))
		return -EEXIST;
	kinds[nkinds++] = k;
	return 0;
}

const struct job_kind *jobs_find_kind(const char *name)
{
	for (int i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}

const char *jobs_kind_name(int i)
{
	return i >= 0 && i < nkinds ? kinds[i]->name : NULL;
}

int64_t job_id(const struct job *j)
{
	return j->id;
}

json_object *job_params(const struct job *j)
{
	return j->params;
}

bool job_cancelled(const struct job *j)
{
	return atomic_load(&j->cancel);
}

void job_set_error(struct job *j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->error, sizeof(j->error), fmt, ap);
	va_end(ap);
}

const char *job_error(const struct job *j)
{
	return j->error;
}

void job_set_result(struct job *j, json_object *result)
{
	json_object_put(j->result);
	j->result = result;
}

static void update(int64_t id, const char *sql_set, const char *text)
{
	char sql[256];
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql), "UPDATE jobs SET %s WHERE id=?1", sql_set);
	st = store_prep(famfsd.db, sql);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, store_now());
	sqlite3_step(st);
	sqlite3_finalize(st);
}

void jobs_progress(struct job *j, uint64_t bytes_done, uint64_t bytes_total,
		   uint64_t files_done, uint64_t files_total)
{
	sqlite3_stmt *st;

	famfsd_lock();
	st = store_prep(famfsd.db, "UPDATE jobs SET bytes_done=?2, "
			"bytes_total=?3, files_done=?4, files_total=?5 "
			"WHERE id=?1");
	if (st) {
		sqlite3_bind_int64(st, 1, j->id);
		sqlite3_bind_int64(st, 2, (int64_t)bytes_done);
		sqlite3_bind_int64(st, 3, (int64_t)bytes_total);
		sqlite3_bind_int64(st, 4, (int64_t)files_done);
		sqlite3_bind_int64(st, 5, (int64_t)files_total);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	famfsd_unlock();
}

static void *job_thread(void *arg)
{
	struct job *j = arg;
	char res[64];
	int r;

	famfsd_lock();
	update(j->id, "state='running', started=coalesce(started, ?3), "
	       "error=''", NULL);
	famfsd_unlock();
	FAMFS_KILL_POINT("job.running_recorded");
	r = j->kind->run(j);
	FAMFS_KILL_POINT("job.run_returned");
	famfsd_lock();
	fsmaster_release(j->master);
	j->master = NULL;
	snprintf(res, sizeof(res), "jobs/%lld", (long long)j->id);
	if (j->result)
		update(j->id, "result=?2", json_object_to_json_string_ext(
			       j->result, JSON_C_TO_STRING_PLAIN));
	if (job_cancelled(j) && atomic_load(&shutting_down) &&
	    j->kind->resumable) {
		/* stopped by famfsd's own shutdown: resume next start */
		update(j->id, "state='queued'", NULL);
	} else if (job_cancelled(j)) {
		update(j->id, "state='cancelled', finished=?3", NULL);
		store_event(famfsd.db, "info", res, "%s job cancelled",
			    j->kind->name);
	} else if (r) {
		if (!j->error[0])
			snprintf(j->error, sizeof(j->error), "%s", strerror(-r));
		update(j->id, "state='failed', error=?2, finished=?3", j->error);
		store_event(famfsd.db, "warning", res, "%s job failed: %s",
			    j->kind->name, j->error);
	} else {
		update(j->id, "state='succeeded', finished=?3", NULL);
		store_event(famfsd.db, "info", res, "%s job succeeded",
			    j->kind->name);
	}
	famfsd_unlock();
	atomic_store(&j->done, true);
	return NULL;
}

struct famfs_fs *job_hold_master(struct job *j, const char *fsname, int *rc,
				 char *err, size_t errlen)
{
	struct famfs_fs *fs;

	famfsd_lock();
	if (j->master) {
		fsmaster_release(j->master);
		j->master = NULL;
	}
	fs = fsmaster_hold(fsname, rc, err, errlen);
	j->master = fs;
	famfsd_unlock();
	return fs;
}

void job_release_master(struct job *j)
{
	famfsd_lock();
	fsmaster_release(j->master);
	j->master = NULL;
	famfsd_unlock();
}

int job_master_mount_path(const char *fsname, char *buf, size_t len)
{
	sqlite3_stmt *st;
	int r = -ENOENT;

	famfsd_lock();
	st = store_prep(famfsd.db, "SELECT path FROM mounts WHERE filesystem=?"
			" AND role='master' AND state='mounted'"
			" AND backend != 'kernel'");
	if (st) {
		sqlite3_bind_text(st, 1, fsname, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			snprintf(buf, len, "%s", sqlite3_column_text(st, 0));
			r = 0;
		}
		sqlite3_finalize(st);
	}
	famfsd_unlock();
	return r;
}

int jobs_submit(const char *kind, json_object *params, int64_t *id,
		char *why, size_t whylen)
{
	const struct job_kind *k = jobs_find_kind(kind);
	sqlite3_stmt *st;
	int r;

	if (!k) {
		snprintf(why, whylen, "no runner for job kind '%s'", kind);
		return -ENOENT;
	}
	if (k->validate && (r = k->validate(params, why, whylen)))
		return r;
	st = store_prep(famfsd.db, "INSERT INTO jobs(kind,state,params,created)"
			" VALUES(?,'queued',?,?)");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, json_object_to_json_string(params), -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, store_now());
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	if (!r)
		*id = sqlite3_last_insert_rowid(famfsd.db);
	return r;
}

static struct job *find_running(int64_t id)
{
	for (int i = 0; i < MAX_RUNNING; i++)
		if (running[i] && running[i]->id == id)
			return running[i];
	return NULL;
}

int jobs_cancel(int64_t id)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
				      "SELECT state FROM jobs WHERE id=?");
	char state[16] = "";
	struct job *j;

	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(state, sizeof(state), "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!state[0])
		return -ENOENT;
	if (strcmp(state, "queued") && strcmp(state, "running"))
		return -EALREADY;
	pthread_mutex_lock(&run_lock);
	j = find_running(id);
	if (j)
		atomic_store(&j->cancel, true);
	pthread_mutex_unlock(&run_lock);
	if (!j)
		update(id, "state='cancelled', finished=?3", NULL);
	return 0;
}

void jobs_recover(void)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
				      "SELECT id, kind FROM jobs WHERE state='running'");

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const struct job_kind *k = jobs_find_kind(
			(const char *)sqlite3_column_text(st, 1));
		int64_t id = sqlite3_column_int64(st, 0);

		if (k && k->resumable)
			update(id, "state='queued'", NULL);
		else
			update(id, "state='failed', error='interrupted by a "
			       "famfsd restart', finished=?3", NULL);
	}
	sqlite3_finalize(st);
}

static void reap_done(void)
{
	for (int i = 0; i < MAX_RUNNING; i++)
		if (running[i] && atomic_load(&running[i]->done)) {
			pthread_join(running[i]->thread, NULL);
			json_object_put(running[i]->params);
			json_object_put(running[i]->result);
			free(running[i]);
			running[i] = NULL;
		}
}

void jobs_kick(void)
{
	int64_t ids[MAX_RUNNING];
	char kind[MAX_RUNNING][64], *params[MAX_RUNNING];
	int n = 0;
	sqlite3_stmt *st;

	if (atomic_load(&shutting_down))
		return;
	/* Lock order: state_lock is never taken while holding run_lock. */
	famfsd_lock();
	st = store_prep(famfsd.db, "SELECT id, kind, params FROM jobs WHERE "
			"state='queued' ORDER BY id");
	while (st && n < MAX_RUNNING && sqlite3_step(st) == SQLITE_ROW) {
		ids[n] = sqlite3_column_int64(st, 0);
		snprintf(kind[n], 64, "%s", sqlite3_column_text(st, 1));
		params[n] = strdup((const char *)sqlite3_column_text(st, 2));
		n++;
	}
	sqlite3_finalize(st);
	famfsd_unlock();
	pthread_mutex_lock(&run_lock);
	reap_done();
	for (int i = 0; i < n; i++) {
		const struct job_kind *k = jobs_find_kind(kind[i]);
		struct job *j;
		int slot = -1;

		for (int s = 0; s < MAX_RUNNING && slot < 0; s++)
			if (!running[s])
				slot = s;
		if (!k || find_running(ids[i]) || slot < 0 ||
		    !(j = calloc(1, sizeof(*j)))) {
			free(params[i]);
			continue;
		}
		j->id = ids[i];
		j->kind = k;
		j->params = json_tokener_parse(params[i]);
		free(params[i]);
		if (!j->params)
			j->params = json_object_new_object();
		if (pthread_create(&j->thread, NULL, job_thread, j)) {
			log_err("jobs/%lld: cannot start a thread",
				(long long)j->id);
			json_object_put(j->params);
			json_object_put(j->result);
			free(j);
			continue;
		}
		running[slot] = j;
	}
	pthread_mutex_unlock(&run_lock);
}

void jobs_shutdown(void)
{
	pthread_mutex_lock(&run_lock);
	atomic_store(&shutting_down, true);
	for (int i = 0; i < MAX_RUNNING; i++)
		if (running[i])
			atomic_store(&running[i]->cancel, true);
	for (int i = 0; i < MAX_RUNNING; i++)
		if (running[i]) {
			pthread_join(running[i]->thread, NULL);
			json_object_put(running[i]->params);
			json_object_put(running[i]->result);
			free(running[i]);
			running[i] = NULL;
		}
	pthread_mutex_unlock(&run_lock);
}
