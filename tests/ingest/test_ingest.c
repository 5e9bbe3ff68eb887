// SPDX-License-Identifier: Apache-2.0
/*
 * The ingest engine on a real XFS tree (argv[1], made by with_xfs.sh), into
 * emulated devices through libfamfs, read back by a separate client open.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <libgen.h>
#include <xxhash.h>

#include "ingest.h"
#include "manifest_sqlite.h"
#include "uring.h"
#include "plan_order.h"

static const char *src;
static char dir[256];
/* When set, the source file at this path shrinks to shrink_to bytes the
 * moment its destination is reserved: after the plan, before its copy.
 */
static const char *shrink_path;
static off_t shrink_to;
/* ingest_opts.plain_io of the next do_ingest() */
static bool plain_io;
/* When set, called between the plan and the copy (the tree changes). */
static void (*after_plan)(void);
static int (*lib_begin)(void *s, const char *path, uint64_t size,
			struct ingest_target *t, char *why, size_t whylen);

static int shrinking_begin(void *s, const char *path, uint64_t size,
			   struct ingest_target *t, char *why, size_t whylen)
{
	int r = lib_begin(s, path, size, t, why, whylen);

	if (r == 0 && shrink_path)
		assert_int_equal(truncate(shrink_path, shrink_to), 0);
	return r;
}

struct env {
	const char *paths[4];
	char path[4][300];
	char manifest[300];
	unsigned n;
};

static void env_make(struct env *v, unsigned n, uint64_t size, uint64_t log)
{
	struct famfs_mkfs_opts o = { .log_size = log, .master_name = "m" };
	struct famfs_err e = { 0 };

	v->n = n;
	for (unsigned i = 0; i < n; i++) {
		snprintf(v->path[i], sizeof(v->path[i]), "%s/dev%u-%llu", dir, i,
			 (unsigned long long)size);
		unlink(v->path[i]);
		v->paths[i] = v->path[i];
		assert_int_equal(famfs_emul_create(v->path[i], size, &e), 0);
	}
	assert_int_equal(famfs_mkfs(v->paths, n, &o, NULL, &e), 0);
	snprintf(v->manifest, sizeof(v->manifest), "%s/manifest-%llu.db", dir,
		 (unsigned long long)size);
	unlink(v->manifest);
}

static struct famfs_fs *env_open(struct env *v, unsigned flags)
{
	struct famfs_open_opts o = { .flags = flags, .host_name = flags & FAMFS_OPEN_CLIENT ? "c" : "m" };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;

	if (famfs_open(v->paths, v->n, &o, &fs, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		fail();
	}
	return fs;
}

static int do_ingest(struct env *v, const char *source, const char *dest,
		     enum ingest_changed_policy pol, atomic_bool *cancel,
		     struct ingest_result *res, struct ingest_progress *prog)
{
	struct famfs_fs *fs = env_open(v, FAMFS_OPEN_MASTER);
	struct ingest_sink sink;
	struct ingest_manifest man;
	struct ingest_plan plan;
	struct ingest_opts o = { .source = source, .dest = dest, .threads = 2,
				 .verify = true, .changed = pol, .cancel = cancel,
				 .plain_io = plain_io };
	char why[512];
	int r;

	static struct ingest_sink_ops shrinking;

	memset(prog, 0, sizeof(*prog));
	ingest_sink_lib(&sink, fs);
	if (shrink_path) {
		shrinking = *sink.ops;
		lib_begin = shrinking.begin;
		shrinking.begin = shrinking_begin;
		sink.ops = &shrinking;
	}
	assert_int_equal(ingest_manifest_sqlite_open(&man, v->manifest, dest, why, sizeof(why)), 0);
	r = ingest_plan_build(source, dest, &plan, why, sizeof(why));
	if (r == 0 && after_plan)
		after_plan();
	if (r == 0) {
		r = ingest_run(&o, &plan, &sink, &man, prog, res);
		ingest_plan_free(&plan);
	} else {
		memset(res, 0, sizeof(*res));
		res->error = r;
		snprintf(res->message, sizeof(res->message), "%s", why);
	}
	ingest_manifest_sqlite_close(&man);
	famfs_close(fs);
	return r;
}

/* Every source file equal in bytes and attributes on a client. */
static uint64_t check_tree(struct env *v, const char *dest, bool allow_missing)
{
	struct ingest_plan p;
	char why[256], path[8192];
	struct famfs_fs *fs = env_open(v, FAMFS_OPEN_CLIENT);
	uint64_t checked = 0;

	assert_int_equal(ingest_plan_build(src, dest, &p, why, sizeof(why)), 0);
	for (uint64_t i = 0; i < p.nitems; i++) {
		struct ingest_item *it = &p.items[i];
		struct famfs_node *n;
		struct famfs_attr a;

		snprintf(path, sizeof(path), "%s/%s", dest, it->rel);
		n = famfs_lookup(fs, path);
		if (it->kind == INGEST_SKIP) {
			assert_null(n);
			continue;
		}
		if (!n && allow_missing)
			continue;
		if (!n)
			fprintf(stderr, "missing: %s\n", path);
		assert_non_null(n);
		famfs_node_attr(n, &a);
		assert_int_equal(a.mode & 07777, it->mode);
		assert_int_equal(a.uid, it->uid);
		assert_int_equal(a.gid, it->gid);
		if (it->kind == INGEST_DIR)
			continue;
		if (it->kind == INGEST_SYMLINK) {       /* kept, target verbatim */
			assert_true(famfs_node_is_symlink(n));
			assert_string_equal(famfs_node_target(n), it->target);
			assert_int_equal(a.mtime_ns, it->mtime_ns);
			continue;       /* checked counts files */
		}
		assert_int_equal(a.mtime_ns, it->mtime_ns);
		assert_int_equal(a.size, it->size);
		char sp[8192];
		uint8_t *want = malloc(it->size + 1), *got = malloc(it->size + 1);
		int fd;

		snprintf(sp, sizeof(sp), "%s/%s", src, it->rel);
		fd = open(sp, O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, want, it->size, 0), (ssize_t)it->size);
		close(fd);
		assert_int_equal(famfs_read(fs, famfs_node_map(n), a.size, 0, got, it->size),
				 (int64_t)it->size);
		assert_memory_equal(want, got, it->size);
		free(want);
		free(got);
		checked++;
	}
	ingest_plan_free(&p);
	famfs_close(fs);
	return checked;
}

static void ingest_tree_reads_back_identical_and_resumes(void **state)
{
	struct env v;
	struct ingest_result r;
	struct ingest_progress prog;
	struct ingest_plan p;
	char why[256];

	(void)state;
	env_make(&v, 4, 256 * FAMFS_MiB, 16 * FAMFS_MiB);
	assert_int_equal(ingest_plan_build(src, "/data", &p, why, sizeof(why)), 0);
	printf("plan: %llu files, %llu dirs, %llu skipped, %llu hard links, %llu sparse, %llu bytes\n",
	       (unsigned long long)p.files, (unsigned long long)p.dirs,
	       (unsigned long long)p.skipped, (unsigned long long)p.hardlinks,
	       (unsigned long long)p.sparse, (unsigned long long)p.bytes);
	assert_int_equal(p.skipped, 1);   /* a fifo */
	assert_int_equal(p.symlinks, 2);  /* kept as symlinks */
	assert_int_equal(p.symlinks_outside, 1);  /* -> /etc/passwd */
	assert_int_equal(p.hardlinks, 1);
	assert_true(p.sparse >= 1);
	uint64_t files = p.files;

	ingest_plan_free(&p);
	if (do_ingest(&v, src, "/data", INGEST_CHANGED_KEEP, NULL, &r, &prog))
		fprintf(stderr, "%s\n", r.message);
	assert_int_equal(r.error, 0);
	assert_int_equal(r.files_copied, files);
	assert_int_equal(r.files_verified, files);
	printf("copied %llu files, %llu bytes in %llu allocated (%.3f x)\n",
	       (unsigned long long)r.files_copied,
	       (unsigned long long)atomic_load(&prog.bytes_copied),
	       (unsigned long long)atomic_load(&prog.alloc_bytes),
	       (double)atomic_load(&prog.alloc_bytes) / (double)atomic_load(&prog.bytes_copied));
	assert_int_equal(check_tree(&v, "/data", false), files);

	/* again: nothing to copy */
	assert_int_equal(do_ingest(&v, src, "/data", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	assert_int_equal(r.files_copied, 0);
	assert_int_equal(r.files_skipped, files);

	/* a source file changes: reported and kept, or replaced */
	char f[8192];

	snprintf(f, sizeof(f), "%s/odd/with space and ünïcødé ✓.txt", src);
	int fd = open(f, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "changed!", 8), 8);
	close(fd);
	assert_int_equal(do_ingest(&v, src, "/data", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	assert_int_equal(r.files_changed, 1);
	assert_int_equal(r.files_copied, 0);
	assert_true(ingest_result_source_changed(&r, &(struct ingest_opts){ 0 }));
	ingest_result_free(&r);
	assert_int_equal(do_ingest(&v, src, "/data", INGEST_CHANGED_FAIL, NULL, &r, &prog), -ESTALE);
	assert_non_null(strstr(r.message, "changed since"));
	ingest_result_free(&r);
	assert_int_equal(do_ingest(&v, src, "/data", INGEST_CHANGED_REPLACE, NULL, &r, &prog), 0);
	assert_int_equal(r.files_copied, 1);
	ingest_result_free(&r);
	assert_int_equal(check_tree(&v, "/data", false), files);
}

struct canceller {
	struct ingest_progress *prog;
	atomic_bool *flag;
	atomic_bool ended;      /* the ingest returned: stop waiting */
};

/* Cancel once half of the tree's bytes are copied (whatever its size). */
static void *cancel_later(void *arg)
{
	struct canceller *c = arg;

	while (!atomic_load(&c->ended)) {
		uint64_t total = atomic_load(&c->prog->bytes_total);

		if (total && atomic_load(&c->prog->bytes_done) >= total / 2) {
			atomic_store(c->flag, true);
			break;
		}
		usleep(1000);
	}
	return NULL;
}

static void ingest_cancel_leaves_no_partial_file_then_resumes(void **state)
{
	struct env v;
	struct ingest_result r;
	struct ingest_progress prog;
	atomic_bool cancel = false;
	struct canceller c = { &prog, &cancel, false };
	pthread_t t;

	(void)state;
	env_make(&v, 2, 256 * FAMFS_MiB, 8 * FAMFS_MiB);
	memset(&prog, 0, sizeof(prog));
	pthread_create(&t, NULL, cancel_later, &c);
	do_ingest(&v, src, "/c", INGEST_CHANGED_KEEP, &cancel, &r, &prog);
	atomic_store(&c.ended, true);
	pthread_join(t, NULL);
	assert_int_equal(r.error, -ECANCELED);
	uint64_t visible = check_tree(&v, "/c", true);

	printf("cancelled with %llu complete files visible\n", (unsigned long long)visible);
	assert_int_equal(do_ingest(&v, src, "/c", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	assert_int_equal(r.files_skipped, visible);
	check_tree(&v, "/c", false);
}

static void ingest_bad_input_changes_nothing(void **state)
{
	struct env v;
	struct ingest_result r;
	struct ingest_progress prog;
	struct famfs_fs *fs;
	struct famfs_log_status before, after;
	char longdest[4096] = "";

	(void)state;
	env_make(&v, 2, 32 * FAMFS_MiB, 2 * FAMFS_MiB);
	fs = env_open(&v, FAMFS_OPEN_READ);
	famfs_log_status(fs, &before);
	famfs_close(fs);
	/* missing source */
	assert_int_equal(do_ingest(&v, "/nonexistent/src", "/x", 0, NULL, &r, &prog), -ENOENT);
	assert_non_null(strstr(r.message, "/nonexistent/src"));
	/* a name too long for the format once under the destination */
	for (int k = 0; k < 15; k++) {
		strcat(longdest, "/");
		memset(longdest + strlen(longdest), 'p', 255);
		longdest[1 + k * 256 + 255] = '\0';
	}
	assert_int_equal(do_ingest(&v, src, longdest, 0, NULL, &r, &prog), -ENAMETOOLONG);
	assert_non_null(strstr(r.message, "too long"));
	/* a destination without the space */
	assert_int_equal(do_ingest(&v, src, "/full", 0, NULL, &r, &prog), -ENOSPC);
	assert_non_null(strstr(r.message, "nothing was copied"));
	fs = env_open(&v, FAMFS_OPEN_READ);
	famfs_log_status(fs, &after);
	famfs_close(fs);
	assert_int_equal(after.entries, before.entries);

	/* a destination file that exists with other bytes */
	struct env w;
	struct famfs_file_attr a = { .size = 77, .mode = 0644 };
	struct famfs_err e;
	char path[512];

	env_make(&w, 4, 256 * FAMFS_MiB, 8 * FAMFS_MiB);
	fs = env_open(&w, FAMFS_OPEN_MASTER);
	famfs_mkdir(fs, "/d", 0755, 0, 0, &e);
	famfs_mkdir(fs, "/d/odd", 0755, 0, 0, &e);
	snprintf(path, sizeof(path), "/d/odd/%0255d", 0);
	memset(path + 7, 'n', 255);
	assert_int_equal(famfs_create_file(fs, path, &a, NULL, NULL, &e), 0);
	famfs_log_status(fs, &before);
	famfs_close(fs);
	assert_int_equal(do_ingest(&w, src, "/d", 0, NULL, &r, &prog), -EEXIST);
	assert_non_null(strstr(r.message, "different content"));
	fs = env_open(&w, FAMFS_OPEN_READ);
	famfs_log_status(fs, &after);
	famfs_close(fs);
	assert_int_equal(after.entries, before.entries);
}


/* A patterned file: every 8-byte word holds its own offset, scrambled, so
 * a piece copied to the wrong place or twice cannot compare equal.
 */
static void write_patterned(const char *path, uint64_t size)
{
	uint64_t buf[1 << 17];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		for (size_t w = 0; w < sizeof(buf) / 8; w++)
			buf[w] = (off + w * 8) * 0x9E3779B97F4A7C15ULL ^ 0xA5A5F00DULL;
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
	}
	close(fd);
}

/* The size of the committed file @path, -1 if there is none. */
static int64_t committed_size(struct env *v, const char *path)
{
	struct famfs_fs *fs = env_open(v, FAMFS_OPEN_CLIENT);
	struct famfs_node *n = famfs_lookup(fs, path);
	struct famfs_attr a = { .size = 0 };

	if (n)
		famfs_node_attr(n, &a);
	famfs_close(fs);
	return n ? (int64_t)a.size : -1;
}

static uint64_t xxh3_of_file(const char *path)
{
	XXH3_state_t *st = XXH3_createState();
	static uint8_t buf[1 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;
	uint64_t h;

	assert_true(fd >= 0);
	XXH3_64bits_reset(st);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		XXH3_64bits_update(st, buf, (size_t)n);
	assert_int_equal(n, 0);
	close(fd);
	h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return h;
}

/* A directory next to the shared tree, on the same XFS image. */
static void sibling_dir(char *out, size_t len, const char *name)
{
	char *copy = strdup(src);

	snprintf(out, len, "%s/%s", dirname(copy), name);
	free(copy);
	mkdir(out, 0755);
}

static void fsck_clean(struct env *v)
{
	struct famfs_fsck_result fr;
	struct famfs_err e = { 0 };

	assert_int_equal(famfs_fsck(v->paths, v->n, NULL, NULL, &fr, &e), 0);
	assert_int_equal(fr.errors, 0);
}

/* Larger than a 2 MiB unit, interleaved over 4 devices, a size that is a
 * multiple of neither the copy piece nor the unit: byte-identical on a
 * client, and the manifest's checksum is libxxhash's XXH3 of the source.
 */
static void ingest_large_patterned_file_identical_with_its_hash(void **state)
{
	const uint64_t size = 37 * FAMFS_MiB + 4099;
	struct ingest_manifest man;
	struct ingest_record rec;
	struct ingest_result r;
	struct ingest_progress prog;
	char sdir[512], file[600], why[256];
	struct env v;

	(void)state;
	sibling_dir(sdir, sizeof(sdir), "large-patterned");
	snprintf(file, sizeof(file), "%s/big.bin", sdir);
	write_patterned(file, size);
	env_make(&v, 4, 64 * FAMFS_MiB, 8 * FAMFS_MiB);
	if (do_ingest(&v, sdir, "/big", INGEST_CHANGED_KEEP, NULL, &r, &prog))
		fprintf(stderr, "%s\n", r.message);
	assert_int_equal(r.error, 0);
	assert_int_equal(r.files_copied, 1);
	assert_int_equal(r.files_verified, 1);

	struct famfs_fs *fs = env_open(&v, FAMFS_OPEN_CLIENT);
	struct famfs_node *n = famfs_lookup(fs, "/big/big.bin");
	uint8_t *want = malloc(size), *got = malloc(size);
	int fd = open(file, O_RDONLY);

	assert_non_null(n);
	assert_true(famfs_node_map(n)->nitems > 1); /* spans devices */
	assert_int_equal(pread(fd, want, size, 0), (ssize_t)size);
	close(fd);
	assert_int_equal(famfs_read(fs, famfs_node_map(n), size, 0, got, size), (int64_t)size);
	assert_memory_equal(want, got, size);
	free(want);
	free(got);
	famfs_close(fs);

	assert_int_equal(ingest_manifest_sqlite_open(&man, v.manifest, "/big", why, sizeof(why)), 0);
	assert_int_equal(man.ops->get(man.m, "big.bin", &rec), 0);
	ingest_manifest_sqlite_close(&man);
	assert_int_equal(rec.state, INGEST_DONE);
	assert_int_equal(rec.size, size);
	assert_int_equal(rec.checksum, xxh3_of_file(file));
	fsck_clean(&v);
	unlink(file);
}

/* The source shrinks after the plan, before its copy: the copy takes the
 * file as it is now (its new size reserved again, the planned
 * reservation given back), counted as changed during the ingest.
 */
static void ingest_source_shrunk_after_plan_is_copied_as_it_is_now(void **state)
{
	const uint64_t size = 48 * FAMFS_MiB + 777;
	struct famfs_space before, after;
	struct ingest_result r;
	struct ingest_progress prog;
	char sdir[512], file[600], other[600];
	struct famfs_fs *fs;
	struct env v;

	(void)state;
	sibling_dir(sdir, sizeof(sdir), "large-shrinking");
	/* in directories of its own: they are made before the copy */
	snprintf(file, sizeof(file), "%s/deep", sdir);
	mkdir(file, 0755);
	snprintf(file, sizeof(file), "%s/deep/er", sdir);
	mkdir(file, 0755);
	snprintf(file, sizeof(file), "%s/deep/er/shrinks.bin", sdir);
	snprintf(other, sizeof(other), "%s/small.bin", sdir);
	write_patterned(file, size);
	write_patterned(other, 5000);
	env_make(&v, 2, 128 * FAMFS_MiB, 8 * FAMFS_MiB);
	fs = env_open(&v, FAMFS_OPEN_READ);
	famfs_statfs(fs, &before);
	famfs_close(fs);

	shrink_path = file;
	shrink_to = 20 * FAMFS_MiB + 4097; /* mid-piece, mid-unit */
	assert_int_equal(do_ingest(&v, sdir, "/s", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	shrink_path = NULL;
	assert_int_equal(r.files_copied, 2);
	assert_int_equal(r.files_rewritten, 1);
	assert_int_equal(r.files_refused, 0);
	assert_int_equal(committed_size(&v, "/s/deep/er/shrinks.bin"), shrink_to);
	fs = env_open(&v, FAMFS_OPEN_CLIENT);
	famfs_statfs(fs, &after);
	famfs_close(fs);
	/* the 20 MiB copy and the small file: the planned 48 MiB came back */
	printf("space taken: %llu bytes\n",
	       (unsigned long long)(before.free_bytes - after.free_bytes));
	assert_true(before.free_bytes - after.free_bytes < 40 * FAMFS_MiB);
	fsck_clean(&v);

	/* the source whole again: a changed file, updated on request */
	write_patterned(file, size);
	assert_int_equal(do_ingest(&v, sdir, "/s", INGEST_CHANGED_REPLACE, NULL, &r, &prog), 0);
	assert_int_equal(r.files_changed, 1);
	assert_int_equal(r.files_copied, 1);
	assert_int_equal(committed_size(&v, "/s/deep/er/shrinks.bin"), size);
	unlink(file);
	unlink(other);
}

/* Files io_uring reads whole: more than 0 bytes, at most one copy piece. */
static uint64_t small_files_of(const char *source)
{
	struct ingest_plan p;
	char why[256];
	uint64_t n = 0;

	assert_int_equal(ingest_plan_build(source, "/x", &p, why, sizeof(why)), 0);
	for (uint64_t i = 0; i < p.nitems; i++)
		if (p.items[i].kind == INGEST_FILE && p.items[i].size > 0 &&
		    p.items[i].size <= 256 * 1024)
			n++;
	ingest_plan_free(&p);
	return n;
}

/* The tree through io_uring (where the kernel allows it) and with plain
 * system calls (forced by the option): the same files, bytes, attributes
 * and manifest checksums either way; the plain run never used io_uring,
 * the other read every small file through it.
 */
static void ingest_io_uring_and_plain_io_give_the_same_tree(void **state)
{
	struct ingest_manifest man;
	struct ingest_record a, b;
	struct ingest_result r;
	struct ingest_progress prog;
	struct ingest_plan p;
	struct env v;
	char why[256];
	struct uring_reader *u = uring_reader_new();
	bool have_uring = u != NULL;

	(void)state;
	uring_reader_free(u);
	printf("io_uring %s here\n", have_uring ? "available" : "unavailable");
	env_make(&v, 4, 256 * FAMFS_MiB, 16 * FAMFS_MiB);
	plain_io = true;
	assert_int_equal(do_ingest(&v, src, "/plain", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	plain_io = false;
	assert_int_equal(r.files_uring, 0);
	uint64_t files = r.files_copied;

	assert_int_equal(check_tree(&v, "/plain", false), files);
	assert_int_equal(do_ingest(&v, src, "/uring", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	assert_int_equal(r.files_copied, files);
	assert_int_equal(r.files_verified, files);
	printf("%llu of %llu files read through io_uring\n",
	       (unsigned long long)r.files_uring, (unsigned long long)files);
	assert_int_equal(r.files_uring, have_uring ? small_files_of(src) : 0);
	assert_int_equal(check_tree(&v, "/uring", false), files);

	/* the checksums recorded are the same, file by file */
	assert_int_equal(ingest_plan_build(src, "/x", &p, why, sizeof(why)), 0);
	for (uint64_t i = 0; i < p.nitems; i++) {
		const char *rel = p.items[i].rel;

		if (p.items[i].kind != INGEST_FILE)
			continue;
		assert_int_equal(ingest_manifest_sqlite_open(&man, v.manifest, "/plain",
							     why, sizeof(why)), 0);
		assert_int_equal(man.ops->get(man.m, rel, &a), 0);
		ingest_manifest_sqlite_close(&man);
		assert_int_equal(ingest_manifest_sqlite_open(&man, v.manifest, "/uring",
							     why, sizeof(why)), 0);
		assert_int_equal(man.ops->get(man.m, rel, &b), 0);
		ingest_manifest_sqlite_close(&man);
		assert_int_equal(a.checksum, b.checksum);
		assert_int_equal(a.size, b.size);
	}
	ingest_plan_free(&p);
	fsck_clean(&v);
}

/* A small file (read in one piece, io_uring where it works) shrinks
 * after the plan: io_uring comes up short, the plain path copies the
 * file as it is now.
 */
static void ingest_small_source_shrunk_after_plan_is_copied_as_it_is_now(void **state)
{
	struct ingest_result r;
	struct ingest_progress prog;
	char sdir[512], file[600];
	struct env v;

	(void)state;
	sibling_dir(sdir, sizeof(sdir), "small-shrinking");
	snprintf(file, sizeof(file), "%s/shrinks.bin", sdir);
	write_patterned(file, 50000);
	env_make(&v, 2, 64 * FAMFS_MiB, 8 * FAMFS_MiB);
	shrink_path = file;
	shrink_to = 30001;
	assert_int_equal(do_ingest(&v, sdir, "/s", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	shrink_path = NULL;
	assert_int_equal(r.files_copied, 1);
	assert_int_equal(r.files_rewritten, 1);
	assert_int_equal(committed_size(&v, "/s/shrinks.bin"), 30001);
	fsck_clean(&v);

	/* grown again: the re-run keeps it and names it, --update copies it */
	write_patterned(file, 50000);
	assert_int_equal(do_ingest(&v, sdir, "/s", INGEST_CHANGED_KEEP, NULL, &r, &prog), 0);
	assert_int_equal(r.files_changed, 1);
	assert_int_equal(r.changed.n, 1);
	assert_string_equal(r.changed.v[0], "shrinks.bin");
	ingest_result_free(&r);
	assert_int_equal(do_ingest(&v, sdir, "/s", INGEST_CHANGED_REPLACE, NULL, &r, &prog), 0);
	assert_int_equal(r.files_copied, 1);
	assert_int_equal(committed_size(&v, "/s/shrinks.bin"), 50000);
	fsck_clean(&v);
	unlink(file);
}

/* Directories of the swap test: the planned one and the symlink target. */
static char swap_dir[600], swap_outside[600], swap_target[700];

static void swap_dir_for_symlink(void)
{
	char real[700];

	snprintf(real, sizeof(real), "%s.real", swap_dir);
	assert_int_equal(rename(swap_dir, real), 0);
	assert_int_equal(symlink(swap_target, swap_dir), 0);
}

/* A directory below the root replaced by a symlink to a directory outside
 * the tree after the plan (the grandparent of a file, then its parent,
 * the one a worker opens its files in), then the file itself by a symlink
 * to a file outside: the job fails naming the file, and nothing from
 * outside is ingested.
 */
static void ingest_refuses_a_directory_swapped_for_a_symlink(void **state)
{
	/* the file itself too: a small file, read through io_uring where it
	 * works, whose open there is refused as on the plain path
	 */
	static const char *const swapped[] = { "a", "a/b", "a/b/f.bin" };
	struct ingest_result r;
	struct ingest_progress prog;
	char sdir[512], path[1400];
	struct famfs_fs *fs;
	struct env v;

	(void)state;
	sibling_dir(sdir, sizeof(sdir), "swap-src");
	sibling_dir(swap_outside, sizeof(swap_outside), "swap-outside");
	/* what a swapped "a" or "a/b" would lead to: outside/b/f.bin, outside/f.bin */
	snprintf(path, sizeof(path), "%s/b", swap_outside);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/b/f.bin", swap_outside);
	write_patterned(path, 7000);
	snprintf(path, sizeof(path), "%s/f.bin", swap_outside);
	write_patterned(path, 7000);
	for (unsigned k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "rm -rf '%s' && mkdir -p '%s/a/b'", sdir, sdir);
		assert_int_equal(system(path), 0);
		snprintf(path, sizeof(path), "%s/a/b/f.bin", sdir);
		write_patterned(path, 5000);
		snprintf(path, sizeof(path), "%s/top.bin", sdir);
		write_patterned(path, 3000);
		snprintf(swap_dir, sizeof(swap_dir), "%s/%s", sdir, swapped[k]);
		/* a directory for a directory, outside/f.bin for the file */
		snprintf(swap_target, sizeof(swap_target), "%s%s", swap_outside,
			 k == 2 ? "/f.bin" : "");
		env_make(&v, 2, 64 * FAMFS_MiB, 8 * FAMFS_MiB);

		after_plan = swap_dir_for_symlink;
		int e = do_ingest(&v, sdir, "/s", INGEST_CHANGED_KEEP, NULL, &r, &prog);

		after_plan = NULL;
		/* a symlink inside the path: ELOOP; as the last name (opened
		 * O_DIRECTORY | O_NOFOLLOW): ENOTDIR
		 */
		assert_true(e == -ELOOP || e == -ENOTDIR);
		printf("failed as it should (%s swapped): %s\n", swapped[k], r.message);
		assert_non_null(strstr(r.message, "source a/b/f.bin"));
		/* the code returned is the one the message names */
		assert_non_null(strstr(r.message, strerror(-e)));
		fs = env_open(&v, FAMFS_OPEN_CLIENT);
		assert_null(famfs_lookup(fs, "/s/a/b/f.bin"));
		famfs_close(fs);
		fsck_clean(&v);
	}
	snprintf(path, sizeof(path), "rm -rf '%s' '%s'", sdir, swap_outside);
	assert_int_equal(system(path), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ingest_tree_reads_back_identical_and_resumes),
		cmocka_unit_test(ingest_cancel_leaves_no_partial_file_then_resumes),
		cmocka_unit_test(ingest_bad_input_changes_nothing),
		cmocka_unit_test(ingest_large_patterned_file_identical_with_its_hash),
		cmocka_unit_test(ingest_source_shrunk_after_plan_is_copied_as_it_is_now),
		cmocka_unit_test(ingest_io_uring_and_plain_io_give_the_same_tree),
		cmocka_unit_test(ingest_small_source_shrunk_after_plan_is_copied_as_it_is_now),
		cmocka_unit_test(ingest_refuses_a_directory_swapped_for_a_symlink),
		cmocka_unit_test_prestate(ingest_plan_is_the_depth_first_walk, &src),
	};
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: test_ingest SOURCE_TREE\n");
		return 2;
	}
	src = argv[1];
	snprintf(dir, sizeof(dir), "/dev/shm/famfs-ingest-test.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
