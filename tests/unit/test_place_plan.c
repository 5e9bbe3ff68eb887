// SPDX-License-Identifier: Apache-2.0
/* Free space a file can use: statfs's largest file, famfs_place_plan()
 * and famfs_alloc() agree on 1, 2 and 4 devices of equal and unequal
 * sizes, with a small and a large log on device 0. Trees sized at, one
 * unit under and one unit over the placeable space: each the plan passes
 * is placed for real, each it refuses is refused before anything changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#define MiB FAMFS_MiB
#define UNIT FAMFS_UNIT_SIZE
#define MAX_FILES 16384

struct layout {
	unsigned n;
	uint64_t size[4];
	uint64_t log_size;
};

static struct famfs_fs *make_fs(struct tdevs *t, const struct layout *l)
{
	struct famfs_mkfs_opts o = { .log_size = l->log_size, .master_name = "hostA" };
	struct famfs_err e = { 0 };

	tdevs_make(t, l->n, 8 * MiB);
	for (unsigned i = 0; i < l->n; i++) {
		unlink(t->path[i]);
		assert_int_equal(famfs_emul_create(t->path[i], l->size[i], &e), 0);
	}
	if (famfs_mkfs(t->paths, t->n, &o, NULL, &e)) {
		fprintf(stderr, "mkfs: %s\n", e.msg);
		fail();
	}
	return tdevs_open(t, FAMFS_OPEN_MASTER);
}

/* How far the plan gets and how far real allocation gets: the same. */
static void plan_matches_alloc(struct famfs_fs *fs, const uint64_t *sizes,
			       uint64_t n, bool expect_fit)
{
	struct famfs_space before, after;
	struct famfs_place_result res;
	struct famfs_err e = { 0 };
	struct famfs_fmap **m = calloc(n, sizeof(*m));
	uint64_t placed = 0, pack_cursor, hints[FAMFS_MAX_DEVICES];
	int r;

	assert_non_null(m);
	for (unsigned d = 0; d < fs->ndev; d++)
		hints[d] = fs->alloc.dev[d].hint;
	pack_cursor = fs->alloc.pack_cursor;
	famfs_statfs(fs, &before);
	r = famfs_place_plan(fs, sizes, n, NULL, &res, &e);
	famfs_statfs(fs, &after);
	assert_memory_equal(&before, &after, sizeof(before)); /* nothing changed */
	if (r != (expect_fit ? 0 : -ENOSPC))
		fprintf(stderr, "n=%llu first=%llu: %s\n", (unsigned long long)n, (unsigned long long)sizes[0], e.msg);
	assert_int_equal(r, expect_fit ? 0 : -ENOSPC);
	while (placed < n && famfs_alloc(fs, sizes[placed], NULL, &m[placed], &e) == 0)
		placed++;
	assert_int_equal(placed, res.placed);
	if (!expect_fit) {
		assert_int_equal(res.first_failed, placed);
		/* the message adds up: the size, the strips, each device */
		assert_non_null(strstr(e.msg, "strip"));
		assert_non_null(strstr(e.msg, "dev0"));
		assert_null(strstr(e.msg, "bytes free"));
	}
	while (placed-- > 0) {
		famfs_alloc_release(fs, m[placed]);
		free(m[placed]);
	}
	free(m);
	/* a release leaves the allocator's search hints where the
	 * allocations moved them: put them back, so that the next check
	 * starts from the same state as this one
	 */
	for (unsigned d = 0; d < fs->ndev; d++)
		fs->alloc.dev[d].hint = hints[d];
	fs->alloc.pack_cursor = pack_cursor;
	famfs_statfs(fs, &after);
	assert_memory_equal(&before, &after, sizeof(before));
}

/* One file at, one unit under and one unit over the largest file. */
static void largest_file_is_exact(struct famfs_fs *fs)
{
	struct famfs_space s;
	uint64_t sz;

	famfs_statfs(fs, &s);
	assert_true(s.largest_file_bytes > 0);
	assert_true(s.largest_file_bytes <= s.free_bytes);
	sz = s.largest_file_bytes;
	plan_matches_alloc(fs, &sz, 1, true);
	sz = s.largest_file_bytes - UNIT;
	plan_matches_alloc(fs, &sz, 1, true);
	sz = s.largest_file_bytes + UNIT;
	plan_matches_alloc(fs, &sz, 1, false);
	sz = s.largest_file_bytes + 1;  /* even one byte more needs a unit */
	plan_matches_alloc(fs, &sz, 1, false);
}

/* A tree of k equal files, k the most the plan places, then k + 1. */
static void tree_at_and_over(struct famfs_fs *fs, uint64_t each)
{
	struct famfs_place_result res;
	struct famfs_err e = { 0 };
	uint64_t *sizes = malloc(MAX_FILES * sizeof(*sizes));
	uint64_t k;

	assert_non_null(sizes);
	for (k = 0; k < MAX_FILES; k++)
		sizes[k] = each;
	assert_int_equal(famfs_place_plan(fs, sizes, MAX_FILES, NULL, &res, &e),
			 -ENOSPC);
	k = res.placed;
	assert_true(k > 0);
	plan_matches_alloc(fs, sizes, k, true);
	if (k > 1)
		plan_matches_alloc(fs, sizes, k - 1, true);
	plan_matches_alloc(fs, sizes, k + 1, false);
	free(sizes);
}

/* Largest first, then ever smaller files: the order ingest copies in. */
static void mixed_tree(struct famfs_fs *fs)
{
	struct famfs_space s;
	uint64_t sizes[64];
	unsigned n = 0;

	famfs_statfs(fs, &s);
	for (uint64_t sz = s.largest_file_bytes / 2; sz >= 4096 && n < 64; sz /= 3)
		sizes[n++] = sz;
	sizes[n++] = s.free_bytes; /* and then one too many */
	plan_matches_alloc(fs, sizes, n - 1, true);
	plan_matches_alloc(fs, sizes, n, false);
}

static void check_fs(struct famfs_fs *fs)
{
	largest_file_is_exact(fs);
	tree_at_and_over(fs, 5 * MiB);
	tree_at_and_over(fs, 17 * MiB);
	tree_at_and_over(fs, 64 * 1024);
	mixed_tree(fs);
}

static void check_layout(const struct layout *l)
{
	struct tdevs t;
	struct famfs_fs *fs = make_fs(&t, l);

	check_fs(fs);
	famfs_close(fs);
	tdevs_remove(&t);
}

static void one_device(void **state)
{
	(void)state;
	check_layout(&(struct layout){ 1, { 64 * MiB }, 2 * MiB });
	check_layout(&(struct layout){ 1, { 64 * MiB }, 16 * MiB });
}

static void two_devices_equal_and_unequal(void **state)
{
	(void)state;
	check_layout(&(struct layout){ 2, { 64 * MiB, 64 * MiB }, 2 * MiB });
	check_layout(&(struct layout){ 2, { 64 * MiB, 64 * MiB }, 16 * MiB });
	check_layout(&(struct layout){ 2, { 48 * MiB, 96 * MiB }, 2 * MiB });
	check_layout(&(struct layout){ 2, { 96 * MiB, 48 * MiB }, 16 * MiB });
}

static void four_devices_equal_and_unequal(void **state)
{
	(void)state;
	check_layout(&(struct layout){ 4, { 32 * MiB, 32 * MiB, 32 * MiB, 32 * MiB },
				       2 * MiB });
	check_layout(&(struct layout){ 4, { 32 * MiB, 32 * MiB, 32 * MiB, 32 * MiB },
				       16 * MiB });
	check_layout(&(struct layout){ 4, { 32 * MiB, 64 * MiB, 24 * MiB, 48 * MiB },
				       2 * MiB });
	check_layout(&(struct layout){ 4, { 64 * MiB, 32 * MiB, 32 * MiB, 40 * MiB },
				       16 * MiB });
}

/* The case: two 256 MiB devices, the default log on device 0. */
static void two_256mib_devices_default_log(void **state)
{
	struct layout l = { 2, { 256 * MiB, 256 * MiB }, 0 };
	struct famfs_err e = { 0 };
	struct famfs_fmap *m = NULL;
	struct famfs_space s;
	struct tdevs t;
	struct famfs_fs *fs;

	(void)state;
	fs = make_fs(&t, &l);
	famfs_statfs(fs, &s);
	assert_int_equal(s.free_bytes, 465567744);      /* 222 units */
	assert_int_equal(s.largest_file_bytes, 380 * MiB);
	assert_int_equal(s.striped_bytes, 380 * MiB);   /* 95 units x 2 */
	assert_int_equal(s.ndev, 2);
	assert_int_equal(s.dev_free_bytes[0], 190 * MiB);
	assert_int_equal(s.dev_free_bytes[1], 254 * MiB);
	assert_int_equal(famfs_alloc(fs, 400 * MiB, NULL, &m, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "a file of 419430400 bytes takes 2 strips "
			       "of 209715200 bytes"));
	assert_non_null(strstr(e.msg, "dev0 199229440, 199229440; dev1 266338304"));
	check_fs(fs);
	famfs_close(fs);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_device),
		cmocka_unit_test(two_devices_equal_and_unequal),
		cmocka_unit_test(four_devices_equal_and_unequal),
		cmocka_unit_test(two_256mib_devices_default_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
