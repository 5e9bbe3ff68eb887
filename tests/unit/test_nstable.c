// SPDX-License-Identifier: Apache-2.0
/*
 * The name table and the appliers' parent cache under churn: removals in
 * the middle of probe runs, a directory removed and made again under the
 * same name, directories sharing a set of the parent cache, and a log
 * replayed after all of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Three directories whose paths fall in one set of the parent cache: two
 * stay cached side by side while entries alternate between them, a third
 * pushes out the one used least recently, a removed one is forgotten, and
 * every file lands in (and replays into) its own directory throughout.
 */
static uint32_t dir_hash(const char *d) { return famfs_hash_name(d, strlen(d), 0); }

static void parent_cache_keeps_two_directories_of_a_set(void **state)
{
	struct famfs_file_attr a = { .size = 10, .mode = 0644 };
	struct famfs_err e = { 0 };
	struct famfs_node *dn[3];
	char d[3][16], p[48];
	int found = 0, k;
	struct famfs_fs *fs;
	struct tdevs t;

	(void)state;
	snprintf(d[0], sizeof(d[0]), "/s0");
	for (int i = 1; found < 2 && i < 1000000; i++) {
		snprintf(d[found + 1], sizeof(d[0]), "/s%d", i);
		if (dir_hash(d[found + 1]) % FAMFS_PCACHE_SETS ==
		    dir_hash(d[0]) % FAMFS_PCACHE_SETS)
			found++;
	}
	assert_int_equal(found, 2);

	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	for (k = 0; k < 3; k++) {
		assert_int_equal(famfs_mkdir(fs, d[k], 0755, 0, 0, &e), 0);
		dn[k] = famfs_lookup(fs, d[k]);
		assert_non_null(dn[k]);
	}
	for (int i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), "%s/x%d", d[i % 2], i);
		assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
		/* the direct-mapped cache held one of the two */
		assert_ptr_equal(famfs_pcache_hint(fs, dir_hash(d[0])), dn[0]);
		if (i > 0)
			assert_ptr_equal(famfs_pcache_hint(fs, dir_hash(d[1])), dn[1]);
	}
	/* last used: d[1] (i = 19); d[2] pushes out d[0] */
	snprintf(p, sizeof(p), "%s/y", d[2]);
	assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
	assert_null(famfs_pcache_hint(fs, dir_hash(d[0])));
	assert_ptr_equal(famfs_pcache_hint(fs, dir_hash(d[1])), dn[1]);
	assert_ptr_equal(famfs_pcache_hint(fs, dir_hash(d[2])), dn[2]);
	snprintf(p, sizeof(p), "%s/z", d[0]);
	assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
	assert_ptr_equal(famfs_node_parent(famfs_lookup(fs, p)), dn[0]);

	/* d[1] emptied and removed: forgotten, a create under it fails */
	for (int i = 1; i < 20; i += 2) {
		snprintf(p, sizeof(p), "%s/x%d", d[1], i);
		assert_int_equal(famfs_unlink(fs, p, &e), 0);
	}
	assert_int_equal(famfs_unlink(fs, d[1], &e), 0);
	assert_null(famfs_pcache_hint(fs, dir_hash(d[1])));
	snprintf(p, sizeof(p), "%s/w", d[1]);
	assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), -ENOENT);
	famfs_close(fs);

	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	for (int i = 0; i < 20; i += 2) {
		snprintf(p, sizeof(p), "%s/x%d", d[0], i);
		struct famfs_node *f = famfs_lookup(fs, p);

		assert_non_null(f);
		assert_ptr_equal(famfs_node_parent(f), famfs_lookup(fs, d[0]));
		snprintf(p, sizeof(p), "%s/x%d", d[1], i + 1);
		assert_null(famfs_lookup(fs, p));
	}
	assert_null(famfs_lookup(fs, d[1]));
	snprintf(p, sizeof(p), "%s/y", d[2]);
	assert_ptr_equal(famfs_node_parent(famfs_lookup(fs, p)), famfs_lookup(fs, d[2]));
	snprintf(p, sizeof(p), "%s/z", d[0]);
	assert_ptr_equal(famfs_node_parent(famfs_lookup(fs, p)), famfs_lookup(fs, d[0]));
	famfs_close(fs);
	tdevs_remove(&t);
}

/* The word-at-a-time hash reads a name's last 1-7 bytes with overlapping
 * loads: every byte of every length (1..40, across the 4- and 8-byte
 * steps) must count, the length and the parent too, and the low bits
 * (the home slot) must spread the bench's names like the bits above.
 */
static void name_hash_uses_every_byte(void **state)
{
	static uint32_t buckets[1 << 12];
	char name[48], flipped[48];
	uint32_t maxb = 0;

	(void)state;
	for (size_t len = 1; len <= 40; len++) {
		for (size_t i = 0; i < len; i++)
			name[i] = (char)('a' + (i * 7 + len) % 26);
		uint32_t h = famfs_hash_name(name, len, 7);

		assert_int_not_equal(h, famfs_hash_name(name, len, 8));
		assert_int_not_equal(h, famfs_hash_name(name, len - 1, 7));
		for (size_t i = 0; i < len; i++) {
			memcpy(flipped, name, len);
			flipped[i] ^= 0x01;
			assert_int_not_equal(h, famfs_hash_name(flipped, len, 7));
			flipped[i] ^= 0x41;
			assert_int_not_equal(h, famfs_hash_name(flipped, len, 7));
		}
	}
	/* 1,000 directories of 100 files: 100,000 names in 4,096 buckets
	 * (24.4 on average) by the low 12 bits; a hash that left them to a
	 * few input bytes would pile up far beyond twice the average
	 */
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(name, sizeof(name), "f%07d", i);
		uint32_t b = famfs_hash_name(name, (size_t)n, 2 + (uint64_t)(i % 1000)) &
			     (ARRAY_SIZE(buckets) - 1);

		if (++buckets[b] > maxb)
			maxb = buckets[b];
	}
	assert_true(maxb < 2 * 100000 / ARRAY_SIZE(buckets));
}

/* The node arena hands out 2 MiB chunks of 32 MiB slabs (arena.c): blocks
 * of every size across several slabs are 8-byte aligned, inside 48 bits
 * (the name table's pointers), never overlap, and a freed block is what
 * the next allocation of its size class gets.
 */
#define ARENA_BLOCKS 40000

static size_t arena_size(int i)
{
	return 1 + (size_t)(i * 2654435761u % FAMFS_ARENA_MAX); /* 1-4096 */
}

static void arena_blocks_span_slabs_and_are_reused(void **state)
{
	struct famfs_arena a;
	uint8_t **b = calloc(ARENA_BLOCKS, sizeof(*b));
	uint64_t total = 0;

	(void)state;
	assert_non_null(b);
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < ARENA_BLOCKS; i++) {
		b[i] = famfs_arena_alloc(&a, arena_size(i));
		assert_non_null(b[i]);
		assert_int_equal((uintptr_t)b[i] % 8, 0);
		assert_int_equal(((uintptr_t)b[i] + arena_size(i) - 1) >>
				 FAMFS_SLOT_PTR_BITS, 0);
		memset(b[i], i & 0xff, arena_size(i));
		total += arena_size(i);
	}
	assert_true(total > 2 * 32 * FAMFS_MiB); /* more than two slabs */
	assert_null(famfs_arena_alloc(&a, FAMFS_ARENA_MAX + 1));
	for (int i = 0; i < ARENA_BLOCKS; i++)
		for (size_t k = 0; k < arena_size(i); k++)
			if (b[i][k] != (uint8_t)i)
				fail_msg("block %d byte %zu overwritten", i, k);
	/* freed blocks come back, the last freed first, by size class */
	for (int i = 0; i < ARENA_BLOCKS; i += 3)
		famfs_arena_free(&a, b[i], arena_size(i));
	for (int i = ARENA_BLOCKS - 1 - (ARENA_BLOCKS - 1) % 3; i >= 0; i -= 3) {
		uint8_t *p = famfs_arena_alloc(&a, arena_size(i));

		/* in descending order, the last freed block of the class
		 * still on its list is this very one
		 */
		assert_ptr_equal(p, b[i]);
		memset(p, i & 0xff, arena_size(i));
	}
	for (int i = 0; i < ARENA_BLOCKS; i++)
		for (size_t k = 0; k < arena_size(i); k++)
			if (b[i][k] != (uint8_t)i)
				fail_msg("block %d byte %zu overwritten after reuse", i, k);
	famfs_arena_destroy(&a);
	assert_null(a.chunks);
	free(b);
}

/* More directories than the parent cache's fewest sets hold: the cache
 * grows (four sets a directory), keeps what it knew, and after renames
 * and removals of directories used in turn, every file still lands in,
 * and replays into, its own directory; the name table, sized from the
 * committed-tail record at the reopen, grows again past 3/4 full.
 */
#define GROW_DIRS 1500
#define GROW_ROUNDS 3

static void grow_name(char *p, size_t len, int d, int i, bool renamed)
{
	snprintf(p, len, "/%s%04d/f%d", renamed ? "r" : "g", d, i);
}

static void parent_cache_grows_with_directories(void **state)
{
	struct famfs_file_attr a = { .size = 8, .mode = 0644 };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	uint64_t sets0, slots, made;
	struct tdevs t;
	char p[64], q[64];
	int hits = 0;

	(void)state;
	tdevs_make(&t, 1, 256 * FAMFS_MiB);
	tdevs_mkfs(&t, 8 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	for (int d = 0; d < GROW_DIRS; d++) {
		snprintf(p, sizeof(p), "/g%04d", d);
		assert_int_equal(famfs_mkdir(fs, p, 0755, 0, 0, &e), 0);
	}
	for (int r = 0; r < GROW_ROUNDS; r++)
		for (int d = 0; d < GROW_DIRS; d++) {
			grow_name(p, sizeof(p), d, r * GROW_DIRS + d, false);
			assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
		}
	sets0 = fs->pcache.mask + 1;
	assert_true(sets0 >= 4 * GROW_DIRS);
	/* used in turn, nearly every directory is still cached */
	for (int d = 0; d < GROW_DIRS; d++) {
		snprintf(p, sizeof(p), "/g%04d", d);
		if (famfs_pcache_hint(fs, famfs_hash_name(p, strlen(p), 0)) ==
		    famfs_lookup(fs, p))
			hits++;
	}
	assert_true(hits > GROW_DIRS * 9 / 10);

	/* every 5th directory renamed, every 7th emptied and removed */
	for (int d = 0; d < GROW_DIRS; d += 5) {
		snprintf(p, sizeof(p), "/g%04d", d);
		snprintf(q, sizeof(q), "/r%04d", d);
		assert_int_equal(famfs_rename(fs, p, q, 0, &e), 0);
	}
	for (int d = 0; d < GROW_DIRS; d += 7) {
		bool ren = d % 5 == 0;

		for (int r = 0; r < GROW_ROUNDS; r++) {
			grow_name(p, sizeof(p), d, r * GROW_DIRS + d, ren);
			assert_int_equal(famfs_unlink(fs, p, &e), 0);
		}
		snprintf(p, sizeof(p), "/%s%04d", ren ? "r" : "g", d);
		assert_int_equal(famfs_unlink(fs, p, &e), 0);
		assert_null(famfs_pcache_hint(fs, famfs_hash_name(p, strlen(p), 0)));
		snprintf(p, sizeof(p), "/%s%04d/late", ren ? "r" : "g", d);
		assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), -ENOENT);
	}
	/* the old name of a renamed directory is no way in */
	assert_int_equal(famfs_create_file(fs, "/g0005/late", &a, NULL, NULL, &e),
			 -ENOENT);
	assert_int_equal(famfs_create_file(fs, "/r0005/late", &a, NULL, NULL, &e), 0);
	famfs_close(fs);

	/* a client replays it all: the tables start at the record's size */
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	slots = fs->names.mask + 1;
	assert_true(fs->names.count * 4 <= slots * 3);
	for (int d = 0; d < GROW_DIRS; d++) {
		bool ren = d % 5 == 0, gone = d % 7 == 0;

		snprintf(q, sizeof(q), "/%s%04d", ren ? "r" : "g", d);
		for (int r = 0; r < GROW_ROUNDS; r++) {
			struct famfs_node *f;

			grow_name(p, sizeof(p), d, r * GROW_DIRS + d, ren);
			f = famfs_lookup(fs, p);
			if (gone) {
				assert_null(f);
			} else {
				assert_non_null(f);
				assert_ptr_equal(famfs_node_parent(f), famfs_lookup(fs, q));
			}
			grow_name(p, sizeof(p), d, r * GROW_DIRS + d, !ren);
			assert_null(famfs_lookup(fs, p));
		}
	}
	/* creates past 3/4 of the replayed table: it grows, all resolve */
	for (made = 0; fs->names.mask + 1 == slots; made++) {
		snprintf(p, sizeof(p), "/g0001/m%llu", (unsigned long long)made);
		assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
	}
	assert_true(fs->names.mask + 1 == 2 * slots);
	assert_true(made > 1000);
	for (uint64_t i = 0; i <= made; i += 97) {
		snprintf(p, sizeof(p), "/g0001/m%llu", (unsigned long long)i);
		assert_true((famfs_lookup(fs, p) != NULL) == (i < made));
	}
	snprintf(p, sizeof(p), "/g0001/m%llu", (unsigned long long)made - 1);
	assert_non_null(famfs_lookup(fs, p));
	for (uint64_t i = 0; i < made; i += 2) {
		snprintf(p, sizeof(p), "/g0001/m%llu", (unsigned long long)i);
		assert_int_equal(famfs_unlink(fs, p, &e), 0);
	}
	for (uint64_t i = 0; i < made; i++) {
		snprintf(p, sizeof(p), "/g0001/m%llu", (unsigned long long)i);
		assert_true((famfs_lookup(fs, p) != NULL) == (i % 2 == 1));
	}
	famfs_close(fs);
	tdevs_remove(&t);
}

/* 70,100 directories, more than the parent cache's largest size holds
 * at four sets each: a replay builds the same tree (every directory, in
 * its parent, by inode), and the tree keeps changing after it.
 */
#define MANY_TOP 100
#define MANY_SUB 700

static void large_replay_of_many_directories(void **state)
{
	struct famfs_file_attr a = { .size = 8, .mode = 0644 };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	struct tdevs t;
	char p[64];

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 16 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	for (int i = 0; i < MANY_TOP; i++) {
		snprintf(p, sizeof(p), "/t%03d", i);
		assert_int_equal(famfs_mkdir(fs, p, 0755, 0, 0, &e), 0);
	}
	for (int j = 0; j < MANY_SUB; j++)
		for (int i = 0; i < MANY_TOP; i++) {
			snprintf(p, sizeof(p), "/t%03d/s%04d", i, j);
			assert_int_equal(famfs_mkdir(fs, p, 0755, 0, 0, &e), 0);
		}
	famfs_close(fs);

	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(fs->pcache.mask + 1, FAMFS_PCACHE_SETS_MAX);
	assert_int_equal(fs->ndirs, MANY_TOP * (MANY_SUB + 1));
	for (int j = 0; j < MANY_SUB; j++)
		for (int i = 0; i < MANY_TOP; i++) {
			struct famfs_node *n;

			snprintf(p, sizeof(p), "/t%03d/s%04d", i, j);
			n = famfs_lookup(fs, p);
			assert_non_null(n);
			assert_true(famfs_node_is_dir(n));
			assert_ptr_equal(famfs_node_by_ino(fs, famfs_node_ino(n)), n);
			snprintf(p, sizeof(p), "/t%03d", i);
			assert_ptr_equal(famfs_node_parent(n), famfs_lookup(fs, p));
		}
	famfs_close(fs);

	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_create_file(fs, "/t007/s0042/x", &a, NULL, NULL, &e), 0);
	assert_int_equal(famfs_unlink(fs, "/t007/s0041", &e), 0);
	assert_int_equal(famfs_rename(fs, "/t007/s0042", "/t008/moved", 0, &e), 0);
	assert_non_null(famfs_lookup(fs, "/t008/moved/x"));
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_non_null(famfs_lookup(fs, "/t008/moved/x"));
	assert_null(famfs_lookup(fs, "/t007/s0041"));
	assert_null(famfs_lookup(fs, "/t007/s0042"));
	famfs_close(fs);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_table_survives_removals_and_replay),
		cmocka_unit_test(parent_cache_follows_a_recreated_directory),
		cmocka_unit_test(parent_cache_keeps_two_directories_of_a_set),
		cmocka_unit_test(parent_cache_grows_with_directories),
		cmocka_unit_test(large_replay_of_many_directories),
		cmocka_unit_test(name_hash_uses_every_byte),
		cmocka_unit_test(arena_blocks_span_slabs_and_are_reused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
