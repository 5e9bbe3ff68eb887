/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the planner: plan.c (placement, steps, order) and
 * plan_kinds.c (the comparison of each kind of resource).
 */
#ifndef FAMFS_CLI_CLUSTER_PLAN_INT_H
#define FAMFS_CLI_CLUSTER_PLAN_INT_H

#include "cluster/plan.h"

struct planner {
	const struct cluster *c;
	const struct host_state *hosts;
	const struct plan_opts *o;
	struct plan *p;
	int err;
};

/* Placement: which host holds what (see plan.c). */
size_t home_host(const struct cluster *c);
size_t host_index(const struct cluster *c, const char *name);
bool fs_on_host(const struct cluster *c, const struct cl_filesystem *fs,
		size_t h);
bool set_on_host(const struct cluster *c, const struct cl_set *s, size_t h);
bool device_on_host(const struct cluster *c, const struct cl_device *d,
		    size_t h);
size_t device_creator(const struct cluster *c, const struct cl_device *d);
size_t region_host(const struct cluster *c, const struct cl_region *r);
bool mount_on_host(const struct cluster *c, const char *name, size_t h);

/*
 * plan_path_refused() - would host @h's famfsd refuse @path under its
 * @setting ("paths.devices", "paths.mounts", "paths.sources")? Then a
 * conflict naming @what, the path and the setting, and true
 * (plan_paths.c).
 */
bool plan_path_refused(struct planner *pl, size_t h, const char *what,
		       const char *setting, const char *path);

void conflict(struct planner *pl, size_t h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void note(struct planner *pl, size_t h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A new step (NULL and pl->err set when out of memory). */
struct plan_step *step(struct planner *pl, enum plan_op op,
		       enum plan_kind kind, size_t h, const char *name,
		       bool adopt, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* Add an API call to @s (may be NULL); takes over @body. */
void call(struct planner *pl, struct plan_step *s, const char *method,
	  json_object *body, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void jstr(json_object *o, const char *k, const char *v);
void jint(json_object *o, const char *k, uint64_t v);
/* format_size() into a 32-byte @buf. */
const char *sz(uint64_t v, char *buf);

/* plan_kinds.c: one host's steps for one kind. */
void plan_policy(struct planner *pl, size_t h);
void plan_devices(struct planner *pl, size_t h);
void plan_regions(struct planner *pl, size_t h);
void plan_sets(struct planner *pl, size_t h);
void plan_filesystems(struct planner *pl, size_t h);
void plan_mounts(struct planner *pl, size_t h);
void plan_datasets(struct planner *pl, size_t h);  /* plan_datasets.c */
void plan_prune(struct planner *pl, size_t h);

#endif
