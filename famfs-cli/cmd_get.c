// SPDX-License-Identifier: Apache-2.0
/* famfs-cli get: list resources from famfsd (docs/api.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client/cmdline.h"

#define C(...) (const char *const[]){ __VA_ARGS__ }, \
	(int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))

struct get_kind {
	const char *name;
	const char *alias;
	const char *path;
	const char *const *cols;
	int ncols;
};

static const struct get_kind kinds[] = {
	{ "host", "hosts", "/v1/host",
	  C("NAME=name", "VERSION=version", "HEALTH=health.status",
	    "UPTIME=uptime_seconds", "PROBLEMS=health.problems") },
	{ "devices", "device", "/v1/devices",
	  C("NAME=name", "PROVIDER=provider", "SIZE=~size", "STATE=state",
	    "SET=set", "PATH=path") },
	/* the devices plus each provider's discovery report (-o json) */
	{ "topology", "discovery", "/v1/devices?topology=1",
	  C("NAME=name", "PROVIDER=provider", "STATE=state", "REASON=reason") },
	{ "sets", "interleave-sets", "/v1/interleave-sets",
	  C("NAME=name", "DEVICES=devices", "CHUNK=~chunk", "STRIPS=strips",
	    "SIZE=~size", "FILESYSTEM=filesystem") },
	{ "filesystems", "fs", "/v1/filesystems",
	  C("NAME=name", "SET=set", "MASTER=master", "TOTAL=~space.total",
	    "FREE=~space.free", "FILES=space.files", "LOG_ENTRIES=log.entries",
	    "MOUNTS=mounts") },
	{ "mounts", "mount", "/v1/mounts",
	  C("NAME=name", "FILESYSTEM=filesystem", "PATH=path", "ROLE=role",
	    "BACKEND=backend", "STATE=state", "PID=pid",
	    "RESTARTS=restarts") },
	{ "files", "file", "/v1/files",
	  C("PATH=path", "TYPE=type", "SIZE=~size", "MODE=%mode",
	    "MAP=map.type", "STRIPS=map.strips") },
	{ "jobs", "job", "/v1/jobs",
	  C("ID=id", "KIND=kind", "STATE=state", "BYTES=~progress.bytes_done",
	    "FILES=progress.files_done", "ERROR=error") },
	{ "events", "event", "/v1/events",
	  C("ID=id", "TIME=time", "LEVEL=level", "RESOURCE=resource",
	    "MESSAGE=message") },
};

static const char usage[] =
"usage: famfs-cli get RESOURCE [ARG] [-o table|json|yaml] [--host ENDPOINT]\n"
"  RESOURCE: host, devices, topology, sets, filesystems, mounts,\n"
"            files FILESYSTEM, jobs, events\n"
"  --host: a famfsd socket path or https://host:port (default $FAMFS_HOST,\n"
"          else /run/famfsd/famfsd.sock); https uses $FAMFS_TOKEN or\n"
"          $FAMFS_TOKEN_FILE or --token\n";

int cmd_get(int argc, char **argv);
int cmd_get(int argc, char **argv)
{
	const struct get_kind *k = NULL;
	struct client_opts o;
	json_object *out = NULL, *items;
	char path[4096];
	int r;

	r = client_parse_opts("get", argc, argv, CLI_OUT_TABLE, usage, &o);
	if (r)
		return r > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (o.argc < 1) {
		fputs(usage, stderr);
		return CLI_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(o.argv[0], kinds[i].name) ||
		    !strcmp(o.argv[0], kinds[i].alias))
			k = &kinds[i];
	if (!k) {
		cli_error("get", "unknown resource '%s'", o.argv[0]);
		fputs(usage, stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(k->name, "files")) {
		if (o.argc != 2) {
			cli_error("get", "'get files' needs a filesystem name");
			return CLI_EXIT_USAGE;
		}
		snprintf(path, sizeof(path), "%s/%s", k->path, o.argv[1]);
	} else if (o.argc != 1) {
		cli_error("get", "unexpected argument '%s'", o.argv[1]);
		return CLI_EXIT_USAGE;
	} else {
		snprintf(path, sizeof(path), "%s", k->path);
	}
	r = client_get("get", &o, path, &out);
	if (r)
		return r;
	if (!json_object_object_get_ex(out, "items", &items))
		items = NULL;
	client_print(&o, out, items, k->cols, k->ncols);
	json_object_put(out);
	return CLI_EXIT_OK;
}
