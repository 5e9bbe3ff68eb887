// SPDX-License-Identifier: Apache-2.0
/*
 * Directories and ingest re-runs, on a real XFS source (argv[1]'s parent,
 * made by with_xfs.sh): a directory renamed at the source is reported by
 * the re-run and kept; with delete_removed (--delete) the directories the
 * source no longer has are removed once empty, deepest first, and one
 * that still holds a file stays.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ingest.h"

static char src[600], dev[2][300];

static void put(const char *rel, const char *text)
{
	char p[800];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", src, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void make_fs(void)
{
	struct famfs_mkfs_opts o = { .log_size = 2 * FAMFS_MiB, .master_name = "m" };
	const char *paths[2] = { dev[0], dev[1] };
	struct famfs_err e = { 0 };

	for (int i = 0; i < 2; i++) {
		unlink(dev[i]);
		assert_int_equal(famfs_emul_create(dev[i], 32 * FAMFS_MiB, &e), 0);
	}
	assert_int_equal(famfs_mkfs(paths, 2, &o, NULL, &e), 0);
}

static int run(bool delete_removed, struct ingest_result *res)
{
	const char *paths[2] = { dev[0], dev[1] };
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_MASTER, .host_name = "m" };
	struct ingest_opts o = { .source = src, .dest = "/t", .threads = 1,
				 .delete_removed = delete_removed };
	struct ingest_progress prog = { 0 };
	struct famfs_err e = { 0 };
	struct ingest_sink sink;
	struct ingest_plan plan;
	struct famfs_fs *fs;
	char why[512];
	int r;

	assert_int_equal(famfs_open(paths, 2, &oo, &fs, &e), 0);
	ingest_sink_lib(&sink, fs);
	assert_int_equal(ingest_plan_build(src, "/t", &plan, why, sizeof(why)), 0);
	r = ingest_run(&o, &plan, &sink, NULL, &prog, res);
	ingest_plan_free(&plan);
	famfs_close(fs);
	return r;
}

static bool exists(const char *path)
{
	const char *paths[2] = { dev[0], dev[1] };
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_READ };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	bool there;

	assert_int_equal(famfs_open(paths, 2, &oo, &fs, &e), 0);
	there = famfs_lookup(fs, path) != NULL;
	famfs_close(fs);
	return there;
}

static void renamed_dir_reported_then_deleted_when_empty(void **state)
{
	struct ingest_result res;
	char a[700], b[700];

	(void)state;
	make_fs();
	snprintf(a, sizeof(a), "%s/a", src);
	mkdir(a, 0755);
	snprintf(a, sizeof(a), "%s/a/b", src);
	mkdir(a, 0755);
	snprintf(a, sizeof(a), "%s/c", src);
	mkdir(a, 0755);
	put("a/b/f", "one");
	put("c/g", "two");
	assert_int_equal(run(false, &res), 0);
	assert_int_equal(res.files_copied, 2);
	assert_int_equal(res.dirs_gone, 0);

	/* a renamed at the source: the re-run copies a2, reports /t/a */
	snprintf(a, sizeof(a), "%s/a", src);
	snprintf(b, sizeof(b), "%s/a2", src);
	assert_int_equal(rename(a, b), 0);
	assert_int_equal(run(false, &res), 0);
	assert_int_equal(res.files_copied, 1);
	assert_int_equal(res.dirs_gone, 2);
	assert_non_null(strstr(res.dirs_gone_names, "/t/a/b"));
	assert_true(exists("/t/a/b/f"));

	/* with --delete: /t/a/b still holds f (files are not this code's
	 * to delete): both stay, named
	 */
	assert_int_equal(run(true, &res), 0);
	assert_int_equal(res.dirs_deleted, 0);
	assert_int_equal(res.dirs_gone, 2);
	assert_true(exists("/t/a/b"));

	/* once the file is gone from famfs (as --delete removes files the
	 * source no longer has), the emptied /t/a/b and /t/a go too
	 */
	{
		const char *paths[2] = { dev[0], dev[1] };
		struct famfs_open_opts oo = { .flags = FAMFS_OPEN_MASTER, .host_name = "m" };
		struct famfs_err e = { 0 };
		struct famfs_fs *fs;

		assert_int_equal(famfs_open(paths, 2, &oo, &fs, &e), 0);
		assert_int_equal(famfs_unlink(fs, "/t/a/b/f", &e), 0);
		famfs_close(fs);
	}
	assert_int_equal(run(true, &res), 0);
	assert_int_equal(res.dirs_deleted, 2);
	assert_int_equal(res.dirs_gone, 0);
	assert_false(exists("/t/a"));
	assert_true(exists("/t/a2/b/f"));
	assert_true(exists("/t/c/g"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(renamed_dir_reported_then_deleted_when_empty),
	};
	char d[300] = "/dev/shm/famfs-ingest-dirs.XXXXXX", cmd[1000];
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: test_ingest_dirs SOURCE_TREE\n");
		return 2;
	}
	snprintf(src, sizeof(src), "%s.dirs", argv[1]);
	if (mkdir(src, 0755) || !mkdtemp(d))
		return 1;
	snprintf(dev[0], sizeof(dev[0]), "%s/dev0", d);
	snprintf(dev[1], sizeof(dev[1]), "%s/dev1", d);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", d, src);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
