// SPDX-License-Identifier: Apache-2.0
/*
 * The name table and the appliers' parent cache under churn: removals in
 * the middle of probe runs, a directory removed and made again under the
 * same name, and a log replayed after all of it; the arena handing over
 * the chunks its prefault thread made.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "test_util.h"

#define NDIRS 40
#define NFILES 3000

static void name(char *p, size_t len, int i)
{
	snprintf(p, len, "/d%02d/f%05d", i % NDIRS, i);
}

/* Every name that should be there is found, every other is not. */
static void check_names(struct famfs_fs *fs, const bool *live)
{
	char p[64];

	for (int i = 0; i < NFILES; i++) {
		struct famfs_node *n;

		name(p, sizeof(p), i);
		n = famfs_lookup(fs, p);
		if (live[i]) {
			assert_non_null(n);
			assert_ptr_equal(famfs_node_by_ino(fs, famfs_node_ino(n)), n);
		} else {
			assert_null(n);
		}
	}
}

static void name_table_survives_removals_and_replay(void **state)
{
	struct famfs_file_attr a = { .size = 4096, .mode = 0644 };
	struct famfs_err e = { 0 };
	static bool live[NFILES];
	struct famfs_fs *fs;
	struct tdevs t;
	char p[64];

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB); /* a small table: it must grow */
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	for (int d = 0; d < NDIRS; d++) {
		snprintf(p, sizeof(p), "/d%02d", d);
		assert_int_equal(famfs_mkdir(fs, p, 0755, 0, 0, &e), 0);
	}
	for (int i = 0; i < NFILES; i++) {
		name(p, sizeof(p), i);
		a.size = 1 + (uint64_t)(i % 5);
		assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
		live[i] = true;
	}
	/* remove every third: holes in the middle of probe runs */
	for (int i = 0; i < NFILES; i += 3) {
		name(p, sizeof(p), i);
		assert_int_equal(famfs_unlink(fs, p, &e), 0);
		live[i] = false;
	}
	check_names(fs, live);
	/* the same names again: freed blocks are reused, names resolve */
	for (int i = 0; i < NFILES; i += 6) {
		name(p, sizeof(p), i);
		assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
		live[i] = true;
	}
	check_names(fs, live);
	assert_int_equal(famfs_create_file(fs, "/d01/f00001", &a, NULL, NULL, &e),
			 -EEXIST);
	famfs_close(fs);

	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	check_names(fs, live);
	famfs_close(fs);
	tdevs_remove(&t);
}

static void parent_cache_follows_a_recreated_directory(void **state)
{
	struct famfs_file_attr a = { .size = 10, .mode = 0644 };
	struct famfs_err e = { 0 };
	struct famfs_node *new_dir, *f;
	uint64_t old_ino;
	struct famfs_fs *fs;
	struct tdevs t;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_mkdir(fs, "/a", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_mkdir(fs, "/a/b", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_create_file(fs, "/a/b/x", &a, NULL, NULL, &e), 0);
	old_ino = famfs_node_ino(famfs_lookup(fs, "/a/b"));
	assert_int_equal(famfs_unlink(fs, "/a/b/x", &e), 0);
	assert_int_equal(famfs_unlink(fs, "/a/b", &e), 0);
	/* the cached /a/b is gone: a create under it must fail, not land in it */
	assert_int_equal(famfs_create_file(fs, "/a/b/y", &a, NULL, NULL, &e), -ENOENT);
	assert_int_equal(famfs_mkdir(fs, "/a/b", 0700, 0, 0, &e), 0);
	new_dir = famfs_lookup(fs, "/a/b");
	assert_non_null(new_dir);
	assert_true(famfs_node_ino(new_dir) != old_ino);
	assert_int_equal(famfs_create_file(fs, "/a//b/y", &a, NULL, NULL, &e), 0);
	f = famfs_lookup(fs, "/a/b/y");
	assert_non_null(f);
	assert_ptr_equal(famfs_node_parent(f), new_dir);
	/* a file where the cached path had a directory */
	assert_int_equal(famfs_create_file(fs, "/a/c", &a, NULL, NULL, &e), 0);
	assert_int_equal(famfs_create_file(fs, "/a/c/z", &a, NULL, NULL, &e), -ENOENT);
	famfs_close(fs);

	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	f = famfs_lookup(fs, "/a/b/y");
	assert_non_null(f);
	assert_int_equal(famfs_node_parent(f)->mode, 040700);
	assert_null(famfs_lookup(fs, "/a/b/x"));
	famfs_close(fs);
	tdevs_remove(&t);
}

#define BLOCK 4000
#define NBLOCKS (6 * 2 * 1024 * 1024 / BLOCK)  /* six 2 MiB chunks */

static void block_fill(uint8_t *p, unsigned i)
{
	memset(p, (int)(i * 7 + 1), BLOCK);
	memcpy(p, &i, sizeof(i));
}

static bool block_intact(const uint8_t *p, unsigned i)
{
	unsigned got;

	memcpy(&got, p, sizeof(got));
	for (size_t k = sizeof(i); k < BLOCK; k++)
		if (p[k] != (uint8_t)(i * 7 + 1))
			return false;
	return got == i;
}

/* A scan's arena with its prefault thread: chunks made by the thread are
 * used (polled for, with a timeout), blocks never overlap, and after the
 * thread stops its unused chunks still serve allocations.
 */
static void arena_uses_prefaulted_chunks(void **state)
{
	static uint8_t *blocks[NBLOCKS + 64];
	struct famfs_arena a = { 0 };
	unsigned saved = famfs_arena_prefault_after, n = 0;
	struct timespec t0, t;

	(void)state;
	famfs_arena_prefault_after = 0;
	famfs_arena_prefault_begin(&a);
	blocks[n] = famfs_arena_alloc(&a, BLOCK);  /* first chunk: starts it */
	assert_non_null(blocks[n]);
	block_fill(blocks[n], n);
	n++;
	assert_non_null(a.pf);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (famfs_arena_prefault_ready(&a) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		assert_true(t.tv_sec - t0.tv_sec < 30);  /* fails on timeout */
		sched_yield();
	}
	for (; n < NBLOCKS; n++) {
		blocks[n] = famfs_arena_alloc(&a, BLOCK);
		assert_non_null(blocks[n]);
		block_fill(blocks[n], n);
	}
	assert_true(a.prefaulted >= 1);
	famfs_arena_prefault_end(&a);
	assert_null(a.pf);
	for (; n < NBLOCKS + 64; n++) {
		blocks[n] = famfs_arena_alloc(&a, BLOCK);
		assert_non_null(blocks[n]);
		block_fill(blocks[n], n);
	}
	for (unsigned i = 0; i < n; i++)
		assert_true(block_intact(blocks[i], i));
	famfs_arena_destroy(&a);
	famfs_arena_prefault_after = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_table_survives_removals_and_replay),
		cmocka_unit_test(parent_cache_follows_a_recreated_directory),
		cmocka_unit_test(arena_uses_prefaulted_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
