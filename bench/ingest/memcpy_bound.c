// SPDX-License-Identifier: Apache-2.0
/* The memcpy bound for ingest: 2 threads copying pre-faulted 512 MiB
 * buffers, best of 3, in GB/s (what any copy on this machine can reach).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LEN (512UL << 20)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct buf { char *s, *d; };

static void *copy(void *a)
{
	struct buf *b = a;

	memcpy(b->d, b->s, LEN);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 2;
	struct buf b[8];
	pthread_t t[8];
	double best = 1e9;

	if (nt < 1 || nt > 8)
		nt = 2;
	for (int i = 0; i < nt; i++) {
		b[i].s = malloc(LEN);
		b[i].d = malloc(LEN);
		memset(b[i].s, i + 1, LEN);
		memset(b[i].d, 0, LEN);
	}
	for (int r = 0; r < 3; r++) {
		double a = now();

		for (int i = 0; i < nt; i++)
			pthread_create(&t[i], NULL, copy, &b[i]);
		for (int i = 0; i < nt; i++)
			pthread_join(t[i], NULL);
		if (now() - a < best)
			best = now() - a;
	}
	printf("%.2f\n", (double)LEN * nt / best / 1e9);
	return 0;
}
