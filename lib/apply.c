// SPDX-License-Identifier: Apache-2.0
/*
 * Applying one CRC-valid log entry to the in-memory state (tree, counters,
 * allocator). The same code runs for the master's appends (before they are
 * sealed) and for replay, so master and clients cannot disagree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int check_path(const char *p, uint16_t len, char *why, size_t whylen)
{
	if (len == 0 || len > FAMFS_PATH_MAX || memchr(p, '\0', len)) {
		snprintf(why, whylen, "bad path length %u", len);
		return -EINVAL;
	}
	return 0;
}

/* The directory a new @path goes in, its last name and that name's hash
 * (famfs_ns_add() takes it: each name is hashed once).
 */
static int lookup_parent(struct famfs_fs *fs, const char *path, uint16_t len,
			 struct famfs_node **dir, const char **name,
			 size_t *nlen, uint32_t *hash, char *why, size_t whylen)
{
	*dir = famfs_ns_parent_cached(fs, path, len, name, nlen);
	if (!*dir) {
		snprintf(why, whylen, "parent of '%.*s' is not a directory",
			 (int)len, path);
		return -ENOENT;
	}
	if (*nlen > FAMFS_NAME_MAX) {
		snprintf(why, whylen, "name longer than %d bytes", FAMFS_NAME_MAX);
		return -ENAMETOOLONG;
	}
	*hash = famfs_ns_hash(*dir, *name, *nlen);
	if (famfs_ns_child_hashed(fs, *dir, *name, *nlen, *hash)) {
		snprintf(why, whylen, "'%.*s' already exists", (int)len, path);
		return -EEXIST;
	}
	return 0;
}

/* famfs_fmap_check() against this filesystem's devices and data areas. */
static int map_check(const struct famfs_fs *fs, const struct famfs_fmap *m,
		     uint64_t size, char *why, size_t whylen)
{
	struct famfs_map_dev devs[FAMFS_MAX_DEVICES];

	for (unsigned d = 0; d < fs->ndev; d++) {
		devs[d].size = fs->alloc.dev[d].nunits * FAMFS_UNIT_SIZE;
		devs[d].data_start = fs->alloc.dev[d].first_unit * FAMFS_UNIT_SIZE;
	}
	return famfs_fmap_check(m, size, devs, fs->ndev, why, whylen);
}

/* Replay of a file that overlaps space freed by earlier tombstones: the
 * master reclaimed that space (in seq order), so do the same here.
 */
static int mark_with_reclaim(struct famfs_fs *fs, const struct famfs_fmap *m,
			     uint64_t seq, char *why, size_t whylen)
{
	int r;

	while ((r = famfs_alloc_mark(fs, m, why, whylen)) == -EEXIST) {
		struct pending_free *p = fs->alloc.pending;

		if (!p || p->seq >= seq)
			break;
		fs->alloc.pending = p->next;
		fs->alloc.pending_bytes -= famfs_fmap_bytes(p->map);
		famfs_alloc_unmark(fs, p->map);
		free(p->map);
		free(p);
	}
	return r;
}

static void notify(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
		   struct famfs_node *n, struct famfs_node *dir, const char *name)
{
	if (fs->change_fn)
		fs->change_fn(fs->change_arg, h, n, dir, name);
}

static int apply_file(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
		      char *why, size_t whylen)
{
	const struct famfs_entry_file *f = (const void *)(h + 1);
	const struct famfs_map_item *items = (const void *)(f + 1);
	const char *path;
	struct famfs_node *dir, *n;
	struct famfs_fmap *m;
	const char *name;
	size_t nlen, need = sizeof(*h) + sizeof(*f);
	uint32_t hash;
	int r;

	if (h->len < need || f->nitems > FAMFS_MAX_STRIPS + FAMFS_MAX_EXTENTS ||
	    h->len < need + f->nitems * sizeof(*items) + f->path_len) {
		snprintf(why, whylen, "file entry too short");
		return -EINVAL;
	}
	path = (const char *)(items + f->nitems);
	r = check_path(path, f->path_len, why, whylen);
	if (!r)
		r = lookup_parent(fs, path, f->path_len, &dir, &name, &nlen, &hash,
				  why, whylen);
	if (r)
		return r;
	m = famfs_ns_map_alloc(fs, f->nitems);
	if (!m)
		return -ENOMEM;
	m->type = f->map_type;
	m->nitems = f->nitems;
	m->reserved = 0;
	m->chunk = f->chunk;
	memcpy(m->items, items, f->nitems * sizeof(*items));
	r = map_check(fs, m, f->size, why, whylen);
	/* the master's own commit arrives with its space already reserved */
	if (!r && !fs->map_reserved)
		r = mark_with_reclaim(fs, m, h->seq, why, whylen);
	if (r) {
		famfs_ns_map_free(fs, m);
		return r;
	}
	n = famfs_ns_add(fs, dir, name, nlen, hash, h->seq);
	if (!n) {
		famfs_alloc_unmark(fs, m);
		famfs_ns_map_free(fs, m);
		return -ENOMEM;
	}
	n->mode = 0100000 | (f->mode & 07777);
	n->uid = f->uid;
	n->gid = f->gid;
	n->size = f->size;
	n->mtime_ns = n->atime_ns = f->mtime_ns;
	n->ctime_ns = f->ctime_ns;
	n->map = m;
	fs->nfiles++;
	fs->file_bytes += f->size;
	fs->alloc_bytes += famfs_fmap_bytes(m);
	notify(fs, h, n, dir, famfs_node_name_of(n));
	return 0;
}

static int apply_mkdir(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
		       char *why, size_t whylen)
{
	const struct famfs_entry_mkdir *d = (const void *)(h + 1);
	const char *path = (const char *)(d + 1), *name;
	struct famfs_node *dir, *n;
	size_t nlen;
	uint32_t hash;
	int r;

	if (h->len < sizeof(*h) + sizeof(*d) + d->path_len) {
		snprintf(why, whylen, "mkdir entry too short");
		return -EINVAL;
	}
	r = check_path(path, d->path_len, why, whylen);
	if (!r)
		r = lookup_parent(fs, path, d->path_len, &dir, &name, &nlen, &hash,
				  why, whylen);
	if (r)
		return r;
	n = famfs_ns_add(fs, dir, name, nlen, hash, h->seq);
	if (!n)
		return -ENOMEM;
	n->mode = 0040000 | (d->mode & 07777);
	n->uid = d->uid;
	n->gid = d->gid;
	n->mtime_ns = n->ctime_ns = n->atime_ns = d->mtime_ns;
	fs->ndirs++;
	notify(fs, h, n, dir, famfs_node_name_of(n));
	return 0;
}

/* Format 1.3: a symlink, its target kept verbatim (never resolved). */
static int apply_symlink(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
			 char *why, size_t whylen)
{
	const struct famfs_entry_symlink *l = (const void *)(h + 1);
	const char *path = (const char *)(l + 1), *name;
	const char *target = path + l->path_len;
	struct famfs_node *dir, *n;
	size_t nlen;
	uint32_t hash;
	char *t;
	int r;

	if (h->len < sizeof(*h) + sizeof(*l) + (uint64_t)l->path_len +
		     l->target_len) {
		snprintf(why, whylen, "symlink entry too short");
		return -EINVAL;
	}
	r = check_path(path, l->path_len, why, whylen);
	if (r)
		return r;
	if (l->target_len == 0 || l->target_len > FAMFS_SYMLINK_MAX ||
	    memchr(target, '\0', l->target_len) || l->reserved) {
		snprintf(why, whylen, "symlink '%.*s': bad target (%u bytes)",
			 (int)l->path_len, path, l->target_len);
		return -EINVAL;
	}
	r = lookup_parent(fs, path, l->path_len, &dir, &name, &nlen, &hash,
			  why, whylen);
	if (r)
		return r;
	t = famfs_arena_alloc(&fs->arena, (size_t)l->target_len + 1);
	if (!t)
		return -ENOMEM;
	n = famfs_ns_add(fs, dir, name, nlen, hash, h->seq);
	if (!n) {
		famfs_arena_free(&fs->arena, t, (size_t)l->target_len + 1);
		return -ENOMEM;
	}
	memcpy(t, target, l->target_len);
	t[l->target_len] = '\0';
	n->mode = 0120777;
	n->uid = l->uid;
	n->gid = l->gid;
	n->size = l->target_len;
	n->target = t;
	n->mtime_ns = n->ctime_ns = n->atime_ns = l->mtime_ns;
	fs->nsymlinks++;
	notify(fs, h, n, dir, famfs_node_name_of(n));
	return 0;
}

/* Delete @n by entry @seq (a DELETE, or a RENAME over it): its space waits
 * in the tombstone list until every client is past @seq.
 */
static void drop_node(struct famfs_fs *fs, struct famfs_node *n, uint64_t seq)
{
	if (famfs_node_map_of(n)) {
		struct famfs_fmap *m = malloc(famfs_fmap_sizeof(n->map->nitems));

		if (m) {
			memcpy(m, n->map, famfs_fmap_sizeof(n->map->nitems));
			famfs_pending_add(fs, seq, n->holds ? n : NULL, m);
		}
		fs->nfiles--;
		fs->file_bytes -= n->size;
		fs->alloc_bytes -= famfs_fmap_bytes(n->map);
	} else if (S_ISLNK_MODE(n->mode)) {
		fs->nsymlinks--;
	} else {
		fs->ndirs--;
	}
	famfs_ns_remove(fs, n, seq);
}

static int apply_delete(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
			char *why, size_t whylen)
{
	const struct famfs_entry_delete *d = (const void *)(h + 1);
	const char *path = (const char *)(d + 1);
	struct famfs_node *n, *dir;
	char name[FAMFS_NAME_MAX + 1];
	int r;

	if (h->len < sizeof(*h) + sizeof(*d) + d->path_len) {
		snprintf(why, whylen, "delete entry too short");
		return -EINVAL;
	}
	r = check_path(path, d->path_len, why, whylen);
	if (r)
		return r;
	n = famfs_node_by_ino(fs, FAMFS_ROOT_INO + d->target_seq);
	if (!n || n->deleted || n == fs->root) {
		snprintf(why, whylen, "delete of '%.*s': entry %llu is not live",
			 (int)d->path_len, path,
			 (unsigned long long)d->target_seq);
		return -ENOENT;
	}
	if (S_ISDIR_MODE(n->mode) && n->nchildren) {
		snprintf(why, whylen, "'%.*s' is a directory that is not empty",
			 (int)d->path_len, path);
		return -ENOTEMPTY;
	}
	dir = n->parent;
	snprintf(name, sizeof(name), "%s", famfs_node_name_of(n));
	drop_node(fs, n, h->seq);
	notify(fs, h, NULL, dir, name);
	return 0;
}

static int apply_device_add(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
			    char *why, size_t whylen)
{
	const struct famfs_entry_device_add *a = (const void *)(h + 1);
	const struct famfs_dev_label *l;
	int r;

	if (h->len < sizeof(*h) + sizeof(*a) || a->dev_index != fs->ndev ||
	    a->dev_index >= FAMFS_MAX_DEVICES) {
		snprintf(why, whylen, "device add of index %u (have %u devices)",
			 a->dev_index, fs->ndev);
		return -EINVAL;
	}
	if (!fs->dev[a->dev_index]) {
		char u[37];

		famfs_uuid_unparse(&a->dev_uuid, u);
		snprintf(why, whylen,
			 "device %u (uuid %s) added by the log was not given",
			 a->dev_index, u);
		if (!fs->missing_dev[0])
			snprintf(fs->missing_dev, sizeof(fs->missing_dev), "%s", why);
		return -ENODEV;
	}
	l = (const void *)fs->dev[a->dev_index]->base;
	if (memcmp(&l->dev_uuid, &a->dev_uuid, sizeof(a->dev_uuid))) {
		snprintf(why, whylen, "device %u's label does not match the log",
			 a->dev_index);
		return -EINVAL;
	}
	r = famfs_alloc_init_dev(fs, a->dev_index);
	if (r) {
		snprintf(why, whylen, r == -EINVAL ?
			 "device %u is smaller than its first data unit" :
			 "out of memory", a->dev_index);
		return r;
	}
	fs->ndev++;
	fs->missing_dev[0] = '\0';
	notify(fs, h, NULL, NULL, NULL);
	return 0;
}

/* Format 1.1: new mode, owner, times or size of a live node. */
static int apply_setattr(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
			 char *why, size_t whylen)
{
	const struct famfs_entry_setattr *a = (const void *)(h + 1);
	const char *path = (const char *)(a + 1);
	struct famfs_node *n;
	int r;

	if (h->len < sizeof(*h) + sizeof(*a) + a->path_len) {
		snprintf(why, whylen, "setattr entry too short");
		return -EINVAL;
	}
	r = check_path(path, a->path_len, why, whylen);
	if (r)
		return r;
	if (a->valid & ~FAMFS_SETATTR_ALL) {
		snprintf(why, whylen, "setattr of '%.*s': unknown bits 0x%x",
			 (int)a->path_len, path, a->valid & ~FAMFS_SETATTR_ALL);
		return -EINVAL;
	}
	n = famfs_node_by_ino(fs, FAMFS_ROOT_INO + a->target_seq);
	if (!n || n->deleted) {
		snprintf(why, whylen, "setattr of '%.*s': entry %llu is not live",
			 (int)a->path_len, path,
			 (unsigned long long)a->target_seq);
		return -ENOENT;
	}
	if (S_ISLNK_MODE(n->mode) &&
	    (a->valid & (FAMFS_SETATTR_MODE | FAMFS_SETATTR_SIZE))) {
		snprintf(why, whylen, "setattr of '%.*s': mode or size of a symlink",
			 (int)a->path_len, path);
		return -EOPNOTSUPP;
	}
	if (a->valid & FAMFS_SETATTR_SIZE) {
		uint64_t cap = famfs_node_map_of(n) ? famfs_fmap_bytes(n->map) : 0;

		if (!S_ISREG_MODE(n->mode)) {
			snprintf(why, whylen, "setattr of '%.*s': size of a directory",
				 (int)a->path_len, path);
			return -EISDIR;
		}
		if (a->size > cap) {
			snprintf(why, whylen,
				 "setattr of '%.*s': size %llu beyond its map of %llu bytes",
				 (int)a->path_len, path,
				 (unsigned long long)a->size, (unsigned long long)cap);
			return -EFBIG;
		}
		fs->file_bytes += a->size - n->size;
		n->size = a->size;
	}
	if (a->valid & FAMFS_SETATTR_MODE)
		n->mode = (n->mode & ~07777U) | (a->mode & 07777);
	if (a->valid & FAMFS_SETATTR_UID)
		n->uid = a->uid;
	if (a->valid & FAMFS_SETATTR_GID)
		n->gid = a->gid;
	if (a->valid & FAMFS_SETATTR_ATIME)
		n->atime_ns = a->atime_ns;
	if (a->valid & FAMFS_SETATTR_MTIME)
		n->mtime_ns = a->mtime_ns;
	n->ctime_ns = a->ctime_ns;
	notify(fs, h, n, n->parent, NULL);
	return 0;
}

/* What RENAME may not do: move the root, a node into itself, or replace
 * a node of the other kind or a directory that is not empty.
 */
static int rename_check(struct famfs_node *n, struct famfs_node *dir,
			struct famfs_node *victim, uint64_t replaced_seq,
			const char *np, uint16_t nlen, char *why, size_t whylen)
{
	if (S_ISDIR_MODE(n->mode))
		for (struct famfs_node *a = dir; a; a = a->parent)
			if (a == n) {
				snprintf(why, whylen, "rename of a directory "
					 "into itself ('%.*s')", (int)nlen, np);
				return -EINVAL;
			}
	if (victim == n) {
		snprintf(why, whylen, "rename of '%.*s' onto itself",
			 (int)nlen, np);
		return -EINVAL;
	}
	if (!victim && replaced_seq) {
		snprintf(why, whylen, "rename onto '%.*s': the entry %llu it "
			 "replaces is not there", (int)nlen, np,
			 (unsigned long long)replaced_seq);
		return -ENOENT;
	}
	if (!victim)
		return 0;
	if (victim->create_seq != replaced_seq) {
		snprintf(why, whylen, "'%.*s' already exists (entry %llu, the "
			 "rename replaces %llu)", (int)nlen, np,
			 (unsigned long long)victim->create_seq,
			 (unsigned long long)replaced_seq);
		return -EEXIST;
	}
	if (S_ISDIR_MODE(victim->mode) != S_ISDIR_MODE(n->mode)) {
		snprintf(why, whylen, "rename onto '%.*s': %s", (int)nlen, np,
			 S_ISDIR_MODE(victim->mode) ? "a file cannot replace a "
			 "directory" : "a directory cannot replace a file");
		return S_ISDIR_MODE(victim->mode) ? -EISDIR : -ENOTDIR;
	}
	if (S_ISDIR_MODE(victim->mode) && victim->nchildren) {
		snprintf(why, whylen, "rename onto '%.*s': a directory that is "
			 "not empty", (int)nlen, np);
		return -ENOTEMPTY;
	}
	return 0;
}

/* Format 1.2: move a live node to a new path, deleting what held it. */
static int apply_rename(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
			char *why, size_t whylen)
{
	const struct famfs_entry_rename *a = (const void *)(h + 1);
	const char *op = (const char *)(a + 1), *np = op + a->old_len, *name;
	char cur[FAMFS_PATH_MAX + 2], oldname[FAMFS_NAME_MAX + 1];
	struct famfs_node *n, *dir, *olddir, *victim;
	char *ext;
	size_t nlen;
	int r;

	if (h->len < sizeof(*h) + sizeof(*a) + (uint64_t)a->old_len + a->new_len) {
		snprintf(why, whylen, "rename entry too short");
		return -EINVAL;
	}
	r = check_path(op, a->old_len, why, whylen);
	if (!r)
		r = check_path(np, a->new_len, why, whylen);
	if (r)
		return r;
	n = famfs_node_by_ino(fs, FAMFS_ROOT_INO + a->target_seq);
	if (!n || n->deleted || n == fs->root) {
		snprintf(why, whylen, "rename of '%.*s': entry %llu is not live",
			 (int)a->old_len, op, (unsigned long long)a->target_seq);
		return -ENOENT;
	}
	r = famfs_node_path(n, cur, sizeof(cur));
	if (r < 0 || (size_t)r != a->old_len || memcmp(cur, op, a->old_len)) {
		snprintf(why, whylen, "rename of '%.*s': entry %llu is not there",
			 (int)a->old_len, op, (unsigned long long)a->target_seq);
		return -ENOENT;
	}
	dir = famfs_ns_parent_cached(fs, np, a->new_len, &name, &nlen);
	if (!dir) {
		snprintf(why, whylen, "rename to '%.*s': parent is not a directory",
			 (int)a->new_len, np);
		return -ENOENT;
	}
	if (nlen > FAMFS_NAME_MAX) {
		snprintf(why, whylen, "name longer than %d bytes", FAMFS_NAME_MAX);
		return -ENAMETOOLONG;
	}
	victim = famfs_ns_child(fs, dir, name, nlen);
	r = rename_check(n, dir, victim, a->replaced_seq, np, a->new_len, why,
			 whylen);
	if (r)
		return r;
	/* the name gets its memory first: nothing to undo after */
	r = famfs_ns_move_prepare(fs, n, nlen, &ext);
	if (r) {
		snprintf(why, whylen, "out of memory");
		return r;
	}
	olddir = n->parent;
	snprintf(oldname, sizeof(oldname), "%s", famfs_node_name_of(n));
	if (victim)
		drop_node(fs, victim, h->seq);
	famfs_ns_move(fs, n, dir, name, nlen, ext);
	n->ctime_ns = h->logged_ns;
	notify(fs, h, NULL, olddir, oldname);
	notify(fs, h, n, dir, famfs_node_name_of(n));
	return 0;
}

/* Whether @a is @n or an ancestor of it. */
static bool is_ancestor(const struct famfs_node *a, const struct famfs_node *n)
{
	for (; n; n = n->parent)
		if (n == a)
			return true;
	return false;
}

/* The live node entry @seq created, which must be at @path; NULL and
 * @why when it is not.
 */
static struct famfs_node *exchange_node(struct famfs_fs *fs, uint64_t seq,
					const char *path, uint16_t len,
					char *why, size_t whylen)
{
	char cur[FAMFS_PATH_MAX + 2];
	struct famfs_node *n = famfs_node_by_ino(fs, FAMFS_ROOT_INO + seq);
	int r;

	if (!n || n->deleted || n == fs->root) {
		snprintf(why, whylen, "exchange of '%.*s': entry %llu is not live",
			 (int)len, path, (unsigned long long)seq);
		return NULL;
	}
	r = famfs_node_path(n, cur, sizeof(cur));
	if (r < 0 || (size_t)r != len || memcmp(cur, path, len)) {
		snprintf(why, whylen, "exchange of '%.*s': entry %llu is not there",
			 (int)len, path, (unsigned long long)seq);
		return NULL;
	}
	return n;
}

/* Format 1.5: two live nodes swap their names (RENAME_EXCHANGE). */
static int apply_exchange(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
			  char *why, size_t whylen)
{
	const struct famfs_entry_exchange *x = (const void *)(h + 1);
	const char *pa = (const char *)(x + 1), *pb = pa + x->a_len;
	struct famfs_node *a, *b;
	char *ext_a, *ext_b;
	int r;

	if (h->len < sizeof(*h) + sizeof(*x) + (uint64_t)x->a_len + x->b_len) {
		snprintf(why, whylen, "exchange entry too short");
		return -EINVAL;
	}
	r = check_path(pa, x->a_len, why, whylen);
	if (!r)
		r = check_path(pb, x->b_len, why, whylen);
	if (r)
		return r;
	if (x->reserved || x->a_seq == x->b_seq) {
		snprintf(why, whylen, "exchange of '%.*s': %s", (int)x->a_len, pa,
			 x->reserved ? "reserved field is not zero" :
			 "a node with itself");
		return -EINVAL;
	}
	a = exchange_node(fs, x->a_seq, pa, x->a_len, why, whylen);
	b = a ? exchange_node(fs, x->b_seq, pb, x->b_len, why, whylen) : NULL;
	if (!a || !b)
		return -ENOENT;
	if (is_ancestor(a, b) || is_ancestor(b, a)) {
		snprintf(why, whylen, "exchange of '%.*s' and '%.*s': one holds "
			 "the other", (int)x->a_len, pa, (int)x->b_len, pb);
		return -EINVAL;
	}
	/* both names get their memory first: nothing to undo after */
	r = famfs_ns_move_prepare(fs, a, strlen(famfs_node_name_of(b)), &ext_a);
	if (!r) {
		r = famfs_ns_move_prepare(fs, b, strlen(famfs_node_name_of(a)),
					  &ext_b);
		if (r && ext_a)
			famfs_arena_free(&fs->arena, ext_a,
					 strlen(famfs_node_name_of(b)) + 1);
	}
	if (r) {
		snprintf(why, whylen, "out of memory");
		return r;
	}
	famfs_ns_exchange(fs, a, b, ext_a, ext_b);
	a->ctime_ns = b->ctime_ns = h->logged_ns;
	/* each name now holds the other node. Path a first, path b last: a
	 * FUSE client drops its cached names in this order, and a lookup
	 * of the name dropped first that races the second drop can fail
	 * with ESTALE (the kernel cannot take the locks to move the
	 * directory's other alias): the name readers use goes last
	 * (docs/fuse.md)
	 */
	notify(fs, h, b, b->parent, famfs_node_name_of(b));
	notify(fs, h, a, a->parent, famfs_node_name_of(a));
	return 0;
}

uint32_t famfs_entry_prefetch(struct famfs_fs *fs, const uint8_t *base,
			      uint64_t off, uint64_t len)
{
	struct famfs_entry_hdr h;
	uint16_t plen;
	uint64_t at;

	/* other hosts may write the log under us: read each field once, into
	 * copies, and never let them reach past @len
	 */
	if (off > len || len - off < sizeof(h))
		return 0;
	memcpy(&h, base + off, sizeof(h));
	if (h.magic != FAMFS_ENTRY_MAGIC || h.len < sizeof(h) || h.len % 8 ||
	    h.len > len - off)
		return 0;
	if (h.type == FAMFS_ENTRY_FILE &&
	    h.len >= sizeof(h) + sizeof(struct famfs_entry_file)) {
		struct famfs_entry_file f;

		memcpy(&f, base + off + sizeof(h), sizeof(f));
		at = sizeof(h) + sizeof(f) + (uint64_t)f.nitems * sizeof(struct famfs_map_item);
		plen = f.path_len;
	} else if (h.type == FAMFS_ENTRY_MKDIR &&
		   h.len >= sizeof(h) + sizeof(struct famfs_entry_mkdir)) {
		struct famfs_entry_mkdir d;

		memcpy(&d, base + off + sizeof(h), sizeof(d));
		at = sizeof(h) + sizeof(d);
		plen = d.path_len;
	} else {
		return h.len;
	}
	if (plen && at + plen <= h.len)
		famfs_ns_prefetch(fs, (const char *)base + off + at, plen);
	return h.len;
}

int famfs_batch_inner_check(const struct famfs_entry_hdr *b, uint64_t off,
			    uint64_t seq, char *why, size_t whylen)
{
	const struct famfs_entry_hdr *h = (const void *)((const uint8_t *)b + off);

	if (off + sizeof(*h) > b->len || h->magic != FAMFS_ENTRY_MAGIC ||
	    h->fs_tag != b->fs_tag || h->len < sizeof(*h) || h->len % 8 ||
	    h->len > b->len - off || h->seq != seq || h->crc != 0) {
		snprintf(why, whylen, "batch %llu: inner entry %llu is malformed",
			 (unsigned long long)b->seq, (unsigned long long)seq);
		return -EBADMSG;
	}
	if (h->type != FAMFS_ENTRY_FILE && h->type != FAMFS_ENTRY_MKDIR &&
	    h->type != FAMFS_ENTRY_SETATTR && h->type != FAMFS_ENTRY_DELETE) {
		snprintf(why, whylen, "batch %llu: entry %llu of type %u cannot be batched",
			 (unsigned long long)b->seq, (unsigned long long)seq, h->type);
		return -EBADMSG;
	}
	return 0;
}

/* Replay of a batch: each inner entry as if it stood alone. */
static int apply_batch(struct famfs_fs *fs, const struct famfs_entry_hdr *b,
		       char *why, size_t whylen)
{
	const struct famfs_entry_batch *bb = (const void *)(b + 1);
	uint64_t off = sizeof(*b) + sizeof(*bb);

	if (b->len < off) {
		snprintf(why, whylen, "batch entry too short");
		return -EINVAL;
	}
	uint64_t ahead = off;

	for (uint32_t i = 0; i < bb->count; i++) {
		const struct famfs_entry_hdr *h = (const void *)((const uint8_t *)b + off);
		uint64_t seq = b->seq + 1 + i;
		uint32_t l;

		/* prefetch inner entries ahead, in bursts (famfs_log_scan) */
		if (ahead < off)
			ahead = off;
		if (ahead - off < FAMFS_PREFETCH_LOW)
			while (ahead - off < FAMFS_PREFETCH_BYTES &&
			       (l = famfs_entry_prefetch(fs, (const uint8_t *)b,
							 ahead, b->len)))
				ahead += l;

		if (famfs_batch_inner_check(b, off, seq, why, whylen))
			return -EBADMSG; /* the rest cannot be found */
		if (famfs_apply_entry(fs, h, why, whylen))
			famfs_log_note_skip(fs, seq, why);
		off += h->len;
	}
	return 0;
}

int famfs_apply_entry(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
		      char *why, size_t whylen)
{
	switch (h->type) {
	case FAMFS_ENTRY_FILE:
		return apply_file(fs, h, why, whylen);
	case FAMFS_ENTRY_MKDIR:
		return apply_mkdir(fs, h, why, whylen);
	case FAMFS_ENTRY_DELETE:
		return apply_delete(fs, h, why, whylen);
	case FAMFS_ENTRY_DEVICE_ADD:
		return apply_device_add(fs, h, why, whylen);
	case FAMFS_ENTRY_SETATTR:
		return apply_setattr(fs, h, why, whylen);
	case FAMFS_ENTRY_BATCH:
		return apply_batch(fs, h, why, whylen);
	case FAMFS_ENTRY_RENAME:
		return apply_rename(fs, h, why, whylen);
	case FAMFS_ENTRY_SYMLINK:
		return apply_symlink(fs, h, why, whylen);
	case FAMFS_ENTRY_EXCHANGE:
		return apply_exchange(fs, h, why, whylen);
	default:
		if (h->flags & FAMFS_ENTRY_F_OPTIONAL)
			return 0;
		snprintf(why, whylen, "unknown entry type %u", h->type);
		return -EPROTONOSUPPORT;
	}
}
