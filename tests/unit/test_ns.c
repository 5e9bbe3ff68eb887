// SPDX-License-Identifier: Apache-2.0
/* Namespace round trips: what the master logs, a reopen and a client see. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

static void format_round_trip_keeps_everything(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_file_attr a = { .size = 123457, .mode = 0640, .uid = 1001,
				     .gid = 2002, .mtime_ns = 1700000000123456789ULL };
	struct famfs_attr got;
	uint8_t data[123457], back[123457];
	uint64_t ino;

	(void)state;
	fill_pattern(data, sizeof(data), 1);
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_mkdir(fs, "/dir", 0750, 7, 8, &e), 0);
	assert_int_equal(famfs_create_file(fs, "dir//file/", &a, NULL, data, &e), 0);
	ino = famfs_node_ino(famfs_lookup(fs, "/dir/file"));
	famfs_close(fs);

	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	struct famfs_node *n = famfs_lookup(fs, "/dir/file");

	assert_non_null(n);
	famfs_node_attr(n, &got);
	assert_int_equal(got.ino, ino);
	assert_int_equal(got.mode, 0100640);
	assert_int_equal(got.uid, 1001);
	assert_int_equal(got.gid, 2002);
	assert_int_equal(got.size, sizeof(data));
	assert_int_equal(got.mtime_ns, a.mtime_ns);
	assert_int_equal(got.alloc_bytes, 126976); /* 31 blocks of 4 KiB */
	assert_int_equal(famfs_read(fs, famfs_node_map(n), got.size, 0, back,
				    sizeof(back)), sizeof(back));
	assert_memory_equal(data, back, sizeof(data));
	famfs_node_attr(famfs_lookup(fs, "/dir"), &got);
	assert_int_equal(got.mode, 040750);
	assert_int_equal(got.uid, 7);
	char path[64];

	assert_int_equal(famfs_node_path(n, path, sizeof(path)), 9);
	assert_string_equal(path, "/dir/file");
	assert_ptr_equal(famfs_node_by_ino(fs, ino), n);
	famfs_close(fs);
	tdevs_remove(&t);
}

static void paths_up_to_path_max(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	char p[FAMFS_PATH_MAX + 64];
	size_t len = 0;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	/* 15 directories of 255 bytes: 15 * 256 = 3840 bytes */
	for (int d = 0; d < 15; d++) {
		p[len++] = '/';
		memset(p + len, 'a' + d, 255);
		len += 255;
		p[len] = '\0';
		assert_int_equal(famfs_mkdir(fs, p, 0755, 0, 0, &e), 0);
	}
	/* a file name that brings the path to exactly 4095 bytes */
	p[len++] = '/';
	memset(p + len, 'z', FAMFS_PATH_MAX - len);
	len = FAMFS_PATH_MAX;
	p[len] = '\0';
	struct famfs_file_attr a = { .size = 1, .mode = 0644 };

	assert_int_equal(famfs_create_file(fs, p, &a, NULL, "x", &e), 0);
	p[len] = 'z';
	p[len + 1] = '\0';
	assert_int_equal(famfs_create_file(fs, p, &a, NULL, "x", &e), -ENAMETOOLONG);
	char comp[300] = "/";

	memset(comp + 1, 'q', 256);
	comp[257] = '\0';
	assert_int_equal(famfs_mkdir(fs, comp, 0755, 0, 0, &e), -ENAMETOOLONG);
	assert_non_null(strstr(e.msg, "255"));
	assert_int_equal(famfs_mkdir(fs, "/a/../b", 0755, 0, 0, &e), -EINVAL);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	p[len] = '\0';
	assert_non_null(famfs_lookup(fs, p));
	famfs_close(fs);
	tdevs_remove(&t);
}

static void bad_namespace_operations_change_nothing(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_file_attr a = { .size = 10, .mode = 0644 };
	uint64_t tail;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_mkdir(fs, "/d", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_create_file(fs, "/d/f", &a, NULL, NULL, &e), 0);
	tail = fs->tail;
	assert_int_equal(famfs_mkdir(fs, "/d", 0755, 0, 0, &e), -EEXIST);
	assert_int_equal(famfs_create_file(fs, "/d/f", &a, NULL, NULL, &e), -EEXIST);
	assert_int_equal(famfs_create_file(fs, "/nodir/f", &a, NULL, NULL, &e), -ENOENT);
	assert_int_equal(famfs_create_file(fs, "/d/f/g", &a, NULL, NULL, &e), -ENOENT);
	assert_int_equal(famfs_unlink(fs, "/d", &e), -ENOTEMPTY);
	assert_int_equal(famfs_unlink(fs, "/missing", &e), -ENOENT);
	assert_int_equal(famfs_unlink(fs, "/", &e), -EBUSY);
	assert_int_equal(fs->tail, tail);
	assert_int_equal(famfs_unlink(fs, "/d/f", &e), 0);
	assert_int_equal(famfs_unlink(fs, "/d", &e), 0);
	assert_null(famfs_lookup(fs, "/d"));
	/* a name can come back after its delete */
	assert_int_equal(famfs_mkdir(fs, "/d", 0700, 0, 0, &e), 0);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(fs->skipped, 0);
	assert_non_null(famfs_lookup(fs, "/d"));
	assert_null(famfs_lookup(fs, "/d/f"));
	famfs_close(fs);
	tdevs_remove(&t);
}

struct changes { int n; char last[64]; };

static void on_change(void *arg, const struct famfs_entry_hdr *h,
		      struct famfs_node *n, struct famfs_node *parent,
		      const char *name)
{
	struct changes *c = arg;

	(void)h; (void)n; (void)parent;
	c->n++;
	snprintf(c->last, sizeof(c->last), "%s", name ? name : "");
}

static void client_follows_master(void **state)
{
	struct tdevs t;
	struct famfs_fs *m, *c;
	struct famfs_err e = { 0 };
	struct changes ch = { 0 };
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_CLIENT, .host_name = "hostB" };
	struct famfs_file_attr a = { .size = 5 * FAMFS_MiB, .mode = 0644 };

	(void)state;
	tdevs_make(&t, 4, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	m = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_open(t.paths, 4, &o, &c, &e), 0);
	famfs_set_change_cb(c, on_change, &ch);
	assert_int_equal(famfs_replay(c, &e), 0);
	assert_int_equal(famfs_mkdir(m, "/x", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_create_file(m, "/x/big", &a, NULL, NULL, &e), 0);
	assert_int_equal(famfs_replay(c, &e), 2);
	assert_int_equal(ch.n, 2);
	assert_string_equal(ch.last, "big");
	assert_non_null(famfs_lookup(c, "/x/big"));
	assert_int_equal(famfs_unlink(m, "/x/big", &e), 0);
	assert_int_equal(famfs_replay(c, &e), 1);
	assert_null(famfs_lookup(c, "/x/big"));
	assert_int_equal(famfs_mkdir(c, "/nope", 0755, 0, 0, &e), -EROFS);
	famfs_close(c);
	famfs_close(m);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(format_round_trip_keeps_everything),
		cmocka_unit_test(paths_up_to_path_max),
		cmocka_unit_test(bad_namespace_operations_change_nothing),
		cmocka_unit_test(client_follows_master),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
