// SPDX-License-Identifier: Apache-2.0
/*
 * Running an ingest: decide per file (copy, skip, changed), refuse early
 * when space is short, create directories, then copy files in parallel
 * workers, large files first (largest first), then small files directory
 * by directory, each opened by its name in its directory's fd. Each copy
 * reads straight from the source into the device memory the file's map
 * points at (one copy), hashing as it goes, and commits only after the
 * data is flushed: a worker commits up to INGEST_BATCH_FILES files with
 * one log append (group commit).
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hash.h"
#include "ingest.h"
#include "killpoint.h"
#include "removed.h"
#include "run_job.h"
#include "source_change.h"
#include "symlinks.h"
#include "uring.h"

enum action { ACT_NONE, ACT_COPY, ACT_SKIP, ACT_UPDATE };

void job_vfail(struct job *j, int err, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&j->lock);
	if (!j->res->error) {
		j->res->error = err;
		vsnprintf(j->res->message, sizeof(j->res->message), fmt, ap);
	}
	pthread_mutex_unlock(&j->lock);
	atomic_store(&j->failed, true);
}

static char *dest_path(const struct ingest_opts *o, const char *rel)
{
	char *s;
	size_t dl = strlen(o->dest);

	while (dl > 1 && o->dest[dl - 1] == '/')
		dl--;
	if (asprintf(&s, "%.*s%s%s", (int)dl, o->dest,
		     *rel && !(dl == 1 && o->dest[0] == '/') ? "/" : "", rel) < 0)
		return NULL;
	return s;
}

/* Open @rel below @root and never through a symlink (@rel may be one
 * name in a directory fd, then @root is that directory).
 */
static int open_beneath(int root, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(O_RDONLY | O_CLOEXEC | O_NOFOLLOW | flags),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		fd = openat(root, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | flags);
	return fd;
}

static void src_dir_release(struct job *j, struct src_dir *d)
{
	if (d->fd >= 0 && d->fd != j->srcfd)
		close(d->fd);
	d->fd = -1;
	d->dir = UINT64_MAX;
}

/* Hold the directory of @it open: its fd, or -1 and errno. */
static int src_dir_of(struct job *j, struct src_dir *d, const struct ingest_item *it)
{
	if (d->dir != it->parent) {
		src_dir_release(j, d);
		if (it->parent == 0) {
			d->fd = j->srcfd;
		} else {
			d->fd = open_beneath(j->srcfd, j->p->items[it->parent].rel, O_DIRECTORY);
			if (d->fd < 0)
				return -1;
		}
		d->dir = it->parent;
	}
	return d->fd;
}

int job_open_source(struct job *j, struct src_dir *d, const struct ingest_item *it)
{
	int dfd = src_dir_of(j, d, it);

	return dfd < 0 ? -1 : open_beneath(dfd, it->rel + it->name_off, 0);
}

/* XXH3 of a committed famfs file, read back through the sink. */
static int hash_dest(struct job *j, const char *path, uint64_t size, uint64_t *h)
{
	size_t bs = 4 << 20;
	uint8_t *buf = malloc(bs);
	XXH3_state_t st;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	XXH3_64bits_reset(&st);
	for (uint64_t off = 0; off < size;) {
		int64_t n = j->sink->ops->read(j->sink->s, path, off, buf,
					       size - off < bs ? size - off : bs);

		if (n <= 0) {
			r = n < 0 ? (int)n : -EIO;
			break;
		}
		ingest_hash_update(&st, buf, (size_t)n);
		off += (uint64_t)n;
	}
	*h = XXH3_64bits_digest(&st);
	free(buf);
	return r;
}

static int hash_source(struct job *j, const char *rel, uint64_t *h, uint64_t *size)
{
	int fd = open_beneath(j->srcfd, rel, 0), r;

	if (fd < 0)
		return -errno;
	r = job_hash_fd(fd, h, size);
	close(fd);
	return r;
}

/* --verify=all: a file already there and unchanged at the source is
 * read on both sides and compared like one just copied.
 */
static void verify_existing(struct job *j, const struct ingest_item *it,
			    const char *dst)
{
	uint64_t hs = 0, hd = 1, ss;

	if (hash_source(j, it->rel, &hs, &ss) || hash_dest(j, dst, it->size, &hd) ||
	    hs != hd) {
		fail(j, -EIO, "%s: verify failed: famfs copy differs from the source",
		     dst);
		return;
	}
	pthread_mutex_lock(&j->lock);
	j->res->files_verified++;
	pthread_mutex_unlock(&j->lock);
}

/* Decide what to do with one file, before anything is copied. */
static enum action decide(struct job *j, const struct ingest_item *it)
{
	struct ingest_record rec;
	struct famfs_attr a;
	char *dst = dest_path(j->o, it->rel);
	bool exists = dst && j->sink->ops->stat(j->sink->s, dst, &a) == 0;
	/* a record matters only for a file that exists: a fresh ingest asks
	 * the manifest nothing (a SELECT and its locks per file, measured)
	 */
	bool known = exists && j->man &&
		     j->man->ops->get(j->man->m, it->rel, &rec) == 0 &&
		     rec.state == INGEST_DONE;
	enum action act = ACT_COPY;

	if (!dst)
		return ACT_NONE;
	if (known && exists) {
		if (rec.size == it->size && rec.mtime_ns == it->mtime_ns) {
			act = ACT_SKIP;
			if (j->o->verify_all && !j->o->plan_only)
				verify_existing(j, it, dst);
		} else if (j->o->changed == INGEST_CHANGED_REPLACE) {
			/* copied beside the old copy, renamed over it */
			act = ACT_UPDATE;
			atomic_fetch_add(&j->prog->files_changed, 1);
		} else {
			atomic_fetch_add(&j->prog->files_changed, 1);
			ingest_names_add(&j->res->changed, "%s", it->rel);
			if (j->o->changed == INGEST_CHANGED_FAIL && !j->o->plan_only)
				fail(j, -ESTALE, "%s changed since it was ingested "
				     "(size %llu -> %llu); famfs files are immutable",
				     it->rel, (unsigned long long)rec.size,
				     (unsigned long long)it->size);
			act = ACT_SKIP;
		}
	} else if (exists && j->o->plan_only) {
		/* the plan reads and records nothing: the run checks it */
		act = ACT_SKIP;
	} else if (exists) {
		/* A copy we have no record of: the same bytes, or a conflict. */
		uint64_t hs = 0, hd = 1, ss;

		if (S_ISDIR(a.mode & 0170000) || a.size != it->size ||
		    hash_source(j, it->rel, &hs, &ss) || hash_dest(j, dst, a.size, &hd) ||
		    hs != hd) {
			fail(j, -EEXIST, "destination %s exists with different content", dst);
			act = ACT_NONE;
		} else {
			struct ingest_record r = { it->size, it->mtime_ns, hs, INGEST_DONE };

			if (j->man)
				j->man->ops->put(j->man->m, it->rel, &r);
			act = ACT_SKIP;
		}
	}
	free(dst);
	return act;
}

static int make_dirs(struct job *j)
{
	char *p = strdup(j->o->dest);

	/* the destination's own parents, like mkdir -p */
	for (char *s = p + 1; p && *s; s++) {
		struct famfs_attr a;

		if (*s != '/')
			continue;
		*s = '\0';
		if (j->sink->ops->stat(j->sink->s, p, &a) != 0 &&
		    j->sink->ops->mkdir(j->sink->s, p, 0755, 0, 0) == 0)
			ingest_made_dirs_add(&j->made, p);
		*s = '/';
	}
	free(p);
	for (uint64_t i = 0; i < j->p->nitems && !stopping(j); i++) {
		const struct ingest_item *it = &j->p->items[i];
		struct famfs_attr a;
		char *dst;
		int r;

		if (it->kind != INGEST_DIR)
			continue;
		dst = dest_path(j->o, it->rel);
		if (j->sink->ops->stat(j->sink->s, dst, &a) == 0) {
			if (!S_ISDIR(a.mode & 0170000))
				fail(j, -ENOTDIR, "destination %s exists and is not a directory", dst);
		} else if ((r = j->sink->ops->mkdir(j->sink->s, dst, it->mode, it->uid, it->gid))) {
			fail(j, r, "cannot create directory %s: %s", dst, strerror(-r));
		} else {
			ingest_made_dirs_add(&j->made, dst);
		}
		free(dst);
	}
	return j->res->error;
}

static void done_copy_free(struct done_copy *c)
{
	free(c->t.map);
	free(c->dst);
	free(c->final);
}

struct wbatch {
	struct done_copy c[INGEST_BATCH_FILES];
	unsigned n;
};

/* After the commit: verify, record in the manifest, count. */
static void finish_one(struct job *j, struct done_copy *c)
{
	const struct ingest_item *it = c->it;
	int r;

	FAMFS_KILL_POINT("ingest.committed");
	atomic_fetch_add(&j->prog->alloc_bytes, famfs_fmap_bytes(c->t.map));
	if (j->o->verify || j->o->verify_all) {
		uint64_t back;

		if (hash_dest(j, c->dst, c->size, &back) || back != c->hash) {
			fail(j, -EIO, "%s: verify failed: famfs copy differs from the source",
			     c->dst);
			return;
		}
		pthread_mutex_lock(&j->lock);
		j->res->files_verified++;
		pthread_mutex_unlock(&j->lock);
	}
	if (c->final && (r = j->sink->ops->rename(j->sink->s, c->dst, c->final))) {
		fail(j, r, "%s: cannot rename the updated copy over it: %s", c->final,
		     strerror(-r));
		return;
	}
	struct ingest_record rec = { c->size, c->mtime_ns, c->hash, INGEST_DONE };

	if (j->man && (r = j->man->ops->put(j->man->m, it->rel, &rec)))
		fail(j, r, "manifest: cannot record %s: %s", it->rel,
		     j->man->ops->error ? j->man->ops->error(j->man->m) : strerror(-r));
	FAMFS_KILL_POINT("ingest.manifest_put");
	atomic_fetch_add(&j->prog->files_copied, 1);
	atomic_fetch_add(&j->prog->bytes_copied, c->size);
	atomic_fetch_add(&j->prog->files_done, 1);
}

static struct famfs_file_attr copy_attr(const struct done_copy *c)
{
	struct famfs_file_attr a = { .size = c->size, .mode = c->it->mode,
				     .uid = c->it->uid, .gid = c->it->gid,
				     .mtime_ns = c->mtime_ns };
	return a;
}

/* Group commit of what the worker copied: one log append for all. */
static void flush_batch(struct job *j, struct wbatch *wb)
{
	struct famfs_commit_req reqs[INGEST_BATCH_FILES];
	struct ingest_target *ts[INGEST_BATCH_FILES];
	char why[512] = "";
	int r;

	if (!wb->n)
		return;
	memset(reqs, 0, wb->n * sizeof(reqs[0]));
	for (unsigned i = 0; i < wb->n; i++) {
		reqs[i].path = wb->c[i].dst;
		reqs[i].attr = copy_attr(&wb->c[i]);
		ts[i] = &wb->c[i].t;
	}
	r = j->sink->ops->commit_batch(j->sink->s, ts, reqs, wb->n, why, sizeof(why));
	if (r < 0)
		fail(j, r, "%s and %u more files: %s", wb->c[0].dst, wb->n - 1, why);
	for (unsigned i = 0; i < wb->n; i++) {
		struct done_copy *c = &wb->c[i];

		if (r >= 0 && reqs[i].result)
			fail(j, reqs[i].result, "%s: %s", c->dst, reqs[i].why);
		else if (r >= 0)
			finish_one(j, c);
		done_copy_free(c);
	}
	wb->n = 0;
}

/*
 * An update copies beside the old copy, under a name no source file has
 * (a dot name with the item's index), and renames it over the old one
 * once committed: a reader sees the old bytes or the new, never a mix.
 * A leftover of an interrupted update is removed first.
 */
static int update_path(struct job *j, struct done_copy *c, uint64_t idx)
{
	const char *slash = strrchr(c->dst, '/');
	int dirlen = slash ? (int)(slash - c->dst) : 0;
	struct famfs_attr a;

	c->final = c->dst;
	if (asprintf(&c->dst, "%.*s/.famfs-update.%llu", dirlen, c->final,
		     (unsigned long long)idx) < 0) {
		c->dst = NULL;
		return -ENOMEM;
	}
	if (j->sink->ops->stat(j->sink->s, c->dst, &a) == 0)
		j->sink->ops->remove(j->sink->s, c->dst);
	return 0;
}

/* Reserve the file's space: nothing is visible yet. */
static int stage(struct job *j, const struct ingest_item *it, struct done_copy *c)
{
	char why[512] = "";
	int r;

	memset(c, 0, sizeof(*c));
	c->it = it;
	c->size = it->size;
	c->mtime_ns = it->mtime_ns;
	c->dst = dest_path(j->o, it->rel);
	if (c->dst && j->update[it - j->p->items])
		r = update_path(j, c, (uint64_t)(it - j->p->items));
	else
		r = c->dst ? 0 : -ENOMEM;
	if (r) {
		fail(j, r, "%s: out of memory", it->rel);
		done_copy_free(c);
		return r;
	}
	c->t.policy = &j->o->policy;
	r = j->sink->ops->begin(j->sink->s, c->dst, it->size, &c->t, why, sizeof(why));
	if (r) {
		fail(j, r, "%s: %s", c->dst, why);
		done_copy_free(c);
	}
	return r;
}

/* Give the reservation back: the file is never committed. */
static void drop(struct job *j, struct done_copy *c)
{
	if (c->t.map)
		j->sink->ops->abort(j->sink->s, &c->t, c->dst);
	done_copy_free(c);
}

/* Copied: commit with the worker's batch, or by itself. */
static void copied(struct job *j, struct done_copy *c, struct wbatch *wb)
{
	struct famfs_file_attr a = copy_attr(c);
	char why[512] = "";
	int r;

	FAMFS_KILL_POINT("ingest.copied");
	if (j->sink->ops->commit_batch) {
		wb->c[wb->n++] = *c;
		if (wb->n == INGEST_BATCH_FILES)
			flush_batch(j, wb);
		return;
	}
	r = j->sink->ops->commit(j->sink->s, &c->t, c->dst, &a, why, sizeof(why));
	if (r)
		fail(j, r, "%s: %s", c->dst, why);
	else
		finish_one(j, c);
	done_copy_free(c);
}

static void copy_one(struct job *j, const struct ingest_item *it, struct wbatch *wb,
		     struct src_dir *sd)
{
	struct done_copy c;

	if (stage(j, it, &c))
		return;
	if (job_copy_plain(j, &c, sd, true))
		drop(j, &c);
	else
		copied(j, &c, wb);
}

/* XXH3 of a whole small file that has just landed (still in cache). */
static uint64_t hash_landed(const void *p, uint64_t size)
{
	XXH3_state_t st;

	XXH3_64bits_reset(&st);
	ingest_hash_update(&st, p, (size_t)size);
	return XXH3_64bits_digest(&st);
}

/* Files staged for one io_uring submit. */
struct ugroup {
	struct uring_reader *u;         /* NULL: plain system calls only */
	struct src_dir sd;              /* the directory of every file staged */
	struct done_copy c[URING_GROUP_FILES];
	struct uring_file f[URING_GROUP_FILES];
	unsigned n;
};

/*
 * A file io_uring reads in one request: it lies in one piece of one
 * device (small files are packed, so all of them do) and is small enough
 * that the hash still finds it in cache.
 */
static void *whole_file_dst(const struct done_copy *c)
{
	struct famfs_loc loc;

	if (c->it->size == 0 || c->it->size > COPY_PIECE ||
	    famfs_fmap_resolve(c->t.map, 0, &loc) || loc.length < c->it->size)
		return NULL;
	return c->t.dev_base[loc.dev_index] + loc.dev_offset;
}

/*
 * The source still is as planned after io_uring read it (the plan's
 * stat is the "before", the statx of the open file once the read was
 * done the "after"), and with --verify hashes as the copy: else the
 * file is copied again with plain system calls, which check each copy.
 */
static bool uring_copy_held(struct job *j, struct ugroup *g, struct done_copy *c)
{
	const struct uring_file *f = &g->f[c - g->c];
	struct src_state after;
	uint64_t h, n;

	/* the statx io_uring ran on the open file after the read */
	if (f->stat_result || src_state_of_statx(&f->stx, &after) ||
	    !src_state_is_planned(&after, c->it))
		return false;
	c->hash = hash_landed(f->dst, c->size);
	return !j->o->verify || (!hash_source(j, c->it->rel, &h, &n) &&
				 h == c->hash && n == c->size);
}

/*
 * Read the staged group with one submit, hash each file where it landed
 * and hand it to the commit. A file io_uring could not read completely
 * (it failed to open, shrank, or the ring broke) is copied again with
 * plain system calls, which report what is wrong in their usual words.
 */
static void read_group(struct job *j, struct ugroup *g, struct wbatch *wb)
{
	int r = g->n ? uring_read_files(g->u, g->sd.fd, g->f, g->n) : 0;

	if (r) {
		uring_reader_free(g->u);
		g->u = NULL;
	}
	for (unsigned i = 0; i < g->n; i++) {
		struct done_copy *c = &g->c[i];
		uint64_t size = c->it->size;

		if (!r && g->f[i].result >= 0 && (uint64_t)g->f[i].result == size &&
		    !stopping(j) && uring_copy_held(j, g, c)) {
			atomic_fetch_add_explicit(&j->prog->bytes_done, size,
						  memory_order_relaxed);
			atomic_fetch_add(&j->res_uring_files, 1);
			copied(j, c, wb);
		} else if (!stopping(j) && !job_copy_plain(j, c, &g->sd, false)) {
			copied(j, c, wb);
		} else {
			drop(j, c);
		}
	}
	g->n = 0;
}

/* Copy one planned file: staged for io_uring when it can, else at once. */
static void copy_or_stage(struct job *j, const struct ingest_item *it,
			  struct ugroup *g, struct wbatch *wb)
{
	struct done_copy *c;
	void *dst;

	/* a group is of one directory, the one g->sd holds: read it first */
	if (g->n && g->c[0].it->parent != it->parent)
		read_group(j, g, wb);
	c = &g->c[g->n];
	if (!g->u || it->size == 0 || it->size > COPY_PIECE ||
	    src_dir_of(j, &g->sd, it) < 0) {
		copy_one(j, it, wb, &g->sd);    /* which says why an open fails */
		return;
	}
	if (stage(j, it, c))
		return;
	dst = whole_file_dst(c);
	if (!dst) {
		if (job_copy_plain(j, c, &g->sd, true))
			drop(j, c);
		else
			copied(j, c, wb);
		return;
	}
	g->f[g->n] = (struct uring_file){ .rel = it->rel + it->name_off, .dst = dst,
					  .size = (uint32_t)it->size };
	if (++g->n == URING_GROUP_FILES)
		read_group(j, g, wb);
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct wbatch *wb = calloc(1, sizeof(*wb));
	struct ugroup *g = calloc(1, sizeof(*g));

	if (!wb || !g) {
		fail(j, -ENOMEM, "out of memory");
		free(wb);
		free(g);
		return NULL;
	}
	g->u = j->o->plain_io ? NULL : uring_reader_new();
	g->sd = (struct src_dir){ .dir = UINT64_MAX, .fd = -1 };
	for (;;) {
		uint64_t k = atomic_fetch_add(&j->next, 1);

		if (k >= j->norder || stopping(j))
			break;
		copy_or_stage(j, &j->p->items[j->order[k]], g, wb);
	}
	/* staged files are reserved, not copied: read them unless stopping */
	read_group(j, g, wb);
	src_dir_release(j, &g->sd);
	uring_reader_free(g->u);
	free(g);
	/* what was copied is complete and flushed: commit it even when
	 * stopping (a resume would copy it again otherwise)
	 */
	flush_batch(j, wb);
	free(wb);
	return NULL;
}

/*
 * Files of a unit or more first, largest first (the long copies start
 * early and the workers end together); then the small ones directory by
 * directory in plan order, so that a worker's open directory (struct
 * src_dir) serves its next file too.
 */
static int copy_order(const void *a, const void *b, void *plan)
{
	const struct ingest_plan *p = plan;
	uint64_t ia = *(const uint64_t *)a, ib = *(const uint64_t *)b;
	const struct ingest_item *x = &p->items[ia], *y = &p->items[ib];
	bool xl = x->size >= FAMFS_UNIT_SIZE, yl = y->size >= FAMFS_UNIT_SIZE;

	if (xl != yl)
		return xl ? -1 : 1;
	if (xl && x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (!xl && x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* Place every file to copy on paper, in copy order (plan_space.c). */
static void check_space(struct job *j)
{
	char why[sizeof(j->res->message)];
	uint64_t at = 0;
	int r = ingest_check_space(j->sink, j->p, j->order, j->norder, &at,
				   why, sizeof(why));

	if (r == -ENOSPC && at < j->norder) {
		const struct ingest_item *it = &j->p->items[j->order[at]];

		snprintf(j->res->plan_failed, sizeof(j->res->plan_failed),
			 "%s", it->rel);
		j->res->plan_failed_size = it->size;
	}
	if (r == -ENOSPC && !j->o->plan_only)
		fail(j, r, "the destination lacks space, nothing was copied: %s",
		     why);
	else if (r)
		fail(j, r, "%s", why);
}

int ingest_run(const struct ingest_opts *o, const struct ingest_plan *p,
	       struct ingest_sink *sink, struct ingest_manifest *man,
	       struct ingest_progress *prog, struct ingest_result *res)
{
	struct job j = { .o = o, .p = p, .sink = sink, .man = man, .prog = prog,
			 .res = res };
	unsigned threads = o->threads ? o->threads : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	int r;
	pthread_t tid[64];

	memset(res, 0, sizeof(*res));
	pthread_mutex_init(&j.lock, NULL);
	j.srcfd = open(o->source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j.srcfd < 0) {
		res->error = -errno;
		snprintf(res->message, sizeof(res->message), "source %s: %s", o->source,
			 strerror(errno));
		return res->error;
	}
	j.order = malloc((p->files + 1) * sizeof(*j.order));
	j.update = calloc(p->nitems + 1, sizeof(*j.update));
	j.tries = o->max_tries ? o->max_tries : INGEST_DEFAULT_TRIES;
	if (!j.order || !j.update) {
		free(j.order);
		free(j.update);
		close(j.srcfd);
		res->error = -ENOMEM;
		snprintf(res->message, sizeof(res->message), "out of memory");
		return res->error;
	}
	atomic_store(&prog->files_total, p->files);
	atomic_store(&prog->bytes_total, p->bytes);
	for (uint64_t i = 0; i < p->nitems && !stopping(&j); i++) {
		const struct ingest_item *it = &p->items[i];

		if (it->kind != INGEST_FILE)
			continue;
		switch (decide(&j, it)) {
		case ACT_UPDATE:
			j.update[i] = true;
			/* fall through */
		case ACT_COPY:
			j.order[j.norder++] = i;
			break;
		case ACT_SKIP:
			atomic_fetch_add(&prog->files_skipped, 1);
			atomic_fetch_add(&prog->files_done, 1);
			atomic_fetch_add(&prog->bytes_done, it->size);
			break;
		case ACT_NONE:
			break;
		}
	}
	/* before the space check: what --delete removes is free again
	 * (a plan deletes nothing: it counts that space as taken)
	 */
	struct ingest_opts keep = *o;

	keep.delete_removed = o->delete_removed && !o->plan_only;
	if (!res->error && (r = ingest_removed(&keep, p, sink, man, res))) {
		char why[sizeof(res->message)];

		snprintf(why, sizeof(why), "%s", res->message);
		fail(&j, r, "%s", why);
	}
	qsort_r(j.order, j.norder, sizeof(*j.order), copy_order, (void *)p);
	res->plan_files = j.norder;
	for (uint64_t k = 0; k < j.norder; k++)
		res->plan_bytes += p->items[j.order[k]].size;
	if (!res->error)
		check_space(&j);
	if (o->plan_only) {
		free(j.order);
		free(j.update);
		close(j.srcfd);
		pthread_mutex_destroy(&j.lock);
		return res->error;
	}
	if (!res->error)
		make_dirs(&j);
	/* symlinks are one log entry each and no data: made here, in order */
	if (!res->error && ingest_make_symlinks(o, p, sink, man, res))
		atomic_store(&j.failed, true);
	if (threads > 64)
		threads = 64;
	if (threads > j.norder)
		threads = j.norder ? (unsigned)j.norder : 1;
	unsigned started = 0;

	/* Workers already started may fail (res->error, under j.lock) while
	 * more start: read their atomic flag, not res->error.
	 */
	while (!atomic_load(&j.failed) && started < threads &&
	       pthread_create(&tid[started], NULL, worker, &j) == 0)
		started++;
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (!res->error && o->cancel && atomic_load(o->cancel)) {
		res->error = -ECANCELED;
		snprintf(res->message, sizeof(res->message), "cancelled");
	}
	if (res->error)
		res->dirs_removed = ingest_made_dirs_remove_empty(sink, &j.made);
	else
		res->error = ingest_removed_dirs(o, p, sink, res);
	ingest_made_dirs_free(&j.made);
	res->files_copied = atomic_load(&prog->files_copied);
	res->files_skipped = atomic_load(&prog->files_skipped);
	res->files_changed = atomic_load(&prog->files_changed);
	res->files_uring = atomic_load(&j.res_uring_files);
	res->files_rewritten = atomic_load(&prog->files_rewritten);
	res->copies_retried = atomic_load(&prog->copies_retried);
	res->files_refused = atomic_load(&prog->files_refused);
	ingest_names_sort(&res->refused);
	ingest_names_sort(&res->changed);
	res->skipped_special = p->skipped;
	res->hardlinks = p->hardlinks;
	res->sparse = p->sparse;
	free(j.order);
	free(j.update);
	close(j.srcfd);
	pthread_mutex_destroy(&j.lock);
	return res->error;
}
