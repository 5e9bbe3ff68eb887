// SPDX-License-Identifier: Apache-2.0
/* The master's mutations: allocate, commit, mkdir, unlink, reclaim. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "killpoint.h"

static void madvise_dontneed(void *p, uint64_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t e = ((uintptr_t)p + len) & ~(page - 1);

	if (e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

static int need_master(struct famfs_fs *fs, struct famfs_err *e)
{
	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS,
			"the filesystem is not open as master (read-only here)");
	return 0;
}

/* Make sure a failure's message names the path it is about. */
static int name_path_in_error(struct famfs_err *e, int r, const char *path)
{
	if (r && e && !strstr(e->msg, path)) {
		char msg[sizeof(e->msg)];

		memcpy(msg, e->msg, sizeof(msg));
		famfs_set_err(e, r, "%s: %s", path, msg);
	}
	return r;
}

FAMFS_EXPORT int famfs_alloc(struct famfs_fs *fs, uint64_t size,
			     const struct famfs_alloc_policy *p,
			     struct famfs_fmap **out, struct famfs_err *e)
{
	int r = need_master(fs, e);

	if (r)
		return r;
	pthread_rwlock_wrlock(&fs->lock);
	r = famfs_alloc_map(fs, size, p, out, e);
	if (r == -ENOSPC && fs->alloc.pending) {
		famfs_reclaim_locked(fs);
		r = famfs_alloc_map(fs, size, p, out, e);
	}
	pthread_rwlock_unlock(&fs->lock);
	return r;
}

FAMFS_EXPORT void famfs_alloc_release(struct famfs_fs *fs, const struct famfs_fmap *m)
{
	pthread_rwlock_wrlock(&fs->lock);
	famfs_alloc_unmark(fs, m);
	pthread_rwlock_unlock(&fs->lock);
}

int famfs_file_entry_body(const char *norm, int plen,
			  const struct famfs_file_attr *a,
			  const struct famfs_fmap *m, struct famfs_entry_file *f,
			  struct famfs_err *e)
{
	if (plen == 1)
		return famfs_set_err(e, -EEXIST, "'/' is the root directory");
	if (a->size > famfs_fmap_bytes(m))
		return famfs_set_err(e, -EINVAL,
			"%s: size %llu exceeds its allocation of %llu bytes", norm,
			(unsigned long long)a->size,
			(unsigned long long)famfs_fmap_bytes(m));
	memset(f, 0, sizeof(*f));
	f->size = a->size;
	f->mtime_ns = a->mtime_ns ? a->mtime_ns : famfs_now_ns();
	f->ctime_ns = famfs_now_ns();
	f->mode = a->mode & 07777;
	f->uid = a->uid;
	f->gid = a->gid;
	f->map_type = m->type;
	f->nitems = m->nitems;
	f->chunk = m->chunk;
	f->path_len = (uint16_t)plen;
	return 0;
}

FAMFS_EXPORT int famfs_commit_file(struct famfs_fs *fs, const char *path,
				   const struct famfs_file_attr *a,
				   const struct famfs_fmap *m, struct famfs_err *e)
{
	char norm[FAMFS_PATH_MAX + 2];
	struct famfs_entry_file f = { 0 };
	uint8_t *tail;
	uint32_t items_len = m->nitems * (uint32_t)sizeof(struct famfs_map_item);
	int plen, r = need_master(fs, e);

	if (r)
		return r;
	plen = famfs_path_normalize(path, norm, sizeof(norm), e);
	if (plen < 0)
		return plen;
	r = famfs_file_entry_body(norm, plen, a, m, &f, e);
	if (r)
		return r;
	tail = malloc(items_len + (size_t)plen);
	if (!tail)
		return famfs_set_err(e, -ENOMEM, "out of memory");
	memcpy(tail, m->items, items_len);
	memcpy(tail + items_len, norm, (size_t)plen);
	pthread_rwlock_wrlock(&fs->lock);
	fs->map_reserved = true;
	r = famfs_log_append(fs, FAMFS_ENTRY_FILE, &f, sizeof(f), tail,
			     items_len + (uint32_t)plen, e);
	fs->map_reserved = false;
	pthread_rwlock_unlock(&fs->lock);
	free(tail);
	return name_path_in_error(e, r, norm);
}

FAMFS_EXPORT int famfs_create_file(struct famfs_fs *fs, const char *path,
				   const struct famfs_file_attr *a,
				   const struct famfs_alloc_policy *p,
				   const void *data, struct famfs_err *e)
{
	struct famfs_fmap *m;
	struct famfs_node *exist;
	int r;

	/* fail early on a bad or taken name, before any space is touched */
	char norm[FAMFS_PATH_MAX + 2];

	r = famfs_path_normalize(path, norm, sizeof(norm), e);
	if (r < 0)
		return r;
	famfs_fs_rdlock(fs);
	exist = famfs_lookup(fs, norm);
	famfs_fs_unlock(fs);
	if (exist)
		return famfs_set_err(e, -EEXIST, "%s: already exists", norm);
	r = famfs_alloc(fs, a->size, p, &m, e);
	if (r)
		return r;
	FAMFS_KILL_POINT("create.allocated");
	if (data) {
		famfs_write_map(fs, m, 0, data, a->size);
	} else {
		/* space freed by a delete still holds the old file's bytes */
		for (unsigned i = 0; i < m->nitems; i++) {
			struct famfs_dev *d = fs->dev[m->items[i].dev_index];

			memset(d->base + m->items[i].offset, 0, m->items[i].length);
			famfs_dev_flush(d, m->items[i].offset, m->items[i].length);
			/* the zeros stay on the device; this process need not
			 * keep the pages mapped (a long-lived famfsd's RSS)
			 */
			if (famfs_dev_kind(d) != FAMFS_DEV_BLOCK)
				madvise_dontneed(d->base + m->items[i].offset,
						 m->items[i].length);
		}
	}
	FAMFS_KILL_POINT("create.data_written");
	r = famfs_commit_file(fs, norm, a, m, e);
	if (r)
		famfs_alloc_release(fs, m);
	free(m);
	return r;
}

FAMFS_EXPORT int famfs_mkdir(struct famfs_fs *fs, const char *path,
			     uint32_t mode, uint32_t uid, uint32_t gid,
			     struct famfs_err *e)
{
	char norm[FAMFS_PATH_MAX + 2];
	struct famfs_entry_mkdir d = { 0 };
	int plen, r = need_master(fs, e);

	if (r)
		return r;
	plen = famfs_path_normalize(path, norm, sizeof(norm), e);
	if (plen < 0)
		return plen;
	if (plen == 1)
		return famfs_set_err(e, -EEXIST, "'/' already exists");
	d.mtime_ns = famfs_now_ns();
	d.mode = mode & 07777;
	d.uid = uid;
	d.gid = gid;
	d.path_len = (uint16_t)plen;
	pthread_rwlock_wrlock(&fs->lock);
	r = famfs_log_append(fs, FAMFS_ENTRY_MKDIR, &d, sizeof(d), norm,
			     (uint32_t)plen, e);
	pthread_rwlock_unlock(&fs->lock);
	return name_path_in_error(e, r, norm);
}

FAMFS_EXPORT int famfs_unlink(struct famfs_fs *fs, const char *path,
			      struct famfs_err *e)
{
	char norm[FAMFS_PATH_MAX + 2];
	struct famfs_entry_delete d = { 0 };
	struct famfs_node *n;
	int plen, r = need_master(fs, e);

	if (r)
		return r;
	plen = famfs_path_normalize(path, norm, sizeof(norm), e);
	if (plen < 0)
		return plen;
	pthread_rwlock_wrlock(&fs->lock);
	n = famfs_lookup(fs, norm);
	if (!n || n == fs->root) {
		pthread_rwlock_unlock(&fs->lock);
		return famfs_set_err(e, n ? -EBUSY : -ENOENT, n ?
			"the root directory cannot be deleted" :
			"%s: no such file or directory", norm);
	}
	if (S_ISDIR_MODE(n->mode) && n->nchildren) {
		pthread_rwlock_unlock(&fs->lock);
		return famfs_set_err(e, -ENOTEMPTY, "%s: directory not empty", norm);
	}
	d.target_seq = n->create_seq;
	d.path_len = (uint16_t)plen;
	r = famfs_log_append(fs, FAMFS_ENTRY_DELETE, &d, sizeof(d), norm,
			     (uint32_t)plen, e);
	if (!r)
		famfs_reclaim_locked(fs);
	pthread_rwlock_unlock(&fs->lock);
	return r;
}

/* Free every tombstone's space that no live client can still map. */
int famfs_reclaim_locked(struct famfs_fs *fs)
{
	struct pending_free **pp = &fs->alloc.pending;
	bool any;
	uint64_t min = famfs_slots_min_live(fs, &any);
	int freed = 0;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return 0;
	while (*pp) {
		struct pending_free *p = *pp;

		if ((any && p->seq > min) || p->held_by) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		fs->alloc.pending_bytes -= famfs_fmap_bytes(p->map);
		famfs_alloc_unmark(fs, p->map);
		free(p->map);
		free(p);
		freed++;
	}
	return freed;
}

FAMFS_EXPORT int famfs_reclaim(struct famfs_fs *fs)
{
	int n;

	pthread_rwlock_wrlock(&fs->lock);
	n = famfs_reclaim_locked(fs);
	pthread_rwlock_unlock(&fs->lock);
	return n;
}

FAMFS_EXPORT void famfs_node_hold(struct famfs_fs *fs, struct famfs_node *n)
{
	pthread_rwlock_wrlock(&fs->lock);
	n->holds++;
	pthread_rwlock_unlock(&fs->lock);
}

FAMFS_EXPORT struct famfs_node *famfs_lookup_hold(struct famfs_fs *fs,
						  uint64_t ino, const char *path,
						  unsigned flags)
{
	struct famfs_node *n;
	int err = 0;

	pthread_rwlock_wrlock(&fs->lock);
	n = path ? famfs_lookup(fs, path) : famfs_node_by_ino(fs, ino);
	if (!n)
		err = ENOENT;
	else if ((flags & FAMFS_HOLD_FILE) && S_ISDIR_MODE(n->mode))
		err = EISDIR;
	else
		n->holds++;
	pthread_rwlock_unlock(&fs->lock);
	if (err) {
		errno = err;
		return NULL;
	}
	return n;
}

FAMFS_EXPORT void famfs_node_release(struct famfs_fs *fs, struct famfs_node *n)
{
	pthread_rwlock_wrlock(&fs->lock);
	if (n->holds && --n->holds == 0 && n->deleted) {
		struct famfs_node **pp;

		for (pp = &fs->zombies; *pp; pp = &(*pp)->zombie_next)
			if (*pp == n) {
				*pp = n->zombie_next;
				break;
			}
		famfs_pending_unhold(fs, n);
		famfs_ns_node_free(fs, n);
		if (fs->slot >= 0)
			famfs_slot_publish(fs);
	}
	pthread_rwlock_unlock(&fs->lock);
}

/*
 * A handle that is not the master never reclaims, so its pending list
 * keeps every delete whose space no later file took. What still waits is
 * what a live client may not have replayed past, or this handle holds;
 * the rest the master frees at its next reclaim, and is counted free.
 */
static void view_pending(struct famfs_fs *fs, struct famfs_space *s)
{
	bool any;
	uint64_t min = famfs_slots_min_live(fs, &any), waiting = 0;

	for (struct pending_free *p = fs->alloc.pending; p; p = p->next)
		if ((any && p->seq > min) || p->held_by)
			waiting += famfs_fmap_bytes(p->map);
	s->free_bytes += fs->alloc.pending_bytes - waiting;
	s->pending_bytes = waiting;
}

FAMFS_EXPORT void famfs_statfs(struct famfs_fs *fs, struct famfs_space *s)
{
	memset(s, 0, sizeof(*s));
	pthread_rwlock_rdlock(&fs->lock);
	s->total_bytes = famfs_alloc_total_bytes(fs);
	s->free_bytes = famfs_alloc_free_bytes(fs);
	s->pending_bytes = fs->alloc.pending_bytes;
	if (!(fs->flags & FAMFS_OPEN_MASTER))
		view_pending(fs, s);
	s->file_bytes = fs->file_bytes;
	s->alloc_bytes = fs->alloc_bytes;
	s->nfiles = fs->nfiles;
	s->ndirs = fs->ndirs;
	famfs_space_placeable(fs, s);
	pthread_rwlock_unlock(&fs->lock);
}
