// SPDX-License-Identifier: Apache-2.0
/* Log integrity: every corrupted byte is detected, torn appends ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

static uint64_t fsck_errors(struct tdevs *t, unsigned *warnings)
{
	struct famfs_fsck_result r;
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_fsck(t->paths, t->n, NULL, NULL, &r, &e), 0);
	if (warnings)
		*warnings = r.warnings;
	return r.errors;
}

/* One master, two files; returns the log offsets of both entries. */
static void two_entries(struct tdevs *t, uint64_t *off1, uint64_t *off2,
			uint32_t *len2)
{
	struct famfs_fs *fs = tdevs_open(t, FAMFS_OPEN_MASTER);
	struct famfs_file_attr a = { .size = 10000, .mode = 0644 };
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_create_file(fs, "/one", &a, NULL, NULL, &e), 0);
	*off2 = fs->tail;
	assert_int_equal(famfs_create_file(fs, "/two-with-a-longer-name", &a, NULL,
					   NULL, &e), 0);
	*off1 = FAMFS_LOG_HEADER_SIZE;
	*len2 = (uint32_t)(fs->tail - *off2);
	famfs_close(fs);
}

static uint8_t *log_at(struct famfs_dev *d, uint64_t off)
{
	return famfs_dev_base(d) + FAMFS_LOG_OFFSET + off;
}

static void log_every_flipped_byte_is_detected(void **state)
{
	struct tdevs t;
	struct famfs_dev *d;
	struct famfs_err e = { 0 };
	uint64_t o1, o2;
	uint32_t len2;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	two_entries(&t, &o1, &o2, &len2);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	for (uint32_t i = 0; i < len2; i++) {
		uint8_t *p = log_at(d, o2 + i);
		struct famfs_fs *fs;
		struct famfs_log_status st;

		*p ^= 0x5a;
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.entries, 1);
		/* the committed-tail record names it: corrupt, not torn */
		assert_int_equal(st.tail_state, FAMFS_TAIL_CORRUPT);
		assert_non_null(famfs_lookup(fs, "/one"));
		assert_null(famfs_lookup(fs, "/two-with-a-longer-name"));
		famfs_close(fs);
		*p ^= 0x5a;
	}
	/* and the log header: every byte is CRC-covered */
	for (uint32_t i = 0; i < FAMFS_LOG_HEADER_SIZE; i += 1) {
		uint8_t *p = log_at(d, i);
		struct famfs_open_opts o = { 0 };
		struct famfs_fs *fs;

		*p ^= 0x01;
		assert_int_not_equal(famfs_open(t.paths, 1, &o, &fs, &e), 0);
		*p ^= 0x01;
	}
	assert_int_equal(fsck_errors(&t, NULL), 0);
	famfs_dev_close(d);
	tdevs_remove(&t);
}

static void log_replay_ignores_torn_entry_at_every_cut(void **state)
{
	struct tdevs t;
	struct famfs_dev *d;
	struct famfs_err e = { 0 };
	uint64_t o1, o2;
	uint32_t len2;
	uint8_t saved[4096];

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	two_entries(&t, &o1, &o2, &len2);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	memcpy(saved, log_at(d, o2), len2);
	tlog_tailrec_before(&t, o2); /* the crash came before the record */
	for (uint32_t cut = 0; cut <= len2; cut++) {
		struct famfs_fs *fs;
		struct famfs_log_status st;
		unsigned warnings;

		memset(log_at(d, o2), 0, len2);
		memcpy(log_at(d, o2), saved, cut);
		/* a cut inside the zero padding leaves the entry whole */
		bool whole = true;

		for (uint32_t k = cut; k < len2; k++)
			whole = whole && saved[k] == 0;
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.entries, whole ? 2 : 1);
		famfs_close(fs);
		assert_int_equal(fsck_errors(&t, &warnings), 0);
		if (cut > 0 && !whole)
			assert_int_equal(warnings, 1);
	}
	/* a master appends over the torn tail and the log goes on */
	memset(log_at(d, o2), 0, len2);
	memcpy(log_at(d, o2), saved, len2 / 2);
	struct famfs_fs *fs = tdevs_open(&t, FAMFS_OPEN_MASTER);

	assert_int_equal(famfs_mkdir(fs, "/after", 0755, 0, 0, &e), 0);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_non_null(famfs_lookup(fs, "/after"));
	assert_null(famfs_lookup(fs, "/two-with-a-longer-name"));
	famfs_close(fs);
	assert_int_equal(fsck_errors(&t, NULL), 0);
	famfs_dev_close(d);
	tdevs_remove(&t);
}

static void fsck_reports_entries_lost_after_corruption(void **state)
{
	struct tdevs t;
	struct famfs_dev *d;
	struct famfs_err e = { 0 };
	uint64_t o1, o2;
	uint32_t len2;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	two_entries(&t, &o1, &o2, &len2);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	log_at(d, o1 + 60)[0] ^= 0xff; /* the first entry, not the last */
	assert_true(fsck_errors(&t, NULL) >= 1);
	famfs_dev_close(d);
	tdevs_remove(&t);
}

static void note_lost(void *arg, enum famfs_fsck_severity sev,
		      const char *check, const char *msg)
{
	(void)check;
	if (sev == FAMFS_FSCK_ERROR && strstr(msg, "entries are lost"))
		++*(unsigned *)arg;
}

/* fsck looks for lost entries with memmem(): a copy of the entry magic
 * at an offset that is not a multiple of 8 from the tail must neither be
 * taken for an entry nor make it step over the real one right after it.
 */
static void fsck_finds_lost_entry_past_unaligned_magic(void **state)
{
	const uint32_t magic = FAMFS_ENTRY_MAGIC;
	struct famfs_fsck_result r;
	struct tdevs t;
	struct famfs_dev *d;
	struct famfs_err e = { 0 };
	uint64_t o1, o2;
	uint32_t len2;
	unsigned lost = 0;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	two_entries(&t, &o1, &o2, &len2);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	log_at(d, o1 + 60)[0] ^= 0xff; /* the first entry torn */
	for (uint64_t at = o1 + 9; at < o2 - 4; at += 8)
		memcpy(log_at(d, at), &magic, sizeof(magic));
	memcpy(log_at(d, o2 - 5), &magic, sizeof(magic));
	assert_int_equal(famfs_fsck(t.paths, t.n, note_lost, &lost, &r, &e), 0);
	assert_int_equal(lost, 1);
	famfs_dev_close(d);
	tdevs_remove(&t);
}

static void log_full_is_enospc_and_changes_nothing(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_space before, after;
	char path[64];
	int i, r = 0;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	for (i = 0; i < 100000 && !r; i++) {
		snprintf(path, sizeof(path), "/d%06d", i);
		r = famfs_mkdir(fs, path, 0755, 0, 0, &e);
	}
	assert_int_equal(r, -ENOSPC);
	assert_non_null(strstr(e.msg, "log is full"));
	uint64_t tail = fs->tail, seq = fs->last_seq;
	struct famfs_file_attr a = { .size = 4096, .mode = 0644 };

	famfs_statfs(fs, &before);
	assert_int_equal(famfs_create_file(fs, "/f", &a, NULL, NULL, &e), -ENOSPC);
	famfs_statfs(fs, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(fs->tail, tail);
	assert_int_equal(fs->last_seq, seq);
	assert_null(famfs_lookup(fs, "/f"));
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(fs->nentries, seq);
	famfs_close(fs);
	assert_int_equal(fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

/* Replay of an emulated device reads the log by pread in windows of
 * 16 KiB doubling to 2 MiB (log.c): entries that straddle every window
 * boundary, a batch larger than the first windows, a flipped byte in the
 * last entry, a client's poll that finds nothing and one that finds what
 * the master appended since.
 */
#define WIN_FILES 3000
#define WIN_BATCH 1000

static void win_path(char *p, size_t len, int i)
{
	/* 1-150 bytes of name: entry lengths vary, boundaries fall anywhere */
	snprintf(p, len, "/w/%d-%.*s", i, 1 + (i * 37) % 150,
		 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
}

static void replay_reads_the_log_in_windows(void **state)
{
	struct famfs_file_attr a = { .size = 100, .mode = 0644 };
	static struct famfs_commit_req r[WIN_BATCH];
	static char paths[WIN_BATCH][200];
	struct famfs_err e = { 0 };
	struct famfs_log_status st;
	struct famfs_fs *fs, *c;
	uint64_t batch_off, last_off;
	struct famfs_dev *d;
	struct tdevs t;
	char p[200];

	(void)state;
	tdevs_make(&t, 1, 256 * FAMFS_MiB);
	tdevs_mkfs(&t, 8 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_mkdir(fs, "/w", 0755, 0, 0, &e), 0);
	for (int i = 0; i < WIN_FILES; i++) {
		win_path(p, sizeof(p), i);
		assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
	}
	for (int i = 0; i < WIN_BATCH; i++) {
		struct famfs_fmap *m;

		win_path(paths[i], sizeof(paths[i]), WIN_FILES + i);
		assert_int_equal(famfs_alloc(fs, 100, NULL, &m, &e), 0);
		memset(&r[i], 0, sizeof(r[i]));
		r[i].path = paths[i];
		r[i].attr = a;
		r[i].map = m;
	}
	batch_off = fs->tail;
	assert_int_equal(famfs_commit_files(fs, r, WIN_BATCH, &e), WIN_BATCH);
	for (int i = 0; i < WIN_BATCH; i++)
		free((void *)r[i].map);
	assert_true(fs->tail - batch_off > 128 * 1024); /* beyond four windows */
	last_off = fs->tail;
	assert_int_equal(famfs_create_file(fs, "/last", &a, NULL, NULL, &e), 0);

	c = tdevs_open(&t, FAMFS_OPEN_CLIENT);
	famfs_log_status(c, &st);
	assert_int_equal(st.entries, 1 + WIN_FILES + 1 + WIN_BATCH + 1);
	assert_int_equal(st.tail_state, FAMFS_TAIL_CLEAN);
	for (int i = 0; i < WIN_FILES + WIN_BATCH; i += 7) {
		win_path(p, sizeof(p), i);
		assert_non_null(famfs_lookup(c, p));
	}
	assert_non_null(famfs_lookup(c, "/last"));
	/* nothing new, then what the master appends */
	assert_int_equal(famfs_replay(c, &e), 0);
	assert_int_equal(famfs_create_file(fs, "/later", &a, NULL, NULL, &e), 0);
	assert_int_equal(famfs_replay(c, &e), 1);
	assert_non_null(famfs_lookup(c, "/later"));
	famfs_close(c);
	famfs_close(fs);

	/* a flipped byte in the entry of /last: it and /later are gone */
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	*log_at(d, last_off + 50) ^= 0x10;
	c = tdevs_open(&t, FAMFS_OPEN_READ);
	famfs_log_status(c, &st);
	assert_int_equal(st.entries, 1 + WIN_FILES + 1 + WIN_BATCH);
	assert_int_equal(st.tail_state, FAMFS_TAIL_CORRUPT);
	assert_null(famfs_lookup(c, "/last"));
	win_path(p, sizeof(p), WIN_FILES + WIN_BATCH - 1);
	assert_non_null(famfs_lookup(c, p));
	famfs_close(c);
	famfs_dev_close(d);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(log_every_flipped_byte_is_detected),
		cmocka_unit_test(log_replay_ignores_torn_entry_at_every_cut),
		cmocka_unit_test(fsck_reports_entries_lost_after_corruption),
		cmocka_unit_test(fsck_finds_lost_entry_past_unaligned_magic),
		cmocka_unit_test(log_full_is_enospc_and_changes_nothing),
		cmocka_unit_test(replay_reads_the_log_in_windows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
