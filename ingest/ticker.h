/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The period of a progress thread that ends the moment the job does: a
 * plain sleep made famfs-cli ingest wait up to 100 ms, and famfsd's job
 * up to 200 ms, after the last file was committed (ticker.c).
 */
#ifndef FAMFS_INGEST_TICKER_H
#define FAMFS_INGEST_TICKER_H

#include <pthread.h>
#include <stdbool.h>

struct ingest_ticker {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopped;
};

void ingest_ticker_init(struct ingest_ticker *t);
/* Wait @ms or until stopped: false once stopped (at once if already). */
bool ingest_ticker_wait(struct ingest_ticker *t, unsigned ms);
void ingest_ticker_stop(struct ingest_ticker *t);
void ingest_ticker_destroy(struct ingest_ticker *t);

#endif
