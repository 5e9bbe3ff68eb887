// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "famfsd.h"
#include "fsview.h"
#include "log.h"
#include "store/store.h"

#define MAX_VIEWS 64

struct fsview {
	char name[64];
	struct famfs_fs *fs;
	int holds;              /* masters only: jobs using the handle */
	int64_t last_used;      /* masters only: monotonic seconds */
	char corrupt[256];      /* views: the corruption logged last, or "" */
};

static int64_t mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec;
}

/* views[] is filled under the read lock too (/metrics), by concurrent
 * scrapes: views_lock orders them. Views are closed only under the write
 * lock, so a view returned to a reader stays open while it holds the lock.
 */
static struct fsview views[MAX_VIEWS];
static pthread_mutex_t views_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fsview masters[MAX_VIEWS];

static int paths_query(const char *sql, const char *key, char ***paths,
		       unsigned *n)
{
	sqlite3_stmt *st = store_prep(famfsd.db, sql);
	char **p = NULL;
	unsigned k = 0;

	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char **np = realloc(p, sizeof(*p) * (k + 1));

		if (!np)
			break;
		p = np;
		p[k++] = strdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	*paths = p;
	*n = k;
	return k ? 0 : -ENOENT;
}

int fs_device_paths(const char *fsname, char ***paths, unsigned *n)
{
	return paths_query("SELECT d.path FROM filesystems f JOIN set_devices s "
			   "ON s.set_name=f.set_name JOIN devices d ON "
			   "d.name=s.device WHERE f.name=? ORDER BY s.idx",
			   fsname, paths, n);
}

int set_device_paths(const char *set, char ***paths, unsigned *n)
{
	return paths_query("SELECT d.path FROM set_devices s JOIN devices d ON "
			   "d.name=s.device WHERE s.set_name=? ORDER BY s.idx",
			   set, paths, n);
}

void fs_paths_free(char **paths, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

static struct famfs_fs *view_get(const char *fsname, char *err,
				 size_t errlen)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_err e = { 0 };
	struct fsview *free_slot = NULL;
	char **paths;
	unsigned n;
	int r;

	for (int i = 0; i < MAX_VIEWS; i++) {
		if (views[i].fs && !strcmp(views[i].name, fsname)) {
			r = famfs_replay(views[i].fs, &e);
			if (r < 0) {
				snprintf(err, errlen, "replay: %s", e.msg);
				return NULL;
			}
			return views[i].fs;
		}
		if (!views[i].fs && !free_slot)
			free_slot = &views[i];
	}
	if (!free_slot) {
		snprintf(err, errlen, "too many filesystems open");
		return NULL;
	}
	if (fs_device_paths(fsname, &paths, &n)) {
		snprintf(err, errlen, "filesystem '%s' has no devices", fsname);
		return NULL;
	}
	o.host_name = famfsd_cfg()->host_name;
	r = famfs_open((const char *const *)paths, n, &o, &free_slot->fs, &e);
	fs_paths_free(paths, n);
	if (r) {
		snprintf(err, errlen, "%s", e.msg[0] ? e.msg : strerror(-r));
		free_slot->fs = NULL;
		return NULL;
	}
	snprintf(free_slot->name, sizeof(free_slot->name), "%s", fsname);
	return free_slot->fs;
}

/* A corrupt log is logged once per reason, as an error naming the seqs;
 * the view keeps serving what replayed before it.
 */
static void note_corrupt(struct famfs_fs *fs)
{
	struct famfs_log_status ls;
	struct fsview *v = NULL;

	for (int i = 0; i < MAX_VIEWS && !v; i++)
		if (views[i].fs == fs)
			v = &views[i];
	if (!v)
		return;
	famfs_log_status(fs, &ls);
	if (ls.tail_state != FAMFS_TAIL_CORRUPT) {
		v->corrupt[0] = '\0';
		return;
	}
	if (!strcmp(v->corrupt, ls.tail_reason))
		return;
	snprintf(v->corrupt, sizeof(v->corrupt), "%s", ls.tail_reason);
	log_err("filesystem %s: metadata log corrupt: %s; serving the %llu "
		"entries before it; run `famfs-cli fsck --repair` on the "
		"master's devices", v->name, ls.tail_reason,
		(unsigned long long)ls.entries);
}

struct famfs_fs *fsview_get(const char *fsname, char *err, size_t errlen)
{
	struct famfs_fs *fs;

	pthread_mutex_lock(&views_lock);
	fs = view_get(fsname, err, errlen);
	if (fs)
		note_corrupt(fs);
	pthread_mutex_unlock(&views_lock);
	return fs;
}

int fsview_corrupt(char *why, size_t len)
{
	int n = 0;

	pthread_mutex_lock(&views_lock);
	for (int i = 0; i < MAX_VIEWS; i++)
		if (views[i].fs && views[i].corrupt[0] && n++ == 0)
			snprintf(why, len, "filesystem %s: metadata log corrupt: %s",
				 views[i].name, views[i].corrupt);
	pthread_mutex_unlock(&views_lock);
	return n;
}

struct famfs_fs *fsmaster_get(const char *fsname, int *rc, char *err,
			      size_t errlen)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_MASTER,
		.host_name = famfsd_cfg()->host_name };
	struct famfs_err e = { 0 };
	struct fsview *slot = NULL;
	char **paths;
	unsigned n;

	for (int i = 0; i < MAX_VIEWS; i++) {
		if (masters[i].fs && !strcmp(masters[i].name, fsname)) {
			masters[i].last_used = mono_s();
			return masters[i].fs;
		}
		if (!masters[i].fs && !slot)
			slot = &masters[i];
	}
	if (!slot) {
		*rc = -EMFILE;
		snprintf(err, errlen, "too many filesystems open");
		return NULL;
	}
	if (fs_device_paths(fsname, &paths, &n)) {
		*rc = -ENOENT;
		snprintf(err, errlen, "filesystem '%s' has no devices", fsname);
		return NULL;
	}
	*rc = famfs_open((const char *const *)paths, n, &o, &slot->fs, &e);
	fs_paths_free(paths, n);
	if (*rc) {
		snprintf(err, errlen, "%s", e.msg[0] ? e.msg : strerror(-*rc));
		slot->fs = NULL;
		return NULL;
	}
	snprintf(slot->name, sizeof(slot->name), "%s", fsname);
	slot->last_used = mono_s();
	return slot->fs;
}

void fsmaster_expire(int idle_seconds)
{
	int64_t now = mono_s();

	for (int i = 0; i < MAX_VIEWS; i++)
		if (masters[i].fs && !masters[i].holds &&
		    now - masters[i].last_used >= idle_seconds) {
			famfs_close(masters[i].fs);
			masters[i].fs = NULL;
		}
}

int fsmaster_drop(const char *fsname)
{
	if (fsmaster_busy(fsname))
		return -EBUSY;
	for (int i = 0; i < MAX_VIEWS; i++)
		if (masters[i].fs && !strcmp(masters[i].name, fsname)) {
			if (masters[i].holds)
				return -EBUSY;
			famfs_close(masters[i].fs);
			masters[i].fs = NULL;
		}
	return 0;
}

struct famfs_fs *fsmaster_hold(const char *fsname, int *rc, char *err,
			       size_t errlen)
{
	struct famfs_fs *fs = fsmaster_get(fsname, rc, err, errlen);

	for (int i = 0; fs && i < MAX_VIEWS; i++)
		if (masters[i].fs == fs)
			masters[i].holds++;
	return fs;
}

void fsmaster_release(struct famfs_fs *fs)
{
	for (int i = 0; fs && i < MAX_VIEWS; i++)
		if (masters[i].fs == fs && masters[i].holds > 0)
			masters[i].holds--;
}

bool fsmaster_busy(const char *fsname)
{
	sqlite3_stmt *st;
	bool busy = false;

	for (int i = 0; i < MAX_VIEWS; i++)
		if (masters[i].fs && masters[i].holds &&
		    !strcmp(masters[i].name, fsname))
			return true;
	/* A running ingest job writes through the master handle even when
	 * it did not take a hold on it: it names the filesystem, or names
	 * none (the only one).
	 */
	st = store_prep(famfsd.db, "SELECT 1 FROM jobs WHERE kind='ingest' AND "
		"state='running' AND coalesce(json_extract(params, "
		"'$.filesystem'), ?1) = ?1");
	if (st) {
		sqlite3_bind_text(st, 1, fsname, -1, SQLITE_STATIC);
		busy = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return busy;
}

void fsview_drop(const char *fsname)
{
	fsmaster_drop(fsname);   /* callers check fsmaster_busy() first */
	pthread_mutex_lock(&views_lock);
	for (int i = 0; i < MAX_VIEWS; i++)
		if (views[i].fs && !strcmp(views[i].name, fsname)) {
			famfs_close(views[i].fs);
			views[i].fs = NULL;
		}
	pthread_mutex_unlock(&views_lock);
}

void fsview_drop_all(void)
{
	for (int i = 0; i < MAX_VIEWS; i++)
		if (masters[i].fs) {
			famfs_close(masters[i].fs);
			masters[i].fs = NULL;
		}
	pthread_mutex_lock(&views_lock);
	for (int i = 0; i < MAX_VIEWS; i++)
		if (views[i].fs) {
			famfs_close(views[i].fs);
			views[i].fs = NULL;
		}
	pthread_mutex_unlock(&views_lock);
}
