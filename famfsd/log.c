// SPDX-License-Identifier: Apache-2.0
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"

/* SIGHUP changes it while other threads log. */
static atomic_int log_max = LOG_INFO;
static bool log_prefix;

void log_init(int max_prio)
{
	atomic_store(&log_max, max_prio);
	log_prefix = getenv("JOURNAL_STREAM") || !isatty(STDERR_FILENO);
}

void log_set_level(int max_prio)
{
	atomic_store(&log_max, max_prio);
}

void log_plain(int prio, const char *msg)
{
	if (prio > atomic_load(&log_max))
		return;
	if (log_prefix)
		fprintf(stderr, "<%d>famfsd: %s\n", prio, msg);
	else
		fprintf(stderr, "famfsd: %s\n", msg);
}

void log_msg(int prio, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	if (prio > atomic_load(&log_max))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_plain(prio, buf);
}
