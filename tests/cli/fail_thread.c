// SPDX-License-Identifier: Apache-2.0
/*
 * LD_PRELOAD fault injection for tests: pthread_create() call number
 * $FAIL_PTHREAD_CREATE_AT (1-based) of the process fails with EAGAIN, as it
 * does when a thread limit (RLIMIT_NPROC, cgroup pids.max) is reached.
 * Every other call is the real one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
			 void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *a,
		   void *(*fn)(void *), void *arg)
{
	static atomic_int calls;
	const char *at = getenv("FAIL_PTHREAD_CREATE_AT");
	create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	int n = atomic_fetch_add(&calls, 1) + 1;

	if (at && atoi(at) == n)
		return EAGAIN;
	return real(t, a, fn, arg);
}
