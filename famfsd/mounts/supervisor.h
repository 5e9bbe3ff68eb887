/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mount supervision: every mount row wants to be mounted; the supervisor
 * starts its backend, watches the process, restarts it with backoff
 * (1 s, 2 s, 4 s ... 60 s) and records the state in the mounts table.
 * Everything here needs the state lock.
 */
#ifndef FAMFSD_SUPERVISOR_H
#define FAMFSD_SUPERVISOR_H

#include <stddef.h>

/* At start: adopt servers still running from before, clean stale mounts. */
void mounts_reconcile(void);
/* Every second (and on SIGCHLD): reap, restart, update states. */
void mounts_tick(void);
/*
 * mounts_start() - start the backend of mount @name now and wait up to
 * @wait_ms for the mount to appear. 0 when mounted (or still starting at
 * the deadline), negative errno with a message when it failed.
 */
int mounts_start(const char *name, int wait_ms, char *err, size_t errlen);
/* Unmount @name and stop its server. */
int mounts_stop(const char *name, char *err, size_t errlen);
/* Bring @fsname's kernel mounts up to its log now (after famfsd wrote). */
void mounts_follow_fs(const char *fsname);
/* How many mounts are in each state, for /metrics. */
int mounts_running_pid(const char *name);

#endif
