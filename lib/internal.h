/* SPDX-License-Identifier: Apache-2.0 */
/* libfamfs internals: shared between the lib sources only, never installed. */
#ifndef FAMFS_INTERNAL_H
#define FAMFS_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "famfs_cleanup.h"

#define FAMFS_EXPORT __attribute__((visibility("default")))
#define S_ISDIR_MODE(m) (((m) & 0170000) == 0040000)
#define S_ISREG_MODE(m) (((m) & 0170000) == 0100000)
#define S_ISLNK_MODE(m) (((m) & 0170000) == 0120000)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Never overflows: (n + d - 1) / d wraps for n near UINT64_MAX. */
#define DIV_ROUND_UP(n, d) ((n) / (d) + ((n) % (d) != 0))
#define ROUND_UP(n, d) (DIV_ROUND_UP(n, d) * (d))

/* Fill @e (if any) and return @code (a negative errno). */
int famfs_set_err(struct famfs_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct famfs_dev {
	char *path;
	int fd;
	uint8_t *base;
	uint64_t size;                /* usable: whole 2 MiB units */
	uint64_t raw_size;            /* as the device reports it */
	enum famfs_dev_kind kind;
	bool writable;
	bool store_by_pwrite;         /* famfs_dev_store(): a tmpfs-like file */
};

/* One per file or directory, ~120 bytes with a short name: a mount of a
 * million files zeroes (and, in a VM, faults in) every byte of them, so
 * nothing here that can be computed (the inode is FAMFS_ROOT_INO +
 * create_seq) or that only a deleted node needs (those reuse the sibling
 * links, dead once the node is out of its directory).
 */
struct famfs_node {
	uint64_t create_seq;          /* 0 for the root */
	struct famfs_node *parent;
	union {                       /* by mode: famfs_node_map_of() */
		struct famfs_node *first_child; /* a directory's */
		struct famfs_fmap *map;       /* a file's, from fs->arena */
		char *target;                 /* a symlink's, NUL-ended, arena */
	};
	union {
		struct famfs_node *next_sibling;
		struct famfs_node *zombie_next; /* deleted, held: fs->zombies */
	};
	union {
		struct famfs_node *prev_sibling;
		uint64_t delete_seq;  /* a zombie's: the entry that deleted it */
	};
	union {
		uint64_t size;        /* a file's; a symlink's target bytes */
		uint32_t nchildren;   /* a directory's */
	};
	uint64_t mtime_ns, ctime_ns, atime_ns;
	uint32_t mode, uid, gid;
	uint32_t holds;
	uint16_t name_cap;            /* bytes of name_buf (a rename may not fit) */
	bool deleted;
	bool name_ext;                /* name_buf holds a pointer to the name
				       * (an arena block: a rename to a longer
				       * name) */
	char name_buf[];              /* NUL-terminated, at least 8 bytes */
};

/* A file's map (NULL for a directory: its first_child shares the field). */
static inline struct famfs_fmap *famfs_node_map_of(const struct famfs_node *n)
{
	return S_ISREG_MODE(n->mode) ? n->map : NULL;
}

/* A symlink's target (NULL for anything else). */
static inline const char *famfs_node_target_of(const struct famfs_node *n)
{
	return S_ISLNK_MODE(n->mode) ? n->target : NULL;
}

/* Arena bytes of a node whose name_buf has @cap bytes. */
#define FAMFS_NODE_BYTES(cap) (offsetof(struct famfs_node, name_buf) + (cap))

static inline const char *famfs_node_name_of(const struct famfs_node *n)
{
	const char *ext;

	if (!n->name_ext)
		return n->name_buf;
	memcpy(&ext, n->name_buf, sizeof(ext));
	return ext;
}

static inline uint64_t famfs_node_ino(const struct famfs_node *n)
{
	return FAMFS_ROOT_INO + n->create_seq;
}

/* (parent, name) -> node: open addressing, linear probing. A slot is 8
 * bytes: the node's address in the low 48 bits (arena.c refuses memory
 * above), a 16-bit tag of the name's hash above (most probes of other
 * names stop there without touching the node); 0 is empty.
 */
#define FAMFS_SLOT_PTR_BITS 48
struct name_table {
	uint64_t *slots;
	uint64_t mask;                /* slots - 1, a power of two minus 1 */
	uint64_t count;
};

/* ino -> node: inode numbers are FAMFS_ROOT_INO + the creating seq, and
 * seqs are dense, so a plain array indexed by seq (0 = the root).
 */
struct ino_table {
	struct famfs_node **by_seq;
	uint64_t cap;
};

/* arena.c: nodes and maps, in 8-byte classes up to FAMFS_ARENA_MAX. */
#define FAMFS_ARENA_MAX 4096
struct famfs_arena {
	void *chunks;                 /* the slabs, newest first */
	uint8_t *cur, *end;           /* what is left of the current chunk */
	uint8_t *slab_end;            /* end of the newest slab */
	void *free[FAMFS_ARENA_MAX / 8 + 1];
};
void *famfs_arena_alloc(struct famfs_arena *a, size_t size);
void famfs_arena_free(struct famfs_arena *a, void *p, size_t size);
void famfs_arena_destroy(struct famfs_arena *a);
_Static_assert(FAMFS_NODE_BYTES(FAMFS_NAME_MAX + 1) <= FAMFS_ARENA_MAX,
	       "a node with the longest name fits an arena block");
_Static_assert(sizeof(struct famfs_fmap) + (FAMFS_MAX_STRIPS + FAMFS_MAX_EXTENTS) *
	       sizeof(struct famfs_map_item) <= FAMFS_ARENA_MAX,
	       "the largest map fits an arena block");

/* A packed unit: 4 KiB blocks of one 2 MiB unit shared by small files. */
struct pack_unit {
	uint8_t in_use;               /* table slot holds this (dev, unit) */
	uint8_t active;               /* the unit is currently a pack unit */
	uint16_t reserved;
	uint32_t dev;
	uint32_t free_blocks;
	uint64_t unit;
	uint64_t bits[FAMFS_BLOCKS_PER_UNIT / 64]; /* 1 = used */
};

struct dev_alloc {
	uint64_t nunits;
	uint64_t first_unit;          /* units below are metadata */
	uint64_t free_units;
	uint64_t hint;
	uint64_t *bits;               /* 1 = used (whole or packed) */
};

struct pending_free {
	uint64_t seq;                 /* the tombstone's seq */
	struct famfs_node *held_by;   /* a local holder keeps it, or NULL */
	struct famfs_fmap *map;
	struct pending_free *next;
};

struct famfs_alloc_state {
	struct dev_alloc dev[FAMFS_MAX_DEVICES];
	struct pack_unit *packs;      /* open-addressed by (dev, unit), never shrinks */
	uint64_t npack_slots;         /* power of two */
	uint64_t npacks;
	uint64_t pack_cursor;
	struct pending_free *pending;
	uint64_t pending_bytes;
};

/* One way of the parent cache (lib/pcache.c): a directory, by its
 * create_seq + 1 (0: empty), and the hash of the path it was found by.
 */
#define FAMFS_PCACHE_SETS 4096        /* the fewest sets */
#define FAMFS_PCACHE_SETS_MAX (1u << 18)
struct famfs_pcache_way {
	uint32_t hash;
	uint64_t seq1;
};

struct famfs_pcache {
	struct famfs_pcache_way *ways; /* [sets][2]; NULL until used */
	uint64_t mask;                /* sets - 1 */
};

struct famfs_fs {
	unsigned ndev;
	struct famfs_dev *dev[FAMFS_MAX_DEVICES];
	struct famfs_superblock sb;   /* copy of the valid superblock */
	unsigned flags;
	char host_name[FAMFS_HOSTNAME_LEN];
	pthread_rwlock_t lock;

	/* log */
	uint8_t *log;                 /* device 0 base + log_offset */
	uint64_t log_size;
	uint64_t fs_tag;
	uint64_t tail;                /* offset of the next entry */
	uint64_t last_seq;
	uint64_t nentries;
	uint64_t skipped;             /* CRC-valid entries that could not apply */
	bool map_reserved;            /* commit in progress: map already marked */
	char missing_dev[120];        /* a DEVICE_ADD whose device was not given */
	char last_skip[200];
	char skip_log[16][200];       /* the first skipped entries, for fsck */
	int tail_state;
	char tail_reason[256];
	uint64_t corrupt_first;       /* FAMFS_TAIL_CORRUPT: seqs lost */
	uint64_t corrupt_last;
	uint64_t last_entry_off;      /* log offset of the last valid entry */

	/* namespace */
	struct famfs_node *root;
	struct name_table names;
	struct ino_table inos;
	struct famfs_arena arena;     /* nodes and their maps */
	/* appliers' parent cache: directories by a hash of their path */
	struct famfs_pcache pcache;
	struct famfs_node *zombies;   /* deleted but still held locally */
	uint64_t nfiles, ndirs, nsymlinks, file_bytes, alloc_bytes;

	struct famfs_alloc_state alloc;
	uint64_t alloc_errors;        /* overlapping / out-of-range maps */
	char last_alloc_error[200];

	int slot;                     /* client slot index or -1 */
	uint8_t *slots_rw;            /* a client's writable map of unit 0 */
	struct famfs_uuid session_uuid;
	/* A kernel mount's follower: how its slot is written (NULL: in
	 * place) and how far it may publish (UINT64_MAX: no cap).
	 */
	void (*slot_store)(void *arg, unsigned i,
			   const struct famfs_client_slot *s);
	void *slot_store_arg;
	uint64_t publish_cap;
	uint64_t published_seq;
	uint64_t published_ns;

	famfs_change_fn change_fn;
	void *change_arg;
	/* FAMFS_OPEN_EXCHANGE_STEPS (a kernel mount's follower, kmount.c):
	 * each scan ends before an EXCHANGE (unless it is the first entry)
	 * and right after one, so that the mount is in step before the two
	 * names swap there
	 */
	bool scan_exchange_alone;
	uint64_t steps_after;         /* ... for EXCHANGEs past this seq */
};

/* tailrec.c: the committed-tail record, format 1.4 */
/* 0, -ENOENT (zeros, or another filesystem's) or -EBADMSG (torn, corrupt);
 * *@out gets the slot's bytes whatever they are.
 */
int famfs_tailrec_slot_check(const struct famfs_fs *fs, unsigned i,
			     struct famfs_tail_record *out);
/* The valid slot with the higher gen; false if neither is valid. */
bool famfs_tailrec_read(const struct famfs_fs *fs, struct famfs_tail_record *out);
/* Record entry @h at log offset @off (NULL: an empty log) as the last
 * committed one, covering seqs up to @end_seq; flushed on return.
 */
int famfs_tailrec_write(struct famfs_fs *fs, uint64_t off,
			const struct famfs_entry_hdr *h, uint64_t end_seq);
/* The highest seq the record or a client slot proves committed, and in
 * @src which of them says so.
 */
uint64_t famfs_committed_evidence(const struct famfs_fs *fs, char *src,
				  size_t srclen);
/* A scan stopped at a bad entry (@why): mark the log corrupt if committed
 * entries lie past the stop.
 */
void famfs_tail_judge(struct famfs_fs *fs, const char *why);

/* dev.c */
int famfs_dev_flush_range(struct famfs_dev *d, const void *p, uint64_t len);
/* dev.c: copy @len bytes to device offset @off (range already checked) */
int famfs_dev_store(struct famfs_dev *d, uint64_t off, const void *src,
		    uint64_t len);

/* util.c */
uint64_t famfs_fs_tag(const struct famfs_uuid *u);
void famfs_host_default_name(char *buf, size_t len);
uint32_t famfs_hash_name(const char *s, size_t len, uint64_t parent);

/* sb.c */
int famfs_sb_check(const struct famfs_superblock *sb, const char *where,
		   struct famfs_err *e);
int famfs_label_check(const struct famfs_dev_label *l, const char *path,
		      struct famfs_err *e);
void famfs_sb_seal(struct famfs_superblock *sb);
int famfs_sb_write(struct famfs_fs *fs);
/* Before the first entry of format 1.@minor: rewrite both superblocks. */
void famfs_sb_raise_minor(struct famfs_fs *fs, uint16_t minor);

/* ns.c */
int famfs_ns_init(struct famfs_fs *fs);
void famfs_ns_free(struct famfs_fs *fs);
/* Add @name (hashed by famfs_ns_hash(), not present) to @dir. */
struct famfs_node *famfs_ns_add(struct famfs_fs *fs, struct famfs_node *dir,
				const char *name, size_t nlen, uint32_t hash,
				uint64_t seq);
uint32_t famfs_ns_hash(const struct famfs_node *dir, const char *name,
		       size_t nlen);
/* A held node lives on as a zombie, deleted by entry @seq. */
void famfs_ns_remove(struct famfs_fs *fs, struct famfs_node *n, uint64_t seq);
/* Rename: first the memory a longer name needs (*@ext, or NULL when it
 * fits), which may fail; then the move of @n to the free @name in @dir
 * (no cycle check here), which cannot.
 */
int famfs_ns_move_prepare(struct famfs_fs *fs, const struct famfs_node *n,
			  size_t nlen, char **ext);
void famfs_ns_move(struct famfs_fs *fs, struct famfs_node *n,
		   struct famfs_node *dir, const char *name, size_t nlen,
		   char *ext);
/* Exchange: @a takes @b's place and name and @b @a's (no ancestry check
 * here); *@ext_a is famfs_ns_move_prepare() of @a for @b's name length,
 * *@ext_b the other way round. Cannot fail.
 */
void famfs_ns_exchange(struct famfs_fs *fs, struct famfs_node *a,
		       struct famfs_node *b, char *ext_a, char *ext_b);
/* Split @path into parent dir + last name; NULL if the parent is absent. */
struct famfs_node *famfs_ns_parent(struct famfs_fs *fs, const char *path,
				   size_t plen, const char **name,
				   size_t *nlen);
struct famfs_node *famfs_ns_child(struct famfs_fs *fs, struct famfs_node *dir,
				  const char *name, size_t nlen);
/* famfs_ns_child() of a name already hashed by famfs_ns_hash(). */
struct famfs_node *famfs_ns_child_hashed(struct famfs_fs *fs,
					 struct famfs_node *dir,
					 const char *name, size_t nlen,
					 uint32_t hash);
/* famfs_ns_parent() for appliers (write lock held): consecutive entries in
 * one directory resolve it once.
 */
struct famfs_node *famfs_ns_parent_cached(struct famfs_fs *fs, const char *path,
					  size_t plen, const char **name,
					  size_t *nlen);
/* The parent cache (lib/pcache.c), keyed by famfs_hash_name() of a
 * directory's path: the live directory last used under hash @h
 * (unverified: a candidate to check by its names, or a prefetch hint;
 * NULL if none), note that @dir was used (or found) under @h, drop
 * everything (and the cache's memory).
 */
struct famfs_node *famfs_pcache_hint(struct famfs_fs *fs, uint32_t h);
void famfs_pcache_used(struct famfs_fs *fs, uint32_t h, struct famfs_node *dir);
void famfs_pcache_clear(struct famfs_fs *fs);
/* Start loading the name-table slot a FILE or MKDIR of @path will probe
 * (replay calls it a few entries ahead: the slot is a cache miss per
 * name). Changes nothing; @path may be anything.
 */
void famfs_ns_prefetch(struct famfs_fs *fs, const char *path, size_t plen);
/* A map for a node, from the arena (NULL when out of memory). */
struct famfs_fmap *famfs_ns_map_alloc(struct famfs_fs *fs, unsigned nitems);
void famfs_ns_map_free(struct famfs_fs *fs, struct famfs_fmap *m);
/* Free a node taken out of the tree (and its map). */
void famfs_ns_node_free(struct famfs_fs *fs, struct famfs_node *n);

/* alloc.c */
int famfs_alloc_init(struct famfs_fs *fs);
int famfs_alloc_init_dev(struct famfs_fs *fs, unsigned d);
void famfs_alloc_free_state(struct famfs_fs *fs);
/* Mark a committed map used; -EEXIST on overlap, -ERANGE out of range. */
int famfs_alloc_mark(struct famfs_fs *fs, const struct famfs_fmap *m,
		     char *why, size_t whylen);
void famfs_alloc_unmark(struct famfs_fs *fs, const struct famfs_fmap *m);
int famfs_alloc_mark_item(struct famfs_fs *fs, const struct famfs_map_item *it,
			  char *why, size_t whylen);
void famfs_alloc_unmark_item(struct famfs_fs *fs, const struct famfs_map_item *it);
bool famfs_bit_test(const uint64_t *b, uint64_t i);
uint64_t famfs_bits_find_run(const uint64_t *b, uint64_t from, uint64_t limit,
			     uint64_t n);
int famfs_alloc_map(struct famfs_fs *fs, uint64_t size,
		    const struct famfs_alloc_policy *p, struct famfs_fmap **out,
		    struct famfs_err *e);
void famfs_pending_add(struct famfs_fs *fs, uint64_t seq,
		       struct famfs_node *held_by, struct famfs_fmap *m);
void famfs_pending_unhold(struct famfs_fs *fs, struct famfs_node *n);
uint64_t famfs_alloc_free_bytes(struct famfs_fs *fs);
uint64_t famfs_alloc_total_bytes(struct famfs_fs *fs);

/* place_plan.c; the caller holds fs->lock */
void famfs_space_placeable(struct famfs_fs *fs, struct famfs_space *s);
/* What a file of @size needs and the room on each device, for messages. */
int famfs_space_describe(struct famfs_fs *fs, uint64_t size,
			 const struct famfs_alloc_policy *p, char *buf,
			 size_t len);

/* log.c */
/* Validate the entry at log offset @off; returns its length or -errno,
 * with a reason in @why.
 */
int64_t famfs_entry_check(const struct famfs_fs *fs, uint64_t off,
			  uint64_t expect_seq, char *why, size_t whylen);
int famfs_log_append(struct famfs_fs *fs, uint16_t type, const void *body,
		     uint32_t body_len, const void *tail, uint32_t tail_len,
		     struct famfs_err *e);
int famfs_log_scan(struct famfs_fs *fs, struct famfs_err *e);
/* Count a CRC-valid entry that could not apply (fsck lists the first). */
void famfs_log_note_skip(struct famfs_fs *fs, uint64_t seq, const char *why);
/* Seqs an entry takes: 1, or 1 + count for a BATCH. */
uint64_t famfs_entry_nseq(const struct famfs_entry_hdr *h);
/* Seal the entry built at the tail (CRC, flush body then header) and
 * advance the tail past it.
 */
void famfs_log_seal(struct famfs_fs *fs, struct famfs_entry_hdr *h);
/* -EUCLEAN (with the reason in @e) if the log is corrupt: a master
 * appends nothing over committed entries it could not read.
 */
int famfs_log_refuse_corrupt(const struct famfs_fs *fs, struct famfs_err *e);

/* file.c: the body of a FILE entry for normalized @norm (@plen bytes). */
int famfs_file_entry_body(const char *norm, int plen,
			  const struct famfs_file_attr *a,
			  const struct famfs_fmap *m, struct famfs_entry_file *f,
			  struct famfs_err *e);

/* apply.c: turn one valid entry into tree and allocator state. */
int famfs_reclaim_locked(struct famfs_fs *fs);
int famfs_apply_entry(struct famfs_fs *fs, const struct famfs_entry_hdr *h,
		      char *why, size_t whylen);
/* Replay's look-ahead: prefetch what the entry at @off (in @len bytes
 * from @base, not yet validated) will touch; returns its length, or 0 if
 * it does not look like an entry.
 *
 * It runs in bursts: when less than FAMFS_PREFETCH_LOW bytes of entries
 * ahead of the applier have been looked at, it looks at entries up to
 * FAMFS_PREFETCH_BYTES ahead in one go (~30 typical FILE entries). One
 * entry at a time, each prefetch's address chain (parent cache set,
 * directory node, name-table slot, with its TLB walk) stalled the
 * applier on its own; in a burst the chains of many entries overlap
 * (bench/results/lib.md, 2026-12-05).
 */
#define FAMFS_PREFETCH_BYTES 4096
#define FAMFS_PREFETCH_LOW 512
uint32_t famfs_entry_prefetch(struct famfs_fs *fs, const uint8_t *base,
			      uint64_t off, uint64_t len);
/* Check the inner entry at @off of a batch (structure, seq, type). */
int famfs_batch_inner_check(const struct famfs_entry_hdr *b, uint64_t off,
			    uint64_t seq, char *why, size_t whylen);

/* slots.c */
int famfs_slot_claim(struct famfs_fs *fs, struct famfs_err *e);
void famfs_slot_release(struct famfs_fs *fs);
void famfs_slot_publish(struct famfs_fs *fs);
/* Take over live slot @index if @owner's uuid is in it (0, or -ENOENT). */
int famfs_slot_adopt(struct famfs_fs *fs, unsigned index,
		     const struct famfs_uuid *owner);
uint64_t famfs_slots_min_live(struct famfs_fs *fs, bool *any);

#endif
