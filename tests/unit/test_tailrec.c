// SPDX-License-Identifier: Apache-2.0
/*
 * The committed-tail record (format 1.4): every flipped byte of the last
 * entry is corruption when the record or a client slot proves the entry
 * committed, and a torn append (a warning) when nothing does; a flipped
 * byte of the record itself is a torn record slot (a warning). Never
 * clean. Repair ends the log at the last good entry and names what it
 * drops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#define NB 4

enum evidence {
	EV_RECORD,        /* the record names the last entry */
	EV_NONE,          /* no record (format 1.3 and older), no slot */
	EV_RECORD_BEFORE, /* a crash between the append and its record */
	EV_SLOT,          /* no record, a client slot replayed the entry */
};

static const char *const ev_names[] = { "record", "no record",
					"record before", "client slot only" };

struct findings {
	unsigned errors, warnings;
	char text[8192];
};

static void collect(void *arg, enum famfs_fsck_severity sev, const char *check,
		    const char *msg)
{
	struct findings *f = arg;
	size_t n = strlen(f->text);

	(void)sev;
	snprintf(f->text + n, sizeof(f->text) - n, "%s: %s\n", check, msg);
}

static void fsck_run(struct tdevs *t, struct findings *f)
{
	struct famfs_fsck_result r;
	struct famfs_err e = { 0 };

	f->text[0] = '\0';
	assert_int_equal(famfs_fsck(t->paths, t->n, collect, f, &r, &e), 0);
	f->errors = r.errors;
	f->warnings = r.warnings;
}

/* /d, /d/one, then the last entry: FILE /d/two or a BATCH of NB files. */
static void make_log(struct tdevs *t, bool batch, uint64_t *off, uint32_t *len)
{
	struct famfs_fs *fs = tdevs_open(t, FAMFS_OPEN_MASTER);
	struct famfs_file_attr a = { .size = 3000, .mode = 0644 };
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_mkdir(fs, "/d", 0755, 0, 0, &e), 0);
	assert_int_equal(famfs_create_file(fs, "/d/one", &a, NULL, NULL, &e), 0);
	*off = fs->tail;
	if (!batch) {
		assert_int_equal(famfs_create_file(fs, "/d/two", &a, NULL, NULL,
						   &e), 0);
	} else {
		struct famfs_commit_req r[NB];
		char paths[NB][16];

		memset(r, 0, sizeof(r));
		for (unsigned i = 0; i < NB; i++) {
			struct famfs_fmap *m;

			snprintf(paths[i], sizeof(paths[i]), "/d/b%u", i);
			assert_int_equal(famfs_alloc(fs, a.size, NULL, &m, &e), 0);
			r[i].path = paths[i];
			r[i].attr = a;
			r[i].map = m;
		}
		assert_int_equal(famfs_commit_files(fs, r, NB, &e), NB);
		for (unsigned i = 0; i < NB; i++)
			free((void *)r[i].map);
	}
	*len = (uint32_t)(fs->tail - *off);
	famfs_close(fs);
}

/* Client slot 0 live, having replayed @seq (0: slot 0 free). */
static void set_slot(struct tdevs *t, uint64_t seq)
{
	struct famfs_err e = { 0 };
	struct famfs_dev *d;
	struct famfs_client_slot *s;

	assert_int_equal(famfs_dev_open(t->paths[0], true, &d, &e), 0);
	s = (void *)(famfs_dev_base(d) + FAMFS_SLOTS_OFFSET);
	memset(s, 0, sizeof(*s));
	if (seq) {
		s->magic = FAMFS_SLOT_MAGIC;
		s->state = FAMFS_SLOT_LIVE;
		s->replayed_seq = seq;
	}
	famfs_dev_close(d);
}

static uint64_t last_seq(struct tdevs *t)
{
	struct famfs_fs *fs = tdevs_open(t, FAMFS_OPEN_READ);
	uint64_t s = fs->last_seq;

	famfs_close(fs);
	return s;
}

/* Flip every byte of the last entry under evidence @ev; returns flips. */
static unsigned flip_entry(bool batch, enum evidence ev)
{
	struct tdevs tt, *t = &tt;
	struct famfs_err e = { 0 };
	struct famfs_dev *d;
	struct findings *f = calloc(1, sizeof(*f));
	uint8_t rec[128], *entry;
	uint64_t off, end;
	uint32_t len;
	unsigned n = 0;
	bool corrupt = ev == EV_RECORD || ev == EV_SLOT;

	assert_non_null(f);
	tdevs_make(t, 1, 8 * FAMFS_MiB);
	tdevs_mkfs(t, 2 * FAMFS_MiB);
	make_log(t, batch, &off, &len);
	end = last_seq(t);
	tlog_tailrec_keep(t, rec, true);
	if (ev == EV_NONE || ev == EV_SLOT)
		tlog_tailrec_clear(t);
	else if (ev == EV_RECORD_BEFORE)
		tlog_tailrec_before(t, off);
	set_slot(t, ev == EV_SLOT ? end : 0);
	assert_int_equal(famfs_dev_open(t->paths[0], true, &d, &e), 0);
	entry = famfs_dev_base(d) + FAMFS_LOG_OFFSET + off;
	for (uint32_t i = 0; i < len; i++, n++) {
		struct famfs_log_status st;
		struct famfs_fs *fs;

		entry[i] ^= 0x5a;
		fs = tdevs_open(t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.tail_state, corrupt ? FAMFS_TAIL_CORRUPT :
				 FAMFS_TAIL_TORN);
		assert_non_null(famfs_lookup(fs, "/d/one"));
		assert_null(famfs_lookup(fs, batch ? "/d/b0" : "/d/two"));
		if (corrupt) {
			assert_int_equal(st.corrupt_first, end - (batch ? NB : 0));
			assert_int_equal(st.corrupt_last, end);
		}
		famfs_close(fs);
		fsck_run(t, f);
		if (corrupt) {
			assert_true(f->errors >= 1);
			assert_non_null(strstr(f->text, "lost"));
		} else {
			assert_int_equal(f->errors, 0);
			assert_int_equal(f->warnings, 1);
			assert_non_null(strstr(f->text, "torn"));
		}
		entry[i] ^= 0x5a;
	}
	famfs_dev_close(d);
	tlog_tailrec_keep(t, rec, false);
	set_slot(t, 0);
	tdevs_remove(t);
	free(f);
	return n;
}

static void every_flip_of_the_last_entry_is_corruption_or_tear(void **state)
{
	(void)state;
	for (int batch = 0; batch < 2; batch++)
		for (int ev = EV_RECORD; ev <= EV_SLOT; ev++) {
			unsigned n = flip_entry(batch, ev);

			print_message("%s entry, %s: %u flips, each %s\n",
				      batch ? "BATCH" : "FILE", ev_names[ev], n,
				      ev == EV_RECORD || ev == EV_SLOT ?
				      "corruption (fsck error)" :
				      "a torn append (fsck warning)");
			assert_true(n > 0);
		}
}

/* Every flipped byte of either record slot: a torn slot (a warning), the
 * other slot used, the log whole. Both slots damaged: an error.
 */
static void every_flip_of_the_tail_record_is_reported(void **state)
{
	struct findings *f = calloc(1, sizeof(*f));
	struct tdevs t;
	struct famfs_err e = { 0 };
	struct famfs_dev *d;
	uint8_t *rec;
	uint64_t off;
	uint32_t len;
	unsigned n = 0;

	(void)state;
	assert_non_null(f);
	for (int batch = 0; batch < 2; batch++) {
		tdevs_make(&t, 1, 8 * FAMFS_MiB);
		tdevs_mkfs(&t, 2 * FAMFS_MiB);
		make_log(&t, batch, &off, &len);
		assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
		rec = famfs_dev_base(d) + FAMFS_TAILREC_OFFSET;
		for (unsigned i = 0; i < 128; i++, n++) {
			struct famfs_log_status st;
			struct famfs_fs *fs;

			rec[i] ^= 0x5a;
			fs = tdevs_open(&t, FAMFS_OPEN_READ);
			famfs_log_status(fs, &st);
			assert_int_equal(st.tail_state, FAMFS_TAIL_CLEAN);
			assert_non_null(famfs_lookup(fs, batch ? "/d/b3" : "/d/two"));
			famfs_close(fs);
			fsck_run(&t, f);
			assert_int_equal(f->errors, 0);
			assert_int_equal(f->warnings, 1);
			assert_non_null(strstr(f->text, "committed-tail record slot"));
			rec[i] ^= 0x5a;
		}
		rec[3] ^= 1;
		rec[64 + 3] ^= 1;
		fsck_run(&t, f);
		assert_int_equal(f->errors, 2);
		rec[3] ^= 1;
		rec[64 + 3] ^= 1;
		famfs_dev_close(d);
		tdevs_remove(&t);
	}
	print_message("tail record: %u flips (2 x 128 bytes), each a torn "
		      "record slot (fsck warning)\n", n);
	free(f);
}

struct lost {
	unsigned n;
	char paths[4096];
};

static void on_lost(void *arg, uint64_t seq, const char *path, uint16_t len)
{
	struct lost *l = arg;
	size_t k = strlen(l->paths);

	(void)seq;
	l->n++;
	snprintf(l->paths + k, sizeof(l->paths) - k, "%.*s\n", (int)len, path);
}

/* A corrupt batch: the master appends nothing; repair names the files it
 * drops, ends the log, and the filesystem goes on clean.
 */
static void repair_ends_the_log_at_the_last_good_entry(void **state)
{
	struct findings *f = calloc(1, sizeof(*f));
	struct famfs_file_attr a = { .size = 3000, .mode = 0644 };
	struct famfs_log_status before, st;
	struct lost l = { 0 };
	struct famfs_err e = { 0 };
	struct famfs_dev *d;
	struct famfs_fs *fs;
	struct tdevs t;
	uint64_t off, end;
	uint32_t len;

	(void)state;
	assert_non_null(f);
	tdevs_make(&t, 1, 8 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	make_log(&t, true, &off, &len);
	end = last_seq(&t);
	set_slot(&t, end);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	famfs_dev_base(d)[FAMFS_LOG_OFFSET + off + 40 + 8 + 20] ^= 0x40;
	famfs_dev_close(d);

	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_mkdir(fs, "/new", 0755, 0, 0, &e), -EUCLEAN);
	assert_non_null(strstr(e.msg, "fsck --repair"));
	assert_int_equal(famfs_log_repair(fs, on_lost, &l, &before, &e), 0);
	assert_int_equal(before.tail_state, FAMFS_TAIL_CORRUPT);
	assert_int_equal(before.corrupt_first, end - NB);
	assert_int_equal(before.corrupt_last, end);
	assert_int_equal(l.n, NB);
	assert_non_null(strstr(l.paths, "/d/b0\n"));
	assert_non_null(strstr(l.paths, "/d/b3\n"));
	famfs_close(fs);

	fsck_run(&t, f);
	assert_int_equal(f->errors, 0);
	assert_int_equal(f->warnings, 0);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	famfs_log_status(fs, &st);
	assert_int_equal(st.tail_state, FAMFS_TAIL_CLEAN);
	assert_int_equal(st.last_seq, end - NB - 1);
	assert_int_equal(famfs_create_file(fs, "/d/b0", &a, NULL, NULL, &e), 0);
	famfs_close(fs);
	fsck_run(&t, f);
	assert_int_equal(f->errors, 0);
	assert_int_equal(f->warnings, 0);
	tdevs_remove(&t);
	free(f);
}

/* The lost path of a damaged RENAME is its new name, still readable. */
static void lost_rename_names_its_new_path(void **state)
{
	struct famfs_err e = { 0 };
	struct lost l = { 0 };
	struct famfs_dev *d;
	struct famfs_fs *fs;
	struct tdevs t;
	uint64_t off;
	uint32_t len;

	(void)state;
	tdevs_make(&t, 1, 8 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	make_log(&t, false, &off, &len);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	off = fs->tail;
	assert_int_equal(famfs_rename(fs, "/d/two", "/d/renamed", 0, &e), 0);
	famfs_close(fs);
	assert_int_equal(famfs_dev_open(t.paths[0], true, &d, &e), 0);
	famfs_dev_base(d)[FAMFS_LOG_OFFSET + off + 40 + 2] ^= 0x08;
	famfs_dev_close(d);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(famfs_log_lost(fs, on_lost, &l), 1);
	assert_string_equal(l.paths, "/d/renamed\n");
	assert_non_null(famfs_lookup(fs, "/d/two"));
	famfs_close(fs);
	tdevs_remove(&t);
}

/* A filesystem without a record (format 1.3 or older) gets one with its
 * next append, and from then on knows its committed tail.
 */
static void old_filesystem_gets_a_record_with_its_next_append(void **state)
{
	struct famfs_err e = { 0 };
	struct famfs_tail_record r;
	struct famfs_fs *fs;
	struct tdevs t;
	uint64_t off;
	uint32_t len;

	(void)state;
	tdevs_make(&t, 1, 8 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	make_log(&t, false, &off, &len);
	tlog_tailrec_clear(&t);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_false(famfs_tailrec_read(fs, &r));
	assert_int_equal(famfs_mkdir(fs, "/later", 0755, 0, 0, &e), 0);
	assert_true(famfs_tailrec_read(fs, &r));
	assert_int_equal(r.end_seq, fs->last_seq);
	assert_int_equal(r.entry_offset, fs->last_entry_off);
	famfs_close(fs);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_flip_of_the_last_entry_is_corruption_or_tear),
		cmocka_unit_test(every_flip_of_the_tail_record_is_reported),
		cmocka_unit_test(repair_ends_the_log_at_the_last_good_entry),
		cmocka_unit_test(old_filesystem_gets_a_record_with_its_next_append),
		cmocka_unit_test(lost_rename_names_its_new_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
