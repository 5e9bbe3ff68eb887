// SPDX-License-Identifier: Apache-2.0
/*
 * Sizes as people write them: the one parser (CLI options, famfsd's API
 * and config, cluster files) and the one formatter (plans, tables,
 * progress, messages). docs/cluster-yaml.md describes the syntax.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "famfs/famfs_overflow.h"
#include "internal.h"

static const char size_units[] = "KMGT";

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

FAMFS_EXPORT int famfs_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0, mult = 1, r;
	bool range = false;
	const char *p = s, *u;

	/* no sign, no space, no leading zero (but "0" itself) */
	if (!s || !is_digit(*p) || (p[0] == '0' && is_digit(p[1])))
		return -EINVAL;
	/* the whole string is checked before its value: junk is -EINVAL */
	for (; is_digit(*p); p++)
		if (famfs_mul_overflows(v, 10, &v) ||
		    famfs_add_overflows(v, (uint64_t)(*p - '0'), &v))
			range = true;
	if (*p && (u = strchr(size_units, *p))) {
		mult = 1ULL << (10 * (u - size_units + 1));
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
	} else if (!strcmp(p, "B")) {
		p++;
	}
	if (*p)
		return -EINVAL;
	if (range || famfs_mul_overflows(v, mult, &r))
		return -ERANGE;
	*out = r;
	return 0;
}

FAMFS_EXPORT const char *famfs_format_size(uint64_t v, unsigned flags,
					   char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB",
					 "PiB", "EiB" };
	unsigned i = 0;

	if (flags & FAMFS_SIZE_ROUND) {
		/* the largest unit not above @v; one decimal unless exact */
		while (i < 6 && v >> (10 * (i + 1)))
			i++;
		if (i && v & ((1ULL << (10 * i)) - 1)) {
			snprintf(buf, len, "%.1f %s",
				 (double)v / (double)(1ULL << (10 * i)), u[i]);
			return buf;
		}
	} else {
		/* the largest unit that divides @v */
		while (v && i < 6 && !(v & ((1ULL << (10 * (i + 1))) - 1)))
			i++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)(v >> (10 * i)), u[i]);
	return buf;
}
