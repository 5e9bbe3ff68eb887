/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plan: what apply changes so that every host's famfsd matches the
 * cluster file. plan_build() compares the file (struct cluster) with what
 * each famfsd reported (struct host_state) and orders the steps:
 *
 *   deletes first (with --prune), in reverse dependency order:
 *     datasets (a dataset_delete job; one goes with its filesystem
 *     without one), mounts, filesystems, sets, regions,
 *     devices;
 *   then updates and creates, in dependency order:
 *     policy, devices, regions, sets, filesystems, mounts, datasets;
 *   within one kind the host that creates first (the emul device's
 *   creator, the filesystem's master) goes before the hosts that adopt,
 *   so that clients adopt and mount only after the master's mkfs.
 *
 * A host that cannot be read (or answers under another name) gets no
 * steps: its resources in the file are listed as unknown, and the steps
 * of other hosts that wait for it (adopting what it creates) are skipped.
 *
 * Each step is one or two famfsd API calls. What apply must not do (a set
 * that would lose or reorder devices: sets only grow; a filesystem
 * holding files that --prune would delete without --force-delete-data; a
 * region whose name a device not made as a region has) is a conflict:
 * listed, and apply changes nothing.
 */
#ifndef FAMFS_CLI_CLUSTER_PLAN_H
#define FAMFS_CLI_CLUSTER_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cluster/model.h"
#include "cluster/state.h"

enum plan_op { PLAN_CREATE, PLAN_UPDATE, PLAN_DELETE };

enum plan_kind {
	PK_POLICY, PK_DEVICE, PK_REGION, PK_SET, PK_FILESYSTEM, PK_MOUNT,
	PK_DATASET, PK_COUNT
};

enum step_status { STEP_PENDING, STEP_DONE, STEP_FAILED, STEP_SKIPPED };

struct plan_call {
	const char *method;
	char *path;
	json_object *body; /* NULL: no body */
};

struct plan_step {
	enum plan_op op;
	enum plan_kind kind;
	size_t host;          /* index into cluster->hosts */
	char *name;
	char *detail;         /* human: "(emul, /dev/shm/x, 64 MiB)" */
	bool adopt;           /* a host taking over what another one created */
	struct plan_call calls[2];
	unsigned ncalls;
	size_t seq;           /* order found, for a stable sort */
	enum step_status status;
	char *error;          /* STEP_FAILED / STEP_SKIPPED: why */
	char *result;         /* STEP_DONE: what famfsd made ("ingest job 7") */
	long long job_id;     /* STEP_DONE dataset: its ingest job, else 0 */
};

/* A resource of the file on a host that could not be read: its state is
 * not known, so nothing is planned for it.
 */
struct plan_unknown {
	size_t host;
	enum plan_kind kind;
	char *name;
};

struct plan {
	struct plan_step *steps;
	size_t n, cap;
	char **conflicts;     /* "host node0: set set0: ..." */
	size_t nconflicts;
	size_t unmanaged;     /* resources on the hosts the file does not name */
	char **notes;         /* not changes: e.g. an ingest job still running */
	size_t nnotes;
	char **unreadable;    /* "host c1: <why it could not be read>" */
	size_t *unreadable_host; /* index into cluster->hosts, per line */
	size_t nunreadable;
	struct plan_unknown *unknown; /* the file's resources on those hosts */
	size_t nunknown;
	char **unmanaged_names; /* "mount old on c1": what --prune would delete */
};

struct plan_opts {
	bool prune;
	bool force_delete_data;
};

/*
 * plan_build() - the steps that make @hosts (one per c->hosts[i], in that
 * order) match @c. Returns 0 or -ENOMEM. Conflicts are in p->conflicts,
 * hosts that could not be read in p->unreadable (with their resources in
 * p->unknown). The cluster matches the file only when all three and the
 * steps are empty (plan_matches()). Free with plan_free().
 */
int plan_build(const struct cluster *c, const struct host_state *hosts,
	       const struct plan_opts *o, struct plan *p);
void plan_free(struct plan *p);
/* A conflict or a note on host @h found after plan_build() (by asking a
 * famfsd, e.g. a dataset's placement plan); 0 or -ENOMEM.
 */
int plan_add_conflict(struct plan *p, const struct cluster *c, size_t h,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int plan_add_note(struct plan *p, const struct cluster *c, size_t h,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* True when every host was read and nothing is to change or in conflict. */
bool plan_matches(const struct plan *p);

const char *plan_kind_name(enum plan_kind k);
const char *plan_op_name(enum plan_op op);

/* Terraform-like text ("+ create ...", "No changes.") on @f. */
void plan_print(const struct cluster *c, const struct plan *p, FILE *f);
/* The plan (with each step's status) as JSON: a stable output contract. */
json_object *plan_to_json(const struct cluster *c, const struct plan *p);
/* Counts of steps by op. */
void plan_count(const struct plan *p, size_t counts[3]);

#endif
