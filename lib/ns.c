// SPDX-License-Identifier: Apache-2.0
/*
 * The in-memory namespace rebuilt from the log: a tree of nodes plus two
 * hash tables, (parent, name) -> node and ino -> node, so that replaying a
 * million entries and every FUSE lookup cost O(1) per path component.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int table_init(struct node_table *t, uint64_t n)
{
	t->buckets = calloc(n, sizeof(*t->buckets));
	t->nbuckets = n;
	t->count = 0;
	return t->buckets ? 0 : -ENOMEM;
}

static struct famfs_node **name_bucket(struct node_table *t, uint32_t h)
{
	return &t->buckets[h & (t->nbuckets - 1)];
}

static struct famfs_node **ino_bucket(struct node_table *t, uint64_t ino)
{
	return &t->buckets[(ino * 0x9e3779b97f4a7c15ULL >> 20) & (t->nbuckets - 1)];
}

/* Double both tables when full; chains are rebuilt, nodes don't move. */
static void tables_grow(struct famfs_fs *fs)
{
	struct node_table nn, ni;

	if (fs->names.count < fs->names.nbuckets)
		return;
	if (table_init(&nn, fs->names.nbuckets * 2) ||
	    table_init(&ni, fs->inos.nbuckets * 2)) {
		free(nn.buckets);
		return; /* keep the old tables: slower chains, still correct */
	}
	for (uint64_t i = 0; i < fs->names.nbuckets; i++)
		for (struct famfs_node *n = fs->names.buckets[i], *next; n; n = next) {
			struct famfs_node **b = name_bucket(&nn, n->name_hash);

			next = n->name_next;
			n->name_next = *b;
			*b = n;
		}
	for (uint64_t i = 0; i < fs->inos.nbuckets; i++)
		for (struct famfs_node *n = fs->inos.buckets[i], *next; n; n = next) {
			struct famfs_node **b = ino_bucket(&ni, n->ino);

			next = n->ino_next;
			n->ino_next = *b;
			*b = n;
		}
	nn.count = fs->names.count;
	ni.count = fs->inos.count;
	free(fs->names.buckets);
	free(fs->inos.buckets);
	fs->names = nn;
	fs->inos = ni;
}

int famfs_ns_init(struct famfs_fs *fs)
{
	/* Size the tables for a full log (a FILE entry takes >= 120 bytes):
	 * replay then never rehashes, and calloc'ed buckets that no entry
	 * touches cost no memory.
	 */
	uint64_t nb = 1024;

	while (nb < fs->log_size / 128 && nb < (1ULL << 26))
		nb *= 2;
	if (table_init(&fs->names, nb) || table_init(&fs->inos, nb))
		return -ENOMEM;
	fs->root = calloc(1, sizeof(*fs->root) + 1);
	if (!fs->root)
		return -ENOMEM;
	fs->root->name = (char *)(fs->root + 1);
	fs->root->ino = FAMFS_ROOT_INO;
	fs->root->mode = 040755;
	fs->root->mtime_ns = fs->root->ctime_ns = fs->sb.created_ns;
	fs->root->atime_ns = fs->sb.created_ns;
	*ino_bucket(&fs->inos, FAMFS_ROOT_INO) = fs->root;
	fs->inos.count = 1;
	return 0;
}

static void node_free(struct famfs_node *n)
{
	free(n->map);
	free(n);
}

void famfs_ns_free(struct famfs_fs *fs)
{
	for (uint64_t i = 0; i < fs->inos.nbuckets; i++)
		for (struct famfs_node *n = fs->inos.buckets[i], *next; n; n = next) {
			next = n->ino_next;
			node_free(n);
		}
	for (struct famfs_node *z = fs->zombies, *next; z; z = next) {
		next = z->zombie_next;
		node_free(z);
	}
	free(fs->names.buckets);
	free(fs->inos.buckets);
	fs->root = NULL;
}

struct famfs_node *famfs_ns_child(struct famfs_fs *fs, struct famfs_node *dir,
				  const char *name, size_t nlen)
{
	uint32_t h = famfs_hash_name(name, nlen, dir->ino);

	for (struct famfs_node *n = *name_bucket(&fs->names, h); n; n = n->name_next)
		if (n->name_hash == h && n->parent == dir &&
		    !strncmp(n->name, name, nlen) && n->name[nlen] == '\0')
			return n;
	return NULL;
}

struct famfs_node *famfs_ns_add(struct famfs_fs *fs, struct famfs_node *dir,
				const char *name, size_t nlen, uint64_t seq)
{
	/* one allocation: the name follows the node */
	struct famfs_node *n = malloc(sizeof(*n) + nlen + 1);
	struct famfs_node **b;

	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->name = (char *)(n + 1);
	memcpy(n->name, name, nlen);
	n->name[nlen] = '\0';
	tables_grow(fs);
	n->ino = FAMFS_ROOT_INO + seq;
	n->create_seq = seq;
	n->parent = dir;
	n->name_hash = famfs_hash_name(name, nlen, dir->ino);
	b = name_bucket(&fs->names, n->name_hash);
	n->name_next = *b;
	*b = n;
	fs->names.count++;
	b = ino_bucket(&fs->inos, n->ino);
	n->ino_next = *b;
	*b = n;
	fs->inos.count++;
	n->next_sibling = dir->first_child;
	if (dir->first_child)
		dir->first_child->prev_sibling = n;
	dir->first_child = n;
	dir->nchildren++;
	return n;
}

/* Unlink @n from tree and tables; a held node lives on as a zombie. */
void famfs_ns_remove(struct famfs_fs *fs, struct famfs_node *n)
{
	struct famfs_node **pp;
	struct famfs_node *dir = n->parent;

	for (pp = name_bucket(&fs->names, n->name_hash); *pp; pp = &(*pp)->name_next)
		if (*pp == n) {
			*pp = n->name_next;
			fs->names.count--;
			break;
		}
	for (pp = ino_bucket(&fs->inos, n->ino); *pp; pp = &(*pp)->ino_next)
		if (*pp == n) {
			*pp = n->ino_next;
			fs->inos.count--;
			break;
		}
	if (n->prev_sibling)
		n->prev_sibling->next_sibling = n->next_sibling;
	else
		dir->first_child = n->next_sibling;
	if (n->next_sibling)
		n->next_sibling->prev_sibling = n->prev_sibling;
	dir->nchildren--;
	n->deleted = true;
	if (n->holds) {
		n->zombie_next = fs->zombies;
		fs->zombies = n;
	} else {
		node_free(n);
	}
}

struct famfs_node *famfs_ns_parent(struct famfs_fs *fs, const char *path,
				   size_t plen, const char **name, size_t *nlen)
{
	struct famfs_node *dir = fs->root;
	const char *p = path, *end = path + plen;

	while (p < end && *p == '/')
		p++;
	for (;;) {
		const char *c = p;

		while (p < end && *p != '/')
			p++;
		if (p >= end) {
			*name = c;
			*nlen = (size_t)(p - c);
			return *nlen ? dir : NULL;
		}
		dir = famfs_ns_child(fs, dir, c, (size_t)(p - c));
		if (!dir || !S_ISDIR_MODE(dir->mode))
			return NULL;
		while (p < end && *p == '/')
			p++;
	}
}

FAMFS_EXPORT struct famfs_node *famfs_root(struct famfs_fs *fs) { return fs->root; }

FAMFS_EXPORT struct famfs_node *famfs_lookup(struct famfs_fs *fs, const char *path)
{
	const char *name;
	size_t nlen, plen = strlen(path);
	struct famfs_node *dir;

	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (plen == 0 || (plen == 1 && path[0] == '/'))
		return fs->root;
	dir = famfs_ns_parent(fs, path, plen, &name, &nlen);
	return dir ? famfs_ns_child(fs, dir, name, nlen) : NULL;
}

FAMFS_EXPORT struct famfs_node *famfs_lookup_child(struct famfs_fs *fs,
						   struct famfs_node *dir,
						   const char *name)
{
	if (!dir || !S_ISDIR_MODE(dir->mode))
		return NULL;
	return famfs_ns_child(fs, dir, name, strlen(name));
}

FAMFS_EXPORT struct famfs_node *famfs_node_by_ino(struct famfs_fs *fs, uint64_t ino)
{
	for (struct famfs_node *n = *ino_bucket(&fs->inos, ino); n; n = n->ino_next)
		if (n->ino == ino)
			return n;
	for (struct famfs_node *z = fs->zombies; z; z = z->zombie_next)
		if (z->ino == ino)
			return z;
	return NULL;
}

FAMFS_EXPORT struct famfs_node *famfs_node_first_child(struct famfs_node *dir) { return dir->first_child; }
FAMFS_EXPORT struct famfs_node *famfs_node_next_sibling(struct famfs_node *n) { return n->next_sibling; }
FAMFS_EXPORT struct famfs_node *famfs_node_parent(struct famfs_node *n) { return n->parent ? n->parent : n; }
FAMFS_EXPORT const char *famfs_node_name(const struct famfs_node *n) { return n->name; }
FAMFS_EXPORT bool famfs_node_is_dir(const struct famfs_node *n) { return S_ISDIR_MODE(n->mode); }
FAMFS_EXPORT const struct famfs_fmap *famfs_node_map(const struct famfs_node *n) { return n->map; }

FAMFS_EXPORT void famfs_node_attr(const struct famfs_node *n, struct famfs_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = n->ino;
	a->mode = n->mode;
	a->uid = n->uid;
	a->gid = n->gid;
	a->nlink = S_ISDIR_MODE(n->mode) ? 2 : (n->deleted ? 0 : 1);
	a->size = n->size;
	a->alloc_bytes = n->map ? famfs_fmap_bytes(n->map) : 0;
	a->mtime_ns = n->mtime_ns;
	a->ctime_ns = n->ctime_ns;
	a->atime_ns = n->atime_ns;
}

FAMFS_EXPORT int famfs_node_path(const struct famfs_node *n, char *buf, size_t len)
{
	size_t pos = len;

	if (len == 0)
		return -ENAMETOOLONG;
	buf[--pos] = '\0';
	if (!n->parent) {
		if (len < 2)
			return -ENAMETOOLONG;
		buf[0] = '/';
		buf[1] = '\0';
		return 1;
	}
	for (; n->parent; n = n->parent) {
		size_t l = strlen(n->name);

		if (pos < l + 1)
			return -ENAMETOOLONG;
		pos -= l;
		memcpy(buf + pos, n->name, l);
		buf[--pos] = '/';
	}
	memmove(buf, buf + pos, len - pos);
	return (int)(len - pos - 1);
}
