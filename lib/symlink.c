// SPDX-License-Identifier: Apache-2.0
/*
 * symlink(2) on the master: one SYMLINK entry (format 1.3) holds the
 * link's path and its target, verbatim. famfs never resolves a target:
 * a Hugging Face cache's snapshots/<rev>/x -> ../../blobs/<sha> is kept
 * as written, and the kernel (FUSE or the module) follows it on lookup.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* 1..FAMFS_SYMLINK_MAX bytes without a NUL: what symlink(2) takes. */
static int check_target(const char *target, struct famfs_err *e)
{
	size_t len = strlen(target);

	if (len == 0)
		return famfs_set_err(e, -ENOENT, "symlink target is empty");
	if (len > FAMFS_SYMLINK_MAX)
		return famfs_set_err(e, -ENAMETOOLONG,
				     "symlink target is %zu bytes, more than %d",
				     len, FAMFS_SYMLINK_MAX);
	return (int)len;
}

FAMFS_EXPORT int famfs_symlink(struct famfs_fs *fs, const char *path,
			       const char *target, uint32_t uid, uint32_t gid,
			       uint64_t mtime_ns, struct famfs_err *e)
{
	char buf[FAMFS_PATH_MAX + 2 + FAMFS_SYMLINK_MAX];
	struct famfs_entry_symlink s = { 0 };
	int plen, tlen, r;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS,
			"the filesystem is not open as master (read-only here)");
	tlen = check_target(target, e);
	if (tlen < 0)
		return tlen;
	plen = famfs_path_normalize(path, buf, FAMFS_PATH_MAX + 2, e);
	if (plen < 0)
		return plen;
	if (plen == 1)
		return famfs_set_err(e, -EEXIST, "'/' already exists");
	memcpy(buf + plen, target, (size_t)tlen);
	s.mtime_ns = mtime_ns ? mtime_ns : famfs_now_ns();
	s.uid = uid;
	s.gid = gid;
	s.path_len = (uint16_t)plen;
	s.target_len = (uint16_t)tlen;
	pthread_rwlock_wrlock(&fs->lock);
	famfs_sb_raise_minor(fs, 3);
	r = famfs_log_append(fs, FAMFS_ENTRY_SYMLINK, &s, sizeof(s), buf,
			     (uint32_t)(plen + tlen), e);
	pthread_rwlock_unlock(&fs->lock);
	if (r && e && !memmem(e->msg, strlen(e->msg), buf, (size_t)plen)) {
		char msg[sizeof(e->msg)];

		memcpy(msg, e->msg, sizeof(msg));
		famfs_set_err(e, r, "%.*s: %s", plen, buf, msg);
	}
	return r;
}
