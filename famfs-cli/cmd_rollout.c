// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli rollout: a dataset's generations (docs/cluster-yaml.md,
 * "Datasets that change"), as `kubectl rollout` does for a deployment:
 * `history` lists them from GET /v1/datasets/NAME, `undo` makes the
 * newest kept one serve again (famfsd's dataset_undo job, followed to
 * its end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client/cmdline.h"

static const char usage[] =
"usage: famfs-cli rollout history dataset NAME [-o FORMAT] [--host ENDPOINT]\n"
"       famfs-cli rollout undo dataset NAME [--host ENDPOINT]\n"
"\n"
"A dataset's generations on its filesystem's master:\n"
"  history  each generation with its state (serving, kept), time, files,\n"
"           bytes, holds on this host and source digest, newest first\n"
"  undo     switch back to the newest kept generation, the same atomic way\n"
"           a refresh switches; the one that served is kept instead\n"
"  -o, --output FORMAT  table (default), wide, name, json, yaml (history)\n"
"  -H, --host ENDPOINT  the master's famfsd (default $FAMFS_HOST, else\n"
"                       /run/famfsd/famfsd.sock)\n"
"\n"
"Exit status: 0 done, 1 famfsd could not be asked, has no such dataset or\n"
"the undo failed, 2 usage error.\n";

static int history(const struct client_opts *o, const char *name)
{
	static const char *const cols[] = {
		"GENERATION=generation", "STATE=state", "CREATED=created",
		"FILES=files", "BYTES=~bytes", "JOB=job", "HELD=held",
		"+PATH=path", "+DIGEST=digest" };
	static const struct cli_table table = { "generation", "generation",
						cols, 9 };
	json_object *ds = NULL, *gens;
	char path[512];
	int r;

	snprintf(path, sizeof(path), "/v1/datasets/%s", name);
	r = client_get("rollout", o, path, &ds);
	if (r)
		return r;
	if (!json_object_object_get_ex(ds, "generations", &gens) ||
	    !json_object_is_type(gens, json_type_array)) {
		cli_error("rollout", "GET %s: no generations in the answer", path);
		json_object_put(ds);
		return CLI_EXIT_FAIL;
	}
	json_object *out = json_object_new_object();

	json_object_object_add(out, "items", json_object_get(gens));
	cli_print(&o->view, out, gens, &table);
	json_object_put(out);
	json_object_put(ds);
	return CLI_EXIT_OK;
}

static int undo(const struct client_opts *o, const char *name)
{
	struct famfs_client *cl = famfs_client_open(o->host, o->token);
	json_object *body, *params, *out = NULL, *id;
	char *err = NULL, label[96];
	long status;
	int r;

	if (!cl) {
		cli_error("rollout", "cannot set up a client");
		return CLI_EXIT_FAIL;
	}
	body = json_object_new_object();
	params = json_object_new_object();
	json_object_object_add(body, "kind",
			       json_object_new_string("dataset_undo"));
	json_object_object_add(params, "dataset", json_object_new_string(name));
	json_object_object_add(body, "params", params);
	r = famfs_client_request(cl, "POST", "/v1/jobs", body, &status, &out,
				 &err);
	json_object_put(body);
	if (r || !json_object_object_get_ex(out, "id", &id)) {
		cli_error("rollout", "undo dataset %s: %s", name,
			  err ? err : "no job id in famfsd's answer");
		free(err);
		json_object_put(out);
		famfs_client_close(cl);
		return CLI_EXIT_FAIL;
	}
	snprintf(label, sizeof(label), "undo of dataset %s", name);
	r = cli_job_wait(cl, json_object_get_int64(id), label);
	json_object_put(out);
	famfs_client_close(cl);
	return r;
}

int cmd_rollout(int argc, char **argv)
{
	struct client_opts o;
	int r;

	r = client_parse_opts("rollout", argc, argv, CLI_OUT_TABLE,
			      CLI_OUTS_READ, usage, &o);
	if (r)
		return r > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (o.argc != 3 || (strcmp(o.argv[0], "history") &&
			    strcmp(o.argv[0], "undo")) ||
	    (strcmp(o.argv[1], "dataset") && strcmp(o.argv[1], "datasets"))) {
		if (o.argc != 3)
			cli_error("rollout", "which: history|undo dataset NAME?");
		else
			cli_error("rollout", "unknown '%s %s'", o.argv[0],
				  o.argv[1]);
		cli_usage_error_text("rollout", usage);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(o.argv[0], "undo") && o.view.out != CLI_OUT_TABLE) {
		cli_error("rollout", "-o is for 'rollout history'");
		cli_usage_error_text("rollout", usage);
		return CLI_EXIT_USAGE;
	}
	return !strcmp(o.argv[0], "history") ? history(&o, o.argv[2]) :
	       undo(&o, o.argv[2]);
}
