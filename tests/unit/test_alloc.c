// SPDX-License-Identifier: Apache-2.0
/* Allocator: fill, ENOSPC without side effects, reuse after delete only
 * when every live client is past the tombstone, small-file packing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

static struct famfs_fs *open_as(struct tdevs *t, unsigned flags, const char *host)
{
	struct famfs_open_opts o = { .flags = flags, .host_name = host };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;

	assert_int_equal(famfs_open(t->paths, t->n, &o, &fs, &e), 0);
	return fs;
}

static int fill(struct famfs_fs *fs, const char *prefix, uint64_t size, int max)
{
	struct famfs_file_attr a = { .size = size, .mode = 0644 };
	struct famfs_err e = { 0 };
	char p[64];
	int i;

	for (i = 0; i < max; i++) {
		snprintf(p, sizeof(p), "/%s%d", prefix, i);
		if (famfs_create_file(fs, p, &a, NULL, NULL, &e))
			break;
	}
	return i;
}

static void alloc_fill_delete_reuse(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_space before, after;
	struct famfs_file_attr a = { .size = 4 * FAMFS_MiB, .mode = 0644 };
	uint64_t tail;
	int n;

	(void)state;
	tdevs_make(&t, 2, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	n = fill(fs, "f", 4 * FAMFS_MiB, 1000);
	/* dev0: 14 free units after header + log, dev1: 15; 2 strips each */
	assert_int_equal(n, 14);
	famfs_statfs(fs, &before);
	assert_int_equal(before.free_bytes, 2 * FAMFS_MiB); /* one unit, on one device */
	tail = fs->tail;
	assert_int_equal(famfs_create_file(fs, "/nope", &a, NULL, NULL, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "no space"));
	famfs_statfs(fs, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(fs->tail, tail);
	assert_null(famfs_lookup(fs, "/nope"));
	/* no client: a delete frees at once */
	assert_int_equal(famfs_unlink(fs, "/f3", &e), 0);
	assert_int_equal(famfs_create_file(fs, "/again", &a, NULL, NULL, &e), 0);
	famfs_close(fs);
	/* replay rebuilds the same allocator: the reuse is understood */
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_int_equal(fs->skipped, 0);
	famfs_statfs(fs, &after);
	assert_int_equal(after.free_bytes, 2 * FAMFS_MiB);
	assert_int_equal(after.nfiles, 14);
	famfs_close(fs);
	tdevs_remove(&t);
}

/* A read-only handle (famfsd's view) counts as pending only what a live
 * client has not replayed past; the rest is free, as the master frees it.
 */
static void view_pending_follows_the_clients(void **state)
{
	struct tdevs t;
	struct famfs_fs *m, *c, *r;
	struct famfs_err e = { 0 };
	struct famfs_space before, held, after;

	(void)state;
	tdevs_make(&t, 1, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	m = open_as(&t, FAMFS_OPEN_MASTER, "hostA");
	assert_int_equal(fill(m, "f", 4 * FAMFS_MiB, 2), 2);
	c = open_as(&t, FAMFS_OPEN_CLIENT, "hostB");
	r = open_as(&t, FAMFS_OPEN_READ, NULL);
	famfs_statfs(r, &before);
	assert_int_equal(before.pending_bytes, 0);
	assert_int_equal(famfs_unlink(m, "/f0", &e), 0);
	assert_int_equal(famfs_replay(r, &e), 1);
	famfs_statfs(r, &held);
	assert_int_equal(held.pending_bytes, 4 * FAMFS_MiB);
	assert_int_equal(held.free_bytes, before.free_bytes);
	/* the client replays past the delete: nothing waits */
	assert_int_equal(famfs_replay(c, &e), 1);
	famfs_statfs(r, &after);
	assert_int_equal(after.pending_bytes, 0);
	assert_int_equal(after.free_bytes, before.free_bytes + 4 * FAMFS_MiB);
	famfs_close(r);
	famfs_close(c);
	famfs_close(m);
	tdevs_remove(&t);
}

static void reuse_waits_for_every_live_client(void **state)
{
	struct tdevs t;
	struct famfs_fs *m, *c1, *c2;
	struct famfs_err e = { 0 };
	struct famfs_file_attr a = { .size = 4 * FAMFS_MiB, .mode = 0644 };
	struct famfs_space s;

	(void)state;
	tdevs_make(&t, 1, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	m = open_as(&t, FAMFS_OPEN_MASTER, "hostA");
	assert_int_equal(fill(m, "f", 4 * FAMFS_MiB, 100), 7);
	c1 = open_as(&t, FAMFS_OPEN_CLIENT, "hostB");
	c2 = open_as(&t, FAMFS_OPEN_CLIENT, "hostC");
	assert_int_equal(famfs_unlink(m, "/f0", &e), 0);
	/* neither client has seen the tombstone */
	assert_int_equal(famfs_create_file(m, "/new", &a, NULL, NULL, &e), -ENOSPC);
	famfs_statfs(m, &s);
	assert_int_equal(s.pending_bytes, 4 * FAMFS_MiB);
	/* c1 follows; c2 has /f0 open, so it publishes only up to before it */
	struct famfs_node *held = famfs_lookup(c2, "/f0");

	famfs_node_hold(c2, held);
	assert_int_equal(famfs_replay(c1, &e), 1);
	assert_int_equal(famfs_replay(c2, &e), 1);
	assert_null(famfs_lookup(c2, "/f0"));
	assert_int_equal(famfs_create_file(m, "/new", &a, NULL, NULL, &e), -ENOSPC);
	/* the last holder lets go: now the space comes back */
	famfs_node_release(c2, held);
	assert_int_equal(famfs_create_file(m, "/new", &a, NULL, NULL, &e), 0);
	/* a client that is gone for good can be evicted */
	assert_int_equal(famfs_unlink(m, "/f1", &e), 0);
	famfs_close(c2); /* releases its slot */
	assert_int_equal(famfs_create_file(m, "/new2", &a, NULL, NULL, &e), -ENOSPC);
	struct famfs_slot_info si[4];

	assert_int_equal(famfs_slots(m, si, 4), 1);
	assert_string_equal(si[0].host_name, "hostB");
	assert_int_equal(famfs_slot_evict(m, si[0].index, &e), 0);
	assert_int_equal(famfs_create_file(m, "/new2", &a, NULL, NULL, &e), 0);
	/* the evicted client goes on reading but no longer holds anyone up */
	famfs_replay(c1, &e);
	assert_non_null(famfs_lookup(c1, "/new2"));
	famfs_close(c1);
	famfs_close(m);
	tdevs_remove(&t);
}

static void small_files_are_packed(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_space s;
	uint64_t bytes = 0;
	char p[64];

	(void)state;
	tdevs_make(&t, 2, 256 * FAMFS_MiB);
	tdevs_mkfs(&t, 8 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	srandom(3);
	uint64_t free0;

	famfs_statfs(fs, &s);
	free0 = s.free_bytes;
	for (int i = 0; i < 3000; i++) {
		struct famfs_file_attr a = { .mode = 0644 };

		a.size = 4096 + (uint64_t)random() % (60 * 1024);
		bytes += a.size;
		snprintf(p, sizeof(p), "/s%d", i);
		assert_int_equal(famfs_create_file(fs, p, &a, NULL, NULL, &e), 0);
	}
	famfs_statfs(fs, &s);
	double amp = (double)(free0 - s.free_bytes) / (double)bytes;

	printf("space amplification for 3000 files of 4-64 KiB: %.3f\n", amp);
	assert_true(amp <= 1.1);
	famfs_close(fs);
	/* replay agrees byte for byte */
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	struct famfs_space s2;

	famfs_statfs(fs, &s2);
	assert_int_equal(s2.free_bytes, s.free_bytes);
	assert_int_equal(fs->skipped, 0);
	famfs_close(fs);
	tdevs_remove(&t);
}

static void replay_rejects_overlapping_maps(void **state)
{
	struct tdevs t;
	struct famfs_fs *fs;
	struct famfs_err e = { 0 };
	struct famfs_file_attr a = { .size = 2 * FAMFS_MiB, .mode = 0644 };
	struct famfs_fmap *m;
	struct famfs_fsck_result r;

	(void)state;
	tdevs_make(&t, 1, 32 * FAMFS_MiB);
	tdevs_mkfs(&t, 2 * FAMFS_MiB);
	fs = tdevs_open(&t, FAMFS_OPEN_MASTER);
	assert_int_equal(famfs_alloc(fs, a.size, NULL, &m, &e), 0);
	assert_int_equal(famfs_commit_file(fs, "/a", &a, m, &e), 0);
	/* a buggy writer logs the same extent twice */
	fs->map_reserved = true;
	assert_int_equal(famfs_commit_file(fs, "/b", &a, m, &e), 0);
	fs->map_reserved = false;
	/* one outside the device is refused by famfs_map_check() before it
	 * reaches the log (the same check replay applies)
	 */
	m->items[0].offset = 40 * FAMFS_MiB;
	fs->map_reserved = true;
	assert_int_equal(famfs_commit_file(fs, "/c", &a, m, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "outside"));
	fs->map_reserved = false;
	free(m);
	famfs_close(fs);
	assert_int_equal(famfs_fsck(t.paths, 1, NULL, NULL, &r, &e), 0);
	assert_int_equal(r.errors, 1);
	fs = tdevs_open(&t, FAMFS_OPEN_READ);
	assert_non_null(famfs_lookup(fs, "/a"));
	assert_null(famfs_lookup(fs, "/b"));
	assert_null(famfs_lookup(fs, "/c"));
	famfs_close(fs);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alloc_fill_delete_reuse),
		cmocka_unit_test(reuse_waits_for_every_live_client),
		cmocka_unit_test(view_pending_follows_the_clients),
		cmocka_unit_test(small_files_are_packed),
		cmocka_unit_test(replay_rejects_overlapping_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
