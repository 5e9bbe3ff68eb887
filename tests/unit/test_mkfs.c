// SPDX-License-Identifier: Apache-2.0
/* mkfs and open: refusals write nothing; several devices; backup sb. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "test_util.h"

static void make_file(const char *path, uint64_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

static void mkfs_refusals_write_nothing(void **state)
{
	struct tdevs t;
	struct famfs_err e = { 0 };
	struct famfs_mkfs_opts o = { .log_size = 4 * FAMFS_MiB };
	char small[300], odd[300];
	uint8_t *before, *after;
	size_t n1, n2;
	const char *p[2];

	(void)state;
	tdevs_make(&t, 2, 32 * FAMFS_MiB);
	snprintf(small, sizeof(small), "%s/small", t.dir);
	snprintf(odd, sizeof(odd), "%s/odd", t.dir);
	make_file(small, 3 * FAMFS_MiB);
	make_file(odd, 33 * FAMFS_MiB);

	/* too small */
	p[0] = small;
	assert_int_not_equal(famfs_mkfs(p, 1, &o, NULL, &e), 0);
	assert_non_null(strstr(e.msg, small));
	/* not a multiple of 2 MiB */
	p[0] = odd;
	assert_int_equal(famfs_mkfs(p, 1, &o, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "multiple of 2 MiB"));
	/* log that does not fit */
	o.log_size = 64 * FAMFS_MiB;
	assert_int_equal(famfs_mkfs(t.paths, 1, &o, NULL, &e), -ENOSPC);
	o.log_size = 3 * FAMFS_MiB;
	assert_int_equal(famfs_mkfs(t.paths, 1, &o, NULL, &e), -EINVAL);
	/* the same device twice */
	p[0] = t.paths[0];
	p[1] = t.paths[0];
	o.log_size = 4 * FAMFS_MiB;
	assert_int_equal(famfs_mkfs(p, 2, &o, NULL, &e), -EINVAL);
	/* none of that wrote a byte */
	before = tdevs_snapshot(&t, 0, &n1);
	for (size_t i = 0; i < n1; i++)
		assert_int_equal(before[i], 0);
	free(before);

	/* an existing filesystem is refused without force, byte for byte */
	assert_int_equal(famfs_mkfs(t.paths, 2, &o, NULL, &e), 0);
	before = tdevs_snapshot(&t, 1, &n1);
	p[0] = t.paths[1];
	assert_int_equal(famfs_mkfs(p, 1, &o, NULL, &e), -EEXIST);
	assert_non_null(strstr(e.msg, "--force"));
	after = tdevs_snapshot(&t, 1, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	o.force = true;
	assert_int_equal(famfs_mkfs(p, 1, &o, NULL, &e), 0);
	free(before);
	free(after);
	unlink(small);
	unlink(odd);
	tdevs_remove(&t);
}

static void mkfs_two_and_four_devices(void **state)
{
	for (unsigned n = 2; n <= 4; n += 2) {
		struct tdevs t;
		struct famfs_fs *fs;
		struct famfs_err e = { 0 };
		struct famfs_file_attr a = { .size = 40 * FAMFS_MiB, .mode = 0600 };
		const char *rev[4];
		uint8_t *buf = malloc(a.size), *back = malloc(a.size);

		(void)state;
		tdevs_make(&t, n, 64 * FAMFS_MiB);
		tdevs_mkfs(&t, 4 * FAMFS_MiB);
		fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
		fill_pattern(buf, a.size, n);
		assert_int_equal(famfs_create_file(fs, "/striped", &a, NULL, buf, &e), 0);
		const struct famfs_fmap *m = famfs_node_map(famfs_lookup(fs, "/striped"));

		assert_int_equal(m->type, FAMFS_MAP_INTERLEAVE);
		assert_int_equal(m->nitems, n);
		for (unsigned i = 0; i < n; i++)
			for (unsigned j = 0; j < i; j++)
				assert_int_not_equal(m->items[i].dev_index,
						     m->items[j].dev_index);
		famfs_close(fs);
		/* devices in any order: matched by label */
		for (unsigned i = 0; i < n; i++)
			rev[i] = t.paths[n - 1 - i];
		struct famfs_open_opts o = { 0 };

		assert_int_equal(famfs_open(rev, n, &o, &fs, &e), 0);
		struct famfs_node *f = famfs_lookup(fs, "/striped");

		assert_int_equal(famfs_read(fs, famfs_node_map(f), a.size, 0, back,
					    a.size), (int64_t)a.size);
		assert_memory_equal(buf, back, a.size);
		famfs_close(fs);
		/* one device missing: a clear error naming it */
		assert_int_equal(famfs_open(t.paths, n - 1, &o, &fs, &e), -ENODEV);
		assert_non_null(strstr(e.msg, "missing"));
		free(buf);
		free(back);
		tdevs_remove(&t);
	}
}

/* A log size whose end wraps past 2^64 passed the room check, and mkfs
 * wrote a superblock whose log covered the whole device, data units too.
 */
static void mkfs_refuses_log_size_that_wraps(void **state)
{
	struct tdevs t;
	struct famfs_err e = { 0 };
	struct famfs_mkfs_opts o = { .log_size = 0 - FAMFS_LOG_OFFSET };
	uint8_t *before, *after;
	size_t n1, n2;

	(void)state;
	tdevs_make(&t, 1, 8 * FAMFS_MiB);
	before = tdevs_snapshot(&t, 0, &n1);
	assert_int_equal(famfs_mkfs(t.paths, 1, &o, NULL, &e), -ENOSPC);
	o.log_size = 0 - 2 * FAMFS_UNIT_SIZE; /* + header + one unit == 0 */
	assert_int_equal(famfs_mkfs(t.paths, 1, &o, NULL, &e), -ENOSPC);
	after = tdevs_snapshot(&t, 0, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	free(before);
	free(after);
	tdevs_remove(&t);
}

static void open_uses_backup_superblock(void **state)
{
	struct tdevs t;
	struct famfs_dev *d;
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	struct famfs_fsck_result r;
	struct famfs_open_opts o = { 0 };

	(void)state;
	tdevs_make(&t, 1, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	famfs_dev_base(d)[FAMFS_SB_OFFSET + 100] ^= 1;
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	famfs_close(fs);
	assert_int_equal(famfs_fsck(t.paths, 1, NULL, NULL, &r, &e), 0);
	assert_int_equal(r.errors, 1);
	famfs_dev_base(d)[FAMFS_SB_BACKUP_OFFSET + 100] ^= 1;
	assert_int_equal(famfs_open(t.paths, 1, &o, &fs, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "CRC"));
	famfs_dev_close(d);
	tdevs_remove(&t);
}

static void master_is_one_writer(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs, *fs2;
	struct famfs_err e = { 0 };
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_MASTER, .host_name = "hostA" };

	(void)state;
	tdevs_make(&t, 1, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_open(t.paths, 1, &o, &fs2, &e), -EBUSY);
	famfs_close(fs);
	o.host_name = "hostB";
	assert_int_equal(famfs_open(t.paths, 1, &o, &fs2, &e), -EPERM);
	assert_non_null(strstr(e.msg, "hostA"));
	o.flags |= FAMFS_OPEN_FORCE;
	assert_int_equal(famfs_open(t.paths, 1, &o, &fs2, &e), 0);
	assert_string_equal(famfs_fs_sb(fs2)->master_name, "hostB");
	famfs_close(fs2);
	/* a reader cannot write */
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(famfs_mkdir(fs, "/x", 0755, 0, 0, &e), -EROFS);
	famfs_close(fs);
	tdevs_remove(&t);
}

static void device_add_grows_the_filesystem(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_open_opts o = { 0 };
	struct famfs_file_attr a = { .size = 24 * FAMFS_MiB, .mode = 0644 };
	char extra[300];
	const char *all[3];
	uint8_t *buf = malloc(a.size), *back = malloc(a.size);

	(void)state;
	tdevs_make(&t, 2, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	snprintf(extra, sizeof(extra), "%s/extra", t.dir);
	assert_int_equal(famfs_emul_create(extra, 64 * FAMFS_MiB, &e), 0);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	/* refused: one of its own devices, and not as a reader */
	assert_int_equal(famfs_device_add(fs, t.paths[1], &e), -EEXIST);
	assert_int_equal(famfs_device_add(fs, extra, &e), 0);
	assert_int_equal(famfs_fs_ndevices(fs), 3);
	assert_int_equal(famfs_device_add(fs, extra, &e), -EEXIST);
	fill_pattern(buf, a.size, 9);
	assert_int_equal(famfs_create_file(fs, "/wide", &a, NULL, buf, &e), 0);
	const struct famfs_fmap *m = famfs_node_map(famfs_lookup(fs, "/wide"));

	assert_int_equal(m->nitems, 3);
	famfs_close(fs);
	all[0] = t.paths[0];
	all[1] = t.paths[1];
	all[2] = extra;
	assert_int_equal(famfs_open(all, 3, &o, &fs, &e), 0);
	struct famfs_node *n = famfs_lookup(fs, "/wide");

	assert_int_equal(famfs_read(fs, famfs_node_map(n), a.size, 0, back, a.size),
			 (int64_t)a.size);
	assert_memory_equal(buf, back, a.size);
	assert_int_equal(fs->skipped, 0);
	famfs_close(fs);
	/* without the added device: a clear error, not a partial view */
	assert_int_equal(famfs_open(t.paths, 2, &o, &fs, &e), -ENODEV);
	assert_non_null(strstr(e.msg, "device 2"));
	struct famfs_fsck_result r;

	assert_int_equal(famfs_fsck(all, 3, NULL, NULL, &r, &e), 0);
	assert_int_equal(r.errors, 0);
	free(buf);
	free(back);
	unlink(extra);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mkfs_refusals_write_nothing),
		cmocka_unit_test(mkfs_two_and_four_devices),
		cmocka_unit_test(mkfs_refuses_log_size_that_wraps),
		cmocka_unit_test(open_uses_backup_superblock),
		cmocka_unit_test(master_is_one_writer),
		cmocka_unit_test(device_add_grows_the_filesystem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
