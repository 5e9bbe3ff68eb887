// SPDX-License-Identifier: Apache-2.0
/*
 * The space check end to end, through the ingest engine: on 1, 2 and 4
 * devices of equal and unequal sizes, with the log (always on device 0)
 * small (2 MiB) and large (8 MiB), on device 0 the smaller or the larger
 * one. Trees sized at, one unit under and one unit over the placeable
 * space, measured from statfs (not from the plan under test): one file of
 * the largest file's size (striped over every device), and as many
 * one-unit files as there are free units.
 *
 * For each tree: the plan on paper of the filesystem mkfs would make
 * (ingest_sink_paper(), what famfsd's dry run for `apply` uses on a
 * filesystem not made yet), the plan on the real filesystem (plan_only)
 * and the ingest itself agree: a tree the plans pass is placed, every
 * file copied; a tree they refuse is refused before anything changes (no
 * log entry, no directory, the same free space), with the same message
 * naming the file, the strips and the room on each device.
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
#include <unistd.h>
#include <cmocka.h>

#include "ingest.h"

#define MiB FAMFS_MiB
#define UNIT FAMFS_UNIT_SIZE

static char base[300];          /* source trees below */
static char devdir[300];        /* devices below */

struct layout {
	unsigned n;
	uint64_t size[4];
	uint64_t log_size;
};

struct fsdev {
	char path[4][400];
	const char *paths[4];
	unsigned n;
};

static void make_fs(struct fsdev *d, const struct layout *l)
{
	/* the devices of the layout made once, formatted again per tree */
	struct famfs_mkfs_opts o = { .log_size = l->log_size, .master_name = "m",
				     .force = true };
	struct famfs_err e = { 0 };
	struct stat st;

	d->n = l->n;
	for (unsigned i = 0; i < l->n; i++) {
		snprintf(d->path[i], sizeof(d->path[i]), "%s/dev%u", devdir, i);
		d->paths[i] = d->path[i];
		if (stat(d->path[i], &st) == 0 && (uint64_t)st.st_size == l->size[i])
			continue;
		unlink(d->path[i]);
		assert_int_equal(famfs_emul_create(d->path[i], l->size[i], &e), 0);
	}
	if (famfs_mkfs(d->paths, d->n, &o, NULL, &e)) {
		fprintf(stderr, "mkfs: %s\n", e.msg);
		fail();
	}
}

static struct famfs_fs *open_fs(const struct fsdev *d, bool master)
{
	struct famfs_open_opts oo = { .flags = master ? FAMFS_OPEN_MASTER :
				      FAMFS_OPEN_READ, .host_name = "m" };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = NULL;

	if (famfs_open(d->paths, d->n, &oo, &fs, &e)) {
		fprintf(stderr, "open: %s\n", e.msg);
		fail();
	}
	return fs;
}

/* A fresh source directory of @count sparse files of @size each. */
static void make_tree(char *dir, size_t len, uint64_t count, uint64_t size)
{
	static uint64_t last;   /* files of the tree before (no rm -rf:
				 * a process per tree is most of the time) */

	snprintf(dir, len, "%s/src", base);
	for (uint64_t i = 0; i < last; i++) {
		char p[700];

		snprintf(p, sizeof(p), "%s/f%llu", dir, (unsigned long long)i);
		unlink(p);
	}
	rmdir(dir);
	last = count;
	assert_int_equal(mkdir(dir, 0755), 0);
	for (uint64_t i = 0; i < count; i++) {
		char p[700];
		int fd;

		snprintf(p, sizeof(p), "%s/f%llu", dir, (unsigned long long)i);
		fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, (off_t)size), 0);
		close(fd);
	}
}

static int run(const char *src, struct ingest_sink *sink, bool plan_only,
	       struct ingest_result *res)
{
	struct ingest_opts o = { .source = src, .dest = "/t", .threads = 2,
				 .plan_only = plan_only };
	struct ingest_progress prog;
	struct ingest_plan plan;
	char why[512];
	int r;

	memset(&prog, 0, sizeof(prog));
	assert_int_equal(ingest_plan_build(src, "/t", &plan, why, sizeof(why)), 0);
	r = ingest_run(&o, &plan, sink, NULL, &prog, res);
	ingest_plan_free(&plan);
	return r;
}

/*
 * Ingest a tree of @count files of @size into a fresh filesystem of
 * layout @l; @fits says whether it must be placed. Returns nothing: it
 * asserts the paper plan, the real plan and the run agree.
 */
static void check_tree(const struct layout *l, uint64_t count, uint64_t size,
		       bool fits)
{
	struct ingest_paper_fs paper = { .ndev = l->n, .log_size = l->log_size };
	struct famfs_log_status ls0, ls1;
	struct famfs_space s0, s1;
	struct ingest_result rp, rr, rrun;
	struct ingest_sink sink;
	struct famfs_fs *fs;
	struct fsdev d;
	char src[600], msg[1200];
	int r;

	make_fs(&d, l);
	make_tree(src, sizeof(src), count, size);
	for (unsigned i = 0; i < l->n; i++)
		paper.dev_bytes[i] = l->size[i];

	/* on paper: the filesystem as mkfs makes it */
	ingest_sink_paper(&sink, &paper);
	r = run(src, &sink, true, &rp);
	if (r != (fits ? 0 : -ENOSPC))
		fprintf(stderr, "%u devices, %llu x %llu: paper plan %d: %s\n",
			l->n, (unsigned long long)count,
			(unsigned long long)size, r, rp.message);
	assert_int_equal(r, fits ? 0 : -ENOSPC);
	assert_int_equal(rp.plan_files, count);

	/* the real filesystem, planned only: the same answer, nothing done */
	fs = open_fs(&d, true);
	famfs_log_status(fs, &ls0);
	famfs_statfs(fs, &s0);
	ingest_sink_lib(&sink, fs);
	r = run(src, &sink, true, &rr);
	assert_int_equal(r, fits ? 0 : -ENOSPC);
	assert_string_equal(rr.message, rp.message);
	assert_string_equal(rr.plan_failed, rp.plan_failed);
	famfs_log_status(fs, &ls1);
	assert_int_equal(ls1.entries, ls0.entries);

	/* the run: placed, or refused before anything changed */
	r = run(src, &sink, false, &rrun);
	famfs_log_status(fs, &ls1);
	famfs_statfs(fs, &s1);
	if (fits) {
		if (r)
			fprintf(stderr, "%u devices, %llu x %llu passed the plan "
				"but: %s\n", l->n, (unsigned long long)count,
				(unsigned long long)size, rrun.message);
		assert_int_equal(r, 0);
		assert_int_equal(rrun.files_copied, count);
	} else {
		assert_int_equal(r, -ENOSPC);
		snprintf(msg, sizeof(msg), "the destination lacks space, nothing "
			 "was copied: %s", rp.message);
		assert_string_equal(rrun.message, msg);
		/* the size asked for, the strips, each device's room; never
		 * "N needed, N free"
		 */
		assert_non_null(strstr(rrun.message, " does not fit (placed largest first"));
		assert_non_null(strstr(rrun.message, "no space: a file of "));
		assert_non_null(strstr(rrun.message, l->n > 1 && size > UNIT ?
				       " strips of " : " takes 1 strip of "));
		assert_non_null(strstr(rrun.message, "room on each device (free, largest run): dev0 "));
		if (l->n > 1)
			assert_non_null(strstr(rrun.message, "; dev1 "));
		assert_null(strstr(rrun.message, "bytes free"));
		assert_int_equal(ls1.entries, ls0.entries);
		assert_int_equal(s1.free_bytes, s0.free_bytes);
		assert_null(famfs_lookup(fs, "/t"));
	}
	ingest_result_free(&rp);
	ingest_result_free(&rr);
	ingest_result_free(&rrun);
	famfs_close(fs);
}

static void check_layout(const struct layout *l)
{
	struct famfs_space s;
	struct famfs_fs *fs;
	struct fsdev d;
	uint64_t units;

	make_fs(&d, l);
	fs = open_fs(&d, false);
	famfs_statfs(fs, &s);
	famfs_close(fs);
	assert_true(s.largest_file_bytes > UNIT);
	units = s.free_bytes / UNIT;

	/* one file: the largest file, one unit under, one unit over */
	check_tree(l, 1, s.largest_file_bytes, true);
	check_tree(l, 1, s.largest_file_bytes - UNIT, true);
	check_tree(l, 1, s.largest_file_bytes + UNIT, false);
	/* one-unit files: every free unit, one fewer, one more */
	check_tree(l, units, UNIT, true);
	check_tree(l, units - 1, UNIT, true);
	check_tree(l, units + 1, UNIT, false);
	for (unsigned i = 0; i < l->n; i++)
		unlink(d.path[i]);
}

/* Small devices: the rule is the same at any size, the copy is not. */
static void one_device(void **state)
{
	(void)state;
	check_layout(&(struct layout){ 1, { 24 * MiB }, 2 * MiB });
	check_layout(&(struct layout){ 1, { 24 * MiB }, 8 * MiB });
}

static void two_devices(void **state)
{
	(void)state;
	check_layout(&(struct layout){ 2, { 12 * MiB, 12 * MiB }, 2 * MiB });
	check_layout(&(struct layout){ 2, { 16 * MiB, 16 * MiB }, 8 * MiB });
	/* the log on the smaller device, and on the larger */
	check_layout(&(struct layout){ 2, { 10 * MiB, 20 * MiB }, 2 * MiB });
	check_layout(&(struct layout){ 2, { 20 * MiB, 10 * MiB }, 8 * MiB });
}

static void four_devices(void **state)
{
	(void)state;
	check_layout(&(struct layout){ 4, { 10 * MiB, 10 * MiB, 10 * MiB, 10 * MiB },
				       2 * MiB });
	check_layout(&(struct layout){ 4, { 14 * MiB, 14 * MiB, 14 * MiB, 14 * MiB },
				       8 * MiB });
	check_layout(&(struct layout){ 4, { 10 * MiB, 20 * MiB, 8 * MiB, 14 * MiB },
				       2 * MiB });
	check_layout(&(struct layout){ 4, { 20 * MiB, 10 * MiB, 10 * MiB, 14 * MiB },
				       8 * MiB });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_device),
		cmocka_unit_test(two_devices),
		cmocka_unit_test(four_devices),
	};
	char cmd[700];
	int rc;

	/* small devices (at most 56 MiB a layout) in /dev/shm as the unit
	 * tests' (tests/unit/test_util.c); the sparse trees in TMPDIR
	 */
	snprintf(base, sizeof(base), "%s/famfs-ingest-space.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	snprintf(devdir, sizeof(devdir), "%s/famfs-ingest-space.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(base) || !mkdtemp(devdir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", base, devdir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
