// SPDX-License-Identifier: Apache-2.0
/*
 * source_summary TREE [ROUNDS]: summarise TREE (ingest/source_summary.h)
 * ROUNDS times (default 1) and print the last summary's counts and digest
 * and each round's seconds. bench/ingest/summary.sh times it against
 * `find -printf` of the same tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "source_summary.h"

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 1;
	struct source_summary s = { 0 };
	char why[1024];

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: source_summary TREE [ROUNDS]\n");
		return 2;
	}
	for (int i = 0; i < rounds; i++) {
		struct timespec a, b;

		source_summary_free(&s);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (source_summary_scan(argv[1], &s, why, sizeof(why))) {
			fprintf(stderr, "source_summary: %s\n", why);
			source_summary_free(&s);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		fprintf(stderr, "round %d: %.4f s\n", i + 1,
			(double)(b.tv_sec - a.tv_sec) +
			(double)(b.tv_nsec - a.tv_nsec) / 1e9);
	}
	printf("%llu files, %llu dirs, %llu symlinks, %llu bytes, digest %s\n",
	       (unsigned long long)s.files, (unsigned long long)s.dirs,
	       (unsigned long long)s.symlinks, (unsigned long long)s.bytes,
	       s.digest);
	source_summary_free(&s);
	return 0;
}
