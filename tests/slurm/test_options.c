// SPDX-License-Identifier: Apache-2.0
/*
 * The famfs-slurm plugin's parsers (plugins/slurm/options.c): the value of
 * --famfs-dataset, the variable names it maps to, and the plugstack.conf
 * arguments; every refusal names what was wrong and changes nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "options.h"

static struct fs_dataset_list sentinel_list(void)
{
	struct fs_dataset_list l;

	memset(&l, 0, sizeof(l));
	l.count = 1;
	strcpy(l.items[0].name, "untouched");
	return l;
}

static void dataset_list_maps_names_to_variables(void **state)
{
	struct fs_dataset_list l;
	char why[256];

	(void)state;
	assert_int_equal(fs_dataset_list_parse("demo,imagenet-1k,v1.2,A_b,demo",
					       &l, why, sizeof(why)), 0);
	assert_int_equal(l.count, 4);
	assert_string_equal(l.items[0].name, "demo");
	assert_string_equal(l.items[0].env_path, "FAMFS_DATASET_demo");
	assert_string_equal(l.items[0].env_generation,
			    "FAMFS_DATASET_demo_GENERATION");
	assert_string_equal(l.items[1].name, "imagenet-1k");
	assert_string_equal(l.items[1].env_path, "FAMFS_DATASET_imagenet_1k");
	assert_string_equal(l.items[2].env_path, "FAMFS_DATASET_v1_2");
	assert_string_equal(l.items[2].env_generation,
			    "FAMFS_DATASET_v1_2_GENERATION");
	assert_string_equal(l.items[3].env_path, "FAMFS_DATASET_A_b");
}

static void dataset_list_accepts_the_longest_name(void **state)
{
	char name[FS_DATASET_NAME_MAX + 2], why[256];
	struct fs_dataset_list l;

	(void)state;
	memset(name, 'x', FS_DATASET_NAME_MAX);
	name[FS_DATASET_NAME_MAX] = 0;
	assert_int_equal(fs_dataset_list_parse(name, &l, why, sizeof(why)), 0);
	assert_string_equal(l.items[0].name, name);
	name[FS_DATASET_NAME_MAX] = 'x';
	name[FS_DATASET_NAME_MAX + 1] = 0;
	l = sentinel_list();
	assert_int_equal(fs_dataset_list_parse(name, &l, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "longer than 63 characters"));
	assert_string_equal(l.items[0].name, "untouched");
}

/* @value is refused, @why contains @says, the list is as it was. */
static void refused(const char *value, const char *says)
{
	struct fs_dataset_list l = sentinel_list();
	char why[256] = "";

	assert_int_equal(fs_dataset_list_parse(value, &l, why, sizeof(why)), -EINVAL);
	if (!strstr(why, says))
		fail_msg("'%s': '%s' does not say '%s'", value, why, says);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].name, "untouched");
}

static void dataset_list_refuses_bad_names(void **state)
{
	(void)state;
	refused("", "an empty dataset name");
	refused("demo,", "an empty dataset name");
	refused(",demo", "an empty dataset name");
	refused("a,,b", "an empty dataset name");
	refused("de mo", "'de mo' is not a dataset name");
	refused("-demo", "'-demo' is not a dataset name");
	refused(".hidden", "'.hidden' is not a dataset name");
	refused("demo/x", "'demo/x' is not a dataset name");
	refused("demo$x", "'demo$x' is not a dataset name");
	refused("demo;rm", "'demo;rm' is not a dataset name");
	refused("../etc", "'../etc' is not a dataset name");
}

static void dataset_list_refuses_names_sharing_a_variable(void **state)
{
	(void)state;
	refused("a-b,a_b", "datasets 'a-b' and 'a_b' would both set FAMFS_DATASET_a_b");
	refused("a.b,a-b", "datasets 'a.b' and 'a-b' would both set FAMFS_DATASET_a_b");
	refused("x,x_GENERATION", "datasets 'x' and 'x_GENERATION' would both set FAMFS_DATASET_x_GENERATION");
	refused("x_GENERATION,x", "datasets 'x_GENERATION' and 'x' would both set FAMFS_DATASET_x_GENERATION");
}

static void dataset_list_refuses_too_many(void **state)
{
	char value[FS_DATASETS_MAX * 4 + 8] = "", one[8];
	struct fs_dataset_list l;
	char why[256];

	(void)state;
	for (int i = 0; i < FS_DATASETS_MAX; i++) {
		snprintf(one, sizeof(one), "%sd%d", i ? "," : "", i);
		strcat(value, one);
	}
	assert_int_equal(fs_dataset_list_parse(value, &l, why, sizeof(why)), 0);
	assert_int_equal(l.count, FS_DATASETS_MAX);
	strcat(value, ",one-more");
	refused(value, "more than 16 datasets");
}

static void plugin_args_defaults_and_values(void **state)
{
	char *none[] = { NULL };
	char *both[] = { "timeout=5", "socket=/tmp/t/famfsd.sock" };
	char *zero[] = { "timeout=0" };
	struct fs_plugin_args a;
	char why[256];

	(void)state;
	assert_int_equal(fs_plugin_args_parse(0, none, &a, why, sizeof(why)), 0);
	assert_string_equal(a.socket, "/run/famfsd/famfsd.sock");
	assert_int_equal(a.timeout, 60);
	assert_int_equal(fs_plugin_args_parse(2, both, &a, why, sizeof(why)), 0);
	assert_string_equal(a.socket, "/tmp/t/famfsd.sock");
	assert_int_equal(a.timeout, 5);
	assert_int_equal(fs_plugin_args_parse(1, zero, &a, why, sizeof(why)), 0);
	assert_int_equal(a.timeout, 0);
}

static void args_refused(char *arg, const char *says)
{
	char *argv[] = { arg };
	struct fs_plugin_args a = { .socket = "kept", .timeout = -7 };
	char why[256] = "";

	assert_int_equal(fs_plugin_args_parse(1, argv, &a, why, sizeof(why)), -EINVAL);
	if (!strstr(why, says))
		fail_msg("'%s': '%s' does not say '%s'", arg, why, says);
	assert_string_equal(a.socket, "kept");
	assert_int_equal(a.timeout, -7);
}

static void plugin_args_refuses_bad_arguments(void **state)
{
	char long_path[200];

	(void)state;
	args_refused("timeout=", "timeout=: not a number of seconds from 0 to 3600");
	args_refused("timeout=-1", "timeout=-1: not a number");
	args_refused("timeout=+5", "timeout=+5: not a number");
	args_refused("timeout=3601", "timeout=3601: not a number of seconds from 0 to 3600");
	args_refused("timeout=5s", "timeout=5s: not a number");
	args_refused("timeout=99999999999999999999", "not a number");
	args_refused("socket=famfsd.sock", "socket=famfsd.sock: not an absolute path");
	args_refused("socket=", "not an absolute path");
	snprintf(long_path, sizeof(long_path), "socket=/%0150d", 0);
	args_refused(long_path, "longer than 107 bytes");
	args_refused("sock=/x", "unknown argument 'sock=/x' (the arguments are socket=PATH and timeout=SECONDS)");
	args_refused("required", "unknown argument 'required'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dataset_list_maps_names_to_variables),
		cmocka_unit_test(dataset_list_accepts_the_longest_name),
		cmocka_unit_test(dataset_list_refuses_bad_names),
		cmocka_unit_test(dataset_list_refuses_names_sharing_a_variable),
		cmocka_unit_test(dataset_list_refuses_too_many),
		cmocka_unit_test(plugin_args_defaults_and_values),
		cmocka_unit_test(plugin_args_refuses_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
