// SPDX-License-Identifier: Apache-2.0
/* The kill-point hook (killpoint.h); empty unless FAMFS_KILL_POINTS. */
#include "killpoint.h"

#ifdef FAMFS_KILL_POINTS
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t kill_once = PTHREAD_ONCE_INIT;
static char kill_name[128];
static long kill_nth;
static long kill_hits;
static int kill_sig = SIGKILL;

static void kill_parse(void)
{
	const char *v = getenv("FAMFS_KILL_AT"), *v2;
	char *colon;

	if (!v || !*v)
		return;
	v2 = getenv("FAMFS_KILL_SIGNAL");
	if (v2 && !strcmp(v2, "STOP"))
		kill_sig = SIGSTOP;
	snprintf(kill_name, sizeof(kill_name), "%s", v);
	colon = strchr(kill_name, ':');
	kill_nth = 1;
	if (colon) {
		*colon = '\0';
		kill_nth = strtol(colon + 1, NULL, 10);
		if (kill_nth < 1)
			kill_nth = 1;
	}
}

void famfs_kill_point(const char *name)
{
	pthread_once(&kill_once, kill_parse);
	if (!kill_name[0] || strcmp(name, kill_name))
		return;
	if (__atomic_add_fetch(&kill_hits, 1, __ATOMIC_SEQ_CST) != kill_nth)
		return;
	/* one write(2): nothing buffered that SIGKILL would lose */
	dprintf(2, "famfs kill point %s:%ld%s\n", name, kill_nth,
		kill_sig == SIGSTOP ? " (stopped)" : "");
	kill(getpid(), kill_sig);
	if (kill_sig == SIGSTOP)
		return;   /* continued (SIGCONT): the step goes on */
	for (;;)
		pause();
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int famfs_killpoint_unused;
#endif
