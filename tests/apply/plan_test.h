/* SPDX-License-Identifier: Apache-2.0 */
/* The planner tests' shared fixtures (plan_test_util.c) and groups. */
#ifndef FAMFS_PLAN_TEST_H
#define FAMFS_PLAN_TEST_H

#include "cluster/plan.h"

extern const char *examples_dir;   /* examples/, from argv[1] */
extern char tmpdir[];              /* where load_text() writes files */

/* @text written as @name under tmpdir and loaded; fails the test on errors */
struct cluster *load_text(const char *name, const char *text);
/* examples/@name, loaded */
struct cluster *load_example(const char *name);
/* A host state from JSON texts (NULL: empty list). */
void state_from(struct host_state *s, const char *name, const char *policy,
		const char *devices, const char *sets, const char *filesystems,
		const char *mounts, const char *jobs);
/* The same with GET /v1/datasets's body too. */
void state_from_datasets(struct host_state *s, const char *name,
			 const char *policy, const char *devices,
			 const char *sets, const char *filesystems,
			 const char *mounts, const char *jobs,
			 const char *datasets);
void states_empty(const struct cluster *c, struct host_state *s);
void states_clear(const struct cluster *c, struct host_state *s);
/* "create device shm0 on master0" for step @i (a static buffer). */
const char *step_str(const struct cluster *c, const struct plan *p, size_t i);
/* The plan's steps are exactly @want ("create device shm0 on master0"...). */
void assert_steps(const struct cluster *c, const struct plan *p,
		  const char *const *want);

/* The CXL region cases (plan_test_regions.c): cmocka's result. */
int plan_region_tests(void);
/* The dataset cases (plan_test_datasets.c): cmocka's result. */
int plan_dataset_tests(void);

#endif
