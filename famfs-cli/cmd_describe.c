// SPDX-License-Identifier: Apache-2.0
/* famfs-cli describe: one resource from famfsd, in full. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client/cmdline.h"

static const char usage[] =
"usage: famfs-cli describe KIND [NAME...] [-o FORMAT] [--host ENDPOINT]\n"
"\n"
"Show one resource from famfsd in full:\n"
"  host\n"
"  device NAME | set NAME | filesystem NAME | mount NAME\n"
"  file FILESYSTEM PATH | job ID\n"
"  dataset NAME (with \"drift\": its source now against what was ingested)\n"
"  -o, --output FORMAT  yaml (default), json (the API's object unchanged),\n"
"                       table, wide, name\n"
"  --no-headers         no header line in table and wide output\n"
"\n"
"Exit status: 0 shown, 1 famfsd could not be asked or has no such\n"
"resource, 2 usage error.\n";

struct describe_kind {
	const char *name, *alias, *prefix;
	int nargs;
};

static const struct describe_kind kinds[] = {
	{ "host", "host", "/v1/host", 0 },
	{ "device", "devices", "/v1/devices", 1 },
	{ "region", "regions", "/v1/regions", 1 },
	{ "set", "interleave-set", "/v1/interleave-sets", 1 },
	{ "filesystem", "fs", "/v1/filesystems", 1 },
	{ "mount", "mounts", "/v1/mounts", 1 },
	{ "file", "files", "/v1/files", 2 },
	{ "job", "jobs", "/v1/jobs", 1 },
	{ "dataset", "datasets", "/v1/datasets", 1 },
};

int cmd_describe(int argc, char **argv);
int cmd_describe(int argc, char **argv)
{
	static const char *const cols[] = { "NAME=name", "STATE=state" };
	static const struct cli_table table = { NULL, "name", cols, 2 };
	const struct describe_kind *k = NULL;
	struct client_opts o;
	json_object *out = NULL;
	char path[8192];
	int r;

	r = client_parse_opts("describe", argc, argv, CLI_OUT_YAML,
			      CLI_OUTS_READ, usage, &o);
	if (r)
		return r > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (o.argc < 1) {
		cli_error("describe", "which KIND?");
		cli_usage_error_text("describe", usage);
		return CLI_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(o.argv[0], kinds[i].name) ||
		    !strcmp(o.argv[0], kinds[i].alias))
			k = &kinds[i];
	if (!k || o.argc != k->nargs + 1) {
		if (!k)
			cli_error("describe", "unknown kind '%s'", o.argv[0]);
		else
			cli_error("describe", "'%s' takes %d argument%s", k->name,
				  k->nargs, k->nargs == 1 ? "" : "s");
		cli_usage_error_text("describe", usage);
		return CLI_EXIT_USAGE;
	}
	if (k->nargs == 0)
		snprintf(path, sizeof(path), "%s", k->prefix);
	else if (k->nargs == 1)
		snprintf(path, sizeof(path), "%s/%s%s", k->prefix, o.argv[1],
			 !strcmp(k->name, "dataset") ? "?drift=true" : "");
	else
		snprintf(path, sizeof(path), "%s/%s%s%s", k->prefix, o.argv[1],
			 o.argv[2][0] == '/' ? "" : "/", o.argv[2]);
	r = client_get("describe", &o, path, &out);
	if (r)
		return r;
	cli_print(&o.view, out, NULL, &table);
	json_object_put(out);
	return CLI_EXIT_OK;
}
