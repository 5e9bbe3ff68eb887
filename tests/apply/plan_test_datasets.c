// SPDX-License-Identifier: Apache-2.0
/*
 * The planner and datasets famfsd recorded (GET /v1/datasets?drift=true):
 * a changed source is an update (a new generation), an unchanged one
 * nothing; a dataset being made, or whose source cannot be read, is a
 * note; one famfsd has elsewhere is a conflict.
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

static const char fs_shared[] =
	"{\"items\":[{\"name\":\"shared\",\"set\":\"pool\","
	"\"master\":\"master0\",\"created\":\"2026-12-03T10:00:00Z\"}]}";

/* The weights dataset of examples/multi-host.yaml as famfsd records it,
 * with @state, @source, @dest and @drift (a JSON object).
 */
static char *dataset_body(const char *state, long gen, const char *source,
			  const char *dest, const char *drift)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf),
		 "{\"items\":[{\"name\":\"weights\",\"filesystem\":\"shared\","
		 "\"source\":\"%s\",\"dest\":\"%s\",\"generation\":%ld,"
		 "\"state\":\"%s\",\"job\":4,\"files\":100,\"bytes\":1000,"
		 "\"last_error\":\"\",\"drift\":%s}]}", source, dest, gen,
		 state, drift);
	return buf;
}

static const char unchanged[] =
	"{\"changed\":false,\"added\":0,\"changed_entries\":0,\"removed\":0,"
	"\"bytes_delta\":0}";
static const char changed[] =
	"{\"changed\":true,\"added\":12,\"changed_entries\":3,\"removed\":1,"
	"\"bytes_delta\":1288490189}";

/* The plan's dataset steps for master0 holding @datasets. */
static void plan_with(struct cluster *c, struct host_state *s,
		      const char *datasets, struct plan *p)
{
	struct plan_opts o = { 0 };

	states_empty(c, s);
	state_clear(&s[0]);
	state_from_datasets(&s[0], "master0", NULL, NULL, NULL, fs_shared,
			    NULL, NULL, datasets);
	assert_int_equal(plan_build(c, s, &o, p), 0);
}

static const struct plan_step *dataset_step(const struct plan *p)
{
	const struct plan_step *found = NULL;

	for (size_t i = 0; i < p->n; i++)
		if (p->steps[i].kind == PK_DATASET) {
			assert_null(found);
			found = &p->steps[i];
		}
	return found;
}

static bool has_line(char **v, size_t n, const char *part)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(v[i], part))
			return true;
	return false;
}

static void changed_source_is_an_update_unchanged_is_nothing(void **st)
{
	struct cluster *c = load_example("multi-host.yaml");
	struct host_state s[3];
	const struct plan_step *d;
	json_object *params;
	struct plan p;

	(void)st;
	plan_with(c, s, dataset_body("ready", 1, "/data/models/weights",
				     "/weights", unchanged), &p);
	assert_null(dataset_step(&p));
	plan_free(&p);
	states_clear(c, s);

	plan_with(c, s, dataset_body("ready", 1, "/data/models/weights",
				     "/weights", changed), &p);
	d = dataset_step(&p);
	assert_non_null(d);
	assert_int_equal(d->op, PLAN_UPDATE);
	assert_string_equal(d->detail, "(source changed: +12 files, ~3 "
			    "changed, -1 removed, +1.2 GiB)");
	assert_string_equal(d->calls[0].path, "/v1/jobs");
	params = json_object_object_get(d->calls[0].body, "params");
	assert_string_equal(json_object_get_string(json_object_object_get(
			    params, "dataset")), "weights");
	assert_string_equal(json_object_get_string(json_object_object_get(
			    params, "on_change")), "replace");
	assert_true(json_object_get_boolean(json_object_object_get(params,
			    "delete")));
	plan_free(&p);
	states_clear(c, s);

	/* the file names another source: a new generation from it */
	plan_with(c, s, dataset_body("ready", 2, "/data/old", "/weights",
				     unchanged), &p);
	d = dataset_step(&p);
	assert_non_null(d);
	assert_int_equal(d->op, PLAN_UPDATE);
	assert_string_equal(d->detail, "(source /data/old -> "
			    "/data/models/weights)");
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void dataset_in_the_making_or_unreadable_is_a_note(void **st)
{
	struct cluster *c = load_example("multi-host.yaml");
	struct host_state s[3];
	struct plan p;

	(void)st;
	plan_with(c, s, dataset_body("refreshing", 1, "/data/models/weights",
				     "/weights", changed), &p);
	assert_null(dataset_step(&p));
	assert_true(has_line(p.notes, p.nnotes, "dataset weights is "
			     "refreshing (job 4)"));
	plan_free(&p);
	states_clear(c, s);

	plan_with(c, s, dataset_body("ready", 1, "/data/models/weights",
				     "/weights", "{\"error\":\"/data/models/"
				     "weights: Permission denied\"}"), &p);
	assert_null(dataset_step(&p));
	assert_true(has_line(p.notes, p.nnotes, "Permission denied"));
	plan_free(&p);
	states_clear(c, s);

	/* its first ingest failed: ingested as new */
	plan_with(c, s, dataset_body("failed", 0, "/data/models/weights",
				     "/weights", "{\"error\":\"nothing "
				     "ingested yet\"}"), &p);
	assert_non_null(dataset_step(&p));
	assert_int_equal(dataset_step(&p)->op, PLAN_CREATE);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void dataset_elsewhere_is_a_conflict(void **st)
{
	struct cluster *c = load_example("multi-host.yaml");
	struct host_state s[3];
	struct plan p;

	(void)st;
	plan_with(c, s, dataset_body("ready", 1, "/data/models/weights",
				     "/old-weights", changed), &p);
	assert_null(dataset_step(&p));
	assert_true(has_line(p.conflicts, p.nconflicts, "dataset weights is "
			     "in shared:/old-weights"));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

int plan_dataset_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(changed_source_is_an_update_unchanged_is_nothing),
		cmocka_unit_test(dataset_in_the_making_or_unreadable_is_a_note),
		cmocka_unit_test(dataset_elsewhere_is_a_conflict),
	};

	return cmocka_run_group_tests_name("datasets", tests, NULL, NULL);
}
