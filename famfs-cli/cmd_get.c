// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli get: list resources from famfsd (docs/api.md), as kubectl get
 * does: `get KIND` lists them all, `get KIND NAME...` the ones named (an
 * unknown name is an error naming it; the others are still printed).
 */
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
	const char *item;	/* prefix of one item's path; NULL: no names */
	struct cli_table table;
};

static const struct get_kind kinds[] = {
	{ "host", "hosts", "/v1/host", NULL, { "host", "name",
	  C("NAME=name", "VERSION=version", "HEALTH=health.status",
	    "UPTIME=uptime_seconds", "PROBLEMS=health.problems",
	    "+API=api_version", "+STARTED=started", "+STATE_DIR=state_dir") } },
	{ "devices", "device", "/v1/devices", "/v1/devices", { "device", "name",
	  C("NAME=name", "PROVIDER=provider", "SIZE=~size", "STATE=state",
	    "SET=set", "PATH=path", "+USABLE=usable", "+REASON=reason",
	    "+UUID=uuid") } },
	/* the devices plus each provider's discovery report (-o json) */
	{ "topology", "discovery", "/v1/devices?topology=1", NULL,
	  { "device", "name",
	  C("NAME=name", "PROVIDER=provider", "STATE=state", "REASON=reason",
	    "+PATH=path", "+SIZE=~size") } },
	{ "regions", "region", "/v1/regions", "/v1/regions", { "region", "name",
	  C("NAME=name", "REGION=region", "MEMDEVS=memdevs", "WAYS=ways",
	    "SIZE=~size", "PATH=path", "SET=set", "+GRANULARITY=granularity",
	    "+STATE=state", "+CREATED=created") } },
	{ "sets", "set", "/v1/interleave-sets", "/v1/interleave-sets",
	  { "set", "name",
	  C("NAME=name", "DEVICES=devices", "CHUNK=~chunk", "STRIPS=strips",
	    "SIZE=~size", "FILESYSTEM=filesystem", "+CREATED=created") } },
	{ "filesystems", "fs", "/v1/filesystems", "/v1/filesystems",
	  { "filesystem", "name",
	  C("NAME=name", "SET=set", "MASTER=master", "TOTAL=~space.total",
	    "FREE=~space.free", "FILES=space.files", "LOG_ENTRIES=log.entries",
	    "MOUNTS=mounts", "+LARGEST_FILE=~space.largest_file",
	    "+STRIPED=~space.striped", "+STATE=state", "+DIRS=space.dirs",
	    "+LOG_SIZE=~log_size", "+UUID=uuid") } },
	{ "mounts", "mount", "/v1/mounts", "/v1/mounts", { "mount", "name",
	  C("NAME=name", "FILESYSTEM=filesystem", "PATH=path", "ROLE=role",
	    "BACKEND=backend", "STATE=state", "PID=pid", "RESTARTS=restarts",
	    "+DESIRED=desired", "+SINCE=since", "+LAST_ERROR=last_error") } },
	{ "files", "file", "/v1/files", "/v1/files", { NULL, "path",
	  C("PATH=path", "TYPE=type", "SIZE=~size", "MODE=%mode",
	    "MAP=map.type", "STRIPS=map.strips", "+ALLOC=~alloc", "+UID=uid",
	    "+GID=gid", "+MTIME=mtime", "+INO=ino") } },
	{ "jobs", "job", "/v1/jobs", "/v1/jobs", { "job", "id",
	  C("ID=id", "KIND=kind", "STATE=state", "BYTES=~progress.bytes_done",
	    "FILES=progress.files_done", "ERROR=error",
	    "+TOTAL=~progress.bytes_total", "+CREATED=created",
	    "+STARTED=started", "+FINISHED=finished") } },
	{ "datasets", "dataset", "/v1/datasets", "/v1/datasets",
	  { "dataset", "name",
	  C("NAME=name", "FILESYSTEM=filesystem", "GENERATION=generation",
	    "STATE=state", "FILES=files", "BYTES=~bytes",
	    "REFRESHED=refreshed", "+SOURCE=source", "+DEST=dest",
	    "+JOB=job", "+KEEP=keep", "+FAILURES=failures",
	    "+DIGEST=source_summary.digest", "+LAST_ERROR=last_error") } },
	/* holds on this host's datasets (docs/api.md, "Holds") */
	{ "holds", "hold", "/v1/holds", NULL, { "hold", "id",
	  C("ID=id", "DATASET=dataset", "GENERATION=generation",
	    "OWNER=owner", "CREATED=created", "+PATH=path", "+MOUNT=mount",
	    "+NOTE=note") } },
	{ "events", "event", "/v1/events", NULL, { "event", "id",
	  C("ID=id", "TIME=time", "LEVEL=level", "RESOURCE=resource",
	    "MESSAGE=message") } },
};

static const char usage[] =
"usage: famfs-cli get KIND [NAME...] [-o FORMAT] [--no-headers] [--host ENDPOINT]\n"
"       famfs-cli get files FILESYSTEM [PATH...] [-o FORMAT]\n"
"\n"
"List resources from famfsd: all of KIND, or the ones named.\n"
"  KIND: host, devices, topology, regions, sets, filesystems, mounts,\n"
"        files, jobs, datasets, holds, events (singular names too:\n"
"        device, region, set, fs, mount, file, job, dataset, hold)\n"
"  -o, --output FORMAT  table (default), wide (more columns), name\n"
"                       (KIND/NAME a line), json, yaml\n"
"  --no-headers         no header line in table and wide output\n"
"  -H, --host ENDPOINT  a famfsd socket path or https://host:port (default\n"
"                       $FAMFS_HOST, else /run/famfsd/famfsd.sock); https\n"
"                       uses $FAMFS_TOKEN or $FAMFS_TOKEN_FILE or --token\n"
"\n"
"Exit status: 0 all printed, 1 famfsd could not be asked or a NAME was\n"
"not found (the others are printed), 2 usage error.\n";

static const struct get_kind *find_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(name, kinds[i].name) || !strcmp(name, kinds[i].alias))
			return &kinds[i];
	return NULL;
}

/* GET each of @names under @prefix; the ones found in @items. */
static int get_named(const struct client_opts *o, const char *prefix,
		     char **names, int n, json_object *items)
{
	int rc = CLI_EXIT_OK;

	for (int i = 0; i < n; i++) {
		const char *nm = names[i];
		json_object *one = NULL;
		char path[8192];

		snprintf(path, sizeof(path), "%s/%s", prefix,
			 nm[0] == '/' && strstr(prefix, "/v1/files/") ? nm + 1 : nm);
		if (client_get("get", o, path, &one) != CLI_EXIT_OK) {
			rc = CLI_EXIT_FAIL;
			continue;
		}
		json_object_array_add(items, one);
	}
	return rc;
}

/*
 * get_kind() - list @k, or the @n items in @names: what `get` and `job
 * list` print. Returns the exit code.
 */
static int get_kind(const struct client_opts *o, const struct get_kind *k,
		    char **names, int n)
{
	json_object *out = NULL, *items = NULL;
	char prefix[4096];
	int rc;

	if (!strcmp(k->name, "files")) {
		if (n < 1) {
			cli_error("get", "'get files' needs a filesystem name");
			cli_usage_error_text("get", usage);
			return CLI_EXIT_USAGE;
		}
		snprintf(prefix, sizeof(prefix), "%s/%s", k->item, names[0]);
		names++;
		n--;
	} else {
		snprintf(prefix, sizeof(prefix), "%s", k->item ? k->item : "");
	}
	if (n && !k->item) {
		cli_error("get", "'get %s' takes no names ('%s')", k->name,
			  names[0]);
		cli_usage_error_text("get", usage);
		return CLI_EXIT_USAGE;
	}
	if (!n) {
		rc = client_get("get", o, !strcmp(k->name, "files") ? prefix :
				k->path, &out);
		if (rc)
			return rc;
		if (!json_object_object_get_ex(out, "items", &items))
			items = NULL;
		cli_print(&o->view, out, items, &k->table);
		json_object_put(out);
		return CLI_EXIT_OK;
	}
	items = json_object_new_array();
	rc = get_named(o, prefix, names, n, items);
	if (n == 1 && json_object_array_length(items) == 1) {
		cli_print(&o->view, json_object_array_get_idx(items, 0), NULL,
			  &k->table);
	} else if (json_object_array_length(items) || n > 1) {
		out = json_object_new_object();
		json_object_object_add(out, "items", json_object_get(items));
		cli_print(&o->view, out, items, &k->table);
		json_object_put(out);
	}
	json_object_put(items);
	return rc;
}

int cli_job_list(const struct client_opts *o, char **ids, int n)
{
	return get_kind(o, find_kind("jobs"), ids, n);
}

int cmd_get(int argc, char **argv);
int cmd_get(int argc, char **argv)
{
	const struct get_kind *k;
	struct client_opts o;
	int r;

	r = client_parse_opts("get", argc, argv, CLI_OUT_TABLE, CLI_OUTS_READ,
			      usage, &o);
	if (r)
		return r > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (o.argc < 1) {
		cli_error("get", "which KIND?");
		cli_usage_error_text("get", usage);
		return CLI_EXIT_USAGE;
	}
	k = find_kind(o.argv[0]);
	if (!k) {
		cli_error("get", "unknown resource kind '%s'", o.argv[0]);
		cli_usage_error_text("get", usage);
		return CLI_EXIT_USAGE;
	}
	return get_kind(&o, k, o.argv + 1, o.argc - 1);
}
