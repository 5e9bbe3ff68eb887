/* SPDX-License-Identifier: Apache-2.0 */
/* famfsd's process-wide state. Everything in it is guarded by state_lock
 * except where a field says otherwise.
 */
#ifndef FAMFSD_H
#define FAMFSD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "config.h"

struct famfsd {
	struct famfsd_config cfg;
	struct config_overrides ov;
	const char *config_path;
	bool config_explicit;
	char db_path[4096];
	sqlite3 *db;
	pthread_mutex_t state_lock;
	int64_t started;
	volatile int stopping;        /* set by the main thread only */
	char token[256];              /* TCP bearer token ("" = none) */
};

extern struct famfsd famfsd;

void famfsd_lock(void);
void famfsd_unlock(void);

#endif
