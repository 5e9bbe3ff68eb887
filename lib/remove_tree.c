// SPDX-License-Identifier: Apache-2.0
/*
 * Removing a whole tree (a dataset's retired generation): DELETE entries
 * for every node below it and for itself, children before their
 * directory, group-committed in BATCH entries (format 1.1) of at most
 * FAMFS_REMOVE_BATCH deletes. Each delete is the one famfs_unlink()
 * appends, so the space follows the same rule: it is reused only once
 * every live client slot replayed past it and nobody here holds the file
 * open or mapped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Deletes per batch: a bounded append (about 100 KiB of log per 1,000
 * deletes of 60-byte paths) while the write lock is held.
 */
#define FAMFS_REMOVE_BATCH 1024U

/* The first node to delete below (or at) @top: the deepest first child
 * (a file, a symlink, or an empty directory).
 */
static struct famfs_node *first_leaf(struct famfs_node *top)
{
	struct famfs_node *n = top;

	while (S_ISDIR_MODE(n->mode) && n->nchildren)
		n = n->first_child;
	return n;
}

/* The inner DELETE of @n as entry @seq at @dst (room checked); its length
 * or a negative errno (a path too long for the log).
 */
static int put_delete(struct famfs_fs *fs, uint8_t *dst, uint64_t seq,
		      struct famfs_node *n, uint64_t now, uint64_t room)
{
	struct famfs_entry_hdr h = { .magic = FAMFS_ENTRY_MAGIC, .seq = seq,
				     .fs_tag = fs->fs_tag,
				     .type = FAMFS_ENTRY_DELETE,
				     .logged_ns = now };
	struct famfs_entry_delete d = { .target_seq = n->create_seq };
	char path[FAMFS_PATH_MAX + 2];
	int plen = famfs_node_path(n, path, sizeof(path));

	if (plen <= 0 || plen > FAMFS_PATH_MAX)
		return -ENAMETOOLONG;
	h.len = (uint32_t)ROUND_UP(sizeof(h) + sizeof(d) + (size_t)plen, 8);
	if (h.len > room)
		return -ENOSPC;
	d.path_len = (uint16_t)plen;
	memcpy(dst, &h, sizeof(h));
	memcpy(dst + sizeof(h), &d, sizeof(d));
	memcpy(dst + sizeof(h) + sizeof(d), path, (size_t)plen);
	memset(dst + sizeof(h) + sizeof(d) + plen, 0,
	       h.len - sizeof(h) - sizeof(d) - (size_t)plen);
	return (int)h.len;
}

/* One BATCH of up to FAMFS_REMOVE_BATCH deletes below (or of) @top,
 * applied as built and sealed; how many (*@done once @top itself went),
 * or a negative errno with nothing appended. Write lock held.
 */
static int remove_batch(struct famfs_fs *fs, struct famfs_node *top,
			bool *done, struct famfs_err *e)
{
	struct famfs_entry_hdr bh = { .magic = FAMFS_ENTRY_MAGIC,
				      .type = FAMFS_ENTRY_BATCH };
	struct famfs_entry_batch bb = { 0 };
	uint64_t now = famfs_now_ns();
	uint32_t off = sizeof(bh) + sizeof(bb);
	uint8_t *dst = fs->log + fs->tail;
	char why[200];
	int ok = 0, r = 0;

	if (fs->tail + off > fs->log_size)
		return famfs_set_err(e, -ENOSPC, "metadata log is full");
	while (!*done && (unsigned)ok < FAMFS_REMOVE_BATCH) {
		struct famfs_node *n = first_leaf(top);
		bool last = n == top;

		r = put_delete(fs, dst + off, fs->last_seq + 2 + (uint64_t)ok, n,
			       now, fs->log_size - fs->tail - off);
		if (r < 0)
			break;
		if (famfs_apply_entry(fs, (const void *)(dst + off), why,
				      sizeof(why))) {
			/* cannot happen for a leaf of the live tree */
			memset(dst + off, 0, (size_t)r);
			r = famfs_set_err(e, -EIO, "remove: %s", why);
			break;
		}
		off += (uint32_t)r;
		ok++;
		*done = last;
		r = 0;
	}
	if (r == -ENOSPC && !ok)
		return famfs_set_err(e, r, "metadata log is full (%llu of %llu "
				     "bytes used)", (unsigned long long)fs->tail,
				     (unsigned long long)fs->log_size);
	if (r == -ENAMETOOLONG)
		famfs_set_err(e, r, "a path below the tree is too long");
	if (ok) {
		/* what is applied is sealed, even when an error stopped it */
		bh.seq = fs->last_seq + 1;
		bh.fs_tag = fs->fs_tag;
		bh.len = off;
		bh.logged_ns = now;
		bb.count = (uint32_t)ok;
		memcpy(dst + sizeof(bh), &bb, sizeof(bb));
		memcpy(dst, &bh, sizeof(bh));
		famfs_log_seal(fs, (struct famfs_entry_hdr *)dst);
	}
	return r == -ENOSPC ? ok : r ? r : ok;
}

FAMFS_EXPORT int64_t famfs_remove_tree(struct famfs_fs *fs, const char *path,
				       struct famfs_err *e)
{
	char norm[FAMFS_PATH_MAX + 2];
	struct famfs_node *top;
	int64_t removed = 0;
	bool done = false;
	int plen, r;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS,
			"the filesystem is not open as master (read-only here)");
	plen = famfs_path_normalize(path, norm, sizeof(norm), e);
	if (plen < 0)
		return plen;
	pthread_rwlock_wrlock(&fs->lock);
	r = famfs_log_refuse_corrupt(fs, e);
	top = r ? NULL : famfs_lookup(fs, norm);
	if (!r && (!top || top == fs->root))
		r = famfs_set_err(e, top ? -EBUSY : -ENOENT, top ?
				  "the root directory cannot be removed" :
				  "%s: no such file or directory", norm);
	/* @top goes in the last batch; until then it is live */
	while (!r && !done) {
		r = remove_batch(fs, top, &done, e);
		if (r > 0) {
			removed += r;
			r = 0;
		} else if (r == 0) {
			r = famfs_set_err(e, -ENOSPC, "metadata log is full");
		}
	}
	if (removed)
		famfs_reclaim_locked(fs);
	pthread_rwlock_unlock(&fs->lock);
	if (r && removed) {
		char why[sizeof(e->msg)];

		snprintf(why, sizeof(why), "%s", e ? e->msg : "");
		return famfs_set_err(e, r, "%s: %.400s (%lld nodes removed; "
				     "call again to remove the rest)", norm,
				     why, (long long)removed);
	}
	return r ? r : removed;
}
