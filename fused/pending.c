// SPDX-License-Identifier: Apache-2.0
/*
 * The master's uncommitted files. A file created through the mount lives
 * here from create to its last release: it has a provisional inode number,
 * a reservation (famfs_alloc) that grows by appended extents while it is
 * written, and attributes that setattr changes. At the last release it is
 * trimmed to its final size and committed to the log (famfs_commit_file);
 * only then do clients see it; it keeps its provisional number on the
 * master (inomap.c) and its record goes at its last close. Locks: pend_mu
 * (the table, open counts, attributes) before pf->mu (map and size)
 * before the fs lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fused.h"
#include "killpoint.h"
#include "pending.h"

static struct pfile **ino_bucket(uint64_t ino)
{
	return &fused.pend_ino[ino % (sizeof(fused.pend_ino) /
				      sizeof(fused.pend_ino[0]))];
}

static void live_unlink(struct pfile *pf)
{
	for (struct pfile **pp = &fused.pend_live; *pp; pp = &(*pp)->live_next)
		if (*pp == pf) {
			*pp = pf->live_next;
			pf->live_next = NULL;
			return;
		}
}

void pend_maybe_free(struct pfile *pf)
{
	pend_alias_settle(pf);
	if (!pf->opens) {
		/* a write acknowledged just before the last close may still
		 * be storing into the space (and will touch pf)
		 */
		pthread_mutex_lock(&pf->mu);
		pend_wait_stores(pf);
		pthread_mutex_unlock(&pf->mu);
	}
	if (pf->unlinked && !pf->opens && pf->map) {
		/* nobody can write it any more: the space goes back now */
		famfs_alloc_release(fused.fs, pf->map);
		free(pf->map);
		pf->map = NULL;
	}
	/* a committed file's kernel references need no record when its
	 * number is in inomap.c (their forgets find none); an alias of an
	 * O_TRUNC replacement stays until the kernel forgets it
	 */
	if (pf->opens || !(pf->committed_ino || pf->unlinked) ||
	    (pf->nlookup && !(pf->mapped && !pf->replaced_ino)))
		return;
	for (struct pfile **pp = ino_bucket(pf->ino); *pp; pp = &(*pp)->ino_next)
		if (*pp == pf) {
			*pp = pf->ino_next;
			break;
		}
	if (pf->map) {
		famfs_alloc_release(fused.fs, pf->map);
		free(pf->map);
	}
	pthread_cond_destroy(&pf->stores_done);
	pthread_mutex_destroy(&pf->mu);
	free(pf->name);
	free(pf);
}


static struct pfile *find_name(uint64_t parent, const char *name)
{
	for (struct pfile *pf = fused.pend_live; pf; pf = pf->live_next)
		if (pf->parent == parent && !strcmp(pf->name, name))
			return pf;
	return NULL;
}

struct pfile *pend_find_ino(uint64_t ino)
{
	for (struct pfile *pf = *ino_bucket(ino); pf; pf = pf->ino_next)
		if (pf->ino == ino)
			return pf;
	return NULL;
}

static void fill_entry(struct pfile *pf, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = pf->ino;
	e->attr_timeout = fused.entry_timeout;
	e->entry_timeout = fused.entry_timeout;
	pend_stat(pf, &e->attr);
	pf->nlookup++;
}

void pend_stat(struct pfile *pf, struct stat *st)
{
	uint64_t alloc;

	pthread_mutex_lock(&pf->mu);
	alloc = pf->map ? famfs_fmap_bytes(pf->map) : 0;
	memset(st, 0, sizeof(*st));
	st->st_ino = pf->ino;
	st->st_mode = S_IFREG | (pf->mode & 07777);
	st->st_nlink = pf->unlinked ? 0 : 1;
	st->st_uid = pf->uid;
	st->st_gid = pf->gid;
	st->st_size = (off_t)pf->size;
	st->st_blocks = (blkcnt_t)((alloc + 511) / 512);
	st->st_blksize = FAMFS_UNIT_SIZE;
	st->st_mtim.tv_sec = (time_t)(pf->mtime_ns / 1000000000ULL);
	st->st_mtim.tv_nsec = (long)(pf->mtime_ns % 1000000000ULL);
	st->st_ctim.tv_sec = (time_t)(pf->ctime_ns / 1000000000ULL);
	st->st_ctim.tv_nsec = (long)(pf->ctime_ns % 1000000000ULL);
	if (pf->atime_set) {
		st->st_atim.tv_sec = (time_t)(pf->atime_ns / 1000000000ULL);
		st->st_atim.tv_nsec = (long)(pf->atime_ns % 1000000000ULL);
	} else {
		st->st_atim = st->st_mtim;
	}
	pthread_mutex_unlock(&pf->mu);
}

int pend_lookup(uint64_t parent, const char *name, struct fuse_entry_param *e)
{
	struct pfile *pf;
	int r;

	pthread_mutex_lock(&fused.pend_mu);
	pf = find_name(parent, name);
	if (pf) {
		fill_entry(pf, e);
		if (pf->replaced_ino) {
			/* one kernel inode for the file, not two with
			 * separately cached sizes: the one the open used
			 */
			pf->nlookup--;
			e->ino = e->attr.st_ino = pf->replaced_ino;
			pend_alias_lookup(pf);
		}
		r = 0;
	} else {
		r = fused_lookup_committed(parent, name, e);
		/* a committed file known by its provisional number: the
		 * kernel's reference is counted where its forget arrives
		 */
		if (!r && (e->ino & FUSED_PENDING_INO) &&
		    (pf = pend_find_ino(e->ino)))
			pf->nlookup++;
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

struct pfile *pend_new_locked(uint64_t parent, const char *name, uint32_t mode,
			       uint32_t uid, uint32_t gid, bool open)
{
	struct pfile *pf = calloc(1, sizeof(*pf));

	if (!pf || !(pf->name = strdup(name))) {
		free(pf);
		return NULL;
	}
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->stores_done, NULL);
	pf->ino = FUSED_PENDING_INO | ++fused.pend_next;
	pf->parent = parent;
	pf->mode = mode & 07777;
	pf->uid = uid;
	pf->gid = gid;
	pf->mtime_ns = pf->ctime_ns = famfs_now_ns();
	pf->opens = open ? 1 : 0;
	pf->live_next = fused.pend_live;
	fused.pend_live = pf;
	pf->ino_next = *ino_bucket(pf->ino);
	*ino_bucket(pf->ino) = pf;
	return pf;
}

bool pend_log_has_room(const char *path)
{
	struct famfs_log_status ls;

	famfs_log_status(fused.fs, &ls);
	return ls.used_bytes + 56 + 40 + 64 * 24 + strlen(path) + 8 <= ls.size_bytes;
}

int pend_create(uint64_t parent, const char *name, uint32_t mode,
		uint32_t uid, uint32_t gid, bool open, struct pfile **out,
		struct fuse_entry_param *e)
{
	char path[FAMFS_PATH_MAX + 2];
	struct fuse_entry_param tmp;
	struct pfile *pf;
	int r;

	r = fused_child_path(parent, name, path, sizeof(path));
	if (r)
		return r;
	if (!pend_log_has_room(path))
		return -ENOSPC;
	pthread_mutex_lock(&fused.pend_mu);
	if (find_name(parent, name)) {
		pthread_mutex_unlock(&fused.pend_mu);
		return -EEXIST;
	}
	r = fused_lookup_committed(parent, name, &tmp);
	if (r != -ENOENT) {
		pthread_mutex_unlock(&fused.pend_mu);
		return r ? r : -EEXIST;
	}
	pf = pend_new_locked(parent, name, mode, uid, gid, open);
	if (!pf) {
		pthread_mutex_unlock(&fused.pend_mu);
		return -ENOMEM;
	}
	fill_entry(pf, e);
	if (out)
		*out = pf;
	pthread_mutex_unlock(&fused.pend_mu);
	return 0;
}

int pend_getattr(uint64_t ino, struct stat *st)
{
	struct pfile *pf;
	uint64_t cino = 0;

	pthread_mutex_lock(&fused.pend_mu);
	pf = pend_find_ino(ino);
	if (pf && pf->committed_ino)
		cino = pf->committed_ino;
	else if (pf)
		pend_stat(pf, st);
	pthread_mutex_unlock(&fused.pend_mu);
	if (!pf)
		return -ENOENT;
	return cino ? fused_node_stat(cino, st) : 0;
}

int pend_open(uint64_t ino, struct pfile **pf_out, uint64_t *committed)
{
	struct pfile *pf;
	int r = 0;

	*pf_out = NULL;
	*committed = 0;
	pthread_mutex_lock(&fused.pend_mu);
	pf = pend_find_ino(ino);
	if (!pf || (pf->unlinked && !pf->opens))
		r = -ENOENT;
	else if (pf->committed_ino)
		*committed = pf->committed_ino;
	else {
		pf->opens++;
		*pf_out = pf;
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

void pend_forget(uint64_t ino, uint64_t n)
{
	struct pfile *pf;

	pthread_mutex_lock(&fused.pend_mu);
	pend_drop_alias(ino);
	pf = pend_find_ino(ino);
	if (pf) {
		pf->nlookup = n > pf->nlookup ? 0 : pf->nlookup - n;
		pend_maybe_free(pf);
	}
	pthread_mutex_unlock(&fused.pend_mu);
}

/* Trim, commit, and turn @pf into an alias of the committed node.
 * Returns 0 or the negative errno of a failed commit (the file is dropped).
 */
static int commit(struct pfile *pf)
{
	char path[FAMFS_PATH_MAX + 2];
	struct famfs_file_attr a = { 0 };
	struct famfs_fmap empty = { .type = FAMFS_MAP_EXTENTS };
	struct famfs_err e = { 0 };
	struct fuse_entry_param ent;
	int r;

	r = fused_child_path(pf->parent, pf->name, path, sizeof(path));
	pthread_mutex_lock(&pf->mu);
	if (!r)
		r = pend_wait_stores(pf); /* a failed store: not committed */
	if (!r && pf->map)
		r = pend_map_trim(pf);
	a.size = pf->size;
	a.mode = pf->mode;
	a.uid = pf->uid;
	a.gid = pf->gid;
	a.mtime_ns = pf->mtime_ns;
	if (!r) {
		FAMFS_KILL_POINT("fused.commit_ready");
		r = famfs_commit_file(fused.fs, path, &a, pf->map ? pf->map : &empty,
				      &e);
	}
	if (!r)
		FAMFS_KILL_POINT("fused.committed");
	pthread_mutex_unlock(&pf->mu);
	live_unlink(pf);
	if (r) {
		/* close() has returned already: say it loudly, free the space */
		fused_log("commit of %s (%llu bytes) failed, file dropped: %s",
			  path, (unsigned long long)pf->size,
			  e.msg[0] ? e.msg : strerror(-r));
		pf->unlinked = true;
		return r;
	}
	free(pf->map);  /* the node holds its own copy; the space is its now */
	pf->map = NULL;
	r = fused_lookup_committed_raw(pf->parent, pf->name, &ent);
	pf->committed_ino = r ? 1 : ent.ino;
	/* the name keeps the inode number the kernel has for it: the
	 * provisional one, or the one an O_TRUNC open replaced (inomap.c);
	 * the kernel's dentry and inode stay valid, no notice needed
	 */
	if (!r && fused_inomap_set(pf->replaced_ino ? pf->replaced_ino : pf->ino,
				   ent.ino)) {
		fused_log("%s: out of memory: its inode number changes", path);
		fused_notify_entry(pf->parent, pf->name);
	} else if (!r) {
		pf->mapped = true;
	}
	if (!r && pf->atime_set) {
		struct famfs_setattr sa = { .valid = FAMFS_SETATTR_ATIME,
					    .atime_ns = pf->atime_ns };

		if (famfs_setattr(fused.fs, ent.ino, &sa, &e))
			fused_log("%s: atime not kept: %s", path, e.msg);
	}
	return 0;
}

uint64_t pend_committed_ino(struct pfile *pf)
{
	uint64_t ino;

	pthread_mutex_lock(&fused.pend_mu);
	ino = pf->committed_ino;
	pthread_mutex_unlock(&fused.pend_mu);
	return ino;
}

int pend_flush(struct pfile *pf)
{
	int r = 0;

	pthread_mutex_lock(&fused.pend_mu);
	/* An empty file is not committed here: a shell's `cmd >f` closes
	 * its first descriptor (a flush) before cmd writes through the dup.
	 */
	if (pf->opens == 1 && !pf->committed_ino && !pf->unlinked && pf->size &&
	    !pf->explicit_commit)
		r = commit(pf);
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

void pend_release(struct pfile *pf)
{
	pthread_mutex_lock(&fused.pend_mu);
	if (pf->opens && --pf->opens == 0 && !pf->committed_ino) {
		if (pf->explicit_commit && !pf->unlinked) {
			/* never told to commit (a killed ingest): drop it */
			fused_log("%s released without user.famfs.commit: discarded",
				  pf->name);
			pf->unlinked = true;
			/* the kernel still has the name: drop it */
			fused_notify_delete(pf->parent, pf->ino, pf->name);
		}
		if (pf->unlinked)
			live_unlink(pf);
		else
			(void)commit(pf);
	}
	pend_maybe_free(pf);
	pthread_mutex_unlock(&fused.pend_mu);
}

int pend_unlink(uint64_t parent, const char *name)
{
	struct pfile *pf;

	pthread_mutex_lock(&fused.pend_mu);
	pf = find_name(parent, name);
	if (pf) {
		live_unlink(pf);
		pf->unlinked = true;
		pend_maybe_free(pf);
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return pf ? 0 : -ENOENT;
}

bool pend_dir_has_children(uint64_t dir)
{
	bool any = false;

	pthread_mutex_lock(&fused.pend_mu);
	for (struct pfile *pf = fused.pend_live; pf && !any; pf = pf->live_next)
		any = pf->parent == dir;
	pthread_mutex_unlock(&fused.pend_mu);
	return any;
}

/* A pending file @pf moves onto @newname: what holds it goes first. */
static int move_pending(struct pfile *pf, uint64_t newparent,
			const char *newname, const char *newpath, bool noreplace)
{
	struct pfile *victim = find_name(newparent, newname);
	struct fuse_entry_param tmp;
	struct famfs_err e = { 0 };
	char *dup;
	int r;

	if (victim == pf)
		return 0;
	if (fused_lookup_committed_raw(newparent, newname, &tmp) == 0) {
		if (noreplace)
			return -EEXIST;
		if (S_ISDIR(tmp.attr.st_mode))
			return -EISDIR;
		r = famfs_unlink(fused.fs, newpath, &e);
		if (r) {
			fused_log("rename onto %s: %s", newpath, e.msg);
			return r;
		}
		fused_inomap_deleted(tmp.ino);
	} else if (victim && noreplace) {
		return -EEXIST;
	}
	dup = strdup(newname);
	if (!dup)
		return -ENOMEM;
	if (victim) {
		live_unlink(victim);
		victim->unlinked = true;
		pend_maybe_free(victim);
	}
	free(pf->name);
	pf->name = dup;
	pf->parent = newparent;
	return 0;
}

/* A committed node moves by a RENAME entry; a pending file it replaces
 * is dropped once the entry is in the log.
 */
static int move_committed(const char *oldpath, uint64_t newparent,
			  const char *newname, const char *newpath,
			  bool noreplace)
{
	struct pfile *victim = find_name(newparent, newname);
	struct famfs_err e = { 0 };
	struct fuse_entry_param tmp, src;
	uint64_t replaced = 0;
	int r;

	if (victim && noreplace)
		return -EEXIST;
	if (!noreplace && fused_lookup_committed_raw(newparent, newname, &tmp) == 0) {
		if (S_ISDIR(tmp.attr.st_mode))
			for (struct pfile *p = fused.pend_live; p; p = p->live_next)
				if (p->parent == tmp.attr.st_ino)
					return -ENOTEMPTY;
		replaced = tmp.ino;
	}
	r = famfs_rename(fused.fs, oldpath, newpath,
			 noreplace ? FAMFS_RENAME_NOREPLACE : 0, &e);
	if (r) {
		if (r != -EEXIST && r != -ENOTEMPTY)
			fused_log("rename %s -> %s: %s", oldpath, newpath, e.msg);
		return r;
	}
	/* the file that had the new name is gone (not a rename onto itself) */
	if (replaced && (fused_lookup_committed_raw(newparent, newname, &src) ||
			 src.ino != replaced))
		fused_inomap_deleted(replaced);
	if (victim) {
		live_unlink(victim);
		victim->unlinked = true;
		pend_maybe_free(victim);
	}
	return 0;
}

int pend_rename(uint64_t parent, const char *name, uint64_t newparent,
		const char *newname, bool noreplace)
{
	char oldpath[FAMFS_PATH_MAX + 2], newpath[FAMFS_PATH_MAX + 2];
	struct pfile *pf;
	int r;

	r = fused_child_path(parent, name, oldpath, sizeof(oldpath));
	if (!r)
		r = fused_child_path(newparent, newname, newpath, sizeof(newpath));
	if (r)
		return r;
	pthread_mutex_lock(&fused.pend_mu);
	pf = find_name(parent, name);
	if (pf)
		r = move_pending(pf, newparent, newname, newpath, noreplace);
	else
		r = move_committed(oldpath, newparent, newname, newpath,
				   noreplace);
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

/* Swap the names of two pending files, or of a pending file @pf and the
 * committed node at @cpath (which moves to @pf's name by a RENAME entry:
 * the name is free in the log, @pf is not committed yet).
 */
static int exchange_pending(struct pfile *pf, struct pfile *other,
			    const char *pfpath, const char *cpath,
			    uint64_t cparent, const char *cname)
{
	struct famfs_err e = { 0 };
	char *dup = strdup(cname);
	int r;

	if (!dup)
		return -ENOMEM;
	if (other) {
		char *mine = pf->name;
		uint64_t parent = pf->parent;

		free(dup);
		pf->name = other->name;
		pf->parent = other->parent;
		other->name = mine;
		other->parent = parent;
		return 0;
	}
	r = famfs_rename(fused.fs, cpath, pfpath, FAMFS_RENAME_NOREPLACE, &e);
	if (r) {
		free(dup);
		fused_log("exchange %s <-> %s: %s", pfpath, cpath, e.msg);
		return r;
	}
	free(pf->name);
	pf->name = dup;
	pf->parent = cparent;
	return 0;
}

int pend_exchange(uint64_t parent, const char *name, uint64_t newparent,
		  const char *newname)
{
	char oldpath[FAMFS_PATH_MAX + 2], newpath[FAMFS_PATH_MAX + 2];
	struct fuse_entry_param tmp;
	struct famfs_err e = { 0 };
	struct pfile *a, *b;
	int r;

	r = fused_child_path(parent, name, oldpath, sizeof(oldpath));
	if (!r)
		r = fused_child_path(newparent, newname, newpath, sizeof(newpath));
	if (r)
		return r;
	pthread_mutex_lock(&fused.pend_mu);
	a = find_name(parent, name);
	b = find_name(newparent, newname);
	if ((!a && fused_lookup_committed(parent, name, &tmp)) ||
	    (!b && fused_lookup_committed(newparent, newname, &tmp)))
		r = -ENOENT;
	else if (a)
		r = exchange_pending(a, b, oldpath, newpath, newparent, newname);
	else if (b)
		r = exchange_pending(b, NULL, newpath, oldpath, parent, name);
	else if ((r = famfs_rename(fused.fs, oldpath, newpath,
				   FAMFS_RENAME_EXCHANGE, &e)))
		fused_log("exchange %s <-> %s: %s", oldpath, newpath, e.msg);
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

int pend_setattr(uint64_t ino, const struct stat *st, int to_set,
		 struct stat *out, uint64_t *committed)
{
	struct pfile *pf;
	int r = 0;

	*committed = 0;
	pthread_mutex_lock(&fused.pend_mu);
	pf = pend_find_ino(ino);
	if (!pf) {
		pthread_mutex_unlock(&fused.pend_mu);
		return -ENOENT;
	}
	if (pf->committed_ino) {
		*committed = pf->committed_ino;
		pthread_mutex_unlock(&fused.pend_mu);
		return 0;
	}
	if (to_set & FUSE_SET_ATTR_SIZE)
		r = pend_truncate(pf, (uint64_t)st->st_size);
	if (!r) {
		pthread_mutex_lock(&pf->mu);
		if (to_set & FUSE_SET_ATTR_MODE)
			pf->mode = st->st_mode & 07777;
		if (to_set & FUSE_SET_ATTR_UID)
			pf->uid = st->st_uid;
		if (to_set & FUSE_SET_ATTR_GID)
			pf->gid = st->st_gid;
		if (to_set & FUSE_SET_ATTR_MTIME_NOW)
			pf->mtime_ns = famfs_now_ns();
		else if (to_set & FUSE_SET_ATTR_MTIME)
			pf->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ULL +
				       (uint64_t)st->st_mtim.tv_nsec;
		if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW)) {
			pf->atime_set = true;
			pf->atime_ns = (to_set & FUSE_SET_ATTR_ATIME_NOW) ?
				       famfs_now_ns() :
				       (uint64_t)st->st_atim.tv_sec * 1000000000ULL +
				       (uint64_t)st->st_atim.tv_nsec;
		}
		pf->ctime_ns = famfs_now_ns();
		pthread_mutex_unlock(&pf->mu);
		pend_stat(pf, out);
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

char *pend_xattr_map(uint64_t ino, uint64_t *committed, int *err)
{
	char path[FAMFS_PATH_MAX + 2];
	struct famfs_fmap empty = { .type = FAMFS_MAP_EXTENTS };
	struct pfile *pf;
	char *json = NULL;

	*committed = 0;
	*err = 0;
	pthread_mutex_lock(&fused.pend_mu);
	pf = pend_find_ino(ino);
	if (!pf) {
		*err = -ENOENT;
	} else if (pf->committed_ino) {
		*committed = pf->committed_ino;
	} else if ((*err = fused_child_path(pf->parent, pf->name, path,
					     sizeof(path))) == 0) {
		pthread_mutex_lock(&pf->mu);
		json = fused_map_json(path, pf->size,
				      pf->map ? famfs_fmap_bytes(pf->map) : 0,
				      pf->map ? pf->map : &empty, false);
		pthread_mutex_unlock(&pf->mu);
		if (!json)
			*err = -ENOMEM;
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return json;
}

void pend_foreach_in(uint64_t dir, void (*fn)(void *, const char *, uint64_t),
		     void *arg)
{
	for (struct pfile *pf = fused.pend_live; pf; pf = pf->live_next)
		if (pf->parent == dir)
			fn(arg, pf->name, pf->replaced_ino ? pf->replaced_ino : pf->ino);
}

int pend_set_commit_mode(uint64_t ino, bool commit_now)
{
	struct pfile *pf;
	int r = 0;

	pthread_mutex_lock(&fused.pend_mu);
	pf = pend_find_ino(ino);
	if (!pf || pf->committed_ino || pf->unlinked || !pf->opens ||
	    (commit_now && !pf->explicit_commit))
		r = -EINVAL;
	else if (!commit_now)
		pf->explicit_commit = true;
	else {
		pf->explicit_commit = false;
		r = commit(pf);
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

int pend_set_policy(uint64_t ino, const struct famfs_alloc_policy *p)
{
	struct pfile *pf;
	int r = 0;

	pthread_mutex_lock(&fused.pend_mu);
	pf = pend_find_ino(ino);
	if (!pf || pf->committed_ino || pf->unlinked || !pf->opens) {
		r = -EINVAL;
	} else {
		pthread_mutex_lock(&pf->mu);
		if (pf->map)
			r = -EBUSY;
		else
			pf->policy = *p;
		pthread_mutex_unlock(&pf->mu);
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return r;
}

void pend_commit_all(void)
{
	pthread_mutex_lock(&fused.pend_mu);
	while (fused.pend_live) {
		struct pfile *pf = fused.pend_live;

		if (pf->unlinked || pf->explicit_commit) {
			if (!pf->unlinked)
				fused_log("unmounted with %s never committed "
					  "(user.famfs.pending): discarded", pf->name);
			pf->unlinked = true;
			live_unlink(pf);
			continue;
		}
		fused_log("unmounted with %s still open: committing %llu bytes",
			  pf->name, (unsigned long long)pf->size);
		pf->opens = 0;
		(void)commit(pf);
	}
	pthread_mutex_unlock(&fused.pend_mu);
}
