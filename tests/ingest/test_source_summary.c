// SPDX-License-Identifier: Apache-2.0
/*
 * A source tree's summary (ingest/source_summary.c) on a real directory
 * under /tmp: counts and bytes, the same digest for the same tree and
 * another after any change of path, size, mtime, mode or link target;
 * the comparison's counts; the packed form round-trips and garbage is
 * refused; an unreadable root names itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>

#include "source_summary.h"

static char root[64];

static void path_of(char *p, size_t len, const char *rel)
{
	snprintf(p, len, "%s/%s", root, rel);
}

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	path_of(p, sizeof(p), rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void scan(struct source_summary *s)
{
	char why[512] = "";

	assert_int_equal(source_summary_scan(root, s, why, sizeof(why)), 0);
}

static int setup(void **st)
{
	char p[256];

	(void)st;
	snprintf(root, sizeof(root), "/tmp/famfs-summary.XXXXXX");
	assert_non_null(mkdtemp(root));
	path_of(p, sizeof(p), "sub");
	assert_int_equal(mkdir(p, 0755), 0);
	put("a.txt", "hello\n");
	put("sub/b.txt", "0123456789");
	path_of(p, sizeof(p), "link");
	assert_int_equal(symlink("sub/b.txt", p), 0);
	return 0;
}

static int teardown(void **st)
{
	char cmd[128];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void summary_counts_and_sorts_the_tree(void **st)
{
	struct source_summary s;

	(void)st;
	scan(&s);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.files, 2);
	assert_int_equal(s.dirs, 1);
	assert_int_equal(s.symlinks, 1);
	assert_int_equal(s.bytes, 16);
	assert_string_equal(s.v[0].path, "a.txt");
	assert_string_equal(s.v[1].path, "link");
	assert_string_equal(s.v[1].target, "sub/b.txt");
	assert_string_equal(s.v[2].path, "sub");
	assert_string_equal(s.v[3].path, "sub/b.txt");
	assert_int_equal(strlen(s.digest), 32);
	source_summary_free(&s);
}

/* Change the tree with @change; the digest must differ from before and
 * the comparison give @added, @changed, @removed.
 */
static void expect_change(void (*change)(void), uint64_t added,
			  uint64_t changed, uint64_t removed)
{
	struct source_summary a, b;
	struct source_drift d;

	scan(&a);
	change();
	scan(&b);
	assert_string_not_equal(a.digest, b.digest);
	source_summary_compare(&a, &b, &d);
	assert_int_equal(d.added, added);
	assert_int_equal(d.changed, changed);
	assert_int_equal(d.removed, removed);
	source_summary_free(&a);
	source_summary_free(&b);
}

static void touch_old(void)
{
	char p[256];
	struct timeval tv[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	path_of(p, sizeof(p), "a.txt");
	assert_int_equal(utimes(p, tv), 0);
}

static void chmod_sub(void)
{
	char p[256];

	path_of(p, sizeof(p), "sub");
	assert_int_equal(chmod(p, 0700), 0);
}

static void relink(void)
{
	char p[256];

	path_of(p, sizeof(p), "link");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("a.txt", p), 0);
}

static void add_and_remove(void)
{
	char p[256];

	put("sub/new.txt", "n");
	put("z.txt", "zz");
	path_of(p, sizeof(p), "a.txt");
	assert_int_equal(unlink(p), 0);
}

static void summary_sees_every_kind_of_change(void **st)
{
	struct source_summary a, b;
	struct source_drift d;

	(void)st;
	scan(&a);
	scan(&b);
	assert_string_equal(a.digest, b.digest);
	source_summary_compare(&a, &b, &d);
	assert_int_equal(d.added + d.changed + d.removed, 0);
	assert_int_equal(d.bytes_delta, 0);
	source_summary_free(&a);
	source_summary_free(&b);

	expect_change(touch_old, 0, 1, 0);
	expect_change(chmod_sub, 0, 1, 0);
	expect_change(relink, 0, 1, 0);
	scan(&a);
	add_and_remove();
	scan(&b);
	source_summary_compare(&a, &b, &d);
	assert_int_equal(d.added, 2);
	assert_int_equal(d.removed, 1);
	assert_int_equal(d.bytes_delta, 3 - 6);
	/* a directory's own mtime changed: not counted */
	assert_int_equal(d.changed, 0);
	source_summary_free(&a);
	source_summary_free(&b);
}

static void packed_summary_round_trips_and_garbage_is_refused(void **st)
{
	struct source_summary a, b;
	unsigned char *buf;
	size_t len;

	(void)st;
	scan(&a);
	assert_int_equal(source_summary_pack(&a, &buf, &len), 0);
	assert_int_equal(source_summary_unpack(buf, len, &b), 0);
	assert_string_equal(a.digest, b.digest);
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.bytes, b.bytes);
	assert_int_equal(a.symlinks, b.symlinks);
	assert_string_equal(b.v[1].target, a.v[1].target);
	source_summary_free(&b);
	/* cut short, a bad type, out of order: refused, nothing kept */
	assert_int_equal(source_summary_unpack(buf, len - 1, &b), -EINVAL);
	assert_int_equal(b.n, 0);
	buf[0] = 'x';
	assert_int_equal(source_summary_unpack(buf, len, &b), -EINVAL);
	free(buf);
	if (a.n > 1) {
		struct summary_entry t = a.v[0];

		a.v[0] = a.v[1];
		a.v[1] = t;
		assert_int_equal(source_summary_pack(&a, &buf, &len), 0);
		assert_int_equal(source_summary_unpack(buf, len, &b), -EINVAL);
		free(buf);
	}
	source_summary_free(&a);
}

static void unreadable_root_is_named(void **st)
{
	struct source_summary s;
	char why[512] = "", p[256];

	(void)st;
	path_of(p, sizeof(p), "missing");
	assert_int_equal(source_summary_scan(p, &s, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "missing"));
	source_summary_free(&s);
	path_of(p, sizeof(p), "sub/b.txt");
	assert_int_equal(source_summary_scan(p, &s, why, sizeof(why)), -ENOTDIR);
	assert_non_null(strstr(why, "sub/b.txt"));
	source_summary_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(summary_counts_and_sorts_the_tree,
						setup, teardown),
		cmocka_unit_test_setup_teardown(summary_sees_every_kind_of_change,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			packed_summary_round_trips_and_garbage_is_refused,
			setup, teardown),
		cmocka_unit_test_setup_teardown(unreadable_root_is_named,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
