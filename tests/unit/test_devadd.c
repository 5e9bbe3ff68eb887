// SPDX-License-Identifier: Apache-2.0
/* Growing a filesystem: several devices at once, all checked before any
 * is written; clients wait at a DEVICE_ADD until they are given the device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "test_util.h"

static uint64_t entries(struct famfs_fs *fs)
{
	struct famfs_log_status ls;

	famfs_log_status(fs, &ls);
	return ls.entries;
}

static bool label_is_zero(const char *path)
{
	uint8_t buf[256] = { 0 }, zero[256] = { 0 };
	FILE *f = fopen(path, "rb");
	bool z;

	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
	fclose(f);
	z = !memcmp(buf, zero, sizeof(buf));
	return z;
}

static void devices_add_checks_every_device_before_writing(void **state)
{
	struct tdevs t, other;
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	char x1[300], x2[300];
	const char *two[2];
	uint64_t before;

	(void)state;
	tdevs_make(&t, 2, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	tdevs_make(&other, 1, 16 * FAMFS_MiB);
	tdevs_mkfs(&other, 4 * FAMFS_MiB);   /* a labeled device: refused */
	snprintf(x1, sizeof(x1), "%s/x1", t.dir);
	snprintf(x2, sizeof(x2), "%s/x2", t.dir);
	assert_int_equal(famfs_emul_create(x1, 16 * FAMFS_MiB, &e), 0);
	assert_int_equal(famfs_emul_create(x2, 16 * FAMFS_MiB, &e), 0);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	before = entries(fs);

	/* device 2 of 2 is bad: nothing appended, device 1 not labeled */
	two[0] = x1;
	two[1] = other.paths[0];
	assert_int_equal(famfs_devices_add(fs, two, 2, &e), -EEXIST);
	assert_non_null(strstr(e.msg, other.paths[0]));
	assert_int_equal(entries(fs), before);
	assert_int_equal(famfs_fs_ndevices(fs), 2);
	assert_true(label_is_zero(x1));
	/* the same device twice, a missing one: refused the same way */
	two[1] = x1;
	assert_int_equal(famfs_devices_add(fs, two, 2, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "same device"));
	two[1] = "/nonexistent/famfs-dev";
	assert_true(famfs_devices_add(fs, two, 2, &e) < 0);
	assert_int_equal(entries(fs), before);
	assert_true(label_is_zero(x1));

	/* both good: two entries, devices 2 and 3, new files use all four */
	two[1] = x2;
	assert_int_equal(famfs_devices_add(fs, two, 2, &e), 0);
	assert_int_equal(entries(fs), before + 2);
	assert_int_equal(famfs_fs_ndevices(fs), 4);
	assert_false(label_is_zero(x2));
	famfs_close(fs);
	unlink(x1);
	unlink(x2);
	tdevs_remove(&other);
	tdevs_remove(&t);
}

static void client_waits_at_device_add_until_attached(void **state)
{
	struct famfs_file_attr a = { .size = 12 * FAMFS_MiB, .mode = 0644 };
	uint8_t *buf = malloc(a.size), *back = malloc(a.size);
	struct famfs_fs *m, *c;
	struct famfs_err e = { 0 };
	struct famfs_log_status ls;
	struct famfs_space before, after;
	struct famfs_node *n;
	char x[300], blank[300];
	const char *one[1];
	struct tdevs t;

	(void)state;
	tdevs_make(&t, 2, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	snprintf(x, sizeof(x), "%s/x", t.dir);
	snprintf(blank, sizeof(blank), "%s/blank", t.dir);
	assert_int_equal(famfs_emul_create(x, 32 * FAMFS_MiB, &e), 0);
	assert_int_equal(famfs_emul_create(blank, 16 * FAMFS_MiB, &e), 0);
	m = tdevs_open(&t, FAMFS_OPEN_MASTER);
	c = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	famfs_statfs(c, &before);
	one[0] = x;
	assert_int_equal(famfs_devices_add(m, one, 1, &e), 0);
	fill_pattern(buf, a.size, 3);
	assert_int_equal(famfs_create_file(m, "/after", &a, NULL, buf, &e), 0);
	assert_int_equal(famfs_node_map(famfs_lookup(m, "/after"))->nitems, 3);

	/* the client stops at the DEVICE_ADD: nothing skipped, no file yet */
	assert_true(famfs_replay(c, &e) >= 0);
	famfs_log_status(c, &ls);
	assert_int_equal(ls.tail_state, FAMFS_TAIL_WAITING);
	assert_non_null(strstr(ls.tail_reason, "device 2"));
	assert_int_equal(ls.skipped, 0);
	assert_null(famfs_lookup(c, "/after"));
	/* a device the master never labeled is refused, naming it */
	assert_int_equal(famfs_device_attach(c, blank, &e), -ENODATA);
	assert_non_null(strstr(e.msg, blank));
	/* given the device, replay goes on; twice is harmless */
	assert_int_equal(famfs_device_attach(c, x, &e), 0);
	assert_int_equal(famfs_device_attach(c, x, &e), 0);
	assert_true(famfs_replay(c, &e) >= 2);
	famfs_log_status(c, &ls);
	assert_int_equal(ls.tail_state, FAMFS_TAIL_CLEAN);
	assert_int_equal(ls.skipped, 0);
	assert_int_equal(famfs_fs_ndevices(c), 3);
	n = famfs_lookup(c, "/after");
	assert_non_null(n);
	assert_int_equal(famfs_read(c, famfs_node_map(n), a.size, 0, back,
				    a.size), (int64_t)a.size);
	assert_memory_equal(buf, back, a.size);
	famfs_statfs(c, &after);
	assert_true(after.total_bytes > before.total_bytes);
	/* a device it has had since open: a no-op */
	assert_int_equal(famfs_device_attach(c, t.paths[1], &e), 0);
	famfs_close(c);
	famfs_close(m);
	free(buf);
	free(back);
	unlink(x);
	unlink(blank);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devices_add_checks_every_device_before_writing),
		cmocka_unit_test(client_waits_at_device_add_until_attached),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
