// SPDX-License-Identifier: Apache-2.0
/*
 * The planner and CXL regions: devices found by DAX name, file regions
 * created by memdev serial before their set, existing ones left alone,
 * name clashes with plain devices, and prune.
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

static void cxl_devices_are_found_by_dax_name_regions_are_created(void **st)
{
	static const char yaml[] =
		"apiVersion: famfs.io/v1alpha1\n"
		"kind: Cluster\n"
		"metadata: {name: cxl}\n"
		"hosts: [{name: h0, endpoint: /run/h0.sock, role: master}]\n"
		"devices:\n"
		"  - {name: pool0, cxl: {dax: dax0.0}}\n"
		"  - {name: pool1, cxl: {dax: dax1.0}}\n"
		"  - {name: mem0, cxl: {serial: 17}}\n"
		"  - {name: mem1, cxl: {serial: 18}}\n"
		"regions:\n"
		"  - {name: hw0, memdevs: [mem0, mem1], ways: 2}\n"
		"sets:\n"
		"  - {name: s0, devices: [pool0]}\n"
		"  - {name: s1, devices: [pool1]}\n";
	static const char devices[] =
		"{\"items\":[{\"name\":\"dax0.0\",\"provider\":\"cxl\","
		"\"path\":\"/dev/dax0.0\",\"size\":4294967296,"
		"\"state\":\"online\"}]}";
	struct cluster *c = load_text("cxl.yaml", yaml);
	struct plan_opts o = { .prune = true };
	struct host_state s[1];
	json_object *devs;
	struct plan p;

	(void)st;
	state_from(&s[0], "h0", NULL, devices, NULL, NULL, NULL, NULL);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	/* region hw0 is created; s0 is made of famfsd's dax0.0, the
	 * file's pool0
	 */
	assert_int_equal(p.n, 2);
	assert_string_equal(step_str(c, &p, 0), "create region hw0 on h0");
	assert_string_equal(step_str(c, &p, 1), "create set s0 on h0");
	devs = json_object_object_get(p.steps[1].calls[0].body, "devices");
	assert_string_equal(json_object_get_string(
		json_object_array_get_idx(devs, 0)), "dax0.0");
	/* pool1 is not there; s1 waits */
	assert_int_equal(p.nconflicts, 1);
	assert_non_null(strstr(p.conflicts[0], "cxl device pool1 (dax1.0) is "
			       "not among the devices famfsd discovered"));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static const char region_yaml[] =
	"apiVersion: famfs.io/v1alpha1\n"
	"kind: Cluster\n"
	"metadata: {name: cxl}\n"
	"hosts: [{name: h0, endpoint: /run/h0.sock, role: master}]\n"
	"devices:\n"
	"  - {name: m0, cxl: {serial: 4096}}\n"
	"  - {name: m1, cxl: {serial: 0x1001}}\n"
	"regions:\n"
	"  - {name: hw0, memdevs: [m0, m1], ways: 2, granularity: 4KiB}\n"
	"sets:\n"
	"  - {name: s0, devices: [hw0]}\n";

/* famfsd's answer once region hw0 (and set s0 on it) exist. */
static const char region_devices[] =
	"{\"items\":[{\"name\":\"hw0\",\"provider\":\"cxl\","
	"\"path\":\"/dev/pmem0\",\"size\":536870912,\"state\":\"online\","
	"\"region\":\"region0\",\"set\":\"s0\"}]}";
static const char region_sets[] =
	"{\"items\":[{\"name\":\"s0\",\"devices\":[\"hw0\"],"
	"\"chunk\":2097152,\"strips\":1}]}";

static void region_is_created_by_serial_before_its_set(void **st)
{
	struct cluster *c = load_text("region.yaml", region_yaml);
	struct plan_opts o = { .prune = false };
	struct host_state s[1];
	json_object *b, *m;
	struct plan p;

	(void)st;
	state_from(&s[0], "h0", NULL, NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.nconflicts, 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(step_str(c, &p, 0), "create region hw0 on h0");
	assert_string_equal(step_str(c, &p, 1), "create set s0 on h0");
	assert_string_equal(p.steps[0].calls[0].method, "POST");
	assert_string_equal(p.steps[0].calls[0].path, "/v1/regions");
	b = p.steps[0].calls[0].body;
	m = json_object_object_get(b, "memdevs");
	assert_int_equal(json_object_array_length(m), 2);
	/* in the file's order, by serial */
	assert_string_equal(json_object_get_string(
		json_object_array_get_idx(m, 0)), "4096");
	assert_string_equal(json_object_get_string(
		json_object_array_get_idx(m, 1)), "4097");
	assert_int_equal(json_object_get_int64(
		json_object_object_get(b, "ways")), 2);
	assert_int_equal(json_object_get_int64(
		json_object_object_get(b, "granularity")), 4096);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void existing_region_plans_nothing(void **st)
{
	struct cluster *c = load_text("region.yaml", region_yaml);
	struct plan_opts o = { .prune = true };
	struct host_state s[1];
	struct plan p;

	(void)st;
	state_from(&s[0], "h0", NULL, region_devices, region_sets, NULL, NULL,
		   NULL);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_true(plan_matches(&p));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void region_named_like_a_plain_device_is_a_conflict(void **st)
{
	static const char devices[] =
		"{\"items\":[{\"name\":\"hw0\",\"provider\":\"cxl\","
		"\"path\":\"/dev/pmem0\",\"size\":536870912,"
		"\"state\":\"online\",\"region\":null}]}";
	struct cluster *c = load_text("region.yaml", region_yaml);
	struct plan_opts o = { .prune = false };
	struct host_state s[1];
	struct plan p;

	(void)st;
	state_from(&s[0], "h0", NULL, devices, NULL, NULL, NULL, NULL);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.nconflicts, 1);
	assert_non_null(strstr(p.conflicts[0], "region hw0: host h0 has a "
			       "device of that name that is not a region"));
	/* no region step; the set is made of the device that is there */
	for (size_t i = 0; i < p.n; i++)
		assert_int_not_equal(p.steps[i].kind, PK_REGION);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void region_left_out_is_kept_or_pruned_after_its_set(void **st)
{
	static const char yaml[] =
		"apiVersion: famfs.io/v1alpha1\n"
		"kind: Cluster\n"
		"metadata: {name: cxl}\n"
		"hosts: [{name: h0, endpoint: /run/h0.sock, role: master}]\n";
	static const char *const want[] = {
		"delete set s0 on h0", "delete region hw0 on h0", NULL,
	};
	struct cluster *c = load_text("noregion.yaml", yaml);
	struct plan_opts o = { .prune = false };
	struct host_state s[1];
	struct plan p;

	(void)st;
	state_from(&s[0], "h0", NULL, region_devices, region_sets, NULL, NULL,
		   NULL);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.unmanaged, 2);
	assert_string_equal(p.unmanaged_names[1], "region hw0 on h0");
	plan_free(&p);
	o.prune = true;
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_steps(c, &p, want);
	assert_string_equal(p.steps[1].calls[0].method, "DELETE");
	assert_string_equal(p.steps[1].calls[0].path, "/v1/regions/hw0");
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

int plan_region_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cxl_devices_are_found_by_dax_name_regions_are_created),
		cmocka_unit_test(region_is_created_by_serial_before_its_set),
		cmocka_unit_test(existing_region_plans_nothing),
		cmocka_unit_test(region_named_like_a_plain_device_is_a_conflict),
		cmocka_unit_test(region_left_out_is_kept_or_pruned_after_its_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
