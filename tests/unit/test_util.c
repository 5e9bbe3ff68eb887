// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "famfs/format.h"
#include "test_util.h"

void tdevs_make(struct tdevs *t, unsigned n, uint64_t size)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	struct famfs_err e = { 0 };

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s/famfs-unit-XXXXXX", base);
	assert_non_null(mkdtemp(t->dir));
	t->n = n;
	for (unsigned i = 0; i < n; i++) {
		snprintf(t->path[i], sizeof(t->path[i]), "%s/dev%u", t->dir, i);
		t->paths[i] = t->path[i];
		if (famfs_emul_create(t->path[i], size, &e)) {
			fprintf(stderr, "%s\n", e.msg);
			fail();
		}
	}
}

void tdevs_remove(struct tdevs *t)
{
	for (unsigned i = 0; i < t->n; i++)
		unlink(t->path[i]);
	rmdir(t->dir);
}

void tdevs_mkfs(struct tdevs *t, uint64_t log_size)
{
	struct famfs_mkfs_opts o = { .log_size = log_size, .master_name = "hostA" };
	struct famfs_err e = { 0 };

	if (famfs_mkfs(t->paths, t->n, &o, NULL, &e)) {
		fprintf(stderr, "mkfs: %s\n", e.msg);
		fail();
	}
}

struct famfs_fs *tdevs_open(struct tdevs *t, unsigned flags)
{
	struct famfs_open_opts o = { .flags = flags, .host_name = "hostA" };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = NULL;

	if (famfs_open(t->paths, t->n, &o, &fs, &e)) {
		fprintf(stderr, "open: %s\n", e.msg);
		fail();
	}
	return fs;
}

unsigned tdevs_fsck_errors(struct tdevs *t, unsigned *warnings)
{
	struct famfs_fsck_result r;
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_fsck(t->paths, t->n, NULL, NULL, &r, &e), 0);
	if (warnings)
		*warnings = r.warnings;
	return r.errors;
}

void tdevs_load_format_1_0(struct tdevs *t)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "gzip -dc %s/format-1.0-dev0.img.gz | "
		 "dd of=%s conv=notrunc status=none", FAMFS_TEST_DATA_DIR,
		 t->path[0]);
	assert_int_equal(system(cmd), 0);
}

uint64_t tnode_ino(struct famfs_fs *fs, const char *path)
{
	struct famfs_node *n = famfs_lookup(fs, path);
	struct famfs_attr a;

	if (!n)
		return 0;
	famfs_node_attr(n, &a);
	return a.ino;
}

uint8_t *tdevs_snapshot(struct tdevs *t, unsigned i, size_t *len)
{
	FILE *f = fopen(t->path[i], "rb");
	uint8_t *b;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

void fill_pattern(void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

static unsigned fsck_counts(struct tdevs *t, unsigned *warnings)
{
	struct famfs_fsck_result r;
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_fsck(t->paths, t->n, NULL, NULL, &r, &e), 0);
	*warnings = r.warnings;
	return r.errors;
}

void tlog_damage_each(struct tdevs *t, uint64_t off, uint32_t len,
		      void (*check)(struct famfs_fs *fs, bool applied, void *arg),
		      void *arg)
{
	struct famfs_err e = { 0 };
	struct famfs_dev *d;
	uint8_t *entry, *saved = malloc(len), rec[128];
	unsigned warnings;

	assert_non_null(saved);
	assert_int_equal(famfs_dev_open(t->paths[0], true, &d, &e), 0);
	entry = famfs_dev_base(d) + FAMFS_LOG_OFFSET + off;
	memcpy(saved, entry, len);
	for (uint32_t i = 0; i < len; i++) {
		struct famfs_log_status st;
		struct famfs_fs *fs;

		entry[i] ^= 0x5a;
		fs = tdevs_open(t, FAMFS_OPEN_READ);
		famfs_log_status(fs, &st);
		assert_int_equal(st.tail_state, FAMFS_TAIL_CORRUPT);
		check(fs, false, arg);
		famfs_close(fs);
		entry[i] ^= 0x5a;
	}
	tlog_tailrec_keep(t, rec, true);
	tlog_tailrec_before(t, off);
	for (uint32_t cut = 0; cut <= len; cut++) {
		struct famfs_fs *fs;
		bool whole = true;

		memset(entry, 0, len);
		memcpy(entry, saved, cut);
		for (uint32_t k = cut; k < len; k++)
			whole = whole && saved[k] == 0;
		fs = tdevs_open(t, FAMFS_OPEN_READ);
		check(fs, whole, arg);
		famfs_close(fs);
		assert_int_equal(fsck_counts(t, &warnings), 0);
		if (cut > 0 && !whole)
			assert_int_equal(warnings, 1);
	}
	tlog_tailrec_keep(t, rec, false);
	famfs_dev_close(d);
	free(saved);
}

static uint8_t *tailrec_map(struct tdevs *t, struct famfs_dev **d)
{
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_dev_open(t->paths[0], true, d, &e), 0);
	return famfs_dev_base(*d) + FAMFS_TAILREC_OFFSET;
}

void tlog_tailrec_keep(struct tdevs *t, uint8_t buf[128], bool save)
{
	struct famfs_dev *d;
	uint8_t *rec = tailrec_map(t, &d);

	if (save)
		memcpy(buf, rec, 128);
	else
		memcpy(rec, buf, 128);
	famfs_dev_close(d);
}

void tlog_tailrec_clear(struct tdevs *t)
{
	struct famfs_dev *d;

	memset(tailrec_map(t, &d), 0, 128);
	famfs_dev_close(d);
}

void tlog_tailrec_before(struct tdevs *t, uint64_t off)
{
	struct famfs_dev *d;
	struct famfs_tail_record *rec = (void *)tailrec_map(t, &d);
	const uint8_t *log = famfs_dev_base(d) + FAMFS_LOG_OFFSET;
	const struct famfs_entry_hdr *at = (const void *)(log + off), *prev = NULL;
	uint64_t o = FAMFS_LOG_HEADER_SIZE, gen = rec[0].gen > rec[1].gen ?
						 rec[0].gen : rec[1].gen;

	while (o < off) {
		prev = (const void *)(log + o);
		o += prev->len;
	}
	assert_int_equal(o, off);
	for (unsigned i = 0; i < 2; i++) {
		struct famfs_tail_record r = { .magic = FAMFS_TAILREC_MAGIC,
					       .fs_tag = at->fs_tag,
					       .gen = gen + 1 + i,
					       .end_seq = at->seq - 1 };

		if (prev) {
			r.entry_seq = prev->seq;
			r.entry_offset = (uint64_t)((const uint8_t *)prev - log);
			r.entry_len = prev->len;
			r.entry_crc = prev->crc;
		}
		r.crc = famfs_crc32c(0, &r, sizeof(r));
		rec[r.gen % 2] = r;
	}
	famfs_dev_close(d);
}
