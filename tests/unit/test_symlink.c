// SPDX-License-Identifier: Apache-2.0
/*
 * SYMLINK entries (format 1.3): a link and its verbatim target replay on
 * every reader, move and go like files, take owner and times but not mode
 * or size; bad requests change nothing; every flipped byte and torn cut
 * is ignored; a CRC-valid symlink that cannot apply is skipped and
 * reported by fsck.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#define HF_TARGET "../../blobs/0123456789abcdef"

static struct famfs_fsck_result fsck_of(struct tdevs *t)
{
	struct famfs_fsck_result r;
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_fsck(t->paths, t->n, NULL, NULL, &r, &e), 0);
	return r;
}

/* @path is a symlink to @target, as lstat() and readlink() show it. */
static void assert_link(struct famfs_fs *fs, const char *path,
			const char *target)
{
	struct famfs_node *n = famfs_lookup(fs, path);
	char buf[FAMFS_SYMLINK_MAX + 1];
	struct famfs_attr a;

	if (!n)
		fail_msg("%s: missing", path);
	assert_true(famfs_node_is_symlink(n));
	assert_false(famfs_node_is_dir(n));
	assert_null(famfs_node_map(n));
	assert_string_equal(famfs_node_target(n), target);
	assert_int_equal(famfs_node_readlink(n, buf, sizeof(buf)),
			 (int)strlen(target));
	assert_string_equal(buf, target);
	famfs_node_attr(n, &a);
	assert_int_equal(a.mode, 0120777);
	assert_int_equal(a.size, strlen(target));
	assert_int_equal(a.nlink, 1);
}

/* /models/blobs/0123456789abcdef (5000 bytes), /models/snapshots/main/ */
static void make_tree(struct famfs_fs *fs)
{
	struct famfs_file_attr a = { .size = 5000, .mode = 0644 };
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_mkdir(fs, "/models", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_mkdir(fs, "/models/blobs", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_mkdir(fs, "/models/snapshots", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_mkdir(fs, "/models/snapshots/main", 0755, 0, 0,
				     &e), 0);
	assert_int_equal(famfs_create_file(fs, "/models/blobs/0123456789abcdef",
					   &a, NULL, NULL, &e), 0);
}

static void symlink_creates_and_replays(void **state)
{
	char longt[FAMFS_SYMLINK_MAX + 1];
	struct tdevs t;
	struct famfs_fs *fs, *cl;
	struct famfs_err e = { 0 };
	struct famfs_fsck_result r;
	struct famfs_attr a;

	(void)state;
	memset(longt, 'x', FAMFS_SYMLINK_MAX);
	longt[FAMFS_SYMLINK_MAX] = '\0';
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_tree(fs);
	cl = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	assert_int_equal(famfs_symlink(fs, "/models/snapshots/main/model.bin",
				       HF_TARGET, 1000, 100, 123456789, &e), 0);
	assert_true(famfs_fs_sb(fs)->format_minor >= 3);
	/* absolute, dangling, outside the filesystem, the longest: verbatim */
	assert_int_equal(famfs_symlink(fs, "/abs", "/etc/passwd", 0, 0, 0, &e), 0);
	assert_int_equal(famfs_symlink(fs, "/dangling", "no/such//thing/.", 0,
				       0, 0, &e), 0);
	assert_int_equal(famfs_symlink(fs, "/long", longt, 0, 0, 0, &e), 0);

	assert_int_equal(famfs_replay(cl, &e), 4);
	assert_link(cl, "/models/snapshots/main/model.bin", HF_TARGET);
	assert_link(cl, "/abs", "/etc/passwd");
	assert_link(cl, "/dangling", "no/such//thing/.");
	assert_link(cl, "/long", longt);
	famfs_node_attr(famfs_lookup(cl, "/models/snapshots/main/model.bin"), &a);
	assert_int_equal(a.uid, 1000);
	assert_int_equal(a.gid, 100);
	assert_int_equal(a.mtime_ns, 123456789);
	/* famfs never walks through a link: it is not a directory */
	assert_null(famfs_lookup(cl, "/models/snapshots/main/model.bin/x"));

	/* renamed over a file, moved, removed, like files */
	assert_int_equal(famfs_symlink(fs, "/tmp-link", "v2", 0, 0, 0, &e), 0);
	assert_int_equal(famfs_rename(fs, "/tmp-link", "/abs", 0, &e), 0);
	assert_int_equal(famfs_rename(fs, "/dangling", "/models/moved", 0, &e), 0);
	assert_int_equal(famfs_unlink(fs, "/long", &e), 0);
	assert_int_equal(famfs_replay(cl, &e), 4);
	assert_link(cl, "/abs", "v2");
	assert_link(cl, "/models/moved", "no/such//thing/.");
	assert_null(famfs_lookup(cl, "/long"));
	assert_null(famfs_lookup(cl, "/dangling"));
	famfs_close(cl);
	famfs_close(fs);

	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_link(fs, "/models/snapshots/main/model.bin", HF_TARGET);
	famfs_close(fs);
	r = fsck_of(&t);
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.symlinks, 3);
	assert_int_equal(r.files, 1);
	tdevs_remove(&t);
}

/* lchown and utimensat(AT_SYMLINK_NOFOLLOW) change a link; chmod cannot. */
static void symlink_takes_owner_and_times(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs, *cl;
	struct famfs_err e = { 0 };
	struct famfs_setattr s = { .valid = FAMFS_SETATTR_UID | FAMFS_SETATTR_GID |
				   FAMFS_SETATTR_MTIME | FAMFS_SETATTR_ATIME,
				   .uid = 7, .gid = 8, .mtime_ns = 42,
				   .atime_ns = 43 };
	struct famfs_setattr mode = { .valid = FAMFS_SETATTR_MODE, .mode = 0600 };
	struct famfs_setattr size = { .valid = FAMFS_SETATTR_SIZE, .size = 1 };
	struct famfs_attr a;
	uint64_t ino, seq;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_symlink(fs, "/l", "target", 0, 0, 0, &e), 0);
	famfs_node_attr(famfs_lookup(fs, "/l"), &a);
	ino = a.ino;
	assert_int_equal(famfs_setattr(fs, ino, &s, &e), 0);
	seq = fs->last_seq;
	assert_int_equal(famfs_setattr(fs, ino, &mode, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "/l"));
	assert_int_equal(famfs_setattr(fs, ino, &size, &e), -EINVAL);
	assert_int_equal(fs->last_seq, seq);
	cl = tdevs_open(&t, FAMFS_OPEN_READ);
	famfs_node_attr(famfs_lookup(cl, "/l"), &a);
	assert_int_equal(a.uid, 7);
	assert_int_equal(a.gid, 8);
	assert_int_equal(a.mtime_ns, 42);
	assert_int_equal(a.atime_ns, 43);
	assert_int_equal(a.mode, 0120777);
	famfs_close(cl);
	famfs_close(fs);
	assert_int_equal(fsck_of(&t).errors, 0);
	tdevs_remove(&t);
}

/* Bad requests name what is wrong and append nothing. */
static void symlink_bad_requests_change_nothing(void **state)
{
	char toolong[FAMFS_SYMLINK_MAX + 2];
	static const struct { const char *path, *target; int err;
			      const char *why; } bad[] = {
		{ "/l", "", -ENOENT, "empty" },
		{ "/l", NULL, -ENAMETOOLONG, "4096 bytes" },
		{ "/models", "x", -EEXIST, "already exists" },
		{ "/nodir/l", "x", -ENOENT, "not a directory" },
		{ "/models/blobs/0123456789abcdef/l", "x", -ENOENT,
		  "not a directory" },
		{ "/", "x", -EEXIST, "'/'" },
		{ "/a/../b", "x", -EINVAL, ".." },
	};
	struct tdevs t;
	struct famfs_fs *fs, *cl;
	struct famfs_err e = { 0 };
	uint64_t seq;

	(void)state;
	memset(toolong, 'y', sizeof(toolong) - 1);
	toolong[sizeof(toolong) - 1] = '\0';
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_tree(fs);
	seq = fs->last_seq;
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *target = bad[i].target ? bad[i].target : toolong;

		memset(&e, 0, sizeof(e));
		if (famfs_symlink(fs, bad[i].path, target, 0, 0, 0, &e) != bad[i].err)
			fail_msg("case %u: got '%s'", i, e.msg);
		if (!strstr(e.msg, bad[i].why))
			fail_msg("case %u: '%s' lacks '%s'", i, e.msg, bad[i].why);
		assert_int_equal(fs->last_seq, seq);
	}
	cl = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	assert_int_equal(famfs_symlink(cl, "/l", "x", 0, 0, 0, &e), -EROFS);
	famfs_close(cl);
	famfs_close(fs);
	assert_int_equal(fsck_of(&t).errors, 0);
	tdevs_remove(&t);
}

static void check_symlink(struct famfs_fs *fs, bool applied, void *arg)
{
	struct famfs_log_status st;

	(void)arg;
	famfs_log_status(fs, &st);
	assert_int_equal(st.skipped, 0);
	if (applied)
		assert_link(fs, "/models/snapshots/main/model.bin", HF_TARGET);
	else
		assert_null(famfs_lookup(fs, "/models/snapshots/main/model.bin"));
	assert_non_null(famfs_lookup(fs, "/models/blobs/0123456789abcdef"));
}

static void symlink_flipped_and_torn_are_ignored(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	uint64_t off;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_tree(fs);
	off = fs->tail;
	assert_int_equal(famfs_symlink(fs, "/models/snapshots/main/model.bin",
				       HF_TARGET, 0, 0, 0, &e), 0);
	tlog_damage_each(&t, off, (uint32_t)(fs->tail - off), check_symlink,
			 NULL);
	famfs_close(fs);
	tdevs_remove(&t);
}

/* A CRC-valid SYMLINK entry, whatever its fields say. */
static void forge_symlink(struct famfs_fs *fs, const struct famfs_entry_symlink *l,
			  const char *path, const char *target, uint16_t tlen)
{
	uint8_t *dst = fs->log + fs->tail;
	struct famfs_entry_hdr h = { .magic = FAMFS_ENTRY_MAGIC,
				     .seq = fs->last_seq + 1, .fs_tag = fs->fs_tag,
				     .type = FAMFS_ENTRY_SYMLINK };
	struct famfs_entry_symlink b = *l;

	b.path_len = (uint16_t)strlen(path);
	b.target_len = tlen;
	h.len = (uint32_t)ROUND_UP(sizeof(h) + sizeof(b) + b.path_len + tlen, 8);
	memset(dst, 0, h.len);
	memcpy(dst + sizeof(h), &b, sizeof(b));
	memcpy(dst + sizeof(h) + sizeof(b), path, b.path_len);
	memcpy(dst + sizeof(h) + sizeof(b) + b.path_len, target, tlen);
	memcpy(dst, &h, sizeof(h));
	h.crc = famfs_crc32c(0, dst, h.len);
	memcpy(dst, &h, sizeof(h));
}

static void symlink_that_cannot_apply_is_skipped(void **state)
{
	static const struct { const char *path, *target; uint16_t tlen;
			      uint32_t reserved; const char *why; } bad[] = {
		{ "/l", "", 0, 0, "bad target" },
		{ "/l", "a\0b", 3, 0, "bad target" },
		{ "/l", "x", 1, 1, "bad target" },
		{ "/models", "x", 1, 0, "already exists" },
		{ "/nodir/l", "x", 1, 0, "not a directory" },
		{ "/models/blobs/0123456789abcdef/l", "x", 1, 0,
		  "not a directory" },
		{ "", "x", 1, 0, "bad path" },
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		struct tdevs t;
		struct famfs_fs *fs;
		struct famfs_log_status st;
		struct famfs_entry_symlink l = { .reserved = bad[i].reserved };

		tdevs_make(&t, 1, 64 * FAMFS_MiB);
		tdevs_mkfs(&t, 4 * FAMFS_MiB);
		fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
		make_tree(fs);
		forge_symlink(fs, &l, bad[i].path, bad[i].target, bad[i].tlen);
		famfs_close(fs);
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.entries, 6);
		if (st.skipped != 1)
			fail_msg("case %u: applied", i);
		if (!strstr(st.skip_reason, bad[i].why))
			fail_msg("case %u: '%s' lacks '%s'", i, st.skip_reason,
				 bad[i].why);
		assert_null(famfs_lookup(fs, "/l"));
		famfs_close(fs);
		assert_int_equal(fsck_of(&t).errors, 1);
		tdevs_remove(&t);
	}
}

/* A 1.0 filesystem (the fixture test_setattr reads) stays 1.0 until its
 * first symlink, then is 1.3; its old entries replay as they did.
 */
static void format_1_0_is_raised_to_1_3_by_a_symlink(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_load_format_1_0(&t);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 0);
	assert_non_null(famfs_lookup(fs, "/dir/hello"));
	assert_int_equal(famfs_symlink(fs, "/dir/link", "hello", 0, 0, 0, &e), 0);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 3);
	assert_non_null(famfs_lookup(fs, "/dir/hello"));
	assert_link(fs, "/dir/link", "hello");
	famfs_close(fs);
	assert_int_equal(fsck_of(&t).errors, 0);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(symlink_creates_and_replays),
		cmocka_unit_test(symlink_takes_owner_and_times),
		cmocka_unit_test(symlink_bad_requests_change_nothing),
		cmocka_unit_test(symlink_flipped_and_torn_are_ignored),
		cmocka_unit_test(symlink_that_cannot_apply_is_skipped),
		cmocka_unit_test(format_1_0_is_raised_to_1_3_by_a_symlink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
