// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cluster/units.h"

int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	uint64_t v = 0;
	unsigned shift = 0;
	const char *p = s;
	bool range = false;

	if (*p < '1' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - 9) / 10)
			range = true;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p && strchr(units, *p)) {
		shift = 10 * (unsigned)(strchr(units, *p) - units + 1);
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
	} else if (!strcmp(p, "B")) {
		p++;
	}
	if (*p)
		return -EINVAL;
	if (range || (shift && v > (uint64_t)INT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

const char *format_size(uint64_t v, char *buf, unsigned len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB",
					 "PiB", "EiB" };
	unsigned i = 0;

	while (i < 6 && v >= (1024ULL << (10 * i)) &&
	       !(v & ((1ULL << (10 * (i + 1))) - 1)))
		i++;
	if (i)
		snprintf(buf, len, "%llu %s",
			 (unsigned long long)(v >> (10 * i)), u[i]);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	return buf;
}
