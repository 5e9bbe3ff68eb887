// SPDX-License-Identifier: Apache-2.0
/*
 * libfamfs from many threads at once: the lazy set-up done by the first
 * caller, lookups and holds racing replay, unlink and creates. The
 * assertions check the outcome; the ThreadSanitizer build (make
 * tsan-check) also fails the test on any data race on the way. Threads
 * only count what they see: cmocka's asserts run in the main thread.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfs/crc32c.h"
#include "test_util.h"

#define NTHREADS 6
#define NFILES 24
#define ROUNDS 40

static pthread_barrier_t start;

static void *crc_first_use(void *arg)
{
	static const char check[] = "123456789";

	pthread_barrier_wait(&start);
	*(uint32_t *)arg = famfs_crc32c(0, check, 9);
	return NULL;
}

/* Must run first: no checksum may have been computed in this process. */
static void crc_table_built_once_by_concurrent_first_callers(void **state)
{
	pthread_t t[NTHREADS];
	uint32_t crc[NTHREADS];

	(void)state;
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, crc_first_use, &crc[i]), 0);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(crc[i], FAMFS_CRC32C_CHECK);
	}
	pthread_barrier_destroy(&start);
}

static struct famfs_fs *open_as(struct tdevs *t, unsigned flags, const char *host)
{
	struct famfs_open_opts o = { .flags = flags, .host_name = host };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = NULL;

	if (famfs_open(t->paths, t->n, &o, &fs, &e)) {
		fprintf(stderr, "open: %s\n", e.msg);
		fail();
	}
	return fs;
}

struct race {
	struct famfs_fs *master, *client;
	atomic_bool done;
	atomic_int held, missing, wrong, errors;
};

/* Replay on the client, as famfs-fused's follower thread does. */
static void *follower(void *arg)
{
	struct race *r = arg;
	struct famfs_err e = { 0 };

	pthread_barrier_wait(&start);
	while (!atomic_load(&r->done))
		if (famfs_replay(r->client, &e) < 0)
			atomic_fetch_add(&r->errors, 1);
	return NULL;
}

/* Hold files by path and by inode, read them while held, release. */
static void *holder(void *arg)
{
	struct race *r = arg;
	char path[32];

	pthread_barrier_wait(&start);
	while (!atomic_load(&r->done)) {
		for (int i = 0; i < NFILES; i++) {
			struct famfs_node *n, *m;
			struct famfs_attr a;

			snprintf(path, sizeof(path), "/d/f%d", i);
			n = famfs_lookup_hold(r->client, 0, path, FAMFS_HOLD_FILE);
			if (!n) {
				atomic_fetch_add(&r->missing, 1);
				continue;
			}
			famfs_fs_rdlock(r->client);
			famfs_node_attr(n, &a);
			famfs_fs_unlock(r->client);
			/* the same node again by inode, while it is held */
			m = famfs_lookup_hold(r->client, a.ino, NULL, 0);
			if (a.size != 4096 + (uint64_t)i || m != n)
				atomic_fetch_add(&r->wrong, 1);
			if (m)
				famfs_node_release(r->client, m);
			famfs_node_release(r->client, n);
			atomic_fetch_add(&r->held, 1);
		}
	}
	return NULL;
}

static int create(struct famfs_fs *fs, int i)
{
	struct famfs_file_attr a = { .size = 4096 + (uint64_t)i, .mode = 0644 };
	struct famfs_err e = { 0 };
	char path[32];

	snprintf(path, sizeof(path), "/d/f%d", i);
	return famfs_create_file(fs, path, &a, NULL, NULL, &e);
}

/* The master deletes and re-creates every file, ROUNDS times. */
static void *churn(void *arg)
{
	struct race *r = arg;
	struct famfs_err e = { 0 };
	char path[32];

	pthread_barrier_wait(&start);
	for (int round = 0; round < ROUNDS; round++)
		for (int i = 0; i < NFILES; i++) {
			snprintf(path, sizeof(path), "/d/f%d", i);
			if (famfs_unlink(r->master, path, &e) || create(r->master, i))
				atomic_fetch_add(&r->errors, 1);
			famfs_reclaim(r->master);
		}
	atomic_store(&r->done, true);
	return NULL;
}

static void lookup_hold_races_replay_and_unlink(void **state)
{
	struct race r = { 0 };
	struct famfs_err e = { 0 };
	struct tdevs t;
	pthread_t th[NTHREADS];
	int nth = 0;

	(void)state;
	tdevs_make(&t, 1, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 8 * FAMFS_MiB);
	r.master = open_as(&t, FAMFS_OPEN_MASTER, "hostA");
	assert_int_equal(famfs_mkdir(r.master, "/d", 0755, 0, 0, &e), 0);
	for (int i = 0; i < NFILES; i++)
		assert_int_equal(create(r.master, i), 0);
	r.client = open_as(&t, FAMFS_OPEN_CLIENT, "hostB");
	pthread_barrier_init(&start, NULL, NTHREADS);
	assert_int_equal(pthread_create(&th[nth++], NULL, churn, &r), 0);
	assert_int_equal(pthread_create(&th[nth++], NULL, follower, &r), 0);
	while (nth < NTHREADS)
		assert_int_equal(pthread_create(&th[nth++], NULL, holder, &r), 0);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	assert_int_equal(atomic_load(&r.errors), 0);
	assert_int_equal(atomic_load(&r.wrong), 0);
	assert_true(atomic_load(&r.held) > 0);       /* the race was run */
	/* after the churn every file is there again, the dir is refused */
	assert_int_equal(famfs_replay(r.client, &e) >= 0, 1);
	for (int i = 0; i < NFILES; i++) {
		char path[32];
		struct famfs_node *n;

		snprintf(path, sizeof(path), "/d/f%d", i);
		n = famfs_lookup_hold(r.client, 0, path, FAMFS_HOLD_FILE);
		assert_non_null(n);
		famfs_node_release(r.client, n);
	}
	errno = 0;
	assert_null(famfs_lookup_hold(r.client, 0, "/d", FAMFS_HOLD_FILE));
	assert_int_equal(errno, EISDIR);
	assert_null(famfs_lookup_hold(r.client, 0, "/nope", 0));
	assert_int_equal(errno, ENOENT);
	famfs_close(r.client);
	famfs_close(r.master);
	tdevs_remove(&t);
}

struct maker {
	struct famfs_fs *fs;
	int id;
	atomic_int *errors, *found;
};

/* Each thread creates its own files and looks up everyone's. */
static void *make_and_look(void *arg)
{
	struct maker *m = arg;
	struct famfs_file_attr a = { .size = 8192, .mode = 0644 };
	struct famfs_err e = { 0 };
	char path[48];

	pthread_barrier_wait(&start);
	for (int i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "/t%d/f%d", m->id, i);
		if (famfs_create_file(m->fs, path, &a, NULL, NULL, &e))
			atomic_fetch_add(m->errors, 1);
		for (int o = 0; o < NTHREADS; o++) {
			struct famfs_node *n;

			snprintf(path, sizeof(path), "/t%d/f%d", o, i);
			n = famfs_lookup_hold(m->fs, 0, path, FAMFS_HOLD_FILE);
			if (n) {
				atomic_fetch_add(m->found, 1);
				famfs_node_release(m->fs, n);
			}
		}
	}
	return NULL;
}

static void many_threads_create_and_look_up(void **state)
{
	struct maker m[NTHREADS];
	pthread_t th[NTHREADS];
	atomic_int errors = 0, found = 0;
	struct famfs_err e = { 0 };
	struct famfs_space sp;
	struct famfs_fs *fs;
	struct tdevs t;
	char dir[16];

	(void)state;
	tdevs_make(&t, 2, 64 * FAMFS_MiB);
	tdevs_mkfs(&t, 8 * FAMFS_MiB);
	fs = open_as(&t, FAMFS_OPEN_MASTER, "hostA");
	for (int i = 0; i < NTHREADS; i++) {
		snprintf(dir, sizeof(dir), "/t%d", i);
		assert_int_equal(famfs_mkdir(fs, dir, 0755, 0, 0, &e), 0);
	}
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		m[i] = (struct maker){ .fs = fs, .id = i, .errors = &errors,
				       .found = &found };
		assert_int_equal(pthread_create(&th[i], NULL, make_and_look, &m[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	assert_int_equal(atomic_load(&errors), 0);
	/* each thread found at least its own file of every round */
	assert_true(atomic_load(&found) >= NTHREADS * NFILES);
	famfs_statfs(fs, &sp);
	assert_int_equal(sp.nfiles, NTHREADS * NFILES);
	famfs_close(fs);
	tdevs_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc_table_built_once_by_concurrent_first_callers),
		cmocka_unit_test(lookup_hold_races_replay_and_unlink),
		cmocka_unit_test(many_threads_create_and_look_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
