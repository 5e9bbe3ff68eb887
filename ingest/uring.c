// SPDX-License-Identifier: Apache-2.0
/*
 * io_uring reads of small source files (uring.h). Per file four linked
 * requests: openat2 into a fixed-file slot (RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS, as open_beneath() in run.c), a read of the whole
 * file straight into its device mapping, a statx of the file by name once
 * the read is done (the caller compares it with the plan: did the source
 * change during the copy?), and a close of the slot; statx and close run
 * even when the read failed (hard links). A group of files costs one
 * io_uring_enter instead of four system calls per file.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>

#include "uring.h"

#ifdef FAMFS_HAVE_LIBURING
#include <liburing.h>

enum { OP_OPEN, OP_READ, OP_STATX, OP_CLOSE };

struct uring_reader {
	struct io_uring ring;
	struct open_how how;
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
	r = io_uring_queue_init(URING_GROUP_FILES * 4, &u->ring, flags);
	if (r == -EINVAL) /* a kernel before 6.1: no DEFER_TASKRUN */
		r = io_uring_queue_init(URING_GROUP_FILES * 4, &u->ring,
					IORING_SETUP_SUBMIT_ALL);
	if (r) {
		free(u);
		errno = -r;
		return NULL;
	}
	if (!probe_ops(&u->ring) ||
	    (r = io_uring_register_files_sparse(&u->ring, URING_GROUP_FILES))) {
		io_uring_queue_exit(&u->ring);
		free(u);
		errno = r ? -r : EOPNOTSUPP;
		return NULL;
	}
	/* no O_CLOEXEC: a fixed-file slot is no fd, and the kernel refuses it */
	u->how.flags = O_RDONLY | O_NOFOLLOW;
	u->how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	return u;
}

void uring_reader_free(struct uring_reader *u)
{
	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
}

static void queue_file(struct uring_reader *u, int root, unsigned i,
		       struct uring_file *f)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	io_uring_prep_openat2_direct(sqe, root, f->rel, &u->how, i);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = (uint64_t)i << 2 | OP_OPEN;
	sqe = io_uring_get_sqe(&u->ring);
	io_uring_prep_read(sqe, (int)i, f->dst, f->size, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
	sqe->user_data = (uint64_t)i << 2 | OP_READ;
	sqe = io_uring_get_sqe(&u->ring);
	/* statx takes no fixed file: by name, as the open resolved it */
	io_uring_prep_statx(sqe, root, f->rel, AT_SYMLINK_NOFOLLOW,
			    STATX_BASIC_STATS, &f->stx);
	sqe->flags |= IOSQE_IO_HARDLINK;
	sqe->user_data = (uint64_t)i << 2 | OP_STATX;
	sqe = io_uring_get_sqe(&u->ring);
	io_uring_prep_close_direct(sqe, i);
	sqe->user_data = (uint64_t)i << 2 | OP_CLOSE;
}

int uring_read_files(struct uring_reader *u, int root, struct uring_file *f,
		     unsigned n)
{
	unsigned want = 4 * n, seen = 0;
	int r;

	if (n > URING_GROUP_FILES)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		f[i].result = f[i].stat_result = -ECANCELED;
		queue_file(u, root, i, &f[i]);
	}
	r = io_uring_submit_and_wait(&u->ring, want);
	if (r < 0)
		return r;
	if ((unsigned)r != want)
		want = (unsigned)r; /* only these will complete: wait for them */
	while (seen < want) {
		struct io_uring_cqe *cqe;
		unsigned i, op;

		r = io_uring_wait_cqe(&u->ring, &cqe);
		if (r == -EINTR)
			continue;
		if (r)
			return r;
		i = (unsigned)(cqe->user_data >> 2);
		op = (unsigned)(cqe->user_data & 3);
		/* an open that failed says why; the read it cancelled does not */
		if (op == OP_OPEN && cqe->res < 0)
			f[i].result = cqe->res;
		else if (op == OP_READ && f[i].result == -ECANCELED)
			f[i].result = cqe->res;
		else if (op == OP_STATX)
			f[i].stat_result = cqe->res;
		io_uring_cqe_seen(&u->ring, cqe);
		seen++;
	}
	return seen == 4 * n ? 0 : -EIO;
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
#endif
