/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libfamfs public interface: devices, mkfs, open/replay, the namespace,
 * allocation and commit. Nothing here knows about HTTP, YAML or SQLite.
 *
 * Conventions (as in libcxl): functions return 0 or a negative errno;
 * those that fail also fill a caller-provided struct famfs_err with a
 * message that names the device, path or entry concerned. The library
 * never prints and never exits.
 */
#ifndef FAMFS_H
#define FAMFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "famfs/format.h"
#include "famfs/fmap_resolve.h"

#ifdef __cplusplus
extern "C" {
#endif

struct famfs_err {
	int code;          /* negative errno, same as the return value */
	char msg[640];
};

/* ---- devices ------------------------------------------------------------ */

enum famfs_dev_kind {
	FAMFS_DEV_FILE = 1,    /* emulated: a regular file mapped MAP_SHARED */
	FAMFS_DEV_DAX = 2,     /* /dev/daxX.Y character device */
	FAMFS_DEV_BLOCK = 3,   /* /dev/pmemN (fsdax namespace), before a mount */
};

struct famfs_dev;

/*
 * famfs_emul_create() - create an emulated device: a regular file of
 * @size bytes (a multiple of FAMFS_UNIT_SIZE), allocated and populated now
 * so that later copies measure copying, not page allocation. Refuses an
 * existing path. On failure nothing is left behind.
 */
int famfs_emul_create(const char *path, uint64_t size, struct famfs_err *e);

/*
 * famfs_dev_open() - open and map a device of any kind. The caller frees
 * with famfs_dev_close(). A DAX device not in devdax mode is refused.
 */
int famfs_dev_open(const char *path, bool writable, struct famfs_dev **out,
		   struct famfs_err *e);
void famfs_dev_close(struct famfs_dev *d);
uint8_t *famfs_dev_base(const struct famfs_dev *d);
uint64_t famfs_dev_size(const struct famfs_dev *d);
const char *famfs_dev_path(const struct famfs_dev *d);
enum famfs_dev_kind famfs_dev_kind(const struct famfs_dev *d);
int famfs_dev_fd(const struct famfs_dev *d);
/* The descriptor data should be written through (pwrite, splice), or -1:
 * store through famfs_dev_base() (DAX, hugetlbfs, read-only). Either way
 * famfs_dev_flush() follows.
 */
int famfs_dev_write_fd(const struct famfs_dev *d);

/* Make bytes written by this host visible to other hosts (clwb/clflushopt
 * + sfence on DAX memory, msync on files; a range past the end is cut).
 * Returns 0, -ERANGE if @off is beyond the device, or msync's -errno.
 */
int famfs_dev_flush(struct famfs_dev *d, uint64_t off, uint64_t len);
/* Drop cached copies before reading what another host wrote. */
void famfs_dev_invalidate(struct famfs_dev *d, uint64_t off, uint64_t len);

/* ---- mkfs --------------------------------------------------------------- */

struct famfs_mkfs_opts {
	uint64_t log_size;        /* 0: FAMFS_LOG_DEFAULT_SIZE */
	uint32_t nslots;          /* 0: 64 client slots */
	uint32_t pack_threshold;  /* 0: 1 MiB */
	const char *master_name;  /* NULL: this host's name */
	bool force;               /* overwrite an existing famfs */
};

/*
 * famfs_mkfs() - write labels, superblock (+ backup), slot table and an
 * empty log on @ndev devices; device i of @paths becomes index i. All
 * checks run before the first byte is written.
 */
int famfs_mkfs(const char *const *paths, unsigned ndev,
	       const struct famfs_mkfs_opts *o, struct famfs_uuid *fs_uuid,
	       struct famfs_err *e);

/* ---- open, replay ------------------------------------------------------- */

enum famfs_open_flags {
	FAMFS_OPEN_READ = 0,      /* offline tools: no lock, no slot */
	FAMFS_OPEN_MASTER = 1,    /* writer lock, allocator, appends */
	FAMFS_OPEN_CLIENT = 2,    /* claims a client slot, publishes replay */
	FAMFS_OPEN_FORCE = 4,     /* master: take over from another host */
	FAMFS_OPEN_EXCHANGE_STEPS = 8, /* each replay (the open's too) ends
				   * before an EXCHANGE entry past
				   * steps_after and right after it: a
				   * kernel mount's follower swaps it in
				   * place (lib/kmount.c) */
};

struct famfs_open_opts {
	unsigned flags;           /* enum famfs_open_flags */
	const char *host_name;    /* NULL: gethostname() */
	uint64_t steps_after;     /* FAMFS_OPEN_EXCHANGE_STEPS: only for
				   * EXCHANGEs with a higher seq */
};

struct famfs_fs;
struct famfs_node;

/*
 * famfs_open() - open a filesystem from its devices, given in any order
 * (they are matched by label). Replays the whole log. Free with
 * famfs_close(), which also releases a client slot or the writer lock.
 */
int famfs_open(const char *const *paths, unsigned ndev,
	       const struct famfs_open_opts *o, struct famfs_fs **out,
	       struct famfs_err *e);
void famfs_close(struct famfs_fs *fs);

/* What replay found past the last valid entry. */
struct famfs_log_status {
	uint64_t last_seq;        /* seq of the last applied entry */
	uint64_t entries;         /* valid entries in the log */
	uint64_t used_bytes;      /* header + valid entries */
	uint64_t size_bytes;      /* log size */
	int tail_state;           /* enum famfs_tail_state */
	uint64_t tail_offset;     /* log offset where the valid log ends */
	char tail_reason[256];    /* why the next bytes are not an entry */
	uint64_t skipped;         /* CRC-valid entries that could not apply */
	char skip_reason[200];    /* the last such entry and why */
	uint64_t corrupt_first;   /* FAMFS_TAIL_CORRUPT: the committed seqs */
	uint64_t corrupt_last;    /* that replay could not read */
};

enum famfs_tail_state {
	FAMFS_TAIL_CLEAN = 0,     /* zeros or end of log: nothing appended */
	FAMFS_TAIL_TORN = 1,      /* a bad entry past the committed tail: a
				   * crash during an append left it */
	FAMFS_TAIL_WAITING = 2,   /* a DEVICE_ADD of a device not given: replay
				   * goes on once famfs_device_attach() gives it */
	FAMFS_TAIL_CORRUPT = 3,   /* a committed entry fails its check (the
				   * committed-tail record or a client slot
				   * proves it was written): entries are lost */
};

/*
 * Called for every entry replay applies, after the tree is updated and with
 * the write lock held: it must not call into libfamfs and should only queue
 * work (e.g. FUSE notifications sent later from another thread). For a
 * DELETE, @node is NULL (or a held zombie) and the deleted inode number is
 * FAMFS_ROOT_INO + the delete entry's target_seq. A RENAME calls twice:
 * first with @node NULL and the old (@parent, @name), then with the moved
 * @node at its new (@parent, @name); a node it replaced (deleted) has
 * inode FAMFS_ROOT_INO + the entry's replaced_seq.
 */
typedef void (*famfs_change_fn)(void *arg, const struct famfs_entry_hdr *h,
				struct famfs_node *node,
				struct famfs_node *parent, const char *name);
void famfs_set_change_cb(struct famfs_fs *fs, famfs_change_fn fn, void *arg);

/*
 * famfs_replay() - apply entries appended since the last replay (a client
 * follows the log by calling this). Returns the number applied (>= 0) or a
 * negative errno. A torn or corrupt entry is never applied; it is reported
 * in famfs_log_status().
 */
int famfs_replay(struct famfs_fs *fs, struct famfs_err *e);
void famfs_log_status(struct famfs_fs *fs, struct famfs_log_status *st);

/* A path a corrupt log loses, with the seq of the entry that held it. */
typedef void (*famfs_lost_fn)(void *arg, uint64_t seq, const char *path,
			      uint16_t path_len);

/*
 * famfs_log_lost() - the paths of the entries a corrupt (or torn) log
 * cannot replay, where they can still be read: from the bad entry itself
 * (a BATCH's inner entries) and from valid entries after it. Returns how
 * many were found.
 */
unsigned famfs_log_lost(struct famfs_fs *fs, famfs_lost_fn fn, void *arg);

/*
 * famfs_log_repair() - end the log at the last good entry (open as master,
 * offline: no client should be following). Calls @fn for every path it
 * drops (NULL: none), fills @before with the status it repaired, zeroes
 * the rest of the log, writes the committed-tail record for the last good
 * entry and moves client slots that replayed past it back to it. Returns
 * 0 or a negative errno (with @e).
 */
int famfs_log_repair(struct famfs_fs *fs, famfs_lost_fn fn, void *arg,
		     struct famfs_log_status *before, struct famfs_err *e);

/*
 * famfs_mount_check() - 0, or -EUCLEAN with @e saying what a corrupt log
 * loses (the seqs, the first paths): a new mount refuses it unless forced.
 */
int famfs_mount_check(struct famfs_fs *fs, struct famfs_err *e);

/* The tree is shared by threads: hold the read lock while using nodes
 * found through it; replay and the mutating calls take the write lock.
 */
void famfs_fs_rdlock(struct famfs_fs *fs);
void famfs_fs_unlock(struct famfs_fs *fs);

/* ---- namespace ---------------------------------------------------------- */

struct famfs_fmap {
	uint16_t type;            /* enum famfs_map_type */
	uint16_t nitems;
	uint32_t reserved;
	uint64_t chunk;
	struct famfs_map_item items[];
};

struct famfs_attr {
	uint64_t ino;             /* 1 = root; else 1 + seq of the creating entry */
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint32_t nlink;
	uint64_t size;
	uint64_t alloc_bytes;     /* bytes the map holds */
	uint64_t mtime_ns;
	uint64_t ctime_ns;
	uint64_t atime_ns;        /* as last set (SETATTR); else mtime */
};

#define FAMFS_ROOT_INO 1ULL

struct famfs_node *famfs_root(struct famfs_fs *fs);
/* @path is absolute within the fs ("/a/b") or relative to the root. */
struct famfs_node *famfs_lookup(struct famfs_fs *fs, const char *path);
struct famfs_node *famfs_lookup_child(struct famfs_fs *fs,
				      struct famfs_node *dir, const char *name);
struct famfs_node *famfs_node_by_ino(struct famfs_fs *fs, uint64_t ino);
struct famfs_node *famfs_node_first_child(struct famfs_node *dir);
struct famfs_node *famfs_node_next_sibling(struct famfs_node *n);
struct famfs_node *famfs_node_parent(struct famfs_node *n);
const char *famfs_node_name(const struct famfs_node *n);
void famfs_node_attr(const struct famfs_node *n, struct famfs_attr *a);
bool famfs_node_is_dir(const struct famfs_node *n);
/* The file's map, owned by the node; NULL for a directory. */
const struct famfs_fmap *famfs_node_map(const struct famfs_node *n);
bool famfs_node_is_symlink(const struct famfs_node *n);
/* A symlink's target as the log holds it (NUL-ended, owned by the node,
 * valid while the node is: hold the read lock); NULL for anything else.
 */
const char *famfs_node_target(const struct famfs_node *n);
/*
 * famfs_node_readlink() - copy symlink @n's target, NUL-ended, into @buf
 * of @len bytes. Returns the target's length (without the NUL), -EINVAL
 * when @n is not a symlink, -ENAMETOOLONG when @buf is too small.
 */
int famfs_node_readlink(const struct famfs_node *n, char *buf, size_t len);
/* Full path of @n into @buf ("/a/b"); returns length or -ENAMETOOLONG. */
int famfs_node_path(const struct famfs_node *n, char *buf, size_t len);

/*
 * A client that keeps a file open (or mapped) holds it, so that a delete
 * replayed meanwhile does not let the master reuse the space: the slot's
 * published position stays before the tombstone until the last release.
 */
void famfs_node_hold(struct famfs_fs *fs, struct famfs_node *n);
void famfs_node_release(struct famfs_fs *fs, struct famfs_node *n);

enum famfs_lookup_hold_flags {
	FAMFS_HOLD_FILE = 1,      /* a directory is refused (EISDIR) */
};

/*
 * famfs_lookup_hold() - find a node and hold it in one step, under the
 * filesystem's lock: by @path when it is not NULL, else by inode number
 * @ino (a deleted node still held elsewhere is found by its inode too).
 * A node found by famfs_node_by_ino() and held afterwards may have been
 * freed in between by a replay or an unlink; this cannot. Any thread.
 * Returns the held node, released with famfs_node_release(), or NULL with
 * errno ENOENT (no such node) or EISDIR (FAMFS_HOLD_FILE and a directory).
 */
struct famfs_node *famfs_lookup_hold(struct famfs_fs *fs, uint64_t ino,
				     const char *path, unsigned flags);

/* ---- file maps ---------------------------------------------------------- */

/*
 * famfs_fmap_check() - famfs_map_check() (fmap_resolve.h) of @m for a
 * file of @size bytes on @devs[0..@ndev): 0, or -EINVAL with what is wrong
 * (and which item) in @why. The one check of a map from outside: replay,
 * the master's commits, the maps tools read as JSON, and (the same inline
 * function) the kernel module.
 */
int famfs_fmap_check(const struct famfs_fmap *m, uint64_t size,
		     const struct famfs_map_dev *devs, uint32_t ndev,
		     char *why, size_t whylen);
/* Resolve through a whole map; see famfs_resolve_items(). */
int famfs_fmap_resolve(const struct famfs_fmap *m, uint64_t off,
		       struct famfs_loc *loc);
uint64_t famfs_fmap_bytes(const struct famfs_fmap *m);
size_t famfs_fmap_sizeof(unsigned nitems);
struct famfs_dev *famfs_fs_dev(struct famfs_fs *fs, uint32_t dev_index);
unsigned famfs_fs_ndevices(const struct famfs_fs *fs);

/*
 * famfs_read() - copy up to @len bytes of file @n at @off into @buf.
 * Returns bytes copied (0 at EOF), -EINVAL without a map (@m NULL: a
 * symlink or directory). famfs_write() is the master's twin,
 * limited to the file's allocation (-EFBIG beyond it).
 */
int64_t famfs_read(struct famfs_fs *fs, const struct famfs_fmap *m,
		   uint64_t fsize, uint64_t off, void *buf, uint64_t len);
int64_t famfs_write_map(struct famfs_fs *fs, const struct famfs_fmap *m,
			uint64_t off, const void *buf, uint64_t len);

/* ---- master: allocate, commit, delete ---------------------------------- */

struct famfs_alloc_policy {
	uint32_t nstrips;         /* 0: all devices (1 on one device) */
	uint64_t chunk;           /* 0: FAMFS_UNIT_SIZE; a multiple of it */
};

/*
 * famfs_alloc() - reserve space for a file of @size bytes. Small files are
 * packed at 4 KiB; files larger than one chunk with nstrips > 1 get an
 * interleave descriptor; others one extent. The reservation is in memory
 * only: commit it with famfs_commit_file() or give it back with
 * famfs_alloc_release(). -ENOSPC changes nothing. Caller frees *out.
 */
int famfs_alloc(struct famfs_fs *fs, uint64_t size,
		const struct famfs_alloc_policy *p, struct famfs_fmap **out,
		struct famfs_err *e);
void famfs_alloc_release(struct famfs_fs *fs, const struct famfs_fmap *m);

struct famfs_file_attr {
	uint64_t size;
	uint32_t mode;            /* permission bits; S_IFREG is implied */
	uint32_t uid;
	uint32_t gid;
	uint64_t mtime_ns;        /* 0: now */
};

/*
 * famfs_commit_file() - append a FILE entry for a reserved map after its
 * data is written and flushed. Parents must exist. On success the node
 * owns a copy of @m (the caller still frees its own).
 */
int famfs_commit_file(struct famfs_fs *fs, const char *path,
		      const struct famfs_file_attr *a,
		      const struct famfs_fmap *m, struct famfs_err *e);

/* One file of a group commit; result and why are filled in. */
struct famfs_commit_req {
	const char *path;
	struct famfs_file_attr attr;
	const struct famfs_fmap *map;   /* reserved, data written and flushed */
	int result;                     /* 0: committed; else this file's error */
	char why[640];
};

/*
 * famfs_commit_files() - group commit: the files of @reqs in one BATCH log
 * entry, one append and one flush (format 1.1). On the media the batch is
 * all or nothing (one CRC over all of it). A file that cannot commit
 * (name taken, parent missing, bad path) is left out with its own result;
 * the caller releases its map. Returns how many were committed, or a
 * negative errno when none was (-ENOSPC: the log cannot hold the batch).
 */
int famfs_commit_files(struct famfs_fs *fs, struct famfs_commit_req *reqs,
		       unsigned n, struct famfs_err *e);

/* alloc + zero-fill (or @data of a->size bytes) + flush + commit. */
int famfs_create_file(struct famfs_fs *fs, const char *path,
		      const struct famfs_file_attr *a,
		      const struct famfs_alloc_policy *p, const void *data,
		      struct famfs_err *e);

/* What famfs_setattr() changes: FAMFS_SETATTR_* bits in @valid. */
struct famfs_setattr {
	uint32_t valid;
	uint32_t mode;            /* permission bits */
	uint32_t uid;
	uint32_t gid;
	uint64_t size;            /* files: at most the map's bytes */
	uint64_t atime_ns;
	uint64_t mtime_ns;
};

/*
 * famfs_setattr() - change mode, owner, times or (files) size of the
 * committed node @ino (a directory, the root or a file) with one SETATTR
 * log entry, which every client replays. A size beyond the file's map is
 * -EFBIG; a grow reads as zeros (the master zeroes the bytes first).
 * Nothing is appended when nothing would change.
 */
int famfs_setattr(struct famfs_fs *fs, uint64_t ino,
		  const struct famfs_setattr *a, struct famfs_err *e);

int famfs_mkdir(struct famfs_fs *fs, const char *path, uint32_t mode,
		uint32_t uid, uint32_t gid, struct famfs_err *e);

/*
 * famfs_symlink() - create a symbolic link at @path (its parent must be a
 * directory, its name free) to @target with one SYMLINK log entry (format
 * 1.3; the superblock is raised to 1.3 first). @target is stored as given:
 * 1..FAMFS_SYMLINK_MAX bytes, no NUL, never resolved by famfs. @mtime_ns
 * 0: now. A symlink is removed with famfs_unlink(), moved with
 * famfs_rename(), and takes owner and times by famfs_setattr() (not mode
 * or size: -EOPNOTSUPP, -EINVAL). -EINVAL for a bad target, -EEXIST for a
 * taken name, -ENOENT for a missing parent, -ENOSPC for a full log.
 */
int famfs_symlink(struct famfs_fs *fs, const char *path, const char *target,
		  uint32_t uid, uint32_t gid, uint64_t mtime_ns,
		  struct famfs_err *e);
/* A file, or an empty directory: appends a tombstone. */
int famfs_unlink(struct famfs_fs *fs, const char *path, struct famfs_err *e);

/*
 * famfs_remove_tree() - remove @path and everything below it (a file, a
 * symlink or a directory of any depth; a dataset's retired generation):
 * one DELETE per node, children before their directory, group-committed
 * in BATCH entries of at most 1,024 deletes (format 1.1). Each delete
 * follows the rule of famfs_unlink(): the space is reused only once every
 * live client slot replayed past it and no local user holds the file
 * open or mapped. Returns the number of nodes removed (>= 1), or a
 * negative errno: -ENOENT (no such path), -EBUSY (the root), -EROFS (not
 * master), -EUCLEAN (corrupt log), -ENOSPC (log full). When a later batch
 * fails after earlier ones were committed, part of the tree is gone: the
 * error says how many nodes, and calling again removes the rest.
 */
int64_t famfs_remove_tree(struct famfs_fs *fs, const char *path,
			  struct famfs_err *e);

/*
 * famfs_rename() - move the committed file or directory @oldpath to
 * @newpath with one RENAME log entry (format 1.2), as rename(2): the node
 * keeps its inode and data; a file (or empty directory) at @newpath is
 * deleted by the same entry (its space is reused only when every client
 * is past it, as after famfs_unlink()). FAMFS_RENAME_NOREPLACE: -EEXIST
 * instead. A directory cannot move into itself (-EINVAL), a file cannot
 * replace a directory (-EISDIR) nor a directory a file (-ENOTDIR).
 * FAMFS_RENAME_EXCHANGE: @oldpath and @newpath (both must exist: -ENOENT)
 * swap their nodes, files or directories of either kind, with one
 * EXCHANGE entry (format 1.5; the superblock is raised to 1.5 first);
 * nothing is deleted. -EINVAL when one holds the other (a directory and
 * its own ancestor or descendant) or with NOREPLACE, -EBUSY for the root;
 * the same node twice is 0 with nothing appended.
 */
#define FAMFS_RENAME_NOREPLACE 0x1
#define FAMFS_RENAME_EXCHANGE 0x2
int famfs_rename(struct famfs_fs *fs, const char *oldpath, const char *newpath,
		 unsigned flags, struct famfs_err *e);

/*
 * famfs_device_add() - grow the filesystem by the device at @path (not
 * formatted; a multiple of 2 MiB): label it, append a DEVICE_ADD entry.
 * New files are interleaved over it too. Every later open must be given
 * it. Nothing is left on the device when it fails.
 */
int famfs_device_add(struct famfs_fs *fs, const char *path, struct famfs_err *e);

/*
 * famfs_devices_add() - grow the filesystem by @n devices at once, in
 * order: every device is checked first (exists, unlabeled, a multiple of
 * 2 MiB of at least 4 MiB, not a device of the filesystem, not given
 * twice; room in the log), so a bad one leaves the filesystem and all the
 * others untouched. Then each is labeled and gets its DEVICE_ADD entry.
 * Master only (-EROFS otherwise).
 */
int famfs_devices_add(struct famfs_fs *fs, const char *const *paths,
		      unsigned n, struct famfs_err *e);

/*
 * famfs_device_attach() - tell a client or read-only open where a device
 * that the master added (it carries this filesystem's label) is on this
 * host. Replay waits at a DEVICE_ADD whose device was not given (log
 * status FAMFS_TAIL_WAITING) and goes on at the next famfs_replay() after
 * this. Attaching a device already attached is a no-op. The device is
 * not checked against the log here: replay does that (uuid and index).
 */
int famfs_device_attach(struct famfs_fs *fs, const char *path,
			struct famfs_err *e);

/* Make a tombstone's space reusable once every live client is past it. */
int famfs_reclaim(struct famfs_fs *fs);

/* Validate a path for the format: absolute or relative, components 1..255
 * bytes, no "." or "..", whole <= FAMFS_PATH_MAX. Normalizes into @out
 * ("/a/b", no trailing slash).
 */
int famfs_path_normalize(const char *in, char *out, size_t outlen,
			 struct famfs_err *e);

/* True if @p is already normal: absolute, every component non-empty and
 * neither "." nor "..", no trailing slash ("/" itself is normal). The
 * rule a dataset destination follows (cluster files, ingest jobs).
 */
bool famfs_path_is_normal(const char *p);

/* ---- log dump and fsck ------------------------------------------------- */

/* Visit every valid entry in log order; stops early when @fn returns != 0. */
typedef int (*famfs_entry_fn)(void *arg, uint64_t log_offset,
			      const struct famfs_entry_hdr *h);
int famfs_log_walk(struct famfs_fs *fs, famfs_entry_fn fn, void *arg);

enum famfs_fsck_severity { FAMFS_FSCK_INFO, FAMFS_FSCK_WARNING, FAMFS_FSCK_ERROR };

typedef void (*famfs_fsck_fn)(void *arg, enum famfs_fsck_severity sev,
			      const char *check, const char *msg);

struct famfs_fsck_result {
	unsigned errors;
	unsigned warnings;
	uint64_t entries;
	uint64_t files;
	uint64_t dirs;
	uint64_t symlinks;
};

/*
 * famfs_fsck() - check labels, both superblocks, the log header, every
 * entry's CRC and sequence, and that no two maps overlap or leave the data
 * area. Never writes. Reports each finding through @fn. Returns 0 when the
 * check ran (see res->errors), or a negative errno when it could not run.
 */
int famfs_fsck(const char *const *paths, unsigned ndev, famfs_fsck_fn fn,
	       void *arg, struct famfs_fsck_result *res, struct famfs_err *e);

/* ---- space and clients -------------------------------------------------- */

struct famfs_space {
	uint64_t total_bytes;     /* allocatable bytes on all devices */
	uint64_t free_bytes;      /* allocatable now */
	uint64_t pending_bytes;   /* deleted, waiting for clients */
	uint64_t file_bytes;      /* sum of file sizes */
	uint64_t alloc_bytes;     /* sum of file allocations */
	uint64_t nfiles;
	uint64_t ndirs;
	/* What a file can use (docs/format.md, "Free space"): */
	uint64_t largest_file_bytes; /* the largest file famfs_alloc() places
				      * now with the default policy */
	uint64_t striped_bytes;   /* smallest device's free space times the
				   * device count: what a dataset striped
				   * over every device can use */
	uint32_t ndev;
#define FAMFS_SPACE_MAX_DEV 64
	uint64_t dev_free_bytes[FAMFS_SPACE_MAX_DEV]; /* free on each device */
};
/* Fills @s; the placement figures come from a placement on paper with
 * the allocator's own rule (famfs_place_plan()).
 */
void famfs_statfs(struct famfs_fs *fs, struct famfs_space *s);

struct famfs_place_result {
	uint64_t placed;          /* files that fit, in order */
	uint64_t first_failed;    /* index of the first that did not */
	uint64_t failed_size;
	uint64_t alloc_bytes;     /* space the placed files take */
};

/*
 * famfs_place_plan() - place files of @sizes (in this order) on paper
 * with famfs_alloc()'s own rule over a copy of the allocator's state.
 * Nothing changes. Returns 0 when every file fits; -ENOSPC naming the
 * first that does not, its strips and the room on each device in @e.
 */
int famfs_place_plan(struct famfs_fs *fs, const uint64_t *sizes, uint64_t n,
		     const struct famfs_alloc_policy *p,
		     struct famfs_place_result *res, struct famfs_err *e);
/*
 * famfs_space_why() - what a file of @size needs (its strips and their
 * size) and the room on each device (free, largest run), as the "no
 * space" message says it, into @buf. 0 or a negative errno.
 */
int famfs_space_why(struct famfs_fs *fs, uint64_t size,
		    const struct famfs_alloc_policy *p, char *buf, size_t len);
/*
 * famfs_place_plan_new() - the same on a filesystem that does not exist
 * yet: the one mkfs would make on devices of @dev_bytes (in set order)
 * with a log of @log_size (0: the default) on the first. -EINVAL when
 * mkfs would refuse the geometry.
 */
int famfs_place_plan_new(const uint64_t *dev_bytes, unsigned ndev,
			 uint64_t log_size, const uint64_t *sizes, uint64_t n,
			 const struct famfs_alloc_policy *p,
			 struct famfs_place_result *res, struct famfs_err *e);

struct famfs_slot_info {
	uint32_t index;
	uint32_t state;           /* enum famfs_slot_state */
	char host_name[25];
	uint64_t replayed_seq;
	uint64_t heartbeat_ns;
};
/* Fills up to @max slots in use; returns how many. */
int famfs_slots(struct famfs_fs *fs, struct famfs_slot_info *out, int max);
/* Evict a client that is gone for good, so reclaim stops waiting for it. */
int famfs_slot_evict(struct famfs_fs *fs, uint32_t index, struct famfs_err *e);

/* Filesystem identity and geometry from the superblock. */
const struct famfs_superblock *famfs_fs_sb(const struct famfs_fs *fs);
bool famfs_fs_is_master(const struct famfs_fs *fs);

/* ---- helpers shared by the tools --------------------------------------- */

/*
 * The words that are famfsd API routes where a resource name could stand
 * (/v1/devices/rescan): no device, set, filesystem or mount is called so.
 */
bool famfs_name_reserved(const char *name);
/*
 * famfs_parse_size() - the one size syntax of every tool, file and API
 * (lib/size.c, docs/cluster-yaml.md): "0", or decimal digits without a
 * leading zero, optionally followed by "B", or by K, M, G or T (powers of
 * 1024) alone or with "iB" or "B": "4096", "4096B", "2M", "2MB", "2MiB".
 * Upper case; no sign, space, fraction or other suffix. Returns 0 and
 * *@out; -EINVAL for another form (NULL and "" too); -ERANGE when the
 * value does not fit in 64 bits. *@out is untouched on failure. Callers
 * with a narrower type (63 bits in YAML and SQLite) check that themselves.
 */
int famfs_parse_size(const char *s, uint64_t *out);

enum famfs_size_flags {
	FAMFS_SIZE_EXACT = 0,     /* "1536 MiB", "4097 B": never rounded */
	FAMFS_SIZE_ROUND = 1,     /* "1.5 GiB", "2.9 KiB": for tables, progress */
};
/*
 * famfs_format_size() - @v bytes for humans into @buf (cut to @len):
 * exact, in the largest binary unit that divides @v ("2 MiB"), or with
 * FAMFS_SIZE_ROUND in the largest unit not above it, one decimal unless
 * exact ("64 MiB", "2.9 KiB"). Returns @buf.
 */
const char *famfs_format_size(uint64_t v, unsigned flags, char *buf,
			      size_t len);
void famfs_uuid_generate(struct famfs_uuid *u);
void famfs_uuid_unparse(const struct famfs_uuid *u, char out[37]);
uint32_t famfs_crc32c(uint32_t crc, const void *buf, size_t len);
uint64_t famfs_now_ns(void);

#ifdef __cplusplus
}
#endif
#endif /* FAMFS_H */
