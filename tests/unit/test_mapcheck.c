// SPDX-License-Identifier: Apache-2.0
/*
 * The one map validator (famfs_map_check() in include/famfs/fmap_resolve.h): a map
 * the kernel module would refuse is refused by the master's commit and by
 * replay too, with a reason, and changes nothing (issue 13).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

/* A real 2-strip, 8 MiB interleaved allocation to corrupt. */
static struct famfs_fmap *interleaved(struct famfs_fs *fs)
{
	struct famfs_alloc_policy p = { .nstrips = 2, .chunk = FAMFS_UNIT_SIZE };
	struct famfs_err e = { 0 };
	struct famfs_fmap *m;

	assert_int_equal(famfs_alloc(fs, 8 * FAMFS_MiB, &p, &m, &e), 0);
	assert_int_equal(m->type, FAMFS_MAP_INTERLEAVE);
	assert_int_equal(m->nitems, 2);
	return m;
}

static void refused(struct famfs_fs *fs, struct famfs_fmap *m, uint64_t size,
		    const char *what, const char *reason)
{
	struct famfs_file_attr a = { .size = size, .mode = 0644 };
	struct famfs_err e = { 0 };
	uint64_t tail = fs->tail, nfiles = fs->nfiles;
	int r = famfs_commit_file(fs, "/bad", &a, m, &e);

	if (r != -EINVAL || !strstr(e.msg, reason))
		fail_msg("%s: commit returned %d '%s', want -EINVAL naming '%s'",
			 what, r, e.msg, reason);
	assert_int_equal(fs->tail, tail);
	assert_int_equal(fs->nfiles, nfiles);
	assert_null(famfs_lookup(fs, "/bad"));
}

static void commit_refuses_what_kmod_refuses(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_fmap *m;
	struct famfs_file_attr a = { .size = 8 * FAMFS_MiB, .mode = 0644 };
	struct famfs_err e = { 0 };
	uint64_t keep, off1;

	(void)state;
	tdevs_make(&t, 2, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	m = interleaved(fs);

	keep = m->chunk;
	m->chunk = FAMFS_MiB;       /* kmod: not a multiple of 2 MiB */
	refused(fs, m, 8 * FAMFS_MiB, "chunk 1 MiB", "chunk");
	m->chunk = 64 * FAMFS_MiB;  /* kmod: larger than the devices */
	refused(fs, m, 8 * FAMFS_MiB, "chunk beyond device", "chunk");
	m->chunk = keep;

	m->items[1].reserved = 1;
	refused(fs, m, 8 * FAMFS_MiB, "reserved item field", "reserved");
	m->items[1].reserved = 0;

	off1 = m->items[1].offset;
	m->items[1].offset = 4096;  /* the label and superblock */
	refused(fs, m, 8 * FAMFS_MiB, "strip in the header", "outside");
	m->items[1].offset = off1 + 512; /* not 4 KiB aligned */
	refused(fs, m, 8 * FAMFS_MiB, "unaligned strip", "aligned");
	m->items[1].offset = off1;

	keep = m->items[1].dev_index;
	m->items[1].dev_index = m->items[0].dev_index; /* same place twice */
	m->items[1].offset = m->items[0].offset;
	refused(fs, m, 8 * FAMFS_MiB, "overlapping strips", "overlap");
	m->items[1].dev_index = (uint32_t)keep;
	m->items[1].offset = off1;
	m->items[1].dev_index = 7;
	refused(fs, m, 8 * FAMFS_MiB, "no such device", "device");
	m->items[1].dev_index = (uint32_t)keep;
	/* strip 1 holds one whole chunk and a half: 7 MiB of items, but a
	 * gap at chunk 3, so only 6 MiB of file */
	m->items[1].length = 3 * FAMFS_MiB;
	refused(fs, m, 7 * FAMFS_MiB, "short strip", "fewer bytes");
	m->items[1].length = 4 * FAMFS_MiB;

	/* the good map still commits, and survives replay */
	famfs_alloc_release(fs, m);
	free(m);
	m = interleaved(fs);
	assert_int_equal(famfs_commit_file(fs, "/good", &a, m, &e), 0);
	free(m);
	famfs_close(fs);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(fs->skipped, 0);
	assert_non_null(famfs_lookup(fs, "/good"));
	famfs_close(fs);
	tdevs_remove(&t);
}

static void extents_with_a_chunk_are_refused(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_fmap *m;
	struct famfs_err e = { 0 };

	(void)state;
	tdevs_make(&t, 1, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_alloc(fs, 4 * FAMFS_MiB, NULL, &m, &e), 0);
	assert_int_equal(m->type, FAMFS_MAP_EXTENTS);
	m->chunk = FAMFS_UNIT_SIZE;
	refused(fs, m, 4 * FAMFS_MiB, "extents with a chunk", "chunk");
	m->chunk = 0;
	m->items[0].length = 0;
	refused(fs, m, 0, "empty extent", "length");
	famfs_alloc_release(fs, m);
	free(m);
	famfs_close(fs);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commit_refuses_what_kmod_refuses),
		cmocka_unit_test(extents_with_a_chunk_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
