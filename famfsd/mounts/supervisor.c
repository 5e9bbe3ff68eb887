// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "famfsd.h"
#include "killpoint.h"
#include "fsview.h"
#include "log.h"
#include "mounts/backend.h"
#include "mounts/supervisor.h"
#include "store/store.h"

#define MAX_MOUNTS 256
#define BACKOFF_MAX 60

struct mount_rt {
	char name[64];
	pid_t pid;
	bool child;           /* ours to waitpid(); false when adopted */
	int backoff;          /* seconds */
	int64_t next_try_ms;
	int64_t mounted_ms;
	bool up;              /* a serverless (kernel) mount famfsd made */
	char follow_err[256]; /* the last follow() error, reported once */
};

static struct mount_rt rts[MAX_MOUNTS];

struct mount_row {
	char name[64], fs[64], path[4096], role[16], backend[16];
	char options[512], state[16];
	int pid, restarts;
};

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static struct mount_rt *rt_get(const char *name)
{
	struct mount_rt *free_rt = NULL;

	for (int i = 0; i < MAX_MOUNTS; i++) {
		if (rts[i].name[0] && !strcmp(rts[i].name, name))
			return &rts[i];
		if (!rts[i].name[0] && !free_rt)
			free_rt = &rts[i];
	}
	if (free_rt) {
		memset(free_rt, 0, sizeof(*free_rt));
		snprintf(free_rt->name, sizeof(free_rt->name), "%s", name);
	}
	return free_rt;
}

static void rt_forget(const char *name)
{
	for (int i = 0; i < MAX_MOUNTS; i++)
		if (!strcmp(rts[i].name, name))
			memset(&rts[i], 0, sizeof(rts[i]));
}

static void col(sqlite3_stmt *st, int c, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, c);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

static int load(const char *name, struct mount_row *m)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT name, filesystem, "
		"path, role, backend, options, state, pid, restarts FROM mounts "
		"WHERE name=?");
	int r = -ENOENT;

	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		col(st, 0, m->name, sizeof(m->name));
		col(st, 1, m->fs, sizeof(m->fs));
		col(st, 2, m->path, sizeof(m->path));
		col(st, 3, m->role, sizeof(m->role));
		col(st, 4, m->backend, sizeof(m->backend));
		col(st, 5, m->options, sizeof(m->options));
		col(st, 6, m->state, sizeof(m->state));
		m->pid = sqlite3_column_int(st, 7);
		m->restarts = sqlite3_column_int(st, 8);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

static void set_state(const char *name, const char *state, int pid,
		      const char *err, bool restarted)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "UPDATE mounts SET "
		"state=?2, pid=?3, last_error=coalesce(?4, last_error), "
		"restarts=restarts+?5, since=CASE WHEN state=?2 THEN since "
		"ELSE ?6 END WHERE name=?1");

	if (!st)
		return;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, pid);
	store_bind_text(st, 4, err);
	sqlite3_bind_int(st, 5, restarted ? 1 : 0);
	sqlite3_bind_int64(st, 6, store_now());
	sqlite3_step(st);
	sqlite3_finalize(st);
}

static void log_path(const char *name, char *buf, size_t len)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/mounts", famfsd_cfg()->state_dir);
	mkdir(dir, 0750);
	snprintf(buf, len, "%s/%s.log", dir, name);
}

/* The last non-empty line the server wrote, for last_error. */
static void log_tail(const char *name, char *out, size_t len)
{
	char path[4200], buf[4096];
	ssize_t n;
	int fd;

	out[0] = 0;
	log_path(name, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t end = lseek(fd, 0, SEEK_END);
	n = pread(fd, buf, sizeof(buf) - 1, end > (off_t)sizeof(buf) - 1 ?
		  end - (off_t)sizeof(buf) + 1 : 0);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	char *nl = strrchr(buf, '\n');

	const char *src = nl ? nl + 1 : buf;
	size_t k = strlen(src);

	if (k >= len)
		k = len - 1;       /* a long line is cut, on purpose */
	memcpy(out, src, k);
	out[k] = 0;
}

/* mkdir -p: a mount point's parents are created too. */
static int mkdir_p(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int start_backend(struct mount_row *m, struct mount_rt *rt,
			 char *err, size_t errlen)
{
	const struct mount_backend *b = mount_backend_find(m->backend);
	struct mount_spec spec = { .name = m->name, .path = m->path,
		.client = !strcmp(m->role, "client"), .options = m->options,
		.host_name = famfsd_cfg()->host_name };
	char lp[4200];
	pid_t pid = 0;
	int r;

	if (!b) {
		snprintf(err, errlen, "no mount backend '%s'", m->backend);
		return -ENOTSUP;
	}
	if (b->is_mounted(m->path)) {
		log_warn("mounts/%s: %s is already a mount point; cleaning it",
			 m->name, m->path);
		b->clean_stale(m->path);
		if (b->is_mounted(m->path)) {
			snprintf(err, errlen, "%s is already mounted by "
				 "something else", m->path);
			return -EBUSY;
		}
	}
	if ((r = mkdir_p(m->path))) {
		snprintf(err, errlen, "cannot create %s: %s", m->path,
			 strerror(-r));
		return r;
	}
	if (fs_device_paths(m->fs, &spec.devs, &spec.ndev)) {
		snprintf(err, errlen, "filesystem '%s' has no devices", m->fs);
		return -ENOENT;
	}
	/* The FUSE master takes the writer lock: famfsd gives its own up.
	 * A kernel mount writes no log: famfsd stays the writer.
	 */
	if (!spec.client && !b->follow && fsmaster_drop(m->fs)) {
		fs_paths_free(spec.devs, spec.ndev);
		snprintf(err, errlen, "a job is writing to '%s' through famfsd; "
			 "mount its master when the job is done (or cancel it)",
			 m->fs);
		return -EBUSY;
	}
	log_path(m->name, lp, sizeof(lp));
	spec.log_path = lp;
	r = b->start(&spec, &pid, err, errlen);
	fs_paths_free(spec.devs, spec.ndev);
	if (r)
		return r;
	FAMFS_KILL_POINT("mounts.server_spawned");
	rt->pid = pid;
	rt->child = true;
	if (b->follow) {
		/* mounted and replayed by start() itself */
		rt->up = true;
		rt->mounted_ms = now_ms();
		rt->follow_err[0] = 0;
		set_state(m->name, "mounted", 0, "", false);
		return 0;
	}
	set_state(m->name, "starting", pid, NULL, false);
	return 0;
}

static void backoff(struct mount_rt *rt, int64_t now)
{
	rt->backoff = rt->backoff ? rt->backoff * 2 : 1;
	if (rt->backoff > BACKOFF_MAX)
		rt->backoff = BACKOFF_MAX;
	rt->next_try_ms = now + rt->backoff * 1000;
}

/* Call a serverless backend's follow() (or adopt()) with the devices. */
static int follow_one(struct mount_row *m, const struct mount_backend *b,
		      bool adopt, char *err, size_t errlen)
{
	struct mount_spec spec = { .name = m->name, .path = m->path,
		.client = !strcmp(m->role, "client"), .options = m->options,
		.host_name = famfsd_cfg()->host_name };
	int r;

	if (fs_device_paths(m->fs, &spec.devs, &spec.ndev)) {
		snprintf(err, errlen, "filesystem '%s' has no devices", m->fs);
		return -ENOENT;
	}
	r = adopt ? b->adopt(&spec, err, errlen) :
		    b->follow(&spec, err, errlen);
	fs_paths_free(spec.devs, spec.ndev);
	return r;
}

/* A kernel mount: mounted is what mountinfo says; follow the log. */
static void tick_serverless(struct mount_row *m, const struct mount_backend *b,
			    struct mount_rt *rt, const char *res)
{
	int64_t now = now_ms();
	char msg[1024];

	if (rt->up && b->is_mounted(m->path)) {
		if (rt->mounted_ms && now - rt->mounted_ms > 30000)
			rt->backoff = 0;    /* stable again */
		if (!follow_one(m, b, false, msg, sizeof(msg))) {
			rt->follow_err[0] = 0;
			return;
		}
		if (strncmp(rt->follow_err, msg, sizeof(rt->follow_err) - 1)) {
			snprintf(rt->follow_err, sizeof(rt->follow_err),
				 "%.255s", msg);
			set_state(m->name, "mounted", 0, msg, false);
			store_event(famfsd.db, "warning", res, "cannot follow "
				    "the log: %s", msg);
		}
		return;
	}
	if (rt->up) {
		rt->up = false;
		rt->mounted_ms = 0;
		backoff(rt, now);
		snprintf(msg, sizeof(msg), "the kernel mount at %.900s is "
			 "gone (unmounted outside famfsd)", m->path);
		set_state(m->name, "failed", 0, msg, false);
		store_event(famfsd.db, "warning", res, "%s; mounting again in "
			    "%d s", msg, rt->backoff);
		return;
	}
	if (now < rt->next_try_ms)
		return;
	if (start_backend(m, rt, msg, sizeof(msg))) {
		backoff(rt, now);
		set_state(m->name, "failed", 0, msg, false);
		store_event(famfsd.db, "warning", res, "%s; retrying in %d s",
			    msg, rt->backoff);
		return;
	}
	set_state(m->name, "mounted", 0, "", true);
	store_event(famfsd.db, "info", res, "mounted at %s with the kernel "
		    "module", m->path);
}

/* Reap or probe the server; true if it is gone. */
static bool server_gone(struct mount_rt *rt, char *why, size_t len)
{
	int st;

	if (rt->pid <= 0)
		return true;
	if (!rt->child) {
		if (kill(rt->pid, 0) && errno == ESRCH) {
			snprintf(why, len, "adopted server pid %d is gone",
				 (int)rt->pid);
			return true;
		}
		return false;
	}
	if (waitpid(rt->pid, &st, WNOHANG) != rt->pid)
		return false;
	if (WIFEXITED(st))
		snprintf(why, len, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(why, len, "killed by signal %d", WTERMSIG(st));
	return true;
}

static void tick_one(struct mount_row *m)
{
	const struct mount_backend *b = mount_backend_find(m->backend);
	struct mount_rt *rt = rt_get(m->name);
	char why[256], tail[512], msg[1024], res[80];
	int64_t now = now_ms();

	if (!rt || !b)
		return;
	snprintf(res, sizeof(res), "mounts/%s", m->name);
	if (b->follow) {
		tick_serverless(m, b, rt, res);
		return;
	}
	if (rt->pid > 0 && !server_gone(rt, why, sizeof(why))) {
		if (strcmp(m->state, "mounted") && b->is_mounted(m->path)) {
			set_state(m->name, "mounted", rt->pid, "", false);
			store_event(famfsd.db, "info", res, "mounted at %s (pid %d)",
				    m->path, (int)rt->pid);
			rt->mounted_ms = now;
		}
		if (rt->mounted_ms && now - rt->mounted_ms > 30000)
			rt->backoff = 0;    /* stable again */
		return;
	}
	if (rt->pid > 0) {
		log_tail(m->name, tail, sizeof(tail));
		rt->pid = 0;
		rt->mounted_ms = 0;
		rt->backoff = rt->backoff ? rt->backoff * 2 : 1;
		if (rt->backoff > BACKOFF_MAX)
			rt->backoff = BACKOFF_MAX;
		rt->next_try_ms = now + rt->backoff * 1000;
		snprintf(msg, sizeof(msg), "%s %s%s%s", famfsd_cfg()->fused_path,
			 why, *tail ? ": " : "", tail);
		if (b->is_mounted(m->path))
			b->clean_stale(m->path);
		set_state(m->name, "failed", 0, msg, false);
		store_event(famfsd.db, "warning", res, "%s; restarting in %d s",
			    msg, rt->backoff);
		return;
	}
	if (now < rt->next_try_ms)
		return;
	if (start_backend(m, rt, msg, sizeof(msg))) {
		rt->backoff = rt->backoff ? rt->backoff * 2 : 1;
		if (rt->backoff > BACKOFF_MAX)
			rt->backoff = BACKOFF_MAX;
		rt->next_try_ms = now + rt->backoff * 1000;
		set_state(m->name, "failed", 0, msg, false);
		store_event(famfsd.db, "warning", res, "%s; retrying in %d s",
			    msg, rt->backoff);
		return;
	}
	set_state(m->name, "starting", rt->pid, NULL, true);
}

static int names(char (**out)[64])
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT name FROM mounts "
				      "WHERE desired='mounted' ORDER BY name");
	char (*v)[64] = NULL;
	int n = 0;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		void *nv = realloc(v, sizeof(*v) * (size_t)(n + 1));

		if (!nv)
			break;
		v = nv;
		col(st, 0, v[n++], 64);
	}
	sqlite3_finalize(st);
	*out = v;
	return n;
}

void mounts_tick(void)
{
	char (*v)[64];
	int n = names(&v);

	for (int i = 0; i < n; i++) {
		struct mount_row m;

		if (!load(v[i], &m))
			tick_one(&m);
	}
	free(v);
}

void mounts_reconcile(void)
{
	char (*v)[64], res[80];
	int n = names(&v);

	for (int i = 0; i < n; i++) {
		const struct mount_backend *b;
		struct mount_row m;
		struct mount_rt *rt;

		if (load(v[i], &m) || !(b = mount_backend_find(m.backend)) ||
		    !(rt = rt_get(m.name)))
			continue;
		snprintf(res, sizeof(res), "mounts/%s", m.name);
		if (b->follow && b->is_mounted(m.path)) {
			char err[512];

			if (!follow_one(&m, b, true, err, sizeof(err))) {
				rt->up = true;
				rt->mounted_ms = now_ms();
				set_state(m.name, "mounted", 0, "", false);
				store_event(famfsd.db, "info", res, "adopted the "
					    "kernel mount at %s", m.path);
				continue;
			}
			store_event(famfsd.db, "warning", res, "cannot adopt "
				    "the kernel mount at %s (%s): unmounting "
				    "it", m.path, err);
		}
		if (m.pid > 0 && kill(m.pid, 0) == 0 && b->owns_pid(m.pid) &&
		    b->is_mounted(m.path)) {
			rt->pid = m.pid;
			rt->child = false;
			set_state(m.name, "mounted", m.pid, NULL, false);
			store_event(famfsd.db, "info", res, "adopted the running "
				    "server (pid %d) at %s", m.pid, m.path);
			continue;
		}
		if (b->is_mounted(m.path)) {
			b->clean_stale(m.path);
			store_event(famfsd.db, "info", res, "cleaned a stale "
				    "mount at %s", m.path);
		}
		set_state(m.name, "starting", 0, NULL, false);
	}
	free(v);
	mounts_tick();
}

int mounts_start(const char *name, int wait_ms, char *err, size_t errlen)
{
	const struct mount_backend *b;
	struct mount_row m;
	struct mount_rt *rt = rt_get(name);
	char why[256], tail[512];
	int r;

	if (!rt || load(name, &m)) {
		snprintf(err, errlen, "no mount '%s'", name);
		return -ENOENT;
	}
	b = mount_backend_find(m.backend);
	r = start_backend(&m, rt, err, errlen);
	if (r && b && b->follow && r != -EBUSY && r != -ENOTSUP) {
		/* the mount itself failed: a mount_failed, retried later */
		backoff(rt, now_ms());
		set_state(name, "failed", 0, err, false);
		return -ECHILD;
	}
	if (r || (b && b->follow))
		return r;
	for (int t = 0; t < wait_ms; t += 20) {
		if (server_gone(rt, why, sizeof(why))) {
			log_tail(name, tail, sizeof(tail));
			snprintf(err, errlen, "%s %s%s%s", famfsd_cfg()->fused_path,
				 why, *tail ? ": " : "", tail);
			rt->pid = 0;
			if (b->is_mounted(m.path))
				b->clean_stale(m.path);
			return -ECHILD;
		}
		if (b->is_mounted(m.path)) {
			set_state(name, "mounted", rt->pid, "", false);
			rt->mounted_ms = now_ms();
			return 0;
		}
		usleep(20000);
	}
	return 0;
}

int mounts_stop(const char *name, char *err, size_t errlen)
{
	const struct mount_backend *b;
	struct mount_row m;
	struct mount_rt *rt = rt_get(name);
	int r;

	if (load(name, &m)) {
		snprintf(err, errlen, "no mount '%s'", name);
		return -ENOENT;
	}
	b = mount_backend_find(m.backend);
	if (!b) {
		snprintf(err, errlen, "no mount backend '%s'", m.backend);
		return -ENOTSUP;
	}
	r = b->stop(m.path, rt && rt->pid ? rt->pid : m.pid,
		    rt && rt->pid ? rt->child : false);
	if (r) {
		snprintf(err, errlen, "%s is still mounted (busy?)", m.path);
		return r;
	}
	rt_forget(name);
	set_state(name, "unmounted", 0, "", false);
	return 0;
}

void mounts_follow_fs(const char *fsname)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT name FROM mounts "
		"WHERE filesystem=? AND desired='mounted'");
	char names_buf[MAX_MOUNTS][64], err[512];
	int n = 0;

	if (!st)
		return;
	sqlite3_bind_text(st, 1, fsname, -1, SQLITE_STATIC);
	while (n < MAX_MOUNTS && sqlite3_step(st) == SQLITE_ROW)
		col(st, 0, names_buf[n++], 64);
	sqlite3_finalize(st);
	for (int i = 0; i < n; i++) {
		const struct mount_backend *b;
		struct mount_row m;
		struct mount_rt *rt;

		if (load(names_buf[i], &m) ||
		    !(b = mount_backend_find(m.backend)) || !b->follow ||
		    !(rt = rt_get(m.name)) || !rt->up)
			continue;
		if (follow_one(&m, b, false, err, sizeof(err)))
			log_warn("mounts/%s: cannot follow the log: %s", m.name,
				 err);
	}
}

int mounts_running_pid(const char *name)
{
	for (int i = 0; i < MAX_MOUNTS; i++)
		if (!strcmp(rts[i].name, name))
			return rts[i].pid;
	return 0;
}
