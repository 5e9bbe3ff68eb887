// SPDX-License-Identifier: Apache-2.0
/*
 * open(O_TRUNC) on the master. A pending file is truncated to 0. A
 * committed file cannot shrink or grow its map under readers, so it is
 * deleted and a new pending file with its name, mode and owner takes its
 * place; the kernel's inode of the old file (the one the open and the
 * cached name use) is an alias of the new file until the kernel forgets
 * it, and lookups of the name answer with it: one kernel inode, one size.
 * Locks as in pending.c (pend_mu before pf->mu before the fs lock).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fused.h"
#include "pending.h"

static bool is_pending(uint64_t ino)
{
	return ino & FUSED_PENDING_INO;
}

/* The replacement the kernel's inode @ino stands for. */
static struct pfile *find_alias(uint64_t ino)
{
	for (struct pfile *pf = fused.pend_alias; pf; pf = pf->alias_next)
		if (pf->replaced_ino == ino)
			return pf;
	return NULL;
}

/* Take @pf's alias off the list and drop its reference (pend_mu held). */
static void alias_unlink(struct pfile *pf)
{
	for (struct pfile **pp = &fused.pend_alias; *pp; pp = &(*pp)->alias_next) {
		if (*pp != pf)
			continue;
		*pp = pf->alias_next;
		break;
	}
	pf->alias_next = NULL;
	pf->replaced_ino = 0;
	pf->alias_forgotten = false;
	pf->nlookup = pf->nlookup > 1 + pf->alias_lookups ?
		      pf->nlookup - 1 - pf->alias_lookups : 0;
	pf->alias_lookups = 0;
}

/* What the O_TRUNC open replaces: its path, parent and attributes. */
static int replaced_node(uint64_t ino, char *path, size_t len, uint64_t *parent,
			 char **name, struct famfs_attr *a)
{
	struct famfs_node *n, *dir;
	struct famfs_attr pa;
	int r = 0;

	famfs_fs_rdlock(fused.fs);
	n = famfs_node_by_ino(fused.fs, ino);
	dir = n ? famfs_node_parent(n) : NULL;
	if (!n || !dir)
		r = -ENOENT;
	else if (famfs_node_is_dir(n))
		r = -EISDIR;
	else if (famfs_node_path(n, path, len) < 0)
		r = -ENAMETOOLONG;
	else if (!(*name = strdup(famfs_node_name(n))))
		r = -ENOMEM;
	if (!r) {
		famfs_node_attr(n, a);
		famfs_node_attr(dir, &pa);
		*parent = pa.ino;
	}
	famfs_fs_unlock(fused.fs);
	return r;
}

int pend_replace(uint64_t ino, uint64_t kernel_ino, unsigned own_opens,
		 struct pfile **out)
{
	char path[FAMFS_PATH_MAX + 2];
	struct famfs_err e = { 0 };
	struct famfs_attr a;
	struct pfile *pf;
	char *name = NULL;
	uint64_t parent = 0;
	int r;

	*out = NULL;
	pthread_mutex_lock(&fused.pend_mu);
	r = replaced_node(ino, path, sizeof(path), &parent, &name, &a);
	if (!r && fused_ofiles_count(ino) > own_opens)
		r = -ETXTBSY; /* the other descriptors keep the committed map */
	if (!r && !pend_log_has_room(path))
		r = -ENOSPC;
	if (!r) {
		/* the master's own holds are gone; clients' holds keep the
		 * space (the delete rules, docs/format.md)
		 */
		r = famfs_unlink(fused.fs, path, &e);
		if (r)
			fused_log("open(O_TRUNC) of %s: delete: %s", path, e.msg);
		else
			fused_inomap_deleted(ino);
	}
	if (!r) {
		pf = pend_new_locked(parent, name, a.mode, a.uid, a.gid, true);
		if (!pf) {
			/* deleted, not replaced: as a crash before the commit */
			fused_log("open(O_TRUNC) of %s: out of memory, file deleted",
				  path);
			r = -ENOMEM;
		} else {
			/* the kernel's inode stands for the new file: the
			 * same inode the open and the name use (lookups of
			 * the name answer with it too)
			 */
			struct pfile *prev = find_alias(kernel_ino);
			uint64_t refs = prev ? prev->alias_lookups : 0;

			/* an earlier (committed) replacement's references
			 * move here
			 */
			if (prev) {
				alias_unlink(prev);
				pend_maybe_free(prev);
			}
			pf->replaced_ino = kernel_ino;
			pf->alias_lookups = refs;
			pf->nlookup += 1 + refs;
			pf->alias_next = fused.pend_alias;
			fused.pend_alias = pf;
			*out = pf;
		}
	}
	pthread_mutex_unlock(&fused.pend_mu);
	free(name);
	return r;
}

int pend_open_trunc(struct pfile *pf)
{
	int r = pend_truncate(pf, 0);

	if (!r) {
		pthread_mutex_lock(&pf->mu);
		pf->mtime_ns = pf->ctime_ns = famfs_now_ns();
		pthread_mutex_unlock(&pf->mu);
	}
	return r;
}

uint64_t pend_resolve(uint64_t ino)
{
	pthread_mutex_lock(&fused.pend_mu);
	for (int hops = 0; hops < 64; hops++) {
		struct pfile *pf = find_alias(ino);

		if (pf) {
			ino = pf->ino;
			continue;
		}
		/* a committed file known by another number (inomap.c) */
		uint64_t cino = fused_inomap_committed(ino);

		if (cino) {
			ino = cino;
			break;
		}
		pf = is_pending(ino) ? pend_find_ino(ino) : NULL;
		if (!pf || pf->committed_ino <= 1)
			break;
		ino = pf->committed_ino;
	}
	pthread_mutex_unlock(&fused.pend_mu);
	return ino;
}

/* While the replacement is uncommitted, lookups of its name answer with
 * the alias: a FORGET of it may be for an incarnation the kernel evicted
 * before such an answer, so the alias stays until the file is committed
 * or dropped (pend_alias_settle).
 */
void pend_drop_alias(uint64_t ino)
{
	struct pfile *pf = find_alias(ino);

	if (!pf)
		return;
	if (!pf->committed_ino && !pf->unlinked) {
		pf->alias_forgotten = true;
		return;
	}
	alias_unlink(pf);
	pend_maybe_free(pf);
}

void pend_alias_settle(struct pfile *pf)
{
	if (pf->replaced_ino && pf->alias_forgotten &&
	    (pf->committed_ino || pf->unlinked))
		alias_unlink(pf);
}

void pend_forget_committed(uint64_t ino)
{
	pthread_mutex_lock(&fused.pend_mu);
	pend_drop_alias(ino);
	pthread_mutex_unlock(&fused.pend_mu);
}

void pend_alias_lookup(struct pfile *pf)
{
	struct pfile *old = is_pending(pf->replaced_ino) ?
			    pend_find_ino(pf->replaced_ino) : NULL;

	if (old) {
		old->nlookup++;
	} else {
		pf->nlookup++;
		pf->alias_lookups++;
	}
}
