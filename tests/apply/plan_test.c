// SPDX-License-Identifier: Apache-2.0
/*
 * The planner on real data: cluster files loaded by the real loader and
 * host states parsed from famfsd-shaped JSON (docs/api.md) by the same
 * state_parse() that reads live answers. No HTTP here; the tests/apply scripts
 * run the same code against real famfsd instances.
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

static void plan_from_nothing_orders_dependencies_and_master_first(void **st)
{
	static const char *const want[] = {
		"create device shm0 on master0",
		"create device shm1 on master0",
		"create device shm0 on client1",   /* adopt, after the creator */
		"create device shm1 on client1",
		"create device shm0 on client2",
		"create device shm1 on client2",
		"create set pool on master0",
		"create set pool on client1",
		"create set pool on client2",
		"create filesystem shared on master0", /* mkfs ... */
		"create filesystem shared on client1", /* ... before adopt */
		"create filesystem shared on client2",
		"create mount shared-master on master0",
		"create mount shared-client on client1",
		"create mount shared-client on client2",
		"create dataset weights on master0",
		NULL,
	};
	struct cluster *c = load_example("multi-host.yaml");
	struct host_state s[3];
	struct plan_opts o = { 0 };
	struct plan p;

	(void)st;
	states_empty(c, s);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_steps(c, &p, want);
	assert_int_equal(p.nconflicts, 0);
	/* the master creates the file, clients adopt it (no size) */
	assert_non_null(json_object_object_get(p.steps[0].calls[0].body,
					       "size"));
	assert_null(json_object_object_get(p.steps[2].calls[0].body, "size"));
	assert_true(json_object_get_boolean(json_object_object_get(
		p.steps[10].calls[0].body, "adopt")));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static const char small_yaml[] =
	"apiVersion: famfs.io/v1alpha1\n"
	"kind: Cluster\n"
	"metadata: {name: t}\n"
	"hosts:\n"
	"  - {name: h0, endpoint: /run/h0.sock, role: master}\n"
	"  - {name: h1, endpoint: /run/h1.sock, role: client}\n"
	"devices:\n"
	"  - {name: e0, emul: {path: /dev/shm/e0, size: 16MiB}}\n"
	"  - {name: e1, emul: {path: /dev/shm/e1, size: 16MiB}}\n"
	"sets:\n"
	"  - {name: s0, devices: [e0, e1], chunk: 2MiB}\n"
	"filesystems:\n"
	"  - {name: fs0, set: s0, master: h0}\n"
	"mounts:\n"
	"  - {filesystem: fs0, host: h0, path: /mnt/m, role: master}\n"
	"defaults: {chunk: 2MiB}\n";

#define DEV(n, extra) "{\"name\":\"" n "\",\"provider\":\"emul\",\"path\":" \
	"\"/dev/shm/" n "\",\"size\":16777216,\"state\":\"online\"" extra "}"
static const char applied_devices[] =
	"{\"items\":[" DEV("e0", ",\"set\":\"s0\"") ","
	DEV("e1", ",\"set\":\"s0\"") "]}";
static const char applied_sets[] =
	"{\"items\":[{\"name\":\"s0\",\"devices\":[\"e0\",\"e1\"],"
	"\"chunk\":2097152,\"strips\":2,\"filesystem\":\"fs0\"}]}";
static const char applied_fs[] =
	"{\"items\":[{\"name\":\"fs0\",\"set\":\"s0\",\"master\":\"h0\","
	"\"log_size\":67108864,\"space\":{\"files\":0,\"dirs\":0}}]}";
static const char applied_mounts[] =
	"{\"items\":[{\"name\":\"fs0-master\",\"filesystem\":\"fs0\","
	"\"path\":\"/mnt/m\",\"role\":\"master\",\"options\":\"\","
	"\"state\":\"mounted\"}]}";

/* The applied state plus what an earlier file had: device e9, set s9,
 * filesystem fs9 holding 3 files, mount old.
 */
static const char extra_devices[] =
	"{\"items\":[" DEV("e0", ",\"set\":\"s0\"") ","
	DEV("e1", ",\"set\":\"s0\"") "," DEV("e9", ",\"set\":\"s9\"") "]}";
static const char extra_sets[] =
	"{\"items\":[{\"name\":\"s0\",\"devices\":[\"e0\",\"e1\"],"
	"\"chunk\":2097152,\"strips\":2},{\"name\":\"s9\","
	"\"devices\":[\"e9\"],\"chunk\":2097152,\"strips\":1}]}";
static const char extra_fs[] =
	"{\"items\":[{\"name\":\"fs0\",\"set\":\"s0\",\"master\":\"h0\","
	"\"log_size\":67108864,\"space\":{\"files\":0,\"dirs\":0}},"
	"{\"name\":\"fs9\",\"set\":\"s9\",\"master\":\"h0\","
	"\"log_size\":67108864,\"space\":{\"files\":2,\"dirs\":1}}]}";
static const char extra_mounts[] =
	"{\"items\":[{\"name\":\"fs0-master\",\"filesystem\":\"fs0\","
	"\"path\":\"/mnt/m\",\"role\":\"master\",\"options\":\"\"},"
	"{\"name\":\"old\",\"filesystem\":\"fs9\",\"path\":\"/mnt/old\","
	"\"role\":\"master\",\"options\":\"\"}]}";

static void small_states(struct host_state s[2], const char *policy,
			 const char *devices, const char *sets,
			 const char *fs, const char *mounts)
{
	state_from(&s[0], "h0", policy, devices, sets, fs, mounts, NULL);
	state_from(&s[1], "h1", NULL, NULL, NULL, NULL, NULL, NULL);
}

static void matching_state_plans_nothing(void **st)
{
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { .prune = true };
	struct host_state s[2];
	struct plan p;

	(void)st;
	small_states(s, NULL, applied_devices, applied_sets, applied_fs,
		     applied_mounts);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.nconflicts, 0);
	assert_int_equal(p.unmanaged, 0);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void extra_resources_are_kept_without_prune(void **st)
{
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { 0 };
	struct host_state s[2];
	struct plan p;

	(void)st;
	small_states(s, NULL, extra_devices, extra_sets, extra_fs,
		     extra_mounts);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.nconflicts, 0);
	assert_int_equal(p.unmanaged, 4);
	/* named, not just counted */
	assert_string_equal(p.unmanaged_names[0], "mount old on h0");
	assert_string_equal(p.unmanaged_names[1], "filesystem fs9 on h0");
	assert_string_equal(p.unmanaged_names[2], "set s9 on h0");
	assert_string_equal(p.unmanaged_names[3], "device e9 on h0");
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void prune_refuses_filesystem_holding_files(void **st)
{
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { .prune = true };
	struct host_state s[2];
	struct plan p;

	(void)st;
	small_states(s, NULL, extra_devices, extra_sets, extra_fs,
		     extra_mounts);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.nconflicts, 1);
	assert_non_null(strstr(p.conflicts[0], "fs9"));
	assert_non_null(strstr(p.conflicts[0], "--force-delete-data"));
	for (size_t i = 0; i < p.n; i++)
		assert_false(p.steps[i].kind == PK_FILESYSTEM);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void prune_force_deletes_in_reverse_dependency_order(void **st)
{
	static const char *const want[] = {
		"delete mount old on h0",
		"delete filesystem fs9 on h0",
		"delete set s9 on h0",
		"delete device e9 on h0",
		NULL,
	};
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { .prune = true, .force_delete_data = true };
	struct host_state s[2];
	struct plan p;

	(void)st;
	small_states(s, NULL, extra_devices, extra_sets, extra_fs,
		     extra_mounts);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.nconflicts, 0);
	assert_steps(c, &p, want);
	/* the emul file goes with the device; its master wipes fs9 */
	assert_string_equal(p.steps[3].calls[0].path,
			    "/v1/devices/e9?destroy=1");
	assert_string_equal(p.steps[3].calls[0].method, "DELETE");
	assert_string_equal(p.steps[1].calls[0].path,
			    "/v1/filesystems/fs9?wipe=1");
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void changed_set_is_a_conflict_not_a_step(void **st)
{
	static const char sets4m[] =
		"{\"items\":[{\"name\":\"s0\",\"devices\":[\"e0\",\"e1\"],"
		"\"chunk\":4194304,\"strips\":2}]}";
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { 0 };
	struct host_state s[2];
	struct plan p;

	(void)st;
	small_states(s, NULL, applied_devices, sets4m, applied_fs,
		     applied_mounts);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.nconflicts, 1);
	assert_non_null(strstr(p.conflicts[0], "host h0: set s0 has chunk "
			       "4 MiB, the file says 2 MiB"));
	assert_false(plan_matches(&p));
	{	/* a conflict and no step is not "No changes." */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		plan_print(c, &p, f);
		fclose(f);
		assert_null(strstr(text, "No changes"));
		assert_non_null(strstr(text, "Nothing can be applied until the "
				       "conflict above is resolved."));
		free(text);
	}
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

/* The set on h0 as famfsd reports it, with devices @devs (JSON list). */
static void set_states(struct host_state s[2], const char *devs)
{
	char sets[512];

	snprintf(sets, sizeof(sets), "{\"items\":[{\"name\":\"s0\","
		 "\"devices\":%s,\"chunk\":2097152,\"strips\":2,"
		 "\"filesystem\":\"fs0\"}]}", devs);
	small_states(s, NULL, extra_devices, sets, applied_fs,
		     applied_mounts);
}

static void set_grows_by_added_devices_and_never_shrinks(void **st)
{
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { 0 };
	struct host_state s[2];
	struct plan p;

	(void)st;
	/* the file adds e1 at the end: one grow step naming it */
	set_states(s, "[\"e0\"]");
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.nconflicts, 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(step_str(c, &p, 0), "update set s0 on h0");
	assert_non_null(strstr(p.steps[0].detail, "grow by e1"));
	assert_string_equal(p.steps[0].calls[0].method, "PATCH");
	assert_string_equal(p.steps[0].calls[0].path, "/v1/interleave-sets/s0");
	assert_string_equal(json_object_to_json_string_ext(
		p.steps[0].calls[0].body, JSON_C_TO_STRING_PLAIN),
		"{\"devices\":[\"e0\",\"e1\"]}");
	plan_free(&p);
	states_clear(c, s);

	/* the file leaves out e9: a conflict naming exactly e9, no step */
	set_states(s, "[\"e0\",\"e1\",\"e9\"]");
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.nconflicts, 1);
	assert_non_null(strstr(p.conflicts[0], "set s0 has e9, which the file "
			       "leaves out: a set cannot shrink"));
	plan_free(&p);
	states_clear(c, s);

	/* the same devices in another order: a conflict naming them */
	set_states(s, "[\"e1\",\"e0\"]");
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.nconflicts, 1);
	assert_non_null(strstr(p.conflicts[0], "set s0 has device 0 e1, the "
			       "file puts e0 there, device 1 e0, the file puts "
			       "e1 there: devices keep their order"));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void changed_mount_is_replaced(void **st)
{
	static const char moved[] =
		"{\"items\":[{\"name\":\"fs0-master\",\"filesystem\":\"fs0\","
		"\"path\":\"/mnt/elsewhere\",\"role\":\"master\"}]}";
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { 0 };
	struct host_state s[2];
	struct plan p;

	(void)st;
	small_states(s, NULL, applied_devices, applied_sets, applied_fs,
		     moved);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.steps[0].op, PLAN_UPDATE);
	assert_int_equal(p.steps[0].ncalls, 2);
	assert_string_equal(p.steps[0].calls[0].method, "DELETE");
	assert_string_equal(p.steps[0].calls[0].path, "/v1/mounts/fs0-master");
	assert_string_equal(p.steps[0].calls[1].method, "POST");
	assert_non_null(strstr(p.steps[0].detail, "/mnt/elsewhere -> /mnt/m"));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

/*
 * A backend in the file that differs from the mount's is a replace (POST
 * with the file's backend); left out, the host's choice stands.
 */
static void mount_backend_change_is_replaced(void **st)
{
	static const char kernel[] =
		"{\"items\":[{\"name\":\"fs0-master\",\"filesystem\":\"fs0\","
		"\"path\":\"/mnt/m\",\"role\":\"master\",\"options\":\"\","
		"\"backend\":\"kernel\",\"state\":\"mounted\"}]}";
	static const char fuse_yaml[] =
		"apiVersion: famfs.io/v1alpha1\n"
		"kind: Cluster\n"
		"metadata: {name: t}\n"
		"hosts:\n"
		"  - {name: h0, endpoint: /run/h0.sock, role: master}\n"
		"  - {name: h1, endpoint: /run/h1.sock, role: client}\n"
		"devices:\n"
		"  - {name: e0, emul: {path: /dev/shm/e0, size: 16MiB}}\n"
		"  - {name: e1, emul: {path: /dev/shm/e1, size: 16MiB}}\n"
		"sets:\n"
		"  - {name: s0, devices: [e0, e1], chunk: 2MiB}\n"
		"filesystems:\n"
		"  - {name: fs0, set: s0, master: h0}\n"
		"mounts:\n"
		"  - {filesystem: fs0, host: h0, path: /mnt/m, role: master,\n"
		"     backend: fuse}\n"
		"defaults: {chunk: 2MiB}\n";
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { 0 };
	struct host_state s[2];
	struct plan p;
	json_object *b;

	(void)st;
	/* not in the file: the kernel mount famfsd picked is left alone */
	small_states(s, NULL, applied_devices, applied_sets, applied_fs,
		     kernel);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);

	c = load_text("fuse.yaml", fuse_yaml);
	small_states(s, NULL, applied_devices, applied_sets, applied_fs,
		     kernel);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.steps[0].op, PLAN_UPDATE);
	assert_non_null(strstr(p.steps[0].detail, "backend kernel -> fuse"));
	assert_string_equal(p.steps[0].calls[1].method, "POST");
	b = json_object_object_get(p.steps[0].calls[1].body, "backend");
	assert_non_null(b);
	assert_string_equal(json_object_get_string(b), "fuse");
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void failed_mount_is_a_note_not_a_change(void **st)
{
	static const char failed[] =
		"{\"items\":[{\"name\":\"fs0-master\",\"filesystem\":\"fs0\","
		"\"path\":\"/mnt/m\",\"role\":\"master\",\"state\":\"failed\","
		"\"last_error\":\"famfs-fused exited with status 1\"}]}";
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { 0 };
	struct host_state s[2];
	struct plan p;

	(void)st;
	small_states(s, NULL, applied_devices, applied_sets, applied_fs,
		     failed);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.nnotes, 1);
	assert_string_equal(p.notes[0], "host h0: mount fs0-master is failed "
			    "(famfsd keeps restarting it): famfs-fused exited "
			    "with status 1");
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void policy_update_sends_only_what_differs(void **st)
{
	static const char pol[] = "{\"chunk\":4194304,\"strips\":0,"
		"\"log_size\":67108864,\"mount_options\":\"\"}";
	struct cluster *c = load_text("small.yaml", small_yaml);
	struct plan_opts o = { 0 };
	struct host_state s[2];
	json_object *policy;
	struct plan p;

	(void)st;
	small_states(s, pol, applied_devices, applied_sets, applied_fs,
		     applied_mounts);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.n, 1); /* h1 already has a 2 MiB chunk */
	assert_string_equal(step_str(c, &p, 0), "update policy defaults on h0");
	assert_string_equal(p.steps[0].calls[0].method, "PATCH");
	policy = json_object_object_get(p.steps[0].calls[0].body, "policy");
	assert_int_equal(json_object_object_length(policy), 1);
	assert_int_equal(json_object_get_int64(json_object_object_get(policy,
						"chunk")), 2097152);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void unreachable_host_is_unknown_not_planned(void **st)
{
	struct cluster *c = load_example("multi-host.yaml");
	struct plan_opts o = { 0 };
	struct host_state s[3];
	struct plan p;

	(void)st;
	states_empty(c, s);
	s[2].reachable = false;
	s[2].error = strdup("client2: connection refused");
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_true(p.n > 0);
	for (size_t i = 0; i < p.n; i++) {
		assert_int_not_equal(p.steps[i].host, 2);
		assert_int_equal(p.steps[i].status, STEP_PENDING);
	}
	assert_int_equal(p.nunknown, 5); /* 2 devices, set, fs, mount */
	for (size_t i = 0; i < p.nunknown; i++)
		assert_int_equal(p.unknown[i].host, 2);
	assert_int_equal(p.nunreadable, 1);
	assert_string_equal(p.unreadable[0],
			    "host client2: client2: connection refused");
	assert_false(plan_matches(&p));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void unreachable_master_skips_what_clients_adopt_from_it(void **st)
{
	struct cluster *c = load_example("multi-host.yaml");
	struct plan_opts o = { 0 };
	struct host_state s[3];
	size_t skipped = 0;
	struct plan p;

	(void)st;
	states_empty(c, s);
	s[0].reachable = false;
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	/* each client: 2 devices, set, filesystem, mount; nothing on master0 */
	assert_int_equal(p.n, 10);
	for (size_t i = 0; i < p.n; i++) {
		assert_int_not_equal(p.steps[i].host, 0);
		assert_int_equal(p.steps[i].status, STEP_SKIPPED);
		skipped++;
		if (p.steps[i].kind == PK_DEVICE)
			assert_string_equal(p.steps[i].error, "waits for host "
					    "master0, which cannot be read");
		else
			assert_non_null(strstr(p.steps[i].error,
					       "waits for device shm0"));
	}
	assert_int_equal(skipped, 10);
	assert_int_equal(p.nunknown, 6); /* + the dataset on its master */
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void unreadable_hosts_never_match(void **st)
{
	struct cluster *c = load_example("multi-host.yaml");
	struct plan_opts o = { 0 };
	struct host_state s[3];
	struct plan p;

	(void)st;
	states_empty(c, s);
	s[1].reachable = false;
	s[2].reachable = false;
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_false(plan_matches(&p));
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void dataset_done_by_an_earlier_job_is_not_redone(void **st)
{
	static const char jobs[] =
		"{\"items\":[{\"id\":3,\"kind\":\"ingest\",\"state\":"
		"\"succeeded\",\"created\":\"2026-12-03T10:00:05Z\","
		"\"params\":{\"filesystem\":\"shared\","
		"\"source\":\"/data/models/weights\",\"dest\":\"/weights\"}}]}";
	/* the filesystem the job ingested into, and a newer one of that name */
	static const char fs_old[] =
		"{\"items\":[{\"name\":\"shared\",\"set\":\"pool\","
		"\"master\":\"master0\",\"created\":\"2026-12-03T10:00:00Z\"}]}";
	static const char fs_new[] =
		"{\"items\":[{\"name\":\"shared\",\"set\":\"pool\","
		"\"master\":\"master0\",\"created\":\"2026-12-03T11:00:00Z\"}]}";
	static const char failed[] =
		"{\"items\":[{\"id\":3,\"kind\":\"ingest\",\"state\":"
		"\"failed\",\"params\":{\"filesystem\":\"shared\","
		"\"source\":\"/data/models/weights\",\"dest\":\"/weights\"}}]}";
	struct cluster *c = load_example("multi-host.yaml");
	struct plan_opts o = { 0 };
	struct host_state s[3];
	struct plan p;

	(void)st;
	states_empty(c, s);
	state_clear(&s[0]);
	state_from(&s[0], "master0", NULL, NULL, NULL, fs_old, NULL, jobs);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	for (size_t i = 0; i < p.n; i++)
		assert_int_not_equal(p.steps[i].kind, PK_DATASET);
	plan_free(&p);
	/* pruned and made again: the old job's files went with it */
	state_clear(&s[0]);
	state_from(&s[0], "master0", NULL, NULL, NULL, fs_new, NULL, jobs);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.steps[p.n - 1].kind, PK_DATASET);
	plan_free(&p);
	/* the filesystem is yet to be made (by this plan): no job covers it */
	state_clear(&s[0]);
	state_from(&s[0], "master0", NULL, NULL, NULL, NULL, NULL, jobs);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.steps[p.n - 1].kind, PK_DATASET);
	plan_free(&p);
	state_clear(&s[0]);
	state_from(&s[0], "master0", NULL, NULL, NULL, fs_old, NULL, failed);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	assert_int_equal(p.steps[p.n - 1].kind, PK_DATASET);
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

static void dataset_interleave_goes_to_its_ingest_job(void **st)
{
	char text[2048];
	struct cluster *c;
	struct plan_opts o = { 0 };
	struct host_state s[2];
	struct plan p;
	json_object *pa, *pb;

	(void)st;
	snprintf(text, sizeof(text), "%s%s", small_yaml,
		 "datasets:\n"
		 "  - {name: a, source: /srv/a, filesystem: fs0,"
		 " interleave: {chunk: 4MiB}, keep: 3}\n"
		 "  - {name: b, source: /srv/b, filesystem: fs0,"
		 " interleave: {strips: 2}}\n");
	c = load_text("datasets.yaml", text);
	small_states(s, NULL, applied_devices, applied_sets, applied_fs,
		     applied_mounts);
	assert_int_equal(plan_build(c, s, &o, &p), 0);
	/* no conflict: each job takes its dataset's policy */
	assert_int_equal(p.nconflicts, 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(step_str(c, &p, 0), "create dataset a on h0");
	assert_string_equal(step_str(c, &p, 1), "create dataset b on h0");
	pa = json_object_object_get(p.steps[0].calls[0].body, "params");
	pb = json_object_object_get(p.steps[1].calls[0].body, "params");
	assert_int_equal(json_object_get_int64(json_object_object_get(pa,
			 "chunk")), 4 << 20);
	assert_null(json_object_object_get(pa, "strips"));
	assert_int_equal(json_object_get_int(json_object_object_get(pa,
			 "keep")), 3);
	assert_null(json_object_object_get(pb, "keep"));
	assert_int_equal(json_object_get_int(json_object_object_get(pb,
			 "strips")), 2);
	assert_null(json_object_object_get(pb, "chunk"));
	assert_string_equal(json_object_get_string(json_object_object_get(pa,
			    "dataset")), "a");
	plan_free(&p);
	states_clear(c, s);
	cluster_free(c);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_from_nothing_orders_dependencies_and_master_first),
		cmocka_unit_test(matching_state_plans_nothing),
		cmocka_unit_test(extra_resources_are_kept_without_prune),
		cmocka_unit_test(prune_refuses_filesystem_holding_files),
		cmocka_unit_test(prune_force_deletes_in_reverse_dependency_order),
		cmocka_unit_test(changed_set_is_a_conflict_not_a_step),
		cmocka_unit_test(set_grows_by_added_devices_and_never_shrinks),
		cmocka_unit_test(changed_mount_is_replaced),
		cmocka_unit_test(mount_backend_change_is_replaced),
		cmocka_unit_test(failed_mount_is_a_note_not_a_change),
		cmocka_unit_test(policy_update_sends_only_what_differs),
		cmocka_unit_test(unreachable_host_is_unknown_not_planned),
		cmocka_unit_test(unreachable_master_skips_what_clients_adopt_from_it),
		cmocka_unit_test(unreadable_hosts_never_match),
		cmocka_unit_test(dataset_done_by_an_earlier_job_is_not_redone),
		cmocka_unit_test(dataset_interleave_goes_to_its_ingest_job),
	};
	char cmd[600];
	int r;

	examples_dir = argc > 1 ? argv[1] : "examples";
	if (!mkdtemp(tmpdir))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	r += plan_region_tests();
	r += plan_dataset_tests();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		r = r ? r : 1;
	return r;
}
