/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ingest engine: a parallel, verified, resumable copy of a source tree
 * (usually on XFS) into famfs files. It is a library so that famfsd's job
 * runner, the benchmark and the tests drive the same code; where the
 * files go is a sink (libfamfs directly, or a master mount), what was done
 * is a manifest (SQLite in famfsd). docs/ingest.md is the contract.
 */
#ifndef FAMFS_INGEST_H
#define FAMFS_INGEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "famfs.h"

/* ---- what the walk finds ------------------------------------------------ */

enum ingest_kind {
	INGEST_DIR = 1,
	INGEST_FILE,
	INGEST_SKIP,        /* device, fifo, socket: named (skipped.h) */
	INGEST_SYMLINK,     /* kept as a symlink, its target verbatim */
};

struct ingest_item {
	enum ingest_kind kind;
	char *rel;              /* path below the source root, "" for the root */
	uint64_t parent;        /* index in items of its directory (root: 0) */
	uint32_t name_off;      /* its last component: rel + name_off */
	uint64_t size;
	uint64_t mtime_ns;
	uint64_t ctime_ns;      /* the copy's "before" (source_change.h) */
	uint32_t mode, uid, gid;
	uint64_t src_dev, src_ino; /* hard links are found by these */
	uint64_t alloc_blocks;  /* st_blocks * 512, to spot sparse files */
	const char *skip_why;   /* INGEST_SKIP */
	char *target;           /* INGEST_SYMLINK: as readlink() gave it */
	bool outside;           /* INGEST_SYMLINK: absolute, or above the root */
};

struct ingest_plan {
	struct ingest_item *items;
	uint64_t nitems;
	uint64_t files, dirs, skipped, hardlinks, sparse;
	uint64_t symlinks, symlinks_outside;
	uint64_t bytes;
};

/* ---- where files go ----------------------------------------------------- */

/* A file being written: its map, and where its devices are mapped here. */
struct ingest_target {
	struct famfs_fmap *map;
	uint8_t *dev_base[FAMFS_MAX_DEVICES];
	void *sink_private;
	/* set by the engine before begin(): the file's interleave policy
	 * (ingest_opts.policy; {0, 0} is the filesystem's default)
	 */
	const struct famfs_alloc_policy *policy;
};

struct ingest_sink_ops {
	/* Stat @path in the filesystem: 0 and *a, or -ENOENT. */
	int (*stat)(void *s, const char *path, struct famfs_attr *a);
	int (*mkdir)(void *s, const char *path, uint32_t mode, uint32_t uid,
		     uint32_t gid);
	/* Reserve space for a file of @size; nothing is visible yet. */
	int (*begin)(void *s, const char *path, uint64_t size,
		     struct ingest_target *t, char *why, size_t whylen);
	/* Flush the data and make the file visible with these attributes. */
	int (*commit)(void *s, struct ingest_target *t, const char *path,
		      const struct famfs_file_attr *a, char *why, size_t whylen);
	/* Give the reservation back: the file never becomes visible. */
	void (*abort)(void *s, struct ingest_target *t, const char *path);
	/* Bytes free for new files. */
	uint64_t (*free_bytes)(void *s);
	/* Place files of @sizes on paper with the allocator's rule,
	 * changing nothing. 0, or -ENOSPC with the index of the first file
	 * that does not fit in *failed and the room in @why. Every sink
	 * here has one; without it a run has no space check up front (each
	 * file's begin then says why it does not fit).
	 */
	int (*place_plan)(void *s, const uint64_t *sizes, uint64_t n,
			  uint64_t *failed, char *why, size_t whylen);
	/* Read @len bytes of a committed file at @off (for verify). */
	int64_t (*read)(void *s, const char *path, uint64_t off, void *buf,
			uint64_t len);
	/* Optional: call @fn with every directory below @dir (absolute
	 * fs paths, @dir itself not included). 0 or a negative errno.
	 */
	int (*list_dirs)(void *s, const char *dir,
			 void (*fn)(void *arg, const char *path), void *arg);
	/* Optional: remove an empty directory (-ENOTEMPTY if it is not). */
	int (*rmdir)(void *s, const char *path);
	/* Remove a committed file or symlink (the "replace" policy). */
	int (*remove)(void *s, const char *path);
	/* Move the committed file @from over @to in one step (a reader sees
	 * the old file or the new one): the "replace" policy's update.
	 */
	int (*rename)(void *s, const char *from, const char *to);
	/* Create symlink @path to @target (verbatim) with owner and mtime. */
	int (*symlink)(void *s, const char *path, const char *target,
		       uint32_t uid, uint32_t gid, uint64_t mtime_ns);
	/* Symlink @path's target into @buf: its length, or a negative errno
	 * (-EINVAL: not a symlink). */
	int (*readlink)(void *s, const char *path, char *buf, size_t len);
	/* Optional group commit: flush and commit @n files at once (one log
	 * append, all or nothing on the media). reqs[i].path/attr name file
	 * i of targets t[i]; each result is filled in, and the reservation of
	 * every file not committed is given back. Returns how many were
	 * committed, or a negative errno (none was; @why says why).
	 */
	int (*commit_batch)(void *s, struct ingest_target *const *t,
			    struct famfs_commit_req *reqs, unsigned n,
			    char *why, size_t whylen);
};

/* Files a worker commits together when the sink can (commit_batch). */
#define INGEST_BATCH_FILES 64

struct ingest_sink {
	const struct ingest_sink_ops *ops;
	void *s;
	unsigned ndev;          /* devices files are interleaved over */
};

/* libfamfs sink: @fs open as master. */
void ingest_sink_lib(struct ingest_sink *k, struct famfs_fs *fs);

/* A filesystem not made yet, for a plan only (ingest_opts.plan_only):
 * what mkfs would make on devices of @dev_bytes with a log of @log_size
 * (0: the default). It holds nothing; its place_plan is
 * famfs_place_plan_new(). @pp must outlive the sink.
 */
struct ingest_paper_fs {
	uint64_t dev_bytes[FAMFS_MAX_DEVICES];
	unsigned ndev;
	uint64_t log_size;
};
void ingest_sink_paper(struct ingest_sink *k, struct ingest_paper_fs *pp);

/* ---- what was done ------------------------------------------------------ */

enum ingest_file_state { INGEST_PENDING = 0, INGEST_DONE = 1 };

struct ingest_record {
	uint64_t size;
	uint64_t mtime_ns;
	uint64_t checksum;      /* XXH3-64 of the bytes */
	int state;              /* enum ingest_file_state */
};

/* The manifest (famfsd keeps it in SQLite). Called from worker threads. */
struct ingest_manifest_ops {
	/* 0 and *r if @rel is known, -ENOENT if not. */
	int (*get)(void *m, const char *rel, struct ingest_record *r);
	int (*put)(void *m, const char *rel, const struct ingest_record *r);
	/* What the last failure was (may be NULL). */
	const char *(*error)(void *m);
	/* Optional: call @fn for every file recorded done (to find the files
	 * removed from the source); 0 or a negative errno.
	 */
	int (*each_done)(void *m, void (*fn)(void *arg, const char *rel), void *arg);
	/* Optional: forget @rel (a file removed with --delete). */
	int (*forget)(void *m, const char *rel);
};

struct ingest_manifest {
	const struct ingest_manifest_ops *ops;
	void *m;
};

/* ---- the job ------------------------------------------------------------ */

enum ingest_changed_policy {
	INGEST_CHANGED_KEEP = 0,    /* report, keep the famfs copy (default) */
	INGEST_CHANGED_REPLACE = 1, /* copy again, rename over the old copy */
	INGEST_CHANGED_FAIL = 2,    /* the job fails */
};

struct ingest_progress {
	atomic_uint_fast64_t bytes_done, bytes_total;
	atomic_uint_fast64_t files_done, files_total;
	atomic_uint_fast64_t files_copied, files_skipped, files_changed;
	atomic_uint_fast64_t bytes_copied;
	atomic_uint_fast64_t alloc_bytes;   /* space the copies took */
	/* source files seen changing while they were copied (each counted
	 * once), copies started again because of it, files given up on
	 */
	atomic_uint_fast64_t files_rewritten, copies_retried, files_refused;
};

/* Tries of a file whose source changes while it is copied (1 + retries). */
#define INGEST_DEFAULT_TRIES 4

struct ingest_opts {
	const char *source;         /* absolute source directory */
	const char *dest;           /* destination directory in famfs ("/x") */
	unsigned threads;           /* 0: number of CPUs */
	bool verify;                /* re-read what this run copies */
	bool verify_all;            /* also the files already there: read
				     * the source and the famfs copy and
				     * compare (implies verify) */
	enum ingest_changed_policy changed;
	/* read sources with plain system calls, never io_uring (which is
	 * used for small files where the kernel allows it)
	 */
	bool plain_io;
	/* copies of a file whose source changes meanwhile before it is
	 * refused ("changed while copying"); 0: INGEST_DEFAULT_TRIES
	 */
	unsigned max_tries;
	/* --delete: remove what the source no longer has (files; directories
	 * only once empty, removed_dirs.c); else it is reported
	 */
	bool delete_removed;
	/* only place on paper (famfsd's dry run of an ingest job, apply's
	 * plan): decide what would be copied and run the space check, then
	 * stop. Nothing is written, hashed or recorded: a file already at
	 * the destination counts as there; what delete_removed would free
	 * is not counted as free (the plan never says more room than the
	 * run has). Its result: res->plan_files, res->plan_bytes, and the
	 * refusal in res->error/message.
	 */
	bool plan_only;
	/* the files' interleave (a dataset's interleave: {chunk, strips});
	 * {0, 0}: the filesystem's default
	 */
	struct famfs_alloc_policy policy;
	atomic_bool *cancel;        /* set to stop; may be NULL */
};

/* Names with a reason, e.g. the files refused as changed while copying. */
struct ingest_names {
	char **v;               /* "rel: why", malloc'd */
	uint64_t n;
};

struct ingest_result {
	int error;                  /* 0 or negative errno */
	char message[1024];         /* the first failure, naming the file */
	uint64_t files_copied, files_skipped, files_changed, files_verified;
	uint64_t skipped_special, hardlinks, sparse;
	uint64_t files_uring;       /* files read through io_uring */
	/* the source changing under the copy (docs/ingest.md): files seen
	 * changing, copies made again, files not committed (named in
	 * @refused: "changed while copying", "disappeared while copying")
	 */
	uint64_t files_rewritten, copies_retried, files_refused;
	struct ingest_names refused;
	/* files changed at the source since they were ingested (@changed,
	 * first INGEST_NAMES_KEPT of files_changed)
	 */
	struct ingest_names changed;
	/* files ingested before that the source no longer has: deleted from
	 * famfs (delete_removed) or kept (named in @removed)
	 */
	uint64_t files_removed, files_deleted;
	struct ingest_names removed;
	uint64_t dirs_removed;      /* made by a failed run, left empty */
	/* directories under the destination the source no longer has:
	 * deleted (delete_removed, left empty), or kept and named
	 */
	uint64_t dirs_gone, dirs_deleted;
	char dirs_gone_names[512];  /* the first of those kept, ", " between */
	uint64_t symlinks_made, symlinks_already, symlinks_changed;
	uint64_t symlinks_outside, symlinks_verified;
	/* the files the run would copy and their bytes (plan_only too) */
	uint64_t plan_files, plan_bytes;
	/* plan refused: the first file that does not fit (rel, size) */
	char plan_failed[512];
	uint64_t plan_failed_size;
};

/* Names a result keeps of each list; the counts stay exact. */
#define INGEST_NAMES_KEPT 1000

/* The run is not complete with its source: a file was refused, or a
 * changed source file was kept (not updated), or a file removed from the
 * source was kept (not deleted). famfs-cli exits 3 then.
 */
bool ingest_result_source_changed(const struct ingest_result *r,
				  const struct ingest_opts *o);

/* Free what ingest_run() allocated in @r (the name lists). */
void ingest_result_free(struct ingest_result *r);

/*
 * ingest_plan() - walk @source without following symlinks (nothing
 * outside the tree is ever read) and list what ingest would do. Fails
 * before anything is copied on an unreadable source or a name too long
 * for the format. Free with ingest_plan_free().
 */
int ingest_plan_build(const char *source, const char *dest,
		      struct ingest_plan *p, char *why, size_t whylen);
void ingest_plan_free(struct ingest_plan *p);

/*
 * ingest_run() - copy the planned tree: directories first, then files in
 * @threads workers, each file reserved, copied with its checksum computed
 * on the way, flushed, and only then committed (so nobody ever sees a file
 * whose data is not there). Files the manifest has as done and unchanged
 * are skipped. Returns 0 or a negative errno; @res says what happened.
 */
int ingest_run(const struct ingest_opts *o, const struct ingest_plan *p,
	       struct ingest_sink *sink, struct ingest_manifest *man,
	       struct ingest_progress *prog, struct ingest_result *res);

/* ---- the up-front space check (plan_space.c) ---------------------------- */

/*
 * ingest_check_space() - place the files p->items[order[i]] on paper in
 * that order through the sink's place_plan. 0 when all fit (or the sink
 * cannot tell); -ENOSPC with @why ("F does not fit (...)") naming the
 * first file that does not fit (its index in @order in *@at) and the room on each device.
 */
int ingest_check_space(struct ingest_sink *sink, const struct ingest_plan *p,
		       const uint64_t *order, uint64_t norder, uint64_t *at,
		       char *why, size_t whylen);
/* The plan over an open filesystem (the lib sink). */
int ingest_place_plan_fs(struct famfs_fs *fs, const uint64_t *sizes,
			 uint64_t n, uint64_t *failed, char *why, size_t whylen);
/* The plan for a master mount: its devices (user.famfs.devices) opened
 * read-only, the log replayed.
 */
int ingest_place_plan_mount(const char *mnt, const uint64_t *sizes,
			    uint64_t n, uint64_t *failed, char *why,
			    size_t whylen);
/* A file of @size the server at @mnt refused with ENOSPC: why, in @why
 * (the size, its strips, each device's room; -ENOSPC), from the plan over
 * the committed log, or 0 when it cannot say.
 */
int ingest_nospace_mount(const char *mnt, uint64_t size, char *why,
			 size_t whylen);

/* ---- directories a run made (made_dirs.c) ------------------------------ */

struct ingest_made_dirs {
	char **paths;           /* in the order they were made */
	uint64_t n, cap;
};
int ingest_made_dirs_add(struct ingest_made_dirs *d, const char *path);
/* Remove those that hold nothing, newest first; returns how many. */
uint64_t ingest_made_dirs_remove_empty(struct ingest_sink *sink,
				       struct ingest_made_dirs *d);
void ingest_made_dirs_free(struct ingest_made_dirs *d);

/*
 * ingest_removed_dirs() - find the directories under o->dest that the
 * plan does not have: with o->delete_removed remove those that are empty
 * (deepest first; res->dirs_deleted), the others are counted and named in
 * res (dirs_gone, dirs_gone_names). 0 or a negative errno (res->message).
 */
int ingest_removed_dirs(const struct ingest_opts *o, const struct ingest_plan *p,
			struct ingest_sink *sink, struct ingest_result *res);

/* Bytes a file of @size will take (4 KiB packing, 2 MiB units). */
uint64_t ingest_estimate_alloc(uint64_t size, unsigned ndev);

#endif
