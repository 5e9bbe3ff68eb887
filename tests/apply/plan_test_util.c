// SPDX-License-Identifier: Apache-2.0
/*
 * plan_test's fixtures (plan_test.h): cluster files written to a temporary
 * directory and loaded by the real loader, host states parsed from
 * famfsd-shaped JSON by state_parse(), and the plan's steps as text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/plan.h"
#include "plan_test.h"

const char *examples_dir;
char tmpdir[] = "/tmp/plan_test.XXXXXX";

struct cluster *load_text(const char *name, const char *text)
{
	char path[512];
	struct diag d = { .file = name };
	struct cluster *c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	d.file = path;
	if (cluster_load(path, &c, &d) < 0)
		diag_print(&d, stderr);
	diag_free(&d);
	assert_non_null(c);
	return c;
}

struct cluster *load_example(const char *name)
{
	char path[512];
	struct diag d = { .file = path };
	struct cluster *c;

	snprintf(path, sizeof(path), "%s/%s", examples_dir, name);
	if (cluster_load(path, &c, &d) < 0)
		diag_print(&d, stderr);
	diag_free(&d);
	assert_non_null(c);
	return c;
}

/* A host state from JSON texts (NULL: empty list). */
void state_from(struct host_state *s, const char *name, const char *policy,
		const char *devices, const char *sets, const char *filesystems,
		const char *mounts, const char *jobs)
{
	state_from_datasets(s, name, policy, devices, sets, filesystems,
			    mounts, jobs, NULL);
}

void state_from_datasets(struct host_state *s, const char *name,
			 const char *policy, const char *devices,
			 const char *sets, const char *filesystems,
			 const char *mounts, const char *jobs,
			 const char *datasets)
{
	const char *texts[ST_NBODIES] = { NULL, devices, sets, filesystems,
					  mounts, jobs, datasets };
	json_object *bodies[ST_NBODIES];
	char host[512];

	snprintf(host, sizeof(host), "{\"name\":\"%s\",\"policy\":%s}", name,
		 policy ? policy : "{\"chunk\":2097152,\"strips\":0,"
		 "\"log_size\":67108864,\"mount_options\":\"\"}");
	texts[ST_HOST] = host;
	for (int i = 0; i < ST_NBODIES; i++) {
		bodies[i] = json_tokener_parse(texts[i] ? texts[i] :
					       "{\"items\":[]}");
		assert_non_null(bodies[i]);
	}
	memset(s, 0, sizeof(*s));
	assert_int_equal(state_parse(s, bodies), 0);
	s->reachable = true;
}

void states_empty(const struct cluster *c, struct host_state *s)
{
	for (size_t i = 0; i < c->nhosts; i++)
		state_from(&s[i], c->hosts[i].name, NULL, NULL, NULL, NULL,
			   NULL, NULL);
}

void states_clear(const struct cluster *c, struct host_state *s)
{
	for (size_t i = 0; i < c->nhosts; i++)
		state_clear(&s[i]);
}

/* "create device shm0 on master0" for step @i. */
const char *step_str(const struct cluster *c, const struct plan *p, size_t i)
{
	static char buf[256];
	const struct plan_step *s = &p->steps[i];

	snprintf(buf, sizeof(buf), "%s %s %s on %s", plan_op_name(s->op),
		 plan_kind_name(s->kind), s->name, c->hosts[s->host].name);
	return buf;
}

void assert_steps(const struct cluster *c, const struct plan *p,
		  const char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	for (size_t i = 0; i < p->n && i < n; i++)
		assert_string_equal(step_str(c, p, i), want[i]);
	assert_int_equal(p->n, n);
}
