/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The live side of diff and apply: read every host's state from its
 * famfsd and run a plan's API calls, through famfs-cli's client
 * (client/client.h).
 */
#ifndef FAMFS_CLI_CLUSTER_REMOTE_H
#define FAMFS_CLI_CLUSTER_REMOTE_H

#include <stdio.h>

#include "cluster/plan.h"
#include "cluster/state.h"

struct famfs_client;

struct remote {
	const struct cluster *c;
	struct famfs_client **clients; /* one per host; NULL: cannot open */
	struct host_state *states;     /* one per host */
};

/*
 * remote_open() - one client per host of @c and its state in r->states.
 * A host that cannot be reached (or answers under another name) has
 * states[i].reachable false and states[i].error saying why. Returns the
 * number of hosts not reachable, or -ENOMEM.
 */
int remote_open(struct remote *r, const struct cluster *c);
void remote_close(struct remote *r);

/*
 * remote_place_datasets() - for each dataset @p is to ingest, ask its
 * master's famfsd to place the tree on paper (a dry run of the ingest
 * job); one that does not fit becomes a conflict of @p, naming the
 * dataset, the first file that does not fit, the strips and the room on
 * each device. 0 or -ENOMEM.
 */
int remote_place_datasets(struct remote *r, struct plan *p);

/*
 * remote_apply() - run @p's steps in order, printing progress on @log
 * (NULL: quiet). Steps of unreachable hosts are skipped; the first step
 * that fails stops the run (the rest stay pending). Returns 0 when every
 * step is done, -1 otherwise; each step's status says what happened.
 */
int remote_apply(struct remote *r, struct plan *p, FILE *log);

#endif
