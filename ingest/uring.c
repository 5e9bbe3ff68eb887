// SPDX-License-Identifier: Apache-2.0
/*
 * io_uring reads of small source files (uring.h). A group of files takes
 * three submits, whatever its size: the opens (openat2 into plain fds,
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, as open_beneath() in run.c), the
 * reads of each whole file straight into its device mapping, then per
 * file a statx of the open fd (AT_EMPTY_PATH: no name looked up again)
 * linked to its close. The statx is what the source says after the copy;
 * the caller compares it with the plan.
 *
 * Why three batches and not one chain per file (measured, bench/results/
 * ingest.md): the kernel never runs a statx inline but hands it to an
 * io-wq worker. Linked after each read, the statxes reached the worker
 * one by one as the reads completed, and the worker slept and woke for
 * nearly every one; a batch of them queued at once is one wake-up. And a
 * statx of an fd costs no path lookup, where a fixed-file slot (no fd)
 * left only the statx by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uring.h"

#ifdef FAMFS_HAVE_LIBURING
#include <liburing.h>

/* what the check compares (source_change.c); the device comes always */
#define STAT_MASK (STATX_SIZE | STATX_MTIME | STATX_CTIME | STATX_INO)

enum { OP_OPEN, OP_READ, OP_STATX, OP_CLOSE };

struct uring_reader {
	struct io_uring ring;
	struct open_how how;
	int fd[URING_GROUP_FILES];      /* the group's open files, or -1 */
};

static bool probe_ops(struct io_uring *ring)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	bool ok = p && io_uring_opcode_supported(p, IORING_OP_OPENAT2) &&
		  io_uring_opcode_supported(p, IORING_OP_READ) &&
		  io_uring_opcode_supported(p, IORING_OP_STATX) &&
		  io_uring_opcode_supported(p, IORING_OP_CLOSE);

	io_uring_free_probe(p);
	return ok;
}

struct uring_reader *uring_reader_new(void)
{
	struct uring_reader *u = calloc(1, sizeof(*u));
	/* SUBMIT_ALL: a bad request does not stop the ones after it */
	unsigned flags = IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN;
	int r;

	if (!u)
		return NULL;
	r = io_uring_queue_init(URING_GROUP_FILES * 2, &u->ring, flags);
	if (r == -EINVAL) /* a kernel before 6.1: no DEFER_TASKRUN */
		r = io_uring_queue_init(URING_GROUP_FILES * 2, &u->ring,
					IORING_SETUP_SUBMIT_ALL);
	if (r) {
		free(u);
		errno = -r;
		return NULL;
	}
	if (!probe_ops(&u->ring)) {
		io_uring_queue_exit(&u->ring);
		free(u);
		errno = EOPNOTSUPP;
		return NULL;
	}
	u->how.flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC;
	u->how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	for (unsigned i = 0; i < URING_GROUP_FILES; i++)
		u->fd[i] = -1;
	return u;
}

void uring_reader_free(struct uring_reader *u)
{
	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
}

static struct io_uring_sqe *sqe_for(struct uring_reader *u, unsigned i, unsigned op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	sqe->user_data = (uint64_t)i << 2 | op;
	return sqe;
}

/*
 * Submit what is queued and take @want completions, each passed to
 * @fn(u, arg, i, op, res). Returns 0, or -errno when the ring failed (then
 * fewer came back than were asked for).
 */
static int run_batch(struct uring_reader *u, void *arg, unsigned want,
		     void (*fn)(struct uring_reader *, void *, unsigned, unsigned, int))
{
	unsigned seen = 0, asked = want;
	int r;

	if (!want)
		return 0;
	r = io_uring_submit_and_wait(&u->ring, want);
	if (r < 0)
		return r;
	if ((unsigned)r != want)
		want = (unsigned)r; /* only these will complete: wait for them */
	while (seen < want) {
		struct io_uring_cqe *cqe;

		r = io_uring_wait_cqe(&u->ring, &cqe);
		if (r == -EINTR)
			continue;
		if (r)
			return r;
		fn(u, arg, (unsigned)(cqe->user_data >> 2),
		   (unsigned)(cqe->user_data & 3), cqe->res);
		io_uring_cqe_seen(&u->ring, cqe);
		seen++;
	}
	/* fewer submitted than queued: the ring is not to be used again */
	return seen == asked ? 0 : -EIO;
}

static void took(struct uring_reader *u, void *arg, unsigned i, unsigned op,
		 int res)
{
	struct uring_file *f = arg;

	if (op == OP_OPEN && res >= 0)
		u->fd[i] = res;
	else if (op == OP_OPEN || op == OP_READ)
		f[i].result = res;
	else if (op == OP_STATX)
		f[i].stat_result = res;
	else if (op == OP_CLOSE)
		u->fd[i] = -1;
}

/* Whatever a failed ring left open is closed the plain way. */
static void close_left(struct uring_reader *u, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (u->fd[i] >= 0) {
			close(u->fd[i]);
			u->fd[i] = -1;
		}
}

int uring_read_files(struct uring_reader *u, int root, struct uring_file *f,
		     unsigned n)
{
	unsigned want = 0;
	int r;

	if (n > URING_GROUP_FILES)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		f[i].result = f[i].stat_result = -ECANCELED;
		io_uring_prep_openat2(sqe_for(u, i, OP_OPEN), root, f[i].rel, &u->how);
	}
	r = run_batch(u, f, n, took);
	for (unsigned i = 0; !r && i < n; i++)
		if (u->fd[i] >= 0) {
			io_uring_prep_read(sqe_for(u, i, OP_READ), u->fd[i], f[i].dst,
					   f[i].size, 0);
			want++;
		}
	if (!r)
		r = run_batch(u, f, want, took);
	want = 0;
	/* the statx runs once the read is done: in the next submit */
	for (unsigned i = 0; !r && i < n; i++) {
		struct io_uring_sqe *sqe;

		if (u->fd[i] < 0)
			continue;
		if (f[i].result == (int)f[i].size) {
			sqe = sqe_for(u, i, OP_STATX);
			io_uring_prep_statx(sqe, u->fd[i], "", AT_EMPTY_PATH, STAT_MASK,
					    &f[i].stx);
			/* the close runs whatever the statx says */
			sqe->flags |= IOSQE_IO_HARDLINK;
			want++;
		}
		io_uring_prep_close(sqe_for(u, i, OP_CLOSE), u->fd[i]);
		want++;
	}
	if (!r)
		r = run_batch(u, f, want, took);
	close_left(u, n);
	return r;
}

static void stat_took(struct uring_reader *u, void *arg, unsigned i, unsigned op,
		      int res)
{
	(void)u; (void)op;
	((struct uring_stat *)arg)[i].result = res;
}

int uring_stat_names(struct uring_reader *u, int dfd, struct uring_stat *s,
		     unsigned n)
{
	const unsigned mask = STATX_BASIC_STATS;

	if (n > URING_STAT_BATCH)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		s[i].result = -ECANCELED;
		io_uring_prep_statx(sqe_for(u, i, OP_STATX), dfd, s[i].name,
				    AT_SYMLINK_NOFOLLOW, mask, &s[i].stx);
	}
	return run_batch(u, s, n, stat_took);
}

#else /* built without liburing: the plain path only */

struct uring_reader *uring_reader_new(void)
{
	errno = ENOSYS;
	return NULL;
}

void uring_reader_free(struct uring_reader *u)
{
	(void)u;
}

int uring_read_files(struct uring_reader *u, int root, struct uring_file *f,
		     unsigned n)
{
	(void)u; (void)root; (void)f; (void)n;
	return -ENOSYS;
}

int uring_stat_names(struct uring_reader *u, int dfd, struct uring_stat *s,
		     unsigned n)
{
	(void)u; (void)dfd; (void)s; (void)n;
	return -ENOSYS;
}
#endif
