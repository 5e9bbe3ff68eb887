// SPDX-License-Identifier: Apache-2.0
/* exec_ignoring SIG[,SIG...] PROGRAM [ARGS...]: run PROGRAM with the given
 * signal numbers ignored, as a service manager or shell may leave them.
 * The raw rt_sigaction(2), so that glibc's own signals 32 and 33 can be
 * set too (sigaction() refuses them).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

int main(int argc, char **argv)
{
	struct kernel_sigaction ign = { .handler = SIG_IGN };
	char *list, *tok, *save = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: exec_ignoring SIG[,SIG...] PROGRAM [ARGS...]\n");
		return 2;
	}
	list = strdup(argv[1]);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long s = strtol(tok, &end, 10);

		if (*end || s < 1 || s > 64 ||
		    syscall(SYS_rt_sigaction, (int)s, &ign, NULL, sizeof(ign.mask))) {
			fprintf(stderr, "exec_ignoring: cannot ignore signal '%s'\n", tok);
			return 2;
		}
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
