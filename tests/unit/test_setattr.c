// SPDX-License-Identifier: Apache-2.0
/*
 * SETATTR entries (format 1.1): applied by the master and by replay alike,
 * refused when they cannot apply, every flipped byte and every torn cut
 * detected, and a filesystem written by the 1.0 code still read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "test_util.h"

static struct famfs_attr attr_of(struct famfs_fs *fs, const char *path)
{
	struct famfs_node *n = famfs_lookup(fs, path);
	struct famfs_attr a;

	assert_non_null(n);
	famfs_node_attr(n, &a);
	return a;
}

/* /d (dir) and /d/f (10,000 bytes of pattern, 12 KiB packed map). */
static void make_tree(struct famfs_fs *fs)
{
	struct famfs_file_attr a = { .size = 10000, .mode = 0644 };
	struct famfs_err e = { 0 };
	uint8_t data[10000];

	fill_pattern(data, sizeof(data), 7);
	assert_int_equal(famfs_mkdir(fs, "/d", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_create_file(fs, "/d/f", &a, NULL, data, &e), 0);
}

static void setattr_applies_and_replays(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs, *cl;
	struct famfs_err e = { 0 };
	struct famfs_attr a;
	uint8_t buf[12288];

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	make_tree(fs);
	cl = tdevs_open(&t, FAMFS_OPEN_CLIENT);

	struct famfs_setattr f = {
		.valid = FAMFS_SETATTR_MODE | FAMFS_SETATTR_UID | FAMFS_SETATTR_GID |
			 FAMFS_SETATTR_ATIME | FAMFS_SETATTR_MTIME,
		.mode = 04711, .uid = 1234, .gid = 5678,
		.atime_ns = 1000000000ULL * 86400 + 5, .mtime_ns = 123456789012345ULL,
	};
	struct famfs_setattr d = { .valid = FAMFS_SETATTR_MODE | FAMFS_SETATTR_MTIME,
				   .mode = 0700, .mtime_ns = 42 };
	struct famfs_setattr r = { .valid = FAMFS_SETATTR_UID, .uid = 99 };

	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d/f"), &f, &e), 0);
	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d"), &d, &e), 0);
	assert_int_equal(famfs_setattr(fs, FAMFS_ROOT_INO, &r, &e), 0);
	/* shrink, then grow inside the map: the regrown bytes read as zeros */
	struct famfs_setattr s = { .valid = FAMFS_SETATTR_SIZE, .size = 100 };

	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d/f"), &s, &e), 0);
	s.size = 12288;
	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d/f"), &s, &e), 0);
	uint64_t seq = fs->last_seq;

	/* nothing to change: nothing appended */
	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d/f"), &f, &e), 0);
	assert_int_equal(fs->last_seq, seq);
	/* bad requests name the file and change nothing */
	s.size = 12289;
	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d/f"), &s, &e), -EFBIG);
	assert_non_null(strstr(e.msg, "/d/f"));
	s.size = 0;
	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d"), &s, &e), -EISDIR);
	assert_int_equal(famfs_setattr(fs, 999999, &s, &e), -ENOENT);
	s.valid = 0x100;
	assert_int_equal(famfs_setattr(fs, FAMFS_ROOT_INO, &s, &e), -EINVAL);
	assert_int_equal(fs->last_seq, seq);
	assert_int_equal(famfs_setattr(cl, FAMFS_ROOT_INO, &r, &e), -EROFS);

	/* the client replays the five entries */
	assert_int_equal(famfs_replay(cl, &e), 5);
	for (int pass = 0; pass < 3; pass++) {
		struct famfs_fs *v = pass == 0 ? fs : pass == 1 ? cl :
				     tdevs_open(&t, FAMFS_OPEN_READ);

		a = attr_of(v, "/d/f");
		assert_int_equal(a.mode, 0104711);
		assert_int_equal(a.uid, 1234);
		assert_int_equal(a.gid, 5678);
		assert_int_equal(a.atime_ns, f.atime_ns);
		assert_int_equal(a.mtime_ns, f.mtime_ns);
		assert_int_equal(a.size, 12288);
		assert_int_equal(famfs_read(v, famfs_node_map(famfs_lookup(v, "/d/f")),
					    a.size, 0, buf, sizeof(buf)), 12288);
		uint8_t want[10000];

		fill_pattern(want, sizeof(want), 7);
		assert_memory_equal(buf, want, 100);
		for (size_t i = 100; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 0);
		a = attr_of(v, "/d");
		assert_int_equal(a.mode, 040700);
		assert_int_equal(a.mtime_ns, 42);
		a = attr_of(v, "/");
		assert_int_equal(a.uid, 99);
		struct famfs_space sp;

		famfs_statfs(v, &sp);
		assert_int_equal(sp.file_bytes, 12288);
		if (pass == 2)
			famfs_close(v);
	}
	famfs_close(cl);
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

/* Log offset and length of the last entry: a setattr of /d/f's mode. */
static void tree_then_setattr(struct tdevs *t, uint64_t *off, uint32_t *len)
{
	struct famfs_fs *fs = tdevs_open(t, FAMFS_OPEN_MASTER);
	struct famfs_setattr s = { .valid = FAMFS_SETATTR_MODE | FAMFS_SETATTR_SIZE,
				   .mode = 0600, .size = 5 };
	struct famfs_err e = { 0 };

	make_tree(fs);
	*off = fs->tail;
	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/d/f"), &s, &e), 0);
	*len = (uint32_t)(fs->tail - *off);
	famfs_close(fs);
}

static void check_setattr(struct famfs_fs *fs, bool applied, void *arg)
{
	struct famfs_log_status st;

	(void)arg;
	famfs_log_status(fs, &st);
	assert_int_equal(st.entries, applied ? 3 : 2);
	assert_int_equal(attr_of(fs, "/d/f").mode, applied ? 0100600 : 0100644);
	assert_int_equal(attr_of(fs, "/d/f").size, applied ? 5 : 10000);
}

static void setattr_flipped_and_torn_are_ignored(void **state)
{
	struct tdevs t;
	uint64_t off;
	uint32_t len;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	tree_then_setattr(&t, &off, &len);
	tlog_damage_each(&t, off, len, check_setattr, NULL);
	tdevs_remove(&t);
}

/* A CRC-valid SETATTR that cannot apply is skipped, fsck names it. */
static void forge_setattr(struct famfs_fs *fs, const struct famfs_entry_setattr *s,
			  const char *path)
{
	uint8_t *dst = fs->log + fs->tail;
	struct famfs_entry_hdr h = { .magic = FAMFS_ENTRY_MAGIC,
				     .seq = fs->last_seq + 1, .fs_tag = fs->fs_tag,
				     .type = FAMFS_ENTRY_SETATTR };
	size_t plen = strlen(path);

	h.len = (uint32_t)ROUND_UP(sizeof(h) + sizeof(*s) + plen, 8);
	memset(dst, 0, h.len);
	memcpy(dst + sizeof(h), s, sizeof(*s));
	memcpy(dst + sizeof(h) + sizeof(*s), path, plen);
	memcpy(dst, &h, sizeof(h));
	h.crc = famfs_crc32c(0, dst, h.len);
	memcpy(dst, &h, sizeof(h));
}

static void setattr_that_cannot_apply_is_skipped(void **state)
{
	static const struct { uint32_t valid; uint64_t target; uint64_t size;
			      const char *why; } bad[] = {
		{ FAMFS_SETATTR_SIZE, 2, 1 << 20, "beyond its map" },
		{ FAMFS_SETATTR_SIZE, 1, 0, "size of a directory" },
		{ FAMFS_SETATTR_MODE, 77, 0, "is not live" },
		{ 0x80, 2, 0, "unknown bits" },
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		struct tdevs t;
		struct famfs_fs *fs;
		struct famfs_log_status st;
		struct famfs_entry_setattr s = { .valid = bad[i].valid,
						 .target_seq = bad[i].target,
						 .size = bad[i].size, .mode = 0600,
						 .path_len = 4 };

		tdevs_make(&t, 1, 64 * FAMFS_MiB);
		tdevs_mkfs(&t, 4 * FAMFS_MiB);
		fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
		make_tree(fs);
		forge_setattr(fs, &s, "/d/f");
		famfs_close(fs);
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.entries, 3);
		assert_int_equal(st.skipped, 1);
		assert_non_null(strstr(st.skip_reason, bad[i].why));
		assert_int_equal(attr_of(fs, "/d/f").size, 10000);
		assert_int_equal(attr_of(fs, "/d/f").mode, 0100644);
		famfs_close(fs);
		assert_int_equal(tdevs_fsck_errors(&t, NULL), 1);
		tdevs_remove(&t);
	}
}

/*
 * tests/unit/data/format-1.0-dev0.img.gz: the first 4 MiB of a 64 MiB
 * device formatted and filled by the 1.0 code (commit 541fe24's
 * famfs-cli: mkfs --log-size 2MiB; mkdir /dir; create /dir/hello (6
 * bytes, 0640); create -s 3MiB /big; mkdir /gone; rm /gone).
 */
static void format_1_0_is_read_and_raised_to_1_1(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	char cmd[600];
	FILE *in, *out;
	uint8_t *buf = malloc(4 * FAMFS_MiB);

	(void)state;
	assert_non_null(buf);
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	snprintf(cmd, sizeof(cmd), "gzip -dc %s/format-1.0-dev0.img.gz",
		 FAMFS_TEST_DATA_DIR);
	in = popen(cmd, "r");
	assert_non_null(in);
	assert_int_equal(fread(buf, 1, 4 * FAMFS_MiB, in), 4 * FAMFS_MiB);
	assert_int_equal(pclose(in), 0);
	out = fopen(t.path[0], "r+b");
	assert_non_null(out);
	assert_int_equal(fwrite(buf, 1, 4 * FAMFS_MiB, out), 4 * FAMFS_MiB);
	fclose(out);
	free(buf);

	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 0);
	assert_int_equal(fs->nentries, 5);
	assert_int_equal(attr_of(fs, "/dir/hello").size, 6);
	assert_int_equal(attr_of(fs, "/dir/hello").mode, 0100640);
	assert_int_equal(attr_of(fs, "/big").size, 3 * FAMFS_MiB);
	assert_true(famfs_node_is_dir(famfs_lookup(fs, "/dir")));
	assert_null(famfs_lookup(fs, "/gone"));
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);

	/* the first SETATTR makes it a 1.1 filesystem, both superblocks */
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	struct famfs_setattr s = { .valid = FAMFS_SETATTR_MTIME, .mtime_ns = 7 };

	assert_int_equal(famfs_setattr(fs, tnode_ino(fs, "/big"), &s, &e), 0);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(famfs_fs_sb(fs)->format_minor, 1);
	assert_int_equal(attr_of(fs, "/big").mtime_ns, 7);
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(setattr_applies_and_replays),
		cmocka_unit_test(setattr_flipped_and_torn_are_ignored),
		cmocka_unit_test(setattr_that_cannot_apply_is_skipped),
		cmocka_unit_test(format_1_0_is_read_and_raised_to_1_1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
