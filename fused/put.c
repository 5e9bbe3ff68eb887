// SPDX-License-Identifier: Apache-2.0
/*
 * A WRITE request's bytes into a file's map, through fuse_buf_copy():
 * pwrite() into an emulated device's file, or a copy into the mapping of
 * a device written through its map (DAX, hugetlbfs). The same call would
 * splice a request handed over as a pipe (FUSE_CAP_SPLICE_READ: one
 * kernel copy, not two), which ops_read.c leaves off: see there.
 */
#include <errno.h>

#include "fused.h"

int64_t fused_put(const struct famfs_fmap *m, uint64_t off,
		  struct fuse_bufvec *src, size_t len)
{
	uint64_t done = 0;

	if (len > famfs_fmap_bytes(m) || off > famfs_fmap_bytes(m) - len)
		return -EFBIG;
	while (done < len) {
		struct fuse_bufvec dst = FUSE_BUFVEC_INIT(0);
		struct famfs_loc loc;
		struct famfs_dev *d;
		ssize_t n;
		int fd, r;

		if (famfs_fmap_resolve(m, off + done, &loc) ||
		    !(d = famfs_fs_dev(fused.fs, loc.dev_index)) ||
		    loc.dev_offset > famfs_dev_size(d) ||
		    loc.length > famfs_dev_size(d) - loc.dev_offset)
			return -EIO;
		dst.buf[0].size = len - done < loc.length ? len - done : loc.length;
		fd = famfs_dev_write_fd(d);
		if (fd >= 0) {
			dst.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK |
					   FUSE_BUF_FD_RETRY;
			dst.buf[0].fd = fd;
			dst.buf[0].pos = (off_t)loc.dev_offset;
		} else {
			dst.buf[0].mem = famfs_dev_base(d) + loc.dev_offset;
		}
		n = fuse_buf_copy(&dst, src, 0);
		if (n < 0)
			return n;
		if ((size_t)n != dst.buf[0].size)
			return -EIO; /* the request held less than it said */
		r = famfs_dev_flush(d, loc.dev_offset, (uint64_t)n);
		if (r)
			return r;
		done += (uint64_t)n;
	}
	return (int64_t)done;
}
