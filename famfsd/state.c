// SPDX-License-Identifier: Apache-2.0
/* famfsd's one state and its lock (famfsd.h): apart from main.c, so that
 * everything that links the request layer without the daemon's main
 * (tests/fuzz/fuzz_api.c) uses the same definitions.
 */
#include "famfsd.h"

struct famfsd famfsd = { .state_lock = PTHREAD_RWLOCK_INITIALIZER };

void famfsd_lock(void)
{
	pthread_rwlock_wrlock(&famfsd.state_lock);
}

void famfsd_rdlock(void)
{
	pthread_rwlock_rdlock(&famfsd.state_lock);
}

void famfsd_unlock(void)
{
	pthread_rwlock_unlock(&famfsd.state_lock);
}
