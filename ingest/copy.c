// SPDX-License-Identifier: Apache-2.0
/*
 * Copying one file: each piece read from the source straight into the
 * device memory the file's map points at (one copy) and hashed there,
 * and the copy checked against the source: what the source said before
 * (the plan's stat for a first copy, the open file's fstat for a copy
 * made again) and the open file's fstat after must agree (size, mtime,
 * ctime, inode), with --verify its bytes read again must hash the same.
 * A file that changed is copied again, then refused: never committed
 * (docs/ingest.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hash.h"
#include "run_job.h"
#include "source_change.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Map the target's pages in one call instead of one fault per 4 KiB page
 * inside pread (measured: the faults, not the copy, cap a fresh mapping).
 */
static void populate(struct ingest_target *t)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (unsigned i = 0; i < t->map->nitems; i++) {
		uintptr_t a = (uintptr_t)(t->dev_base[t->map->items[i].dev_index] +
					  t->map->items[i].offset);
		uintptr_t e = a + t->map->items[i].length;

		a &= ~(page - 1);
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
	}
}

/* What a cold piece reads ahead in one request: the device's own window
 * (read_ahead_kb, 128 KiB on most) is far smaller than a large file wants.
 */
#define COLD_READAHEAD (4u << 20)

/*
 * One piece of the source. A warm piece comes straight from the page
 * cache; one that is not there (RWF_NOWAIT says so without waiting) gets
 * COLD_READAHEAD bytes read ahead first (measured: 256 KiB reads alone
 * ran cold at half the speed of 1 MiB ones). Returns what pread returns.
 */
static ssize_t read_piece(int fd, void *dst, size_t n, uint64_t off, uint64_t size)
{
	struct iovec v = { .iov_base = dst, .iov_len = n };
	ssize_t got = preadv2(fd, &v, 1, (off_t)off, RWF_NOWAIT);

	if (got >= 0 || (errno != EAGAIN && errno != EOPNOTSUPP))
		return got;
	if (errno == EAGAIN)
		readahead(fd, (off_t)off, size - off < COLD_READAHEAD ?
			  (size_t)(size - off) : COLD_READAHEAD);
	return pread(fd, dst, n, (off_t)off);
}

/*
 * Copy one file into its reserved map in one pass: each piece is read
 * from the source straight into the device memory the map points at,
 * then hashed there while it is in cache. Returns 0 or -errno: -ESTALE
 * when the source shrank (the caller copies it again), another on a read
 * error, which fails the job.
 */
static int copy_into(struct job *j, int fd, struct ingest_target *t, uint64_t size,
		     uint64_t *hash, const char *rel)
{
	XXH3_state_t st;
	uint64_t off = 0;

	XXH3_64bits_reset(&st);
	if (size >= FAMFS_UNIT_SIZE)
		populate(t);
	while (off < size) {
		struct famfs_loc loc;
		uint64_t n;
		ssize_t got;

		if (stopping(j))
			return -ECANCELED;
		if (famfs_fmap_resolve(t->map, off, &loc))
			return -EFBIG;
		n = size - off < loc.length ? size - off : loc.length;
		if (n > COPY_PIECE)
			n = COPY_PIECE;
		uint8_t *dst = t->dev_base[loc.dev_index] + loc.dev_offset;

		got = read_piece(fd, dst, n, off, size);
		if (got == 0)
			return -ESTALE;         /* it shrank: copied again */
		if (got < 0) {
			fail(j, -errno, "%s: read failed at %llu: %s", rel,
			     (unsigned long long)off, strerror(errno));
			return -EIO;
		}
		ingest_hash_update(&st, dst, (size_t)got);
		off += (uint64_t)got;
		atomic_fetch_add_explicit(&j->prog->bytes_done, (uint64_t)got,
					  memory_order_relaxed);
	}
	*hash = XXH3_64bits_digest(&st);
	return 0;
}

int job_hash_fd(int fd, uint64_t *h, uint64_t *size)
{
	size_t bs = 4 << 20;
	uint8_t *buf = malloc(bs);
	XXH3_state_t st;
	ssize_t n = -1;
	uint64_t off = 0;

	XXH3_64bits_reset(&st);
	while (buf && (n = pread(fd, buf, bs, (off_t)off)) > 0) {
		ingest_hash_update(&st, buf, (size_t)n);
		off += (uint64_t)n;
	}
	*h = XXH3_64bits_digest(&st);
	*size = off;
	free(buf);
	return n < 0 ? -EIO : 0;
}

/* The file is not committed, and named in the result with why. */
static void refuse(struct job *j, struct done_copy *c, const char *why)
{
	atomic_fetch_add(&j->prog->files_refused, 1);
	pthread_mutex_lock(&j->lock);
	ingest_names_add(&j->res->refused, "%s: %s", c->it->rel, why);
	pthread_mutex_unlock(&j->lock);
}

static void seen_changing(struct job *j, struct done_copy *c)
{
	if (!c->seen_changing)
		atomic_fetch_add(&j->prog->files_rewritten, 1);
	c->seen_changing = true;
}

/* The source's size is not the one reserved: reserve again. */
static int restage(struct job *j, struct done_copy *c, uint64_t size)
{
	char why[512] = "";
	int r;

	j->sink->ops->abort(j->sink->s, &c->t, c->dst);
	free(c->t.map);
	memset(&c->t, 0, sizeof(c->t));
	c->t.policy = &j->o->policy;
	r = j->sink->ops->begin(j->sink->s, c->dst, size, &c->t, why, sizeof(why));
	if (r)
		fail(j, r, "%s: %s", c->dst, why);
	else
		c->size = size;
	return r;
}

/*
 * One copy with plain system calls, checked: the source before the copy
 * (@planned: what the plan's stat said, no fstat; else the open file's
 * fstat) and the open file's fstat after it must agree (size, mtime,
 * ctime, inode), and with --verify its bytes read again must hash as the
 * copy did. Without @planned, a file that changed since the plan is
 * copied as it is now (its new size reserved). Returns 0, -ESTALE (it
 * changed: copy again), -ENOENT (it is gone; refused) or another -errno
 * (the job failed).
 */
static int copy_checked(struct job *j, struct done_copy *c, struct src_dir *sd,
			bool planned)
{
	struct src_state before, after;
	int fd = job_open_source(j, sd, c->it), err = errno, r;
	uint64_t h, n;

	if (fd < 0 && err == ENOENT) {
		seen_changing(j, c);
		refuse(j, c, "disappeared while copying");
		return -ENOENT;
	}
	if (fd < 0) {
		/* errno read once, at the open: the rest may change it */
		fail(j, -err, "source %s: %s", c->it->rel, strerror(err));
		return -err;
	}
	if (planned)
		src_state_of_plan(c->it, &before);
	r = planned ? 0 : src_state_of_fd(fd, &before);
	if (!r && !src_state_is_planned(&before, c->it)) {
		seen_changing(j, c);
		c->mtime_ns = before.mtime_ns;
		if (before.size != c->size)
			r = restage(j, c, before.size);
	}
	if (!r)
		r = copy_into(j, fd, &c->t, c->size, &c->hash, c->it->rel);
	if (!r)
		r = src_state_of_fd(fd, &after);
	if (!r && !src_state_same(&before, &after))
		r = -ESTALE;
	if (!r && j->o->verify && (job_hash_fd(fd, &h, &n) || h != c->hash || n != c->size))
		r = -ESTALE;
	close(fd);
	return r;
}

/* The copy with plain system calls, made again while the source changes
 * under it, up to the job's tries; then the file is refused. A first
 * copy (@first) takes the plan's stat for its "before", as an io_uring
 * copy does: one fstat fewer a file. When the file changed since the
 * plan, that copy does not count as a try: the tries check both sides.
 */
int job_copy_plain(struct job *j, struct done_copy *c, struct src_dir *sd, bool first)
{
	char why[64];

	if (first) {
		int r = copy_checked(j, c, sd, true);

		if (r != -ESTALE)
			return r;
	}
	for (unsigned tries = 1;; tries++) {
		int r = copy_checked(j, c, sd, false);

		if (r != -ESTALE)
			return r;
		seen_changing(j, c);
		if (tries >= j->tries || stopping(j)) {
			snprintf(why, sizeof(why), "changed while copying (%u copies)", tries);
			refuse(j, c, why);
			return r;
		}
		atomic_fetch_add(&j->prog->copies_retried, 1);
	}
}
