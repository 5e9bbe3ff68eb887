// SPDX-License-Identifier: Apache-2.0
#include <string.h>

#include "cli.h"
#include "cluster/run.h"

int cluster_run_prepare(const char *cmd, const char *file,
			const struct plan_opts *o, struct cluster_run *run)
{
	struct diag d = { .file = ydoc_file_name(file) };

	memset(run, 0, sizeof(*run));
	if (cluster_load(file, &run->c, &d) < 0) {
		diag_print(&d, stderr);
		diag_free(&d);
		cli_error(cmd, "%s is not a valid cluster file; nothing was "
			  "read or changed", ydoc_file_name(file));
		return -1;
	}
	diag_free(&d);
	run->down = remote_open(&run->r, run->c);
	if (run->down < 0) {
		cli_error(cmd, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < run->c->nhosts; i++)
		if (!run->r.states[i].reachable)
			cli_error(cmd, "host %s: %s", run->c->hosts[i].name,
				  run->r.states[i].error ?
				  run->r.states[i].error : "cannot be read");
	if (plan_build(run->c, run->r.states, o, &run->p) < 0 ||
	    remote_place_datasets(&run->r, &run->p) < 0) {
		cli_error(cmd, "out of memory");
		return -1;
	}
	return 0;
}

void cluster_run_free(struct cluster_run *run)
{
	plan_free(&run->p);
	remote_close(&run->r);
	cluster_free(run->c);
	memset(run, 0, sizeof(*run));
}
