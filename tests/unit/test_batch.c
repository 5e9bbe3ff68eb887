// SPDX-License-Identifier: Apache-2.0
/*
 * Group commit (BATCH entries, format 1.1): one append for many files,
 * the same inodes on master and readers, a file that cannot commit left
 * out alone, and on the media all or nothing: every torn cut and every
 * flipped byte of a batch leaves none of its files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#define NB 20

/* Files present among /b/f00../b/f19 (and /b/dup). */
static unsigned batch_files(struct famfs_fs *fs)
{
	char p[32];
	unsigned n = 0;

	for (unsigned i = 0; i < NB; i++) {
		snprintf(p, sizeof(p), "/b/f%02u", i);
		n += famfs_lookup(fs, p) != NULL;
	}
	return n;
}

/* /b, /b/taken, then one batch of NB files + a taken name + a bad path.
 * Returns the batch's log offset and length.
 */
static void make_batch(struct tdevs *t, uint64_t *off, uint32_t *len,
		       uint64_t inos[NB])
{
	struct famfs_fs *fs = tdevs_open(t, FAMFS_OPEN_MASTER);
	struct famfs_file_attr a = { .size = 5000, .mode = 0640, .uid = 7 };
	struct famfs_commit_req r[NB + 2];
	struct famfs_err e = { 0 };
	char paths[NB + 2][32];
	uint8_t data[5000];

	assert_int_equal(famfs_mkdir(fs, "/b", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_create_file(fs, "/b/taken", &a, NULL, NULL, &e), 0);
	memset(r, 0, sizeof(r));
	for (unsigned i = 0; i < NB + 2; i++) {
		struct famfs_fmap *m;

		snprintf(paths[i], sizeof(paths[i]), i < NB ? "/b/f%02u" :
			 i == NB ? "/b/taken" : "/nodir/x", i);
		assert_int_equal(famfs_alloc(fs, a.size + i, NULL, &m, &e), 0);
		fill_pattern(data, sizeof(data), i);
		assert_int_equal(famfs_write_map(fs, m, 0, data, sizeof(data)), 5000);
		r[i].path = paths[i];
		r[i].attr = a;
		r[i].attr.size = a.size - i;
		r[i].map = m;
	}
	*off = fs->tail;
	uint64_t seq = fs->last_seq;

	assert_int_equal(famfs_commit_files(fs, r, NB + 2, &e), NB);
	*len = (uint32_t)(fs->tail - *off);
	assert_int_equal(fs->last_seq, seq + 1 + NB);
	for (unsigned i = 0; i < NB; i++)
		assert_int_equal(r[i].result, 0);
	assert_int_equal(r[NB].result, -EEXIST);
	assert_non_null(strstr(r[NB].why, "/b/taken"));
	assert_int_equal(r[NB + 1].result, -ENOENT);
	assert_non_null(strstr(r[NB + 1].why, "/nodir/x"));
	for (unsigned i = 0; i < NB; i++) {
		struct famfs_attr at;

		famfs_node_attr(famfs_lookup(fs, paths[i]), &at);
		inos[i] = at.ino;
		assert_int_equal(at.size, 5000 - i);
	}
	for (unsigned i = NB; i < NB + 2; i++)
		famfs_alloc_release(fs, r[i].map);
	for (unsigned i = 0; i < NB + 2; i++)
		free((void *)r[i].map);
	/* the log goes on after a batch */
	assert_int_equal(famfs_mkdir(fs, "/after", 0755, 0, 0, &e), 0);
	famfs_close(fs);
}

static void batch_commits_and_replays(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	uint64_t off, inos[NB];
	uint32_t len;
	uint8_t buf[5000], want[5000];

	(void)state;
	tdevs_make(&t, 2, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	make_batch(&t, &off, &len, inos);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(batch_files(fs), NB);
	assert_non_null(famfs_lookup(fs, "/after"));
	for (unsigned i = 0; i < NB; i++) {
		char p[32];
		struct famfs_node *n;
		struct famfs_attr a;

		snprintf(p, sizeof(p), "/b/f%02u", i);
		n = famfs_lookup(fs, p);
		famfs_node_attr(n, &a);
		assert_int_equal(a.ino, inos[i]);   /* same inode as on the master */
		assert_int_equal(a.mode, 0100640);
		assert_int_equal(a.uid, 7);
		assert_int_equal(famfs_read(fs, famfs_node_map(n), a.size, 0, buf,
					    sizeof(buf)), (int64_t)(5000 - i));
		fill_pattern(want, sizeof(want), i);
		assert_memory_equal(buf, want, 5000 - i);
	}
	struct famfs_space sp;

	famfs_statfs(fs, &sp);
	assert_int_equal(sp.nfiles, NB + 1);
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

static void batch_is_all_or_nothing(void **state)
{
	struct tdevs t;
	struct famfs_dev *d;
	struct famfs_err e = { 0 };
	uint64_t off, inos[NB];
	uint32_t len;
	uint8_t *saved;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 4 * FAMFS_MiB);
	make_batch(&t, &off, &len, inos);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	uint8_t *log = famfs_dev_base(d) + FAMFS_LOG_OFFSET;

	/* drop /after: the batch is the last entry */
	memset(log + off + len, 0, 128);
	saved = malloc(len);
	memcpy(saved, log + off, len);
	for (uint32_t i = 0; i < len; i++) {
		struct famfs_fs *fs;

		log[off + i] ^= 0x21;
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		assert_int_equal(batch_files(fs), 0);
		assert_non_null(famfs_lookup(fs, "/b/taken"));
		famfs_close(fs);
		log[off + i] ^= 0x21;
	}
	tlog_tailrec_before(&t, off); /* a crash before the record */
	for (uint32_t cut = 0; cut <= len; cut += 8) {
		struct famfs_fs *fs;
		unsigned warnings;

		memset(log + off, 0, len);
		memcpy(log + off, saved, cut);
		fs = tdevs_open(&t, FAMFS_OPEN_READ);
		assert_int_equal(batch_files(fs), cut == len ? NB : 0);
		famfs_close(fs);
		/* inner entries beyond a torn batch are not "lost entries" */
		assert_int_equal(tdevs_fsck_errors(&t, &warnings), 0);
		assert_int_equal(warnings, cut > 0 && cut < len ? 1 : 0);
	}
	/* a master appends over a torn batch; its files never appear */
	memset(log + off, 0, len);
	memcpy(log + off, saved, len - 8);
	struct famfs_fs *fs = tdevs_open(&t, FAMFS_OPEN_MASTER);

	assert_int_equal(famfs_mkdir(fs, "/later", 0755, 0, 0, &e), 0);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(batch_files(fs), 0);
	assert_non_null(famfs_lookup(fs, "/later"));
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	free(saved);
	famfs_dev_close(d);
	tdevs_remove(&t);
}

static void batch_that_does_not_fit_changes_nothing(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_commit_req r[64];
	struct famfs_fmap *m;
	char paths[64][32];
	int i, rc = 0;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	for (i = 0; i < 100000 && !rc; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/d%06d", i);
		rc = famfs_mkdir(fs, p, 0755, 0, 0, &e);
	}
	assert_int_equal(rc, -ENOSPC);
	/* a few hundred bytes are left: less than 64 file entries */
	assert_int_equal(famfs_alloc(fs, 4096, NULL, &m, &e), 0);
	for (i = 0; i < 64; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/f%02d", i);
		memset(&r[i], 0, sizeof(r[i]));
		r[i].path = paths[i];
		r[i].attr.size = 0;
		r[i].map = m;
	}
	uint64_t tail = fs->tail, seq = fs->last_seq;

	assert_int_equal(famfs_commit_files(fs, r, 64, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "log is full"));
	assert_int_equal(fs->tail, tail);
	assert_int_equal(fs->last_seq, seq);
	assert_null(famfs_lookup(fs, "/f00"));
	famfs_alloc_release(fs, m);
	free(m);
	famfs_close(fs);
	assert_int_equal(tdevs_fsck_errors(&t, NULL), 0);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_commits_and_replays),
		cmocka_unit_test(batch_is_all_or_nothing),
		cmocka_unit_test(batch_that_does_not_fit_changes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
