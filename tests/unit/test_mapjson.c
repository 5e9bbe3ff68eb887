// SPDX-License-Identifier: Apache-2.0
/*
 * map_json_parse() (ingest/map_json.c), the one JSON -> map parser: item
 * counts beyond the format are refused instead of wrapping in a uint16,
 * numbers must be non-negative integers, and what it accepts is checked by
 * famfs_fmap_check() (issue 13).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_json.h"
#include "test_util.h"

/* {"type": @type, "chunk": 2 MiB, @key: [n items]} */
static json_object *map_of(const char *type, const char *key, unsigned n,
			   const char *offset)
{
	size_t cap = 200 + (size_t)n * 120;
	char *s = malloc(cap);
	size_t k;
	json_object *o;

	k = (size_t)snprintf(s, cap, "{\"type\":\"%s\",\"chunk\":2097152,\"%s\":[",
			     type, key);
	for (unsigned i = 0; i < n; i++)
		k += (size_t)snprintf(s + k, cap - k, "%s{\"device\":\"/d%u\","
				      "\"device_index\":%u,\"offset\":%s,"
				      "\"length\":2097152}", i ? "," : "",
				      i % 64, i % 64, offset);
	snprintf(s + k, cap - k, "]}");
	o = json_tokener_parse(s);
	free(s);
	assert_non_null(o);
	return o;
}

static void refused(json_object *o, const char *reason)
{
	struct famfs_fmap *m = NULL;
	char why[300] = "";

	assert_int_equal(map_json_parse(o, &m, why, sizeof(why)), -EBADMSG);
	assert_null(m);
	if (!strstr(why, reason))
		fail_msg("message '%s' lacks '%s'", why, reason);
	json_object_put(o);
}

static void item_counts_are_bounded(void **state)
{
	struct famfs_map_dev devs[FAMFS_MAX_DEVICES];
	struct famfs_fmap *m = NULL;
	char why[300];
	json_object *o;

	(void)state;
	/* 65537 items would be nitems 1 after a uint16_t cast */
	refused(map_of("extents", "extents", 65537, "2097152"), "limit is 64");
	refused(map_of("interleave", "strips", 65, "2097152"), "limit is 64");
	refused(map_of("extents", "extents", 1, "-4096"), "item 0");
	refused(map_of("extents", "extents", 1, "\"4096\""), "item 0");
	refused(map_of("extents", "extents", 1, "1.5"), "item 0");
	refused(json_tokener_parse("{\"type\":\"spiral\",\"extents\":[]}"), "type");
	refused(json_tokener_parse("{\"type\":\"extents\"}"), "type");
	refused(json_tokener_parse("[1]"), "type");
	refused(json_tokener_parse("{\"type\":\"interleave\",\"chunk\":-1,"
				   "\"strips\":[]}"), "chunk");
	refused(json_tokener_parse("{\"type\":\"extents\",\"extents\":"
		"[{\"device\":\"/d\",\"device_index\":64,\"offset\":0,"
		"\"length\":4096}]}"), "item 0");

	/* 64 strips parse; 2 MiB each on distinct devices hold 128 MiB */
	o = map_of("interleave", "strips", 64, "2097152");
	assert_int_equal(map_json_parse(o, &m, why, sizeof(why)), 0);
	assert_int_equal(m->nitems, 64);
	assert_int_equal(m->chunk, 2 * FAMFS_MiB);
	assert_string_equal(map_json_device(o, 63), "/d63");
	for (unsigned d = 0; d < FAMFS_MAX_DEVICES; d++)
		devs[d] = (struct famfs_map_dev){ 64 * FAMFS_MiB, FAMFS_UNIT_SIZE };
	assert_int_equal(famfs_fmap_check(m, 128 * FAMFS_MiB, devs, 64, why,
					  sizeof(why)), 0);
	assert_int_equal(famfs_fmap_check(m, 128 * FAMFS_MiB + 1, devs, 64, why,
					  sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "fewer bytes"));
	free(m);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(item_counts_are_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
