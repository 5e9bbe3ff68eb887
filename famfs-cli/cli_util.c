// SPDX-License-Identifier: Apache-2.0
#include <stdarg.h>
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

int cli_parse_output(const char *cmd, const char *arg, enum cli_output *out)
{
	static const struct { const char *name; enum cli_output v; } m[] = {
		{ "human", CLI_OUT_HUMAN }, { "json", CLI_OUT_JSON },
		{ "yaml", CLI_OUT_YAML }, { "table", CLI_OUT_TABLE },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(arg, m[i].name)) {
			*out = m[i].v;
			return 0;
		}
	cli_error(cmd, "unknown output format '%s' (human, json, yaml, table)",
		  arg);
	return -1;
}
