// SPDX-License-Identifier: Apache-2.0
/* A progress period that a stop cuts short (ticker.h). */
#include <time.h>

#include "ticker.h"

void ingest_ticker_init(struct ingest_ticker *t)
{
	pthread_condattr_t a;

	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&a);
	/* a wall-clock step must not stretch or cut the period */
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cond, &a);
	pthread_condattr_destroy(&a);
	t->stopped = false;
}

bool ingest_ticker_wait(struct ingest_ticker *t, unsigned ms)
{
	struct timespec until;
	bool running;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&t->lock);
	while (!t->stopped &&
	       pthread_cond_timedwait(&t->cond, &t->lock, &until) == 0)
		;
	running = !t->stopped;
	pthread_mutex_unlock(&t->lock);
	return running;
}

void ingest_ticker_stop(struct ingest_ticker *t)
{
	pthread_mutex_lock(&t->lock);
	t->stopped = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

void ingest_ticker_destroy(struct ingest_ticker *t)
{
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
}
