/* SPDX-License-Identifier: Apache-2.0 */
/* The master's uncommitted files (pending.c: table; pending_data.c: data). */
#ifndef FAMFS_FUSED_PENDING_H
#define FAMFS_FUSED_PENDING_H

#include <sys/stat.h>

#include "fused.h"

struct pfile {
	uint64_t ino;             /* provisional: FUSED_PENDING_INO | n */
	uint64_t parent;          /* committed directory */
	char *name;
	uint32_t mode, uid, gid;  /* pend_mu */
	uint64_t mtime_ns, ctime_ns;
	uint64_t atime_ns;        /* pend_mu: valid when atime_set */
	bool atime_set;           /* FILE entries carry no atime: a SETATTR follows */
	unsigned opens;           /* pend_mu: open handles */
	uint64_t nlookup;         /* pend_mu: kernel references */
	bool unlinked;            /* pend_mu: will never be committed */
	bool explicit_commit;     /* pend_mu: user.famfs.pending was set */
	uint64_t committed_ino;   /* pend_mu: nonzero once committed */
	bool mapped;              /* pend_mu: committed, and the inode number
				   * the kernel has is in inomap.c: nothing
				   * needs this record once it is closed */
	pthread_mutex_t mu;       /* map and size */
	uint64_t size;
	struct famfs_fmap *map;   /* NULL: nothing reserved yet */
	/* pf->mu: user.famfs.policy, the interleave of the reservation;
	 * {0, 0}: the filesystem's default
	 */
	struct famfs_alloc_policy policy;
	/* pf->mu: acknowledged writes whose bytes are still being stored
	 * (pending_data.c); everything that reads, moves or gives back the
	 * space waits for them (pend_wait_stores)
	 */
	unsigned stores;
	uint64_t store_lo, store_hi; /* the file range they cover */
	int store_err;               /* the first that failed: commit fails */
	pthread_cond_t stores_done;
	uint64_t replaced_ino;    /* pend_mu: the kernel's inode of the file
				   * an O_TRUNC open replaced; it stands for
				   * this one until the kernel forgets it */
	uint64_t alias_lookups;   /* pend_mu: lookups answered with it */
	bool alias_forgotten;     /* pend_mu: its FORGET came while pending */
	struct pfile *alias_next; /* fused.pend_alias while replaced_ino */
	struct pfile *live_next;  /* fused.pend_live while uncommitted */
	struct pfile *ino_next;   /* fused.pend_ino[] */
};

/* ---- the table (pending.c); each takes pend_mu ------------------------- */
int pend_lookup(uint64_t parent, const char *name, struct fuse_entry_param *e);
/* -EEXIST if @name is taken, pending or committed. */
int pend_create(uint64_t parent, const char *name, uint32_t mode,
		uint32_t uid, uint32_t gid, bool open, struct pfile **out,
		struct fuse_entry_param *e);
int pend_getattr(uint64_t ino, struct stat *st);
/* Opens @ino: *pf_out (a reference), or *committed: the alias's target. */
int pend_open(uint64_t ino, struct pfile **pf_out, uint64_t *committed);
/* open(O_TRUNC) of committed regular file @ino on the master: the file is
 * deleted (DELETE entry) and a pending file with its name, mode and owner
 * takes its place, open once (*out), committed at close as any new file.
 * -ETXTBSY if the master has @ino open elsewhere (more than @own_opens).
 * The kernel's inode @kernel_ino (the open's) then stands for the new file.
 */
int pend_replace(uint64_t ino, uint64_t kernel_ino, unsigned own_opens,
		 struct pfile **out);
/* O_TRUNC of an uncommitted file: size 0. */
int pend_open_trunc(struct pfile *pf);
/* The inode a kernel inode number stands for now: an inode an O_TRUNC
 * open replaced resolves to its replacement, a committed pending file to
 * its committed node. Returns @ino itself otherwise.
 */
uint64_t pend_resolve(uint64_t ino);
/* The kernel forgot committed @ino: drop an alias to its replacement. */
void pend_forget_committed(uint64_t ino);
/* The last release commits the file (or frees an unlinked one). */
void pend_release(struct pfile *pf);
void pend_forget(uint64_t ino, uint64_t n);
int pend_unlink(uint64_t parent, const char *name);
bool pend_dir_has_children(uint64_t dir);
/* rename(2) of a pending or committed file or directory (RENAME entry);
 * @noreplace: RENAME_NOREPLACE.
 */
int pend_rename(uint64_t parent, const char *name, uint64_t newparent,
		const char *newname, bool noreplace);
/* renameat2(RENAME_EXCHANGE): two committed nodes swap by one EXCHANGE
 * entry (format 1.5); a pending file takes the other's name (a committed
 * node moves to the pending file's name by a RENAME entry).
 */
int pend_exchange(uint64_t parent, const char *name, uint64_t newparent,
		  const char *newname);
int pend_setattr(uint64_t ino, const struct stat *st, int to_set,
		 struct stat *out, uint64_t *committed);
/* JSON of user.famfs.map (malloc'ed), or *committed, or *err. */
char *pend_xattr_map(uint64_t ino, uint64_t *committed, int *err);
/* pend_mu held: taken before the committed children are read, so that a
 * commit in between cannot hide a file from a listing.
 */
void pend_foreach_in(uint64_t dir, void (*fn)(void *, const char *, uint64_t),
		     void *arg);
void pend_stat(struct pfile *pf, struct stat *st);
/* Nonzero once @pf is in the log: the inode of its committed node. */
uint64_t pend_committed_ino(struct pfile *pf);
/* Commit @pf now if this is its only open handle (flush at close). */
int pend_flush(struct pfile *pf);
/* user.famfs.pending / user.famfs.commit on uncommitted @ino (ingest):
 * "pending" makes the file commit only when told (a release without it
 * discards the file); "commit" commits it now. -EINVAL on anything else.
 */
int pend_set_commit_mode(uint64_t ino, bool commit_now);
/* user.famfs.policy on uncommitted @ino, before anything is reserved:
 * its interleave. -EINVAL as above, -EBUSY once space is reserved.
 */
int pend_set_policy(uint64_t ino, const struct famfs_alloc_policy *p);
/* At shutdown: commit what was written but never released. */
void pend_commit_all(void);

/* ---- shared by pending.c and pending_trunc.c; pend_mu held ------------- */
struct pfile *pend_find_ino(uint64_t ino);
/* Free @pf once nothing can reach it: no open, no kernel lookup, not live. */
void pend_maybe_free(struct pfile *pf);
/* A new uncommitted file in the table, or NULL. */
struct pfile *pend_new_locked(uint64_t parent, const char *name, uint32_t mode,
			      uint32_t uid, uint32_t gid, bool open);
/* A FILE entry for @path fits the log: else the commit would only fail
 * after the data.
 */
bool pend_log_has_room(const char *path);
/* The kernel forgot inode @ino: an alias keyed by it goes (once its
 * file is committed or dropped: pend_alias_settle from pend_maybe_free).
 */
void pend_drop_alias(uint64_t ino);
void pend_alias_settle(struct pfile *pf);
/* A lookup of a replacement answered with its alias inode: count the
 * kernel's reference where its forget will arrive.
 */
void pend_alias_lookup(struct pfile *pf);

/* ---- data (pending_data.c); each takes pf->mu except trim --------------- */
/* A write in two steps: pend_write_begin reserves the space, zeros a gap,
 * sets the size and returns @len (or a negative errno: nothing changed);
 * the caller acknowledges the write, then pend_write_store copies the
 * bytes, which readers, fsync and the commit wait for.
 */
struct pstore {
	struct pfile *pf;
	struct famfs_fmap *map; /* a copy: pf->map may grow meanwhile */
	uint64_t off;
	size_t len;
};
int64_t pend_write_begin(struct pfile *pf, size_t len, uint64_t off,
			 struct pstore *st);
void pend_write_store(struct pstore *st, struct fuse_bufvec *src);
/* Wait until no store is running (pf->mu held); their first error. */
int pend_wait_stores(struct pfile *pf);
/* fsync: the bytes of every acknowledged write are on the device. */
int pend_sync(struct pfile *pf);
int64_t pend_read(struct pfile *pf, void *buf, size_t len, uint64_t off);
int pend_truncate(struct pfile *pf, uint64_t size);
int pend_fallocate(struct pfile *pf, int mode, uint64_t off, uint64_t len);
/* Give back the reservation beyond what pf->size needs (pf->mu held or
 * the file no longer reachable by writers).
 */
int pend_map_trim(struct pfile *pf);

#endif /* FAMFS_FUSED_PENDING_H */
