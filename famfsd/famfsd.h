/* SPDX-License-Identifier: Apache-2.0 */
/* famfsd's process-wide state. Everything in it is guarded by state_lock
 * except where a field says otherwise.
 */
#ifndef FAMFSD_H
#define FAMFSD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "config.h"

/*
 * The configuration and the bearer token of its token_file, as one
 * immutable snapshot: SIGHUP builds a new one and swaps the pointer, so
 * that a request sees the old pair or the new one, never half of each.
 */
struct famfsd_conf {
	struct famfsd_config cfg;
	char token[256];              /* TCP write token ("" = none) */
	char read_token[256];         /* TCP read token ("" = none) */
	atomic_int refs;
};

struct famfsd {
	struct config_overrides ov;   /* main thread only */
	const char *config_path;      /* main thread only */
	bool config_explicit;         /* main thread only */
	char db_path[4096];           /* set before the threads start */
	sqlite3 *db;
	/* Mutations (and most reads) take it for writing; /metrics takes it
	 * for reading, /healthz not at all.
	 */
	pthread_rwlock_t state_lock;
	int64_t started;              /* set before the threads start */
	atomic_bool stopping;         /* set by the main thread, read by all */
};

extern struct famfsd famfsd;

/* The state lock, for writing. */
void famfsd_lock(void);
/* The state lock, for reading only: nothing in the store, the caches or
 * famfsd may change under it (readers run concurrently).
 */
void famfsd_rdlock(void);
void famfsd_unlock(void);

/*
 * famfsd_conf() - the current configuration, without a reference: for
 * the main thread (the only one that swaps it) and for code that holds
 * the state lock (it is swapped under the write lock). Other threads take
 * a reference with conf_get().
 */
const struct famfsd_conf *famfsd_conf(void);
static inline const struct famfsd_config *famfsd_cfg(void)
{
	return &famfsd_conf()->cfg;
}
/* The current snapshot, with a reference (any thread); conf_put() drops it. */
struct famfsd_conf *conf_get(void);
void conf_put(struct famfsd_conf *c);
/* Main thread, state lock held for writing: make @c current (its
 * reference passes to famfsd); the old one goes with its last user.
 */
void conf_publish(struct famfsd_conf *c);

#endif
