// SPDX-License-Identifier: Apache-2.0
/*
 * Open and fsck of media that is wrong but CRC-valid: what the replay and
 * fsck fuzzers (tests/fuzz) found, each as a fixed case. Every one used to
 * crash (or to open with the metadata area allocatable) before its fix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

/* Rewrite both superblocks of @path through @fn, with a valid CRC. */
static void patch_sb(const char *path, void (*fn)(struct famfs_superblock *))
{
	struct famfs_err e = { 0 };
	struct famfs_dev *d;
	struct famfs_superblock *sb;

	assert_int_equal(famfs_dev_open(path, true, &d, &e), 0);
	sb = (void *)(famfs_dev_base(d) + FAMFS_SB_OFFSET);
	fn(sb);
	famfs_sb_seal(sb);
	memcpy(famfs_dev_base(d) + FAMFS_SB_BACKUP_OFFSET, sb, sizeof(*sb));
	famfs_dev_close(d);
}

static int open_read(struct tdevs *t, unsigned n, struct famfs_err *e)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_fs *fs = NULL;
	int r = famfs_open(t->paths, n, &o, &fs, e);

	famfs_close(fs);
	return r;
}

/* fsck runs to the end and reports the damage as an error. */
static void fsck_reports_error(struct tdevs *t)
{
	struct famfs_fsck_result res;
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_fsck(t->paths, t->n, NULL, NULL, &res, &e), 0);
	assert_true(res.errors >= 1);
}

/* fuzz_replay: the second device's label names another filesystem; the
 * message named the first device through a pointer already moved away.
 */
static void open_names_device_of_other_fs(void **state)
{
	struct tdevs a, b;
	struct tdevs mixed = { 0 };
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&a, 2, 8 * FAMFS_MiB);
	tdevs_make(&b, 2, 8 * FAMFS_MiB);
	tdevs_mkfs(&a, 2 * FAMFS_MiB);
	tdevs_mkfs(&b, 2 * FAMFS_MiB);
	mixed.paths[0] = a.paths[0];
	mixed.paths[1] = b.paths[1];
	assert_int_equal(open_read(&mixed, 2, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "another filesystem"));
	assert_non_null(strstr(e.msg, a.paths[0]));
	assert_non_null(strstr(e.msg, b.paths[1]));
	tdevs_remove(&a);
	tdevs_remove(&b);
}

static void log_size_wraps(struct famfs_superblock *sb)
{
	sb->log_size = 0 - FAMFS_LOG_OFFSET; /* log_offset + log_size == 0 */
}

/* A log size whose end wraps to 0 passed "end <= device size". */
static void sb_wrapping_log_size_is_refused(void **state)
{
	struct tdevs t;
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&t, 1, 8 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	patch_sb(t.paths[0], log_size_wraps);
	assert_int_equal(open_read(&t, 1, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "geometry"));
	fsck_reports_error(&t);
	tdevs_remove(&t);
}

static void slots_far_away(struct famfs_superblock *sb)
{
	sb->slots_offset = 1ULL << 33;
}

/* fuzz_fsck: fsck (and a client) read the slot table at slots_offset,
 * which nothing checked: far past the device's mapping.
 */
static void sb_slots_offset_outside_is_refused(void **state)
{
	struct tdevs t;
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&t, 1, 8 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	patch_sb(t.paths[0], slots_far_away);
	assert_int_equal(open_read(&t, 1, &e), -EBADMSG);
	fsck_reports_error(&t);
	tdevs_remove(&t);
}

static void second_device_empty(struct famfs_superblock *sb)
{
	sb->devices[1].dev_size = 0;
}

/* A device of 0 units: its allocator bitmap had no word, marking its
 * first unit wrote past the allocation.
 */
static void sb_device_without_data_unit_is_refused(void **state)
{
	struct tdevs t;
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&t, 2, 8 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	patch_sb(t.paths[0], second_device_empty);
	assert_int_equal(open_read(&t, 2, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "device 1"));
	fsck_reports_error(&t);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_names_device_of_other_fs),
		cmocka_unit_test(sb_wrapping_log_size_is_refused),
		cmocka_unit_test(sb_slots_offset_outside_is_refused),
		cmocka_unit_test(sb_device_without_data_unit_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
