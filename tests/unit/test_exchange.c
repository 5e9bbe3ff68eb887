// SPDX-License-Identifier: Apache-2.0
/*
 * EXCHANGE entries (format 1.5): two names swap their nodes in one entry
 * (a dataset's new generation takes its path), on the master and on
 * every reader; bad requests change nothing; every flipped byte and torn
 * cut is ignored; a CRC-valid exchange that cannot apply is skipped and
 * reported by fsck. And famfs_remove_tree(): a whole retired tree goes in
 * bounded BATCHes of deletes, and a file of it that a client still holds
 * keeps its bytes until released; only then is its space reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

static bool data_is(struct famfs_fs *fs, const struct famfs_fmap *m,
		    size_t len, uint64_t seed)
{
	uint8_t *got = malloc(len), *want = malloc(len);
	bool same;

	assert_non_null(got);
	assert_non_null(want);
	fill_pattern(want, len, seed);
	same = famfs_read(fs, m, len, 0, got, len) == (int64_t)len &&
	       !memcmp(got, want, len);
	free(got);
	free(want);
	return same;
}

/* The first @len bytes of @path are pattern @seed. */
static void assert_data(struct famfs_fs *fs, const char *path, size_t len,
			uint64_t seed)
{
	struct famfs_node *n = famfs_lookup(fs, path);

	if (!n)
		fail_msg("%s: missing", path);
	if (!data_is(fs, famfs_node_map(n), len, seed))
		fail_msg("%s: not pattern %llu", path, (unsigned long long)seed);
}

static void make_file(struct famfs_fs *fs, const char *path, size_t len,
		      uint64_t seed)
{
	struct famfs_file_attr a = { .size = len, .mode = 0644 };
	struct famfs_err e = { 0 };
	uint8_t *data = malloc(len);

	assert_non_null(data);
	fill_pattern(data, len, seed);
	if (famfs_create_file(fs, path, &a, NULL, data, &e))
		fail_msg("%s: %s", path, e.msg);
	free(data);
}

/* Generation @gen of a dataset at @top: a/f (gen seed), a/b/g, x, a
 * symlink l.
 */
static void make_gen(struct famfs_fs *fs, const char *top, unsigned gen)
{
	struct famfs_err e = { 0 };
	char p[256];

	assert_int_equal(famfs_mkdir(fs, top, 0755, 0, 0, &e), 0);
	snprintf(p, sizeof(p), "%s/a", top);
	assert_int_equal(famfs_mkdir(fs, p, 0755, 0, 0, &e), 0);
	snprintf(p, sizeof(p), "%s/a/b", top);
	assert_int_equal(famfs_mkdir(fs, p, 0755, 0, 0, &e), 0);
	snprintf(p, sizeof(p), "%s/a/f", top);
	make_file(fs, p, 5000 + gen, 10 * gen + 1);
	snprintf(p, sizeof(p), "%s/a/b/g", top);
	make_file(fs, p, 3000 + gen, 10 * gen + 2);
	snprintf(p, sizeof(p), "%s/x", top);
	make_file(fs, p, 300000 + gen, 10 * gen + 3);
	snprintf(p, sizeof(p), "%s/l", top);
	assert_int_equal(famfs_symlink(fs, p, gen == 1 ? "a/f" : "a/b/g", 0, 0,
				       0, &e), 0);
}

/* @top holds generation @gen, whole. */
static void assert_gen(struct famfs_fs *fs, const char *top, unsigned gen)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/a/f", top);
	assert_data(fs, p, 5000 + gen, 10 * gen + 1);
	snprintf(p, sizeof(p), "%s/a/b/g", top);
	assert_data(fs, p, 3000 + gen, 10 * gen + 2);
	snprintf(p, sizeof(p), "%s/x", top);
	assert_data(fs, p, 300000 + gen, 10 * gen + 3);
	snprintf(p, sizeof(p), "%s/l", top);
	assert_string_equal(famfs_node_target(famfs_lookup(fs, p)),
			    gen == 1 ? "a/f" : "a/b/g");
}

static void exchange_swaps_and_replays(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs, *cl;
	struct famfs_err e = { 0 };
	uint64_t demo_ino, stage_ino, file_ino, seq;
	struct famfs_node *held_dir;
	struct famfs_attr a;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_gen(fs, "/demo", 1);
	assert_int_equal(famfs_mkdir(fs, "/.staging", 0755, 0, 0, &e), 0);
	make_gen(fs, "/.staging/demo.2-a-longer-name-than-demo", 2);
	make_file(fs, "/lonely", 100, 7);
	cl = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	/* the client walks into generation 1 before the switch */
	held_dir = famfs_lookup(cl, "/demo/a");
	assert_non_null(held_dir);
	demo_ino = tnode_ino(fs, "/demo");
	stage_ino = tnode_ino(fs, "/.staging/demo.2-a-longer-name-than-demo");
	file_ino = tnode_ino(fs, "/lonely");

	assert_int_equal(famfs_rename(fs, "/.staging/demo.2-a-longer-name-than-demo",
				      "/demo", FAMFS_RENAME_EXCHANGE, &e), 0);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 5);
	/* a file and a directory swap too, and back (short names again) */
	assert_int_equal(famfs_rename(fs, "/lonely", "/demo/a",
				      FAMFS_RENAME_EXCHANGE, &e), 0);
	assert_int_equal(tnode_ino(fs, "/demo/a"), file_ino);
	assert_int_equal(famfs_rename(fs, "/demo/a", "/lonely",
				      FAMFS_RENAME_EXCHANGE, &e), 0);
	seq = fs->last_seq;

	static const struct { const char *a, *b; unsigned flags; int err;
			      const char *why; } bad[] = {
		{ "/nope", "/demo", FAMFS_RENAME_EXCHANGE, -ENOENT, "/nope" },
		{ "/demo", "/nope", FAMFS_RENAME_EXCHANGE, -ENOENT, "/nope" },
		{ "/demo", "/demo/a/b", FAMFS_RENAME_EXCHANGE, -EINVAL, "holds" },
		{ "/demo/a/b", "/demo", FAMFS_RENAME_EXCHANGE, -EINVAL, "holds" },
		{ "/", "/demo", FAMFS_RENAME_EXCHANGE, -EBUSY, "root" },
		{ "/demo", "/", FAMFS_RENAME_EXCHANGE, -EBUSY, "root" },
		{ "/demo", "/lonely", FAMFS_RENAME_EXCHANGE |
		  FAMFS_RENAME_NOREPLACE, -EINVAL, "exclude" },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(famfs_rename(fs, bad[i].a, bad[i].b,
					      bad[i].flags, &e), bad[i].err);
		if (!strstr(e.msg, bad[i].why))
			fail_msg("%s <-> %s: '%s' lacks '%s'", bad[i].a,
				 bad[i].b, e.msg, bad[i].why);
	}
	/* the same node twice: rename(2) succeeds, nothing is appended */
	assert_int_equal(famfs_rename(fs, "/demo", "//demo/", FAMFS_RENAME_EXCHANGE,
				      &e), 0);
	assert_int_equal(fs->last_seq, seq);
	assert_int_equal(famfs_rename(cl, "/demo", "/lonely",
				      FAMFS_RENAME_EXCHANGE, &e), -EROFS);

	assert_int_equal(famfs_replay(cl, &e), 3);
	/* the node the client walked into is generation 1, now elsewhere */
	famfs_node_attr(held_dir, &a);
	assert_int_equal(famfs_node_parent(held_dir) ==
			 famfs_lookup(cl, "/.staging/demo.2-a-longer-name-than-demo"),
			 true);
	for (int pass = 0; pass < 3; pass++) {
		struct famfs_fs *v = pass == 0 ? fs : pass == 1 ? cl :
				     tdevs_open(&t, FAMFS_OPEN_READ);
		struct famfs_log_status st;

		assert_int_equal(tnode_ino(v, "/demo"), stage_ino);
		assert_int_equal(tnode_ino(v, "/.staging/demo.2-a-longer-name-than-demo"),
				 demo_ino);
		assert_int_equal(tnode_ino(v, "/lonely"), file_ino);
		assert_gen(v, "/demo", 2);
		assert_gen(v, "/.staging/demo.2-a-longer-name-than-demo", 1);
		famfs_log_status(v, &st);
		assert_int_equal(st.skipped, 0);
		if (pass == 2)
			famfs_close(v);
	}
	famfs_close(cl);
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

static void check_exchange(struct famfs_fs *fs, bool applied, void *arg)
{
	struct famfs_log_status st;

	(void)arg;
	famfs_log_status(fs, &st);
	assert_int_equal(st.skipped, 0);
	assert_gen(fs, "/demo", applied ? 2 : 1);
	assert_gen(fs, "/next", applied ? 1 : 2);
}

static void exchange_flipped_and_torn_are_ignored(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	uint64_t off;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_gen(fs, "/demo", 1);
	make_gen(fs, "/next", 2);
	off = fs->tail;
	assert_int_equal(famfs_rename(fs, "/next", "/demo", FAMFS_RENAME_EXCHANGE,
				      &e), 0);
	tlog_damage_each(&t, off, (uint32_t)(fs->tail - off), check_exchange,
			 NULL);
	famfs_close(fs);
	tdevs_remove(&t);
}

/* A CRC-valid EXCHANGE that cannot apply is skipped; fsck names it. */
static void forge_exchange(struct famfs_fs *fs,
			   const struct famfs_entry_exchange *x,
			   const char *pa, const char *pb)
{
	uint8_t *dst = fs->log + fs->tail;
	struct famfs_entry_hdr h = { .magic = FAMFS_ENTRY_MAGIC,
				     .seq = fs->last_seq + 1, .fs_tag = fs->fs_tag,
				     .type = FAMFS_ENTRY_EXCHANGE };
	struct famfs_entry_exchange b = *x;

	b.a_len = (uint16_t)strlen(pa);
	b.b_len = (uint16_t)strlen(pb);
	h.len = (uint32_t)ROUND_UP(sizeof(h) + sizeof(b) + b.a_len + b.b_len, 8);
	memset(dst, 0, h.len);
	memcpy(dst + sizeof(h), &b, sizeof(b));
	memcpy(dst + sizeof(h) + sizeof(b), pa, b.a_len);
	memcpy(dst + sizeof(h) + sizeof(b) + b.a_len, pb, b.b_len);
	memcpy(dst, &h, sizeof(h));
	h.crc = famfs_crc32c(0, dst, h.len);
	memcpy(dst, &h, sizeof(h));
}

static void exchange_that_cannot_apply_is_skipped(void **state)
{
	/* seqs of make_gen: 1 /demo, 2 /demo/a, 3 /demo/a/b, 4 a/f, 5 a/b/g,
	 * 6 x, 7 l; then /next: 8 .. 14
	 */
	static const struct { uint64_t a, b; uint32_t reserved;
			      const char *pa, *pb, *why; } bad[] = {
		{ 77, 8, 0, "/demo", "/next", "is not live" },
		{ 1, 77, 0, "/demo", "/next", "is not live" },
		{ 1, 8, 0, "/demo/a", "/next", "is not there" },
		{ 1, 8, 0, "/demo", "/next/a", "is not there" },
		{ 1, 1, 0, "/demo", "/demo", "itself" },
		{ 1, 3, 0, "/demo", "/demo/a/b", "holds the other" },
		{ 3, 1, 0, "/demo/a/b", "/demo", "holds the other" },
		{ 0, 8, 0, "/", "/next", "is not live" },
		{ 1, 8, 1, "/demo", "/next", "reserved" },
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		struct tdevs t;
		struct famfs_fs *fs;
		struct famfs_log_status st;
		struct famfs_entry_exchange x = { .a_seq = bad[i].a,
						  .b_seq = bad[i].b,
						  .reserved = bad[i].reserved };

		tdevs_make(&t, 1, 64 * FAMFS_MiB);
		tdevs_mkfs(&t, 4 * FAMFS_MiB);
		fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
		make_gen(fs, "/demo", 1);
		make_gen(fs, "/next", 2);
		assert_int_equal(tnode_ino(fs, "/next"), FAMFS_ROOT_INO + 8);
		forge_exchange(fs, &x, bad[i].pa, bad[i].pb);
		famfs_close(fs);
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.entries, 15);
		if (st.skipped != 1)
			fail_msg("case %u: applied", i);
		if (!strstr(st.skip_reason, bad[i].why))
			fail_msg("case %u: '%s' lacks '%s'", i, st.skip_reason,
				 bad[i].why);
		assert_gen(fs, "/demo", 1);
		assert_gen(fs, "/next", 2);
		famfs_close(fs);
		assert_int_equal(tdevs_fsck_errors(&t, NULL), 1);
		tdevs_remove(&t);
	}
}

/* A 1.0 filesystem becomes 1.5 at its first exchange. */
static void format_1_0_is_raised_to_1_5_by_an_exchange(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_load_format_1_0(&t);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 0);
	assert_int_equal(famfs_mkdir(fs, "/other", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_rename(fs, "/dir", "/other",
				      FAMFS_RENAME_EXCHANGE, &e), 0);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 5);
	assert_non_null(famfs_lookup(fs, "/other/hello"));
	assert_null(famfs_lookup(fs, "/dir/hello"));
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

static void remove_tree_refuses_bad_requests(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs, *cl;
	struct famfs_err e = { 0 };
	uint64_t seq;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_gen(fs, "/demo", 1);
	cl = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	seq = fs->last_seq;
	assert_int_equal(famfs_remove_tree(fs, "/nope", &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/nope"));
	assert_int_equal(famfs_remove_tree(fs, "/", &e), -EBUSY);
	assert_int_equal(famfs_remove_tree(fs, "relative/../x", &e), -EINVAL);
	assert_int_equal(famfs_remove_tree(cl, "/demo", &e), -EROFS);
	assert_int_equal(fs->last_seq, seq);
	/* a file alone, then the rest */
	assert_int_equal(famfs_remove_tree(fs, "/demo/x", &e), 1);
	assert_int_equal(famfs_remove_tree(fs, "/demo", &e), 6);
	assert_null(famfs_lookup(fs, "/demo"));
	assert_int_equal(famfs_replay(cl, &e), 2);
	assert_null(famfs_lookup(cl, "/demo"));
	famfs_close(cl);
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

/*
 * A retired generation of 2,600 files in 52 directories (three batches)
 * goes while a client holds one of its files (open or mapped: what FUSE
 * and the kernel module report as HELD): the held file keeps its bytes
 * and its space until the client lets go; the rest is reused once the
 * client replayed the deletes.
 */
static void removed_tree_waits_for_its_holder(void **state)
{
	struct tdevs t;
	struct famfs_fs *m, *c, *r;
	struct famfs_err e = { 0 };
	struct famfs_file_attr big = { .size = 4 * FAMFS_MiB, .mode = 0644 };
	struct famfs_space sp;
	struct famfs_node *held;
	const struct famfs_fmap *hm;
	int64_t removed;
	int nfill = 0;
	char p[64];

	(void)state;
	tdevs_make(&t, 1, 48 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	m = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_mkdir(m, "/old", 0755, 0, 0, &e), 0);
	make_file(m, "/old/held", 4 * FAMFS_MiB, 9);
	for (int d = 0; d < 52; d++) {
		snprintf(p, sizeof(p), "/old/d%d", d);
		assert_int_equal(famfs_mkdir(m, p, 0755, 0, 0, &e), 0);
		for (int f = 0; f < 50; f++) {
			struct famfs_file_attr a = { .size = 0, .mode = 0644 };

			snprintf(p, sizeof(p), "/old/d%d/f%d", d, f);
			assert_int_equal(famfs_create_file(m, p, &a, NULL, NULL,
							   &e), 0);
		}
	}
	make_file(m, "/old/d0/small", 4 * FAMFS_MiB, 4);
	while (!famfs_create_file(m, (snprintf(p, sizeof(p), "/fill%d", nfill), p),
				  &big, NULL, NULL, &e))
		nfill++;
	c = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	held = famfs_lookup_hold(c, 0, "/old/held", FAMFS_HOLD_FILE);
	assert_non_null(held);
	hm = famfs_node_map(held);

	removed = famfs_remove_tree(m, "/old", &e);
	assert_int_equal(removed, 1 + 1 + 52 + 52 * 50 + 1);
	assert_null(famfs_lookup(m, "/old"));
	/* nothing is reused before the client replayed */
	famfs_statfs(m, &sp);
	assert_int_equal(sp.pending_bytes, 8 * FAMFS_MiB);
	assert_int_equal(famfs_create_file(m, "/new", &big, NULL, NULL, &e),
			 -ENOSPC);
	assert_int_equal(famfs_replay(c, &e), 3);
	assert_null(famfs_lookup(c, "/old"));
	/* the held file reads its bytes; the rest is reused */
	assert_true(data_is(c, hm, 4 * FAMFS_MiB, 9));
	assert_int_equal(famfs_create_file(m, "/new", &big, NULL, NULL, &e), 0);
	assert_int_equal(famfs_create_file(m, "/new2", &big, NULL, NULL, &e),
			 -ENOSPC);
	assert_true(data_is(c, hm, 4 * FAMFS_MiB, 9));
	famfs_statfs(m, &sp);
	assert_int_equal(sp.pending_bytes, 4 * FAMFS_MiB);
	/* let go: its space is next */
	famfs_node_release(c, held);
	assert_int_equal(famfs_create_file(m, "/new2", &big, NULL, NULL, &e), 0);
	famfs_statfs(m, &sp);
	assert_int_equal(sp.pending_bytes, 0);
	famfs_close(c);
	famfs_close(m);
	r = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_null(famfs_lookup(r, "/old"));
	assert_non_null(famfs_lookup(r, "/new2"));
	famfs_close(r);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exchange_swaps_and_replays),
		cmocka_unit_test(exchange_flipped_and_torn_are_ignored),
		cmocka_unit_test(exchange_that_cannot_apply_is_skipped),
		cmocka_unit_test(format_1_0_is_raised_to_1_5_by_an_exchange),
		cmocka_unit_test(remove_tree_refuses_bad_requests),
		cmocka_unit_test(removed_tree_waits_for_its_holder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
