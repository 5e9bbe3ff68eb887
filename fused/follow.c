// SPDX-License-Identifier: Apache-2.0
/*
 * Two helper threads. The follower (clients only) polls famfs_replay()
 * every few milliseconds; libfamfs calls on_change() for each entry it
 * applies, under its write lock, so that only queues a notice. The
 * notifier sends the queued notices to the kernel (inval_entry,
 * notify_delete, inval_inode), outside every lock, so that a new file,
 * directory or delete shows up without anyone running a command. At start
 * the notifier also waits for the mount to answer, raises its readahead
 * and says "ready".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "fused.h"
#include "killpoint.h"

enum notice_kind { N_ENTRY, N_DELETE, N_INODE, N_INODE_DATA };

struct notice {
	struct notice *next;
	enum notice_kind kind;
	uint64_t parent, child;
	char name[];
};

static void queue(enum notice_kind kind, uint64_t parent, uint64_t child,
		  const char *name)
{
	size_t len = name ? strlen(name) : 0;
	struct notice *n = malloc(sizeof(*n) + len + 1);

	if (!n)
		return; /* the entry timeout is the safety net */
	n->next = NULL;
	n->kind = kind;
	n->parent = parent;
	n->child = child;
	memcpy(n->name, name ? name : "", len + 1);
	pthread_mutex_lock(&fused.q_mu);
	if (fused.q_tail)
		fused.q_tail->next = n;
	else
		fused.q_head = n;
	fused.q_tail = n;
	pthread_cond_signal(&fused.q_cv);
	pthread_mutex_unlock(&fused.q_mu);
}

void fused_notify_entry(uint64_t parent, const char *name)
{
	queue(N_ENTRY, parent, 0, name);
}

void fused_notify_delete(uint64_t parent, uint64_t child, const char *name)
{
	queue(N_DELETE, parent, child, name);
}

void fused_notify_inode(uint64_t ino)
{
	queue(N_INODE, ino, 0, NULL);
}

/* Runs under libfamfs's write lock: look at the arguments, queue, return. */
static void on_change(void *arg, const struct famfs_entry_hdr *h,
		      struct famfs_node *node, struct famfs_node *parent,
		      const char *name)
{
	struct famfs_attr pa;

	(void)arg;
	FAMFS_KILL_POINT("fused.replay_applied");
	if (h->type == FAMFS_ENTRY_SETATTR && node) {
		const struct famfs_entry_setattr *s = (const void *)(h + 1);
		struct famfs_attr na;

		famfs_node_attr(node, &na);
		/* attributes; a size change drops cached data as well */
		if (s->valid & FAMFS_SETATTR_SIZE)
			queue(N_INODE_DATA, na.ino, 0, NULL);
		else
			fused_notify_inode(na.ino);
		return;
	}
	if (!parent || !name)
		return;
	famfs_node_attr(parent, &pa);
	if (h->type == FAMFS_ENTRY_RENAME && node) {
		const struct famfs_entry_rename *r = (const void *)(h + 1);
		struct famfs_attr na;

		/* the new name: it named the replaced inode, or nothing */
		if (r->replaced_seq)
			fused_notify_delete(pa.ino, FAMFS_ROOT_INO + r->replaced_seq,
					    name);
		else
			fused_notify_entry(pa.ino, name);
		famfs_node_attr(node, &na);
		fused_notify_inode(na.ino);  /* its ctime */
	} else if (h->type == FAMFS_ENTRY_EXCHANGE && node) {
		struct famfs_attr na;

		/* the name now holds another node: drop the cached dentry
		 * (a walk in progress keeps the inode it holds)
		 */
		fused_notify_entry(pa.ino, name);
		famfs_node_attr(node, &na);
		fused_notify_inode(na.ino);  /* its ctime */
	} else if (h->type == FAMFS_ENTRY_DELETE) {
		const struct famfs_entry_delete *d = (const void *)(h + 1);

		fused_notify_delete(pa.ino, FAMFS_ROOT_INO + d->target_seq, name);
	} else {
		fused_notify_entry(pa.ino, name);
	}
	fused_notify_inode(pa.ino);
}

static void send_notice(const struct notice *n)
{
	struct fuse_session *se = fused.se;
	size_t len = strlen(n->name);
	int r = 0;

	switch (n->kind) {
	case N_ENTRY:
		r = fuse_lowlevel_notify_inval_entry(se, n->parent, n->name, len);
		break;
	case N_DELETE:
		r = fuse_lowlevel_notify_delete(se, n->parent, n->child, n->name,
						len);
		if (r)  /* not the inode the kernel knows: drop the name */
			r = fuse_lowlevel_notify_inval_entry(se, n->parent,
							     n->name, len);
		break;
	case N_INODE:
		r = fuse_lowlevel_notify_inval_inode(se, n->parent, -1, 0);
		break;
	case N_INODE_DATA:
		r = fuse_lowlevel_notify_inval_inode(se, n->parent, 0, 0);
		break;
	}
	(void)r; /* -ENOENT: the kernel has nothing cached, nothing to drop */
}

/* Wait until the mount answers, tune its readahead, and say so. */
static void announce_ready(void)
{
	char path[128], val[32];
	struct stat st;
	int fd;

	if (stat(fused.o.mountpoint, &st) != 0) {
		fused_log("%s: the mount does not answer: %m", fused.o.mountpoint);
		return;
	}
	if (fused.o.read_ahead_kb) {
		snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
		snprintf(val, sizeof(val), "%u\n", fused.o.read_ahead_kb);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, val, strlen(val)) < 0)
			fused_log("cannot set %s to %u (%m): reads use the kernel's "
				  "default readahead", path, fused.o.read_ahead_kb);
		if (fd >= 0)
			close(fd);
	}
	printf("famfs-fused: ready: %s mount of %s at %s (%u devices, bdi %u:%u)\n",
	       fused.o.client ? "client" : "master", fused.o.devs[0],
	       fused.o.mountpoint, famfs_fs_ndevices(fused.fs), major(st.st_dev),
	       minor(st.st_dev));
	fflush(stdout);
	if (fused.o.ready_fd >= 0) {
		if (write(fused.o.ready_fd, "READY=1\n", 8) < 0)
			fused_log("ready fd %d: %m", fused.o.ready_fd);
		close(fused.o.ready_fd);
	}
}

static void *notifier(void *arg)
{
	(void)arg;
	announce_ready();
	pthread_mutex_lock(&fused.q_mu);
	for (;;) {
		while (!fused.q_head && !atomic_load(&fused.stopping))
			pthread_cond_wait(&fused.q_cv, &fused.q_mu);
		if (!fused.q_head)
			break;
		struct notice *n = fused.q_head;

		fused.q_head = n->next;
		if (!fused.q_head)
			fused.q_tail = NULL;
		pthread_mutex_unlock(&fused.q_mu);
		if (!atomic_load(&fused.stopping))
			send_notice(n);
		free(n);
		pthread_mutex_lock(&fused.q_mu);
	}
	pthread_mutex_unlock(&fused.q_mu);
	return NULL;
}

/* A bad tail is usually the master's append caught half-way: the next
 * poll finds it valid. Only a tail that stays the same bad bytes this long
 * is reported.
 */
#define TORN_REPORT_NS (500ULL * 1000000ULL)

/* True once the same torn tail has been seen for TORN_REPORT_NS. */
static bool torn_tail_persists(const char *reason)
{
	static char seen[sizeof(fused.last_tail_reason)];
	static uint64_t since_ns;
	uint64_t now = famfs_now_ns();

	if (strcmp(reason, seen)) {
		snprintf(seen, sizeof(seen), "%s", reason);
		since_ns = now;
	}
	return now - since_ns >= TORN_REPORT_NS;
}

/* Say once what stays wrong at the log's tail; replay keeps what is valid. */
static void report_log(void)
{
	struct famfs_log_status ls;

	famfs_log_status(fused.fs, &ls);
	if (ls.tail_state == FAMFS_TAIL_TORN &&
	    strcmp(ls.tail_reason, fused.last_tail_reason) &&
	    torn_tail_persists(ls.tail_reason)) {
		fused_log("log: stopped at a bad entry (%s); serving the %llu "
			  "valid entries, will apply more once it is valid",
			  ls.tail_reason, (unsigned long long)ls.entries);
		snprintf(fused.last_tail_reason, sizeof(fused.last_tail_reason),
			 "%s", ls.tail_reason);
	} else if (ls.tail_state == FAMFS_TAIL_CORRUPT &&
		   strcmp(ls.tail_reason, fused.last_tail_reason)) {
		fused_log("error: log: corrupt: %s; serving the %llu valid "
			  "entries and every file known before; run `famfs-cli "
			  "fsck --repair` on the master", ls.tail_reason,
			  (unsigned long long)ls.entries);
		snprintf(fused.last_tail_reason, sizeof(fused.last_tail_reason),
			 "%s", ls.tail_reason);
	} else if (ls.tail_state == FAMFS_TAIL_WAITING &&
		   strcmp(ls.tail_reason, fused.last_tail_reason)) {
		fused_log("log: %s; famfsd gives this mount the device when "
			  "its set grows on this host", ls.tail_reason);
		snprintf(fused.last_tail_reason, sizeof(fused.last_tail_reason),
			 "%s", ls.tail_reason);
	} else if (ls.tail_state == FAMFS_TAIL_CLEAN) {
		fused.last_tail_reason[0] = '\0';
	}
	if (ls.skipped != fused.last_skipped) {
		fused_log("log: %llu entries could not be applied; last: %s",
			  (unsigned long long)ls.skipped, ls.skip_reason);
		fused.last_skipped = ls.skipped;
	}
}

static void *follower(void *arg)
{
	/* tv_nsec must stay below 1 s: a longer poll nanosleep()s in vain */
	struct timespec ts = { (time_t)(fused.o.poll_ms / 1000),
			       (long)(fused.o.poll_ms % 1000) * 1000000L };
	struct famfs_err e = { 0 };

	(void)arg;
	report_log();
	while (!atomic_load(&fused.stopping)) {
		int n;

		n = famfs_replay(fused.fs, &e);
		if (n < 0)
			fused_log("replay: %s", e.msg);
		report_log();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int fused_threads_start(void)
{
	sigset_t all, old;
	int r;

	if (fused.o.client)
		famfs_set_change_cb(fused.fs, on_change, NULL);
	/* signals belong to libfuse's handlers in the session threads */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&fused.notify_thr, NULL, notifier, NULL);
	if (!r && fused.o.client) {
		r = pthread_create(&fused.follow_thr, NULL, follower, NULL);
		if (r) {
			atomic_store(&fused.stopping, true);
			pthread_cond_broadcast(&fused.q_cv);
			pthread_join(fused.notify_thr, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!r)
		fused.threads_started = true;
	return -r;
}

void fused_threads_stop(void)
{
	if (!fused.threads_started)
		return;
	pthread_mutex_lock(&fused.q_mu);
	atomic_store(&fused.stopping, true);
	pthread_cond_broadcast(&fused.q_cv);
	pthread_mutex_unlock(&fused.q_mu);
	if (fused.o.client)
		pthread_join(fused.follow_thr, NULL);
	pthread_join(fused.notify_thr, NULL);
	if (fused.o.client)
		famfs_set_change_cb(fused.fs, NULL, NULL);
	fused.threads_started = false;
}
