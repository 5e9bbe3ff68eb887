// SPDX-License-Identifier: Apache-2.0
/*
 * The in-memory namespace rebuilt from the log: a tree of nodes (from the
 * arena) plus two tables, (parent, name) -> node (open addressing) and
 * ino -> node (an array indexed by seq), so that replaying a million
 * entries and every FUSE lookup cost O(1) per path component.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* Zeroed memory for a table, on huge pages where the kernel has them:
 * slots are probed at random (a TLB miss per probe on 4 KiB pages), and
 * every fresh 4 KiB page is a fault (a host exit in a VM,
 * shared/PERF-NOTES.md). Pages no entry touches cost nothing.
 */
static void *table_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static int names_init(struct name_table *t, uint64_t nslots)
{
	void *p = table_map(nslots * sizeof(*t->slots));

	if (!p)
		return -ENOMEM;
	t->slots = p;
	t->mask = nslots - 1;
	t->count = 0;
	return 0;
}

static void names_free(struct name_table *t)
{
	if (t->slots)
		munmap(t->slots, (t->mask + 1) * sizeof(*t->slots));
	memset(t, 0, sizeof(*t));
}

#define SLOT_PTR_MASK ((1ULL << FAMFS_SLOT_PTR_BITS) - 1)

/* The slot's tag: 16 bits of a hash that are not its home bits (a mix of
 * all of them), so names in one probe run rarely share a tag.
 */
static uint64_t slot_tag(uint32_t h)
{
	return (uint64_t)((h * 0x9e3779b1u) >> 16) << FAMFS_SLOT_PTR_BITS;
}

static struct famfs_node *slot_node(uint64_t v)
{
	return (struct famfs_node *)(uintptr_t)(v & SLOT_PTR_MASK);
}

static uint64_t slot_make(uint32_t h, const struct famfs_node *n)
{
	return slot_tag(h) | (uint64_t)(uintptr_t)n;
}

/* The hash of a linked node's (parent, name): not kept in the node (it is
 * only needed to move slots, when a name goes or the table grows).
 */
static uint32_t node_hash(const struct famfs_node *n)
{
	const char *name = famfs_node_name_of(n);

	return famfs_hash_name(name, strlen(name), famfs_node_ino(n->parent));
}

/* The slot holding (@dir, @name), or else the empty slot that ends its
 * probe sequence (where an insert goes).
 */
static uint64_t *names_find(struct name_table *t, uint32_t h,
			    const struct famfs_node *dir, const char *name,
			    size_t nlen)
{
	uint64_t tag = slot_tag(h);

	for (uint64_t i = h & t->mask;; i = (i + 1) & t->mask) {
		uint64_t *s = &t->slots[i];
		const struct famfs_node *n;
		const char *nn;

		if (!*s)
			return s;
		if ((*s & ~SLOT_PTR_MASK) != tag)
			continue;
		n = slot_node(*s);
		nn = famfs_node_name_of(n);
		if (n->parent == dir &&
		    !memcmp(nn, name, nlen) && nn[nlen] == '\0')
			return s;
	}
}

static uint64_t *names_free_slot(struct name_table *t, uint32_t h)
{
	uint64_t i = h & t->mask;

	while (t->slots[i])
		i = (i + 1) & t->mask;
	return &t->slots[i];
}

/* Keep the load at most 3/4: eight slots share a cache line, and the
 * slot's tag settles most probes of other names without a node read, so
 * a longer run costs little next to the table's memory (every page of it
 * is touched: a 10 M-name table at most 1/2 full took 27 bytes a name).
 */
static int names_grow(struct name_table *t)
{
	struct name_table nt;

	if ((t->count + 1) * 4 <= (t->mask + 1) * 3)
		return 0;
	if (names_init(&nt, (t->mask + 1) * 2))
		return -ENOMEM;
	for (uint64_t i = 0; i <= t->mask; i++)
		if (t->slots[i])
			*names_free_slot(&nt, node_hash(slot_node(t->slots[i]))) =
				t->slots[i];
	nt.count = t->count;
	names_free(t);
	*t = nt;
	return 0;
}

/* Backward-shift deletion: later members of the run move up, no tombstones. */
static void names_remove(struct name_table *t, uint64_t *s)
{
	uint64_t hole = (uint64_t)(s - t->slots);

	for (uint64_t i = (hole + 1) & t->mask; t->slots[i];
	     i = (i + 1) & t->mask) {
		uint64_t home = node_hash(slot_node(t->slots[i])) & t->mask;

		/* may the entry at i move to the hole (is hole in [home, i])? */
		if (((i - home) & t->mask) >= ((i - hole) & t->mask)) {
			t->slots[hole] = t->slots[i];
			hole = i;
		}
	}
	t->slots[hole] = 0;
	t->count--;
}

static void inos_free(struct ino_table *t)
{
	if (t->by_seq)
		munmap(t->by_seq, t->cap * sizeof(*t->by_seq));
	memset(t, 0, sizeof(*t));
}

/* Grow to hold @seq (doubling from @cap, at least 1024), keeping entries. */
static int inos_reserve(struct ino_table *t, uint64_t seq, uint64_t cap)
{
	struct famfs_node **b;

	if (seq < t->cap)
		return 0;
	if (cap < 1024)
		cap = 1024;
	while (cap <= seq)
		cap *= 2;
	b = table_map(cap * sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (t->by_seq)
		memcpy(b, t->by_seq, t->cap * sizeof(*b));
	inos_free(t);
	t->by_seq = b;
	t->cap = cap;
	return 0;
}

static int inos_set(struct ino_table *t, uint64_t seq, struct famfs_node *n)
{
	if (inos_reserve(t, seq, t->cap * 2))
		return -ENOMEM;
	t->by_seq[seq] = n;
	return 0;
}

/* name_buf is never shorter than a pointer: it holds one after a rename
 * to a name that does not fit.
 */
#define NAME_MIN_CAP sizeof(char *)

static size_t name_cap_for(size_t nlen)
{
	return nlen + 1 > NAME_MIN_CAP ? nlen + 1 : NAME_MIN_CAP;
}

/* Slots for a table that will hold @n names at most 2/3 full. */
static uint64_t names_slots_for(uint64_t n)
{
	uint64_t ns = 2048;

	while (ns < n + n / 2 && ns < (1ULL << 27))
		ns *= 2;
	return ns;
}

int famfs_ns_init(struct famfs_fs *fs)
{
	/* Size both tables for the log: from the committed-tail record, how
	 * many seqs it holds (each makes at most one name), or else its size
	 * in typical FILE entries (~130 bytes). Replaying it then never
	 * grows them: at 10 M names a growth of the name table read every
	 * node again in slot order (a cache and TLB miss each, ~1 s here).
	 */
	struct famfs_tail_record rec;
	uint64_t n = fs->log_size / 128;

	if (famfs_tailrec_read(fs, &rec) && rec.end_seq < n)
		n = rec.end_seq;
	if (names_init(&fs->names, names_slots_for(n)) ||
	    inos_reserve(&fs->inos, 0, n + 2)) {
		famfs_ns_free(fs);
		return -ENOMEM;
	}
	fs->root = famfs_arena_alloc(&fs->arena, FAMFS_NODE_BYTES(NAME_MIN_CAP));
	if (!fs->root || inos_set(&fs->inos, 0, fs->root)) {
		famfs_ns_free(fs);
		return -ENOMEM;
	}
	memset(fs->root, 0, FAMFS_NODE_BYTES(NAME_MIN_CAP));
	fs->root->name_cap = NAME_MIN_CAP;
	fs->root->mode = 040755;
	fs->root->mtime_ns = fs->root->ctime_ns = fs->sb.created_ns;
	fs->root->atime_ns = fs->sb.created_ns;
	return 0;
}

struct famfs_fmap *famfs_ns_map_alloc(struct famfs_fs *fs, unsigned nitems)
{
	return famfs_arena_alloc(&fs->arena, famfs_fmap_sizeof(nitems));
}

void famfs_ns_map_free(struct famfs_fs *fs, struct famfs_fmap *m)
{
	if (m)
		famfs_arena_free(&fs->arena, m, famfs_fmap_sizeof(m->nitems));
}

static void name_free(struct famfs_fs *fs, struct famfs_node *n)
{
	if (n->name_ext) {
		const char *ext = famfs_node_name_of(n);

		famfs_arena_free(&fs->arena, (void *)ext, strlen(ext) + 1);
	}
	n->name_ext = false;
}

void famfs_ns_node_free(struct famfs_fs *fs, struct famfs_node *n)
{
	const char *target = famfs_node_target_of(n);

	if (target)
		famfs_arena_free(&fs->arena, (void *)target, n->size + 1);
	famfs_ns_map_free(fs, famfs_node_map_of(n));
	name_free(fs, n);
	famfs_arena_free(&fs->arena, n, FAMFS_NODE_BYTES(n->name_cap));
}

/* Nodes and maps all live in the arena: dropping it frees them. */
void famfs_ns_free(struct famfs_fs *fs)
{
	famfs_arena_destroy(&fs->arena);
	names_free(&fs->names);
	inos_free(&fs->inos);
	fs->zombies = NULL;
	famfs_pcache_clear(fs);
	fs->root = NULL;
}

uint32_t famfs_ns_hash(const struct famfs_node *dir, const char *name,
		       size_t nlen)
{
	return famfs_hash_name(name, nlen, famfs_node_ino(dir));
}

struct famfs_node *famfs_ns_child_hashed(struct famfs_fs *fs,
					 struct famfs_node *dir,
					 const char *name, size_t nlen,
					 uint32_t hash)
{
	return slot_node(*names_find(&fs->names, hash, dir, name, nlen));
}

struct famfs_node *famfs_ns_child(struct famfs_fs *fs, struct famfs_node *dir,
				  const char *name, size_t nlen)
{
	return famfs_ns_child_hashed(fs, dir, name, nlen,
				     famfs_ns_hash(dir, name, nlen));
}

/* Make @n (named @h, not linked) a child of @dir; the name table has room. */
static void link_in(struct famfs_fs *fs, struct famfs_node *n,
		    struct famfs_node *dir, uint32_t h)
{
	n->parent = dir;
	*names_free_slot(&fs->names, h) = slot_make(h, n);
	fs->names.count++;
	n->prev_sibling = NULL;
	n->next_sibling = dir->first_child;
	if (dir->first_child)
		dir->first_child->prev_sibling = n;
	dir->first_child = n;
	dir->nchildren++;
}

struct famfs_node *famfs_ns_add(struct famfs_fs *fs, struct famfs_node *dir,
				const char *name, size_t nlen, uint32_t hash,
				uint64_t seq)
{
	/* one block: the name follows the node */
	size_t cap = name_cap_for(nlen);
	struct famfs_node *n = famfs_arena_alloc(&fs->arena, FAMFS_NODE_BYTES(cap));

	if (!n || names_grow(&fs->names) || inos_set(&fs->inos, seq, n)) {
		if (n)
			famfs_arena_free(&fs->arena, n, FAMFS_NODE_BYTES(cap));
		return NULL;
	}
	memset(n, 0, offsetof(struct famfs_node, name_buf));
	n->name_cap = (uint16_t)cap;
	memcpy(n->name_buf, name, nlen);
	n->name_buf[nlen] = '\0';
	n->create_seq = seq;
	link_in(fs, n, dir, hash);
	return n;
}

/* Unlink @n from its directory and the name table (not the ino table). */
static void link_out(struct famfs_fs *fs, struct famfs_node *n)
{
	struct famfs_node *dir = n->parent;
	const char *name = famfs_node_name_of(n);
	uint64_t *s = names_find(&fs->names, node_hash(n), dir, name,
				 strlen(name));

	if (slot_node(*s) == n)
		names_remove(&fs->names, s);
	if (n->prev_sibling)
		n->prev_sibling->next_sibling = n->next_sibling;
	else
		dir->first_child = n->next_sibling;
	if (n->next_sibling)
		n->next_sibling->prev_sibling = n->prev_sibling;
	dir->nchildren--;
}

int famfs_ns_move_prepare(struct famfs_fs *fs, const struct famfs_node *n,
			  size_t nlen, char **ext)
{
	*ext = NULL;
	if (nlen + 1 <= n->name_cap)
		return 0;
	*ext = famfs_arena_alloc(&fs->arena, nlen + 1);
	return *ext ? 0 : -ENOMEM;
}

/* Give the unlinked @n the name @name (in *@ext when it does not fit). */
static void name_set(struct famfs_fs *fs, struct famfs_node *n,
		     const char *name, size_t nlen, char *ext)
{
	char *to = ext ? ext : n->name_buf;

	name_free(fs, n);
	memcpy(to, name, nlen);
	to[nlen] = '\0';
	if (ext) {
		memcpy(n->name_buf, &ext, sizeof(ext));
		n->name_ext = true;
	}
}

void famfs_ns_move(struct famfs_fs *fs, struct famfs_node *n,
		   struct famfs_node *dir, const char *name, size_t nlen,
		   char *ext)
{
	link_out(fs, n);
	name_set(fs, n, name, nlen, ext);
	/* children are keyed by their parent's pointer and inode: unchanged */
	link_in(fs, n, dir, famfs_ns_hash(dir, name, nlen));
}

void famfs_ns_exchange(struct famfs_fs *fs, struct famfs_node *a,
		       struct famfs_node *b, char *ext_a, char *ext_b)
{
	char na[FAMFS_NAME_MAX + 1], nb[FAMFS_NAME_MAX + 1];
	struct famfs_node *da = a->parent, *db = b->parent;
	size_t la, lb;

	/* copies: each name's memory is freed before the other takes it */
	la = (size_t)snprintf(na, sizeof(na), "%s", famfs_node_name_of(a));
	lb = (size_t)snprintf(nb, sizeof(nb), "%s", famfs_node_name_of(b));
	/* both out before either is in: the name table never holds a key
	 * twice
	 */
	link_out(fs, a);
	link_out(fs, b);
	name_set(fs, a, nb, lb, ext_a);
	name_set(fs, b, na, la, ext_b);
	link_in(fs, a, db, famfs_ns_hash(db, nb, lb));
	link_in(fs, b, da, famfs_ns_hash(da, na, la));
}

/* Unlink @n from tree and tables; a held node lives on as a zombie
 * (deleted by entry @seq).
 */
void famfs_ns_remove(struct famfs_fs *fs, struct famfs_node *n, uint64_t seq)
{
	link_out(fs, n);
	if (n->create_seq < fs->inos.cap && fs->inos.by_seq[n->create_seq] == n)
		fs->inos.by_seq[n->create_seq] = NULL;
	n->deleted = true;
	if (n->holds) {
		/* out of its directory: the sibling links are free for these */
		n->delete_seq = seq;
		n->zombie_next = fs->zombies;
		fs->zombies = n;
	} else {
		famfs_ns_node_free(fs, n);
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

/* Is @dir what the path prefix @p (@len bytes) resolves to? Walks up from
 * @dir comparing names, so a cached pointer is never trusted on its hash.
 */
static bool prefix_names(const struct famfs_node *dir, const char *p, size_t len)
{
	for (; dir->parent; dir = dir->parent) {
		const char *dn = famfs_node_name_of(dir);
		size_t l = strlen(dn);

		while (len && p[len - 1] == '/')
			len--;
		if (len < l || memcmp(p + len - l, dn, l) ||
		    (len > l && p[len - l - 1] != '/'))
			return false;
		len -= l;
	}
	while (len && p[len - 1] == '/')
		len--;
	return len == 0;
}

struct famfs_node *famfs_ns_parent_cached(struct famfs_fs *fs, const char *path,
					  size_t plen, const char **name,
					  size_t *nlen)
{
	const char *slash = memrchr(path, '/', plen);
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	struct famfs_node *dir;
	uint32_t h;

	if (!dlen || slash + 1 == path + plen)
		return famfs_ns_parent(fs, path, plen, name, nlen);
	h = famfs_hash_name(path, dlen, 0);
	dir = famfs_pcache_hint(fs, h);
	if (dir && prefix_names(dir, path, dlen)) {
		famfs_pcache_used(fs, h, dir);
		*name = slash + 1;
		*nlen = plen - dlen - 1;
		return dir;
	}
	dir = famfs_ns_parent(fs, path, plen, name, nlen);
	if (dir && *name == slash + 1)
		famfs_pcache_used(fs, h, dir);
	return dir;
}

void famfs_ns_prefetch(struct famfs_fs *fs, const char *path, size_t plen)
{
	const char *slash = memrchr(path, '/', plen);
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	const struct famfs_node *dir = fs->root;

	if (!slash || slash + 1 == path + plen)
		return;
	/* a hint only: the cached directory is not checked against the path
	 * (a wrong one prefetches a useless slot), and a miss costs nothing
	 */
	if (dlen)
		dir = famfs_pcache_hint(fs, famfs_hash_name(path, dlen, 0));
	if (dir)
		__builtin_prefetch(&fs->names.slots[famfs_hash_name(
			slash + 1, plen - dlen - 1, famfs_node_ino(dir)) &
			fs->names.mask]);
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
	uint64_t seq = ino - FAMFS_ROOT_INO;

	if (ino >= FAMFS_ROOT_INO && seq < fs->inos.cap && fs->inos.by_seq[seq])
		return fs->inos.by_seq[seq];
	for (struct famfs_node *z = fs->zombies; z; z = z->zombie_next)
		if (famfs_node_ino(z) == ino)
			return z;
	return NULL;
}

FAMFS_EXPORT struct famfs_node *famfs_node_first_child(struct famfs_node *dir) { return S_ISDIR_MODE(dir->mode) ? dir->first_child : NULL; }
FAMFS_EXPORT struct famfs_node *famfs_node_next_sibling(struct famfs_node *n) { return n->next_sibling; }
FAMFS_EXPORT struct famfs_node *famfs_node_parent(struct famfs_node *n) { return n->parent ? n->parent : n; }
FAMFS_EXPORT const char *famfs_node_name(const struct famfs_node *n) { return famfs_node_name_of(n); }
FAMFS_EXPORT bool famfs_node_is_dir(const struct famfs_node *n) { return S_ISDIR_MODE(n->mode); }
FAMFS_EXPORT const struct famfs_fmap *famfs_node_map(const struct famfs_node *n) { return famfs_node_map_of(n); }
FAMFS_EXPORT bool famfs_node_is_symlink(const struct famfs_node *n) { return S_ISLNK_MODE(n->mode); }
FAMFS_EXPORT const char *famfs_node_target(const struct famfs_node *n) { return famfs_node_target_of(n); }

FAMFS_EXPORT int famfs_node_readlink(const struct famfs_node *n, char *buf,
				     size_t len)
{
	const char *t = famfs_node_target_of(n);

	if (!t)
		return -EINVAL;
	if (len < n->size + 1)
		return -ENAMETOOLONG;
	memcpy(buf, t, n->size + 1);
	return (int)n->size;
}

FAMFS_EXPORT void famfs_node_attr(const struct famfs_node *n, struct famfs_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = famfs_node_ino(n);
	a->mode = n->mode;
	a->uid = n->uid;
	a->gid = n->gid;
	a->nlink = S_ISDIR_MODE(n->mode) ? 2 : (n->deleted ? 0 : 1);
	/* lstat() of a symlink: the bytes of its target */
	a->size = S_ISREG_MODE(n->mode) || S_ISLNK_MODE(n->mode) ? n->size : 0;
	a->alloc_bytes = famfs_node_map_of(n) ? famfs_fmap_bytes(n->map) : 0;
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
		const char *nn = famfs_node_name_of(n);
		size_t l = strlen(nn);

		if (pos < l + 1)
			return -ENAMETOOLONG;
		pos -= l;
		memcpy(buf + pos, nn, l);
		buf[--pos] = '/';
	}
	memmove(buf, buf + pos, len - pos);
	return (int)(len - pos - 1);
}
