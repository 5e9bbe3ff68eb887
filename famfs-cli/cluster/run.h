/* SPDX-License-Identifier: Apache-2.0 */
/* What diff and apply share: load the file, read the hosts, plan. */
#ifndef FAMFS_CLI_CLUSTER_RUN_H
#define FAMFS_CLI_CLUSTER_RUN_H

#include "cluster/model.h"
#include "cluster/plan.h"
#include "cluster/remote.h"

struct cluster_run {
	struct cluster *c;
	struct remote r;
	struct plan p;
	int down;          /* hosts that could not be read */
};

/*
 * cluster_run_prepare() - validate @file (diagnostics on stderr), read
 * every host's famfsd (an unreachable host is reported on stderr, naming
 * it, and planned as empty with its steps skipped) and build the plan.
 * Returns 0, or -1 after printing why (invalid file, out of memory).
 */
int cluster_run_prepare(const char *cmd, const char *file,
			const struct plan_opts *o, struct cluster_run *run);
void cluster_run_free(struct cluster_run *run);

#endif
