// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli release: let go of holds (docs/api.md, "Holds"): one owner's
 * hold on a dataset (DELETE /v1/datasets/NAME/holds?owner=), or all of
 * an owner's holds on the host (DELETE /v1/holds?owner=), e.g. for a job
 * that ended without its epilog.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client/cmdline.h"

static const char usage[] =
"usage: famfs-cli release hold DATASET --owner OWNER [--host ENDPOINT]\n"
"       famfs-cli release holds --owner OWNER [--host ENDPOINT]\n"
"\n"
"Release holds on datasets' generations on one famfsd:\n"
"  hold DATASET  OWNER's hold on DATASET\n"
"  holds         every hold of OWNER (0 released is not an error)\n"
"  --owner OWNER the owner the hold was taken for (slurm:JOBID, ...)\n"
"  -H, --host ENDPOINT  the famfsd (default $FAMFS_HOST, else\n"
"                       /run/famfsd/famfsd.sock)\n"
"\n"
"Exit status: 0 released, 1 famfsd could not be asked or OWNER holds\n"
"nothing of DATASET, 2 usage error.\n";

/* Take --owner X / --owner=X out of @argv: the shared parser has no such
 * option. NULL when it is not there (or twice: *@bad).
 */
static const char *take_owner(int *argc, char **argv, bool *bad)
{
	const char *owner = NULL;
	int n = 0;

	*bad = false;
	for (int i = 0; i < *argc; i++) {
		const char *v = NULL;

		if (!strcmp(argv[i], "--owner") && i + 1 < *argc)
			v = argv[++i];
		else if (!strncmp(argv[i], "--owner=", 8))
			v = argv[i] + 8;
		else if (!strcmp(argv[i], "--owner"))
			*bad = true;
		else
			argv[n++] = argv[i];
		if (v && owner)
			*bad = true;
		if (v)
			owner = v;
	}
	*argc = n;
	return owner;
}

int cmd_release(int argc, char **argv)
{
	struct famfs_client *cl;
	struct client_opts o;
	json_object *out = NULL, *n;
	const char *owner;
	char *err = NULL, path[512];
	bool bad, all;
	long status;
	int r;

	owner = take_owner(&argc, argv, &bad);
	r = client_parse_opts("release", argc, argv, CLI_OUT_TABLE,
			      CLI_OUT(TABLE), usage, &o);
	if (r)
		return r > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	all = o.argc == 1 && !strcmp(o.argv[0], "holds");
	if (bad || !owner || !*owner ||
	    !(all || (o.argc == 2 && !strcmp(o.argv[0], "hold")))) {
		cli_error("release", bad ? "--owner OWNER, once" : !owner ||
			  !*owner ? "whose? --owner OWNER" :
			  "which: hold DATASET, or holds?");
		cli_usage_error_text("release", usage);
		return CLI_EXIT_USAGE;
	}
	if (all)
		snprintf(path, sizeof(path), "/v1/holds?owner=%s", owner);
	else
		snprintf(path, sizeof(path), "/v1/datasets/%s/holds?owner=%s",
			 o.argv[1], owner);
	cl = famfs_client_open(o.host, o.token);
	if (!cl) {
		cli_error("release", "cannot set up a client");
		return CLI_EXIT_FAIL;
	}
	r = famfs_client_request(cl, "DELETE", path, NULL, &status, &out, &err);
	if (r) {
		cli_error("release", "%s", err ? err : "famfsd did not answer");
		r = CLI_EXIT_FAIL;
	} else if (all) {
		printf("released %lld hold(s) of %s\n",
		       json_object_object_get_ex(out, "released", &n) ?
		       (long long)json_object_get_int64(n) : 0LL, owner);
	} else {
		printf("released %s's hold on dataset %s\n", owner, o.argv[1]);
	}
	free(err);
	json_object_put(out);
	famfs_client_close(cl);
	return r;
}
