// SPDX-License-Identifier: Apache-2.0
/*
 * FUSE_DIRECT_IO_ALLOW_MMAP (kernel 6.6+) lets a direct_io file be mapped
 * MAP_SHARED, the kernel keeping the mapping's pages coherent with the
 * direct writes. libfuse 3.14 cannot ask for it: its capability word has
 * 32 bits and the flag is bit 36 (init flags2). Without it the master
 * must keep read-write opens in page-cache mode, where every write first
 * fills freshly allocated page-cache pages (rsync's temporary file,
 * bench/results/fuse.md).
 *
 * So famfs-fused talks to /dev/fuse through libfuse's custom I/O hooks:
 * the read hook notes the INIT request and whether the kernel offers the
 * flag; the write hook adds it to libfuse's INIT reply (libfuse 3.14
 * already sets FUSE_INIT_EXT there when the kernel sent it). Every other
 * message passes through untouched. A libfuse that knows the flag
 * (FUSE_CAP_DIRECT_IO_ALLOW_MMAP, 3.16+) is asked through its API instead.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fuse.h>

#include "fused.h"

/* linux/fuse.h of Debian 12 (6.1) predates the flag (protocol 7.39) */
#define DIO_ALLOW_MMAP_FLAGS2 (1u << (36 - 32))

static atomic_bool granted;

bool fused_dio_mmap_granted(void)
{
	return atomic_load(&granted);
}

#ifdef FUSE_CAP_DIRECT_IO_ALLOW_MMAP
int fused_dio_mmap_setup(struct fuse_session *se)
{
	(void)se;
	return 0;
}

void fused_dio_mmap_want(struct fuse_conn_info *conn)
{
	if (conn->capable & FUSE_CAP_DIRECT_IO_ALLOW_MMAP) {
		conn->want |= FUSE_CAP_DIRECT_IO_ALLOW_MMAP;
		atomic_store(&granted, true);
	}
}
#else
static _Atomic uint64_t init_unique;  /* unique of the INIT request, 0: none */
static atomic_bool kernel_offers;

static ssize_t dio_read(int fd, void *buf, size_t len, void *ud)
{
	const struct fuse_in_header *h = buf;
	const struct fuse_init_in *in = (const void *)(h + 1);
	ssize_t r = read(fd, buf, len);

	(void)ud;
	if (r >= (ssize_t)sizeof(*h) && h->opcode == FUSE_INIT) {
		bool ext = r >= (ssize_t)(sizeof(*h) + sizeof(*in)) &&
			   (in->flags & FUSE_INIT_EXT);

		atomic_store(&kernel_offers,
			     ext && (in->flags2 & DIO_ALLOW_MMAP_FLAGS2));
		atomic_store(&init_unique, h->unique);
	}
	return r;
}

/* libfuse's INIT reply: iov[0] the header, iov[1] the whole fuse_init_out */
static ssize_t dio_writev(int fd, struct iovec *iov, int count, void *ud)
{
	const struct fuse_out_header *h = iov[0].iov_base;
	uint64_t unique = atomic_load(&init_unique);
	struct fuse_init_out out;
	struct iovec patched[2];
	ssize_t r;

	(void)ud;
	if (!unique || count != 2 || iov[0].iov_len != sizeof(*h) ||
	    h->unique != unique || h->error ||
	    iov[1].iov_len != sizeof(out))
		return writev(fd, iov, count);
	atomic_store(&init_unique, 0);
	memcpy(&out, iov[1].iov_base, sizeof(out));
	if (atomic_load(&kernel_offers) && (out.flags & FUSE_INIT_EXT))
		out.flags2 |= DIO_ALLOW_MMAP_FLAGS2;
	patched[0] = iov[0];
	patched[1] = (struct iovec){ &out, sizeof(out) };
	/* set before the write: the kernel may send the first OPEN to another
	 * worker as soon as it has taken the reply
	 */
	atomic_store(&granted, !!(out.flags2 & DIO_ALLOW_MMAP_FLAGS2));
	r = writev(fd, patched, 2);
	if (r != (ssize_t)(sizeof(*h) + sizeof(out)))
		atomic_store(&granted, false);
	else if (atomic_load(&granted))
		fused_log("read-write opens are direct_io (kernel: "
			  "FUSE_DIRECT_IO_ALLOW_MMAP)");
	return r;
}

int fused_dio_mmap_setup(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {
		.read = dio_read,
		.writev = dio_writev,
	};

	return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}

void fused_dio_mmap_want(struct fuse_conn_info *conn)
{
	(void)conn;
}
#endif
