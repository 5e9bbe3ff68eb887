/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What one famfsd reports (the actual state apply compares the file with),
 * parsed from its API's JSON (docs/api.md). Built by state_parse() from
 * the bodies of GET /v1/host, /v1/devices, /v1/interleave-sets,
 * /v1/filesystems, /v1/mounts, /v1/jobs and /v1/datasets?drift=true (a
 * famfsd without datasets answers 404: no datasets), so that the planner can be
 * tested on recorded answers and the same code reads live ones.
 */
#ifndef FAMFS_CLI_CLUSTER_STATE_H
#define FAMFS_CLI_CLUSTER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

enum st_body { ST_HOST, ST_DEVICES, ST_SETS, ST_FILESYSTEMS, ST_MOUNTS,
	       ST_JOBS, ST_DATASETS, ST_NBODIES };

struct st_device {
	const char *name, *provider, *path, *set, *state;
	const char *reason;   /* why not online, what to run */
	const char *region;   /* the CXL region famfsd made for it, or NULL */
	uint64_t size;
	json_object *details;
};

struct st_set {
	const char *name, *filesystem;
	const char **devices;
	size_t ndevices;
	uint64_t chunk;
	unsigned strips;
};

struct st_filesystem {
	const char *name, *set, *master;
	const char *created; /* RFC 3339 UTC: compares as a string */
	uint64_t log_size;
	bool has_space;
	uint64_t files; /* files and directories (space.files + space.dirs) */
	uint64_t free_bytes, largest_file; /* space.free, space.largest_file */
};

struct st_mount {
	const char *name, *filesystem, *path, *role, *options, *state;
	const char *last_error, *backend;
};

struct st_job {
	long id;
	const char *kind, *state, *filesystem, *source, *dest;
	const char *dataset;   /* params.dataset, or NULL */
	const char *created;
	uint64_t bytes_done, bytes_total, files_done, files_total;
};

/* A dataset famfsd recorded (GET /v1/datasets?drift=true). */
struct st_dataset {
	const char *name, *filesystem, *source, *dest, *state, *last_error;
	const char *created;
	long long generation, job;
	uint64_t files, bytes;
	/* the source now against the summary last ingested ("drift") */
	const char *drift_error;  /* it could not be compared: why */
	bool drift_changed;       /* the digests differ */
	uint64_t added, changed, removed;
	int64_t bytes_delta;
};

struct st_policy {
	uint64_t chunk, log_size;
	unsigned strips;
	const char *mount_options;
};

struct host_state {
	bool reachable;
	char *error;        /* why not reachable / not readable (malloc'd) */
	const char *name;   /* GET /v1/host .name */
	struct st_policy policy;
	/* GET /v1/host .paths.devices, .mounts, .sources: arrays of
	 * patterns (borrowed), NULL from a famfsd that does not say */
	json_object *allowed_devices, *allowed_mounts, *allowed_sources;
	json_object *system_dirs;  /* .paths.system: no mount over these */
	struct st_device *devices;
	size_t ndevices;
	struct st_set *sets;
	size_t nsets;
	struct st_filesystem *filesystems;
	size_t nfilesystems;
	struct st_mount *mounts;
	size_t nmounts;
	struct st_job *jobs;
	size_t njobs;
	struct st_dataset *datasets;
	size_t ndatasets;
	json_object *bodies[ST_NBODIES]; /* owns every string above */
};

/* The API path each body comes from, in enum st_body order. */
extern const char *const state_paths[ST_NBODIES];

/*
 * state_parse() - fill @s from the ST_NBODIES bodies (taken over: freed by
 * state_clear(); NULL entries mean "empty"). Returns 0, or -EINVAL with
 * s->error set when a body does not have the documented shape.
 */
int state_parse(struct host_state *s, json_object *bodies[ST_NBODIES]);
void state_clear(struct host_state *s);

const struct st_device *state_device(const struct host_state *s,
				     const char *name);
const struct st_set *state_set(const struct host_state *s, const char *name);
const struct st_filesystem *state_filesystem(const struct host_state *s,
					     const char *name);
const struct st_mount *state_mount(const struct host_state *s,
				   const char *name);
const struct st_dataset *state_dataset(const struct host_state *s,
				       const char *name);

#endif
