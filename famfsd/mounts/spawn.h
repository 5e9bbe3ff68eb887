/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a server process famfsd starts gets, besides its argv: a clean
 * signal state (famfsd blocks SIGTERM, SIGINT, SIGHUP and SIGCHLD for its
 * signalfd and ignores SIGPIPE; a child would inherit both across exec,
 * so SIGTERM could not stop it), and, where systemd runs, a transient
 * scope of its own, so that it is not in famfsd.service's cgroup.
 */
#ifndef FAMFSD_MOUNT_SPAWN_H
#define FAMFSD_MOUNT_SPAWN_H

#include <sys/types.h>

/* In the child between fork() and exec(): empty signal mask, every
 * signal's disposition back to the default. Async-signal-safe.
 */
void spawn_reset_signals(void);

/*
 * In the parent: move @pid into a new transient scope
 * "famfs-fused-<name>-<pid>.scope" (systemd's StartTransientUnit, over the
 * system bus or systemd's private socket). Returns 0, or a negative errno
 * when there is no systemd to ask (the process then stays where it is).
 */
int spawn_own_scope(pid_t pid, const char *name, char *err, size_t errlen);

#endif
