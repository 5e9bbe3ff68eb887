// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-san-canary ub_exe|ub_lib|leak: does one thing the ASan+UBSan tree
 * must report and die of (tests/sanitize/expect_report.sh).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int famfs_san_canary_lib_add(int a);

static void *volatile keep;

int main(int argc, char **argv)
{
	int one = argc - 1;	/* 1, unknown to the compiler */

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "ub_exe")) {
		int x = INT_MAX;

		printf("%d\n", x + one);
	} else if (!strcmp(argv[1], "ub_lib")) {
		printf("%d\n", famfs_san_canary_lib_add(one));
	} else if (!strcmp(argv[1], "leak")) {
		keep = malloc(4096);
		keep = NULL;
	} else {
		return 2;
	}
	return 0;
}
