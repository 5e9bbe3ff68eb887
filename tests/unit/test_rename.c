// SPDX-License-Identifier: Apache-2.0
/*
 * RENAME entries (format 1.2): files and directories move with their inode
 * and data, a replaced node is deleted with its space held for the
 * clients, bad requests change nothing, every flipped byte and torn cut is
 * ignored, and a CRC-valid rename that cannot apply is skipped and
 * reported by fsck.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

/* The first @len bytes of @path are pattern @seed. */
static void assert_data(struct famfs_fs *fs, const char *path, size_t len,
			uint64_t seed)
{
	struct famfs_node *n = famfs_lookup(fs, path);
	uint8_t *got = malloc(len), *want = malloc(len);

	assert_non_null(n);
	assert_non_null(got);
	assert_non_null(want);
	fill_pattern(want, len, seed);
	assert_int_equal(famfs_read(fs, famfs_node_map(n), len, 0, got, len),
			 (int64_t)len);
	assert_memory_equal(got, want, len);
	free(got);
	free(want);
}

static void make_file(struct famfs_fs *fs, const char *path, size_t len,
		      uint64_t seed)
{
	struct famfs_file_attr a = { .size = len, .mode = 0644 };
	struct famfs_err e = { 0 };
	uint8_t *data = malloc(len);

	assert_non_null(data);
	fill_pattern(data, len, seed);
	assert_int_equal(famfs_create_file(fs, path, &a, NULL, data, &e), 0);
	free(data);
}

/* /d/f (5000 bytes), /d/sub/g (3000), /x (7000), /empty/ */
static void make_tree(struct famfs_fs *fs)
{
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_mkdir(fs, "/d", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_mkdir(fs, "/d/sub", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_mkdir(fs, "/empty", 0755, 0, 0, &e), 0);
	make_file(fs, "/d/f", 5000, 1);
	make_file(fs, "/d/sub/g", 3000, 2);
	make_file(fs, "/x", 7000, 3);
}

static void rename_moves_and_replays(void **state)
{
	static const char *longname =
		"/a-name-much-longer-than-the-one-the-node-was-created-with";
	struct tdevs t;
	struct famfs_fs *fs, *cl;
	struct famfs_err e = { 0 };
	uint64_t f_ino, sub_ino, seq;
	struct famfs_space sp;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_tree(fs);
	cl = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	f_ino = tnode_ino(fs, "/d/f");
	sub_ino = tnode_ino(fs, "/d/sub");

	/* a longer name (its own memory), back to a short one, then over /x */
	assert_int_equal(famfs_rename(fs, "/d/f", longname, 0, &e), 0);
	assert_int_equal(tnode_ino(fs, longname), f_ino);
	assert_int_equal(famfs_rename(fs, longname, "/d/f2", 0, &e), 0);
	assert_int_equal(famfs_rename(fs, "/d/f2", "/x", 0, &e), 0);
	/* a directory with what it holds */
	assert_int_equal(famfs_rename(fs, "/d/sub", "/empty/moved", 0, &e), 0);
	assert_true(famfs_fs_sb(fs)->format_minor >= 2);
	seq = fs->last_seq;

	/* requests that cannot be done name the path and append nothing */
	static const struct { const char *from, *to; unsigned flags; int err;
			      const char *why; } bad[] = {
		{ "/nope", "/y", 0, -ENOENT, "/nope" },
		{ "/", "/y", 0, -EBUSY, "root" },
		{ "/empty", "/empty/moved/in", 0, -EINVAL, "into itself" },
		{ "/x", "/empty", 0, -EISDIR, "/empty" },
		{ "/empty/moved", "/x", 0, -ENOTDIR, "/x" },
		{ "/d", "/empty", 0, -ENOTEMPTY, "/empty" },
		{ "/x", "/no/such/dir", 0, -ENOENT, "/no/such/dir" },
		{ "/x", "/empty/moved/g", FAMFS_RENAME_NOREPLACE, -EEXIST, "/empty/moved/g" },
		{ "/x", "/y", 0x8, -EINVAL, "flags" },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(famfs_rename(fs, bad[i].from, bad[i].to,
					      bad[i].flags, &e), bad[i].err);
		if (!strstr(e.msg, bad[i].why))
			fail_msg("%s -> %s: '%s' lacks '%s'", bad[i].from,
				 bad[i].to, e.msg, bad[i].why);
	}
	/* rename(2) onto itself succeeds and changes nothing */
	assert_int_equal(famfs_rename(fs, "/x", "/x", 0, &e), 0);
	assert_int_equal(famfs_rename(fs, "/x", "//x/", FAMFS_RENAME_NOREPLACE, &e), 0);
	assert_int_equal(fs->last_seq, seq);
	assert_int_equal(famfs_rename(cl, "/x", "/y", 0, &e), -EROFS);

	/* the old /x waits for the client, which has not replayed yet */
	famfs_statfs(fs, &sp);
	assert_int_equal(sp.pending_bytes, 8192);
	assert_int_equal(famfs_replay(cl, &e), 4);
	for (int pass = 0; pass < 3; pass++) {
		struct famfs_fs *v = pass == 0 ? fs : pass == 1 ? cl :
				     tdevs_open(&t, FAMFS_OPEN_READ);

		assert_null(famfs_lookup(v, "/d/f"));
		assert_null(famfs_lookup(v, longname));
		assert_null(famfs_lookup(v, "/d/f2"));
		assert_null(famfs_lookup(v, "/d/sub"));
		assert_int_equal(tnode_ino(v, "/x"), f_ino);
		assert_int_equal(tnode_ino(v, "/empty/moved"), sub_ino);
		assert_data(v, "/x", 5000, 1);
		assert_data(v, "/empty/moved/g", 3000, 2);
		assert_null(famfs_node_first_child(famfs_lookup(v, "/d")));
		famfs_statfs(v, &sp);
		assert_int_equal(sp.nfiles, 2);
		assert_int_equal(sp.ndirs, 3);
		assert_int_equal(sp.file_bytes, 8000);
		if (pass == 2)
			famfs_close(v);
	}
	famfs_close(cl);
	/* no client left: the replaced file's space is free again */
	assert_int_equal(famfs_rename(fs, "/x", "/d/x", 0, &e), 0);
	famfs_statfs(fs, &sp);
	assert_int_equal(sp.pending_bytes, 0);
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

/* A file replaced while a client holds it open: its space is reused only
 * after the client has replayed the rename and let go (as for a delete).
 */
static void replaced_file_waits_for_its_holder(void **state)
{
	struct tdevs t;
	struct famfs_fs *m, *c;
	struct famfs_err e = { 0 };
	struct famfs_file_attr a = { .size = 4 * FAMFS_MiB, .mode = 0644 };
	struct famfs_node *held;

	(void)state;
	tdevs_make(&t, 1, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	m = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_file(m, "/old", 4 * FAMFS_MiB, 5);
	make_file(m, "/tmp", 4 * FAMFS_MiB, 6);
	for (int i = 0; ; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/fill%d", i);
		if (famfs_create_file(m, p, &a, NULL, NULL, &e))
			break;
	}
	c = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	held = famfs_lookup_hold(c, 0, "/old", FAMFS_HOLD_FILE);
	assert_non_null(held);
	assert_int_equal(famfs_rename(m, "/tmp", "/old", 0, &e), 0);
	assert_int_equal(famfs_create_file(m, "/new", &a, NULL, NULL, &e), -ENOSPC);
	assert_int_equal(famfs_replay(c, &e), 1);
	/* the client reads the held file's old bytes under the new tree */
	assert_data(c, "/old", 4 * FAMFS_MiB, 6);
	uint8_t buf[4096], want[4096];

	fill_pattern(want, sizeof(want), 5);
	assert_int_equal(famfs_read(c, famfs_node_map(held), sizeof(buf), 0, buf,
				    sizeof(buf)), (int64_t)sizeof(buf));
	assert_memory_equal(buf, want, sizeof(buf));
	assert_int_equal(famfs_create_file(m, "/new", &a, NULL, NULL, &e), -ENOSPC);
	famfs_node_release(c, held);
	assert_int_equal(famfs_create_file(m, "/new", &a, NULL, NULL, &e), 0);
	famfs_close(c);
	famfs_close(m);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

static void check_rename(struct famfs_fs *fs, bool applied, void *arg)
{
	const uint64_t *inos = arg; /* /d/f, /x before the rename */
	struct famfs_log_status st;

	famfs_log_status(fs, &st);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(tnode_ino(fs, "/d/f"), applied ? 0 : inos[0]);
	assert_int_equal(tnode_ino(fs, "/x"), applied ? inos[0] : inos[1]);
	assert_data(fs, "/x", applied ? 5000 : 7000, applied ? 1 : 3);
}

static void rename_flipped_and_torn_are_ignored(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	uint64_t inos[2], off;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_tree(fs);
	inos[0] = tnode_ino(fs, "/d/f");
	inos[1] = tnode_ino(fs, "/x");
	off = fs->tail;
	assert_int_equal(famfs_rename(fs, "/d/f", "/x", 0, &e), 0);
	tlog_damage_each(&t, off, (uint32_t)(fs->tail - off), check_rename, inos);
	famfs_close(fs);
	tdevs_remove(&t);
}

/* A CRC-valid RENAME that cannot apply is skipped; fsck names it. */
static void forge_rename(struct famfs_fs *fs, const struct famfs_entry_rename *r,
			 const char *from, const char *to)
{
	uint8_t *dst = fs->log + fs->tail;
	struct famfs_entry_hdr h = { .magic = FAMFS_ENTRY_MAGIC,
				     .seq = fs->last_seq + 1, .fs_tag = fs->fs_tag,
				     .type = FAMFS_ENTRY_RENAME };
	struct famfs_entry_rename b = *r;

	b.old_len = (uint16_t)strlen(from);
	b.new_len = (uint16_t)strlen(to);
	h.len = (uint32_t)ROUND_UP(sizeof(h) + sizeof(b) + b.old_len + b.new_len, 8);
	memset(dst, 0, h.len);
	memcpy(dst + sizeof(h), &b, sizeof(b));
	memcpy(dst + sizeof(h) + sizeof(b), from, b.old_len);
	memcpy(dst + sizeof(h) + sizeof(b) + b.old_len, to, b.new_len);
	memcpy(dst, &h, sizeof(h));
	h.crc = famfs_crc32c(0, dst, h.len);
	memcpy(dst, &h, sizeof(h));
}

static void rename_that_cannot_apply_is_skipped(void **state)
{
	/* seqs of make_tree: 1 /d, 2 /d/sub, 3 /empty, 4 /d/f, 5 /d/sub/g, 6 /x */
	static const struct { uint64_t target, replaced; const char *from, *to,
			      *why; } bad[] = {
		{ 77, 0, "/d/f", "/y", "is not live" },
		{ 4, 0, "/d/g", "/y", "is not there" },
		{ 4, 0, "/d/f", "/x", "already exists" },
		{ 4, 5, "/d/f", "/x", "already exists" },
		{ 4, 6, "/d/f", "/y", "is not there" },
		{ 4, 0, "/d/f", "/nodir/y", "not a directory" },
		{ 1, 0, "/d", "/d/sub/d", "into itself" },
		{ 4, 0, "/d/f", "/d/f", "onto itself" },
		{ 4, 3, "/d/f", "/empty", "cannot replace a directory" },
		{ 3, 1, "/empty", "/d", "not empty" },
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		struct tdevs t;
		struct famfs_fs *fs;
		struct famfs_log_status st;
		struct famfs_entry_rename r = { .target_seq = bad[i].target,
						.replaced_seq = bad[i].replaced };

		tdevs_make(&t, 1, 64 * FAMFS_MiB);
		tdevs_mkfs(&t, 4 * FAMFS_MiB);
		fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
		make_tree(fs);
		assert_int_equal(tnode_ino(fs, "/x"), FAMFS_ROOT_INO + 6);
		forge_rename(fs, &r, bad[i].from, bad[i].to);
		famfs_close(fs);
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.entries, 7);
		if (st.skipped != 1)
			fail_msg("case %u: applied", i);
		if (!strstr(st.skip_reason, bad[i].why))
			fail_msg("case %u: '%s' lacks '%s'", i, st.skip_reason,
				 bad[i].why);
		assert_data(fs, "/d/f", 5000, 1);
		assert_data(fs, "/x", 7000, 3);
		famfs_close(fs);
		assert_int_equal(tdevs_fsck_errors(&t, NULL), 1);
		tdevs_remove(&t);
	}
}

/* A filesystem of format 1.0 (the fixture test_setattr reads) becomes
 * 1.2 at its first rename; before, it stays as it was.
 */
static void format_1_0_is_raised_to_1_2_by_a_rename(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_load_format_1_0(&t);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 0);
	assert_int_equal(famfs_rename(fs, "/dir/hello", "/hello", 0, &e), 0);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 2);
	assert_null(famfs_lookup(fs, "/dir/hello"));
	assert_non_null(famfs_lookup(fs, "/hello"));
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rename_moves_and_replays),
		cmocka_unit_test(replaced_file_waits_for_its_holder),
		cmocka_unit_test(rename_flipped_and_torn_are_ignored),
		cmocka_unit_test(rename_that_cannot_apply_is_skipped),
		cmocka_unit_test(format_1_0_is_raised_to_1_2_by_a_rename),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
