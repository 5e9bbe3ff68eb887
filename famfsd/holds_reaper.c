// SPDX-License-Identifier: Apache-2.0
/*
 * The owner reaper (holds.h): with holds.owner_check set, every
 * holds.reap_interval seconds each owner that holds something is given
 * to that program. Exit 0: alive. Exit 1: gone, its holds are released
 * (counted in famfs_holds_reaped_total). Anything else (a crash, a
 * timeout, Slurm not answering): logged, nothing changes, as a check
 * that cannot tell must never drop a running job's data.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "famfsd.h"
#include "holds.h"
#include "jobs/jobs.h"
#include "log.h"
#include "mounts/spawn.h"
#include "store/store.h"

#define CHECK_TIMEOUT 30   /* seconds one owner_check may take */

static pthread_t reaper;
static bool started;
static atomic_ullong reaped;

/* Run @prog @owner: its exit status, or -1 when it did not exit by
 * itself within CHECK_TIMEOUT.
 */
static int check_owner(const char *prog, const char *owner)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		spawn_reset_signals();
		execl(prog, prog, owner, (char *)NULL);
		_exit(127);
	}
	for (int t = 0; t < CHECK_TIMEOUT * 10; t++) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (w < 0)
			return -1;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* The owners that hold something now (state lock taken here). */
static int owners(char ***out)
{
	sqlite3_stmt *st;
	char **v = NULL;
	int n = 0;

	famfsd_lock();
	st = store_prep(famfsd.db, "SELECT DISTINCT owner FROM holds ORDER BY owner");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char **w = realloc(v, (n + 1) * sizeof(*v));

		if (!w)
			break;
		v = w;
		v[n++] = strdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	famfsd_unlock();
	*out = v;
	return n;
}

static void reap_once(const char *prog)
{
	char **v;
	int n = owners(&v);

	for (int i = 0; i < n && !atomic_load(&famfsd.stopping); i++) {
		int rc = v[i] ? check_owner(prog, v[i]) : 0;

		if (rc == 1) {
			int k;

			famfsd_lock();
			k = holds_release(NULL, v[i], "owner gone: reaped");
			famfsd_unlock();
			if (k > 0)
				atomic_fetch_add(&reaped, (unsigned long long)k);
			log_info("holds: owner %s is gone (%s): %d hold%s "
				 "released", v[i], prog, k, k == 1 ? "" : "s");
			jobs_kick();
		} else if (rc != 0) {
			log_warn("holds: %s %s exited with %d: owner kept",
				 prog, v[i], rc);
		}
	}
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void *reaper_main(void *arg)
{
	time_t last = time(NULL);

	(void)arg;
	while (!atomic_load(&famfsd.stopping)) {
		struct famfsd_conf *c = conf_get();
		unsigned every = c->cfg.holds_reap_interval;
		char *prog = c->cfg.holds_owner_check ?
			     strdup(c->cfg.holds_owner_check) : NULL;

		conf_put(c);
		if (prog && time(NULL) - last >= (time_t)every) {
			last = time(NULL);
			reap_once(prog);
		}
		free(prog);
		sleep(1);
	}
	return NULL;
}

void holds_reaper_start(void)
{
	started = !pthread_create(&reaper, NULL, reaper_main, NULL);
	if (!started)
		log_warn("holds: cannot start the owner reaper");
}

void holds_reaper_stop(void)
{
	if (started)
		pthread_join(reaper, NULL);
	started = false;
}

void holds_metrics(FILE *f)
{
	sqlite3_stmt *st;

	fputs("# HELP famfs_dataset_holds Holds on the dataset's generations "
	      "on this host.\n# TYPE famfs_dataset_holds gauge\n", f);
	st = store_prep(famfsd.db, "SELECT d.name, count(h.id) FROM datasets d "
			"LEFT JOIN holds h ON h.dataset=d.name GROUP BY d.name "
			"ORDER BY d.name");
	while (st && sqlite3_step(st) == SQLITE_ROW)
		fprintf(f, "famfs_dataset_holds{dataset=\"%s\"} %lld\n",
			(const char *)sqlite3_column_text(st, 0),
			(long long)sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
	fputs("# HELP famfs_dataset_hold_oldest_age_seconds Age of the "
	      "dataset's oldest hold (0: none).\n"
	      "# TYPE famfs_dataset_hold_oldest_age_seconds gauge\n", f);
	st = store_prep(famfsd.db, "SELECT d.name, coalesce(?1 - min(h.created), "
			"0) FROM datasets d LEFT JOIN holds h ON h.dataset=d.name "
			"GROUP BY d.name ORDER BY d.name");
	if (st)
		sqlite3_bind_int64(st, 1, store_now());
	while (st && sqlite3_step(st) == SQLITE_ROW)
		fprintf(f, "famfs_dataset_hold_oldest_age_seconds{dataset=\"%s\"}"
			" %lld\n", (const char *)sqlite3_column_text(st, 0),
			(long long)sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
	fprintf(f, "# HELP famfs_holds_reaped_total Holds released because "
		"holds.owner_check said their owner is gone.\n"
		"# TYPE famfs_holds_reaped_total counter\n"
		"famfs_holds_reaped_total %llu\n",
		(unsigned long long)atomic_load(&reaped));
}
