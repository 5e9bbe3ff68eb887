// SPDX-License-Identifier: Apache-2.0
/*
 * famfsd-test-hold-client-slot NAME DEV...: open the filesystem as a client
 * (claims a slot, replays, publishes its position), print "held slot" and
 * then never replay again until SIGTERM, so whatever the master appends
 * meanwhile is real, growing follow lag for famfsd's /metrics.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "famfs.h"

int main(int argc, char **argv)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_CLIENT };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	sigset_t stop;
	int sig, r;

	if (argc < 3) {
		fprintf(stderr, "usage: %s CLIENT-NAME DEVICE...\n", argv[0]);
		return 2;
	}
	/* block first: a SIGTERM that comes early still ends in famfs_close() */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	o.host_name = argv[1];
	r = famfs_open((const char *const *)&argv[2], (unsigned)(argc - 2), &o,
		       &fs, &e);
	if (r) {
		fprintf(stderr, "famfs_open as client: %s\n",
			e.msg[0] ? e.msg : strerror(-r));
		return 1;
	}
	printf("held slot\n");
	fflush(stdout);
	sigwait(&stop, &sig);
	famfs_close(fs);   /* gives the slot back */
	return 0;
}
