// SPDX-License-Identifier: Apache-2.0
/*
 * The progress period of famfs-cli ingest and famfsd's ingest job: a stop
 * ends a wait at once. Waits here are 10 minutes long; before the ticker
 * a sleep of that length made this test run into its ctest timeout.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ticker.h"

#define LONG_MS (600u * 1000u)

static void *tick_until_stopped(void *arg)
{
	struct ingest_ticker *t = arg;
	uintptr_t ticks = 0;

	while (ingest_ticker_wait(t, LONG_MS))
		ticks++;
	return (void *)ticks;
}

static void ticker_stop_ends_a_long_wait(void **state)
{
	struct ingest_ticker t;
	pthread_t th;
	void *ticks;

	(void)state;
	ingest_ticker_init(&t);
	assert_int_equal(pthread_create(&th, NULL, tick_until_stopped, &t), 0);
	ingest_ticker_stop(&t);
	assert_int_equal(pthread_join(th, &ticks), 0);
	/* stopped inside its first wait (or before it) */
	assert_int_equal((uintptr_t)ticks, 0);
	/* once stopped, every wait returns at once */
	assert_false(ingest_ticker_wait(&t, LONG_MS));
	ingest_ticker_destroy(&t);
}

static void ticker_wait_returns_true_when_the_period_ends(void **state)
{
	struct ingest_ticker t;

	(void)state;
	ingest_ticker_init(&t);
	assert_true(ingest_ticker_wait(&t, 1));
	assert_true(ingest_ticker_wait(&t, 0));
	ingest_ticker_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ticker_stop_ends_a_long_wait),
		cmocka_unit_test(ticker_wait_returns_true_when_the_period_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
