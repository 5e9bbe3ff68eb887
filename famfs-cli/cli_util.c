// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "famfs-cli %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_parse_uint(const char *cmd, const char *opt, const char *arg,
		   uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	/* strtoull takes "-1" as ULLONG_MAX and " 7" too: digits only */
	if (*arg < '0' || *arg > '9' || (v = strtoull(arg, &end, 10), errno) ||
	    *end || v > max) {
		cli_error(cmd, "%s '%s': want a whole number from 0 to %llu",
			  opt, arg, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_u32(const char *cmd, const char *opt, const char *arg,
		  uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (cli_parse_uint(cmd, opt, arg, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}
