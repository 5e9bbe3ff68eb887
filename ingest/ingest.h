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
	/* Read @len bytes of a committed file at @off (for verify). */
	int64_t (*read)(void *s, const char *path, uint64_t off, void *buf,
			uint64_t len);
	/* Remove a committed file or symlink (the "replace" policy). */
	int (*remove)(void *s, const char *path);
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
};

struct ingest_manifest {
	const struct ingest_manifest_ops *ops;
	void *m;
};

/* ---- the job ------------------------------------------------------------ */

enum ingest_changed_policy {
	INGEST_CHANGED_KEEP = 0,    /* report, keep the famfs copy (default) */
	INGEST_CHANGED_REPLACE = 1, /* delete the famfs copy, copy again */
	INGEST_CHANGED_FAIL = 2,    /* the job fails */
};

struct ingest_progress {
	atomic_uint_fast64_t bytes_done, bytes_total;
	atomic_uint_fast64_t files_done, files_total;
	atomic_uint_fast64_t files_copied, files_skipped, files_changed;
	atomic_uint_fast64_t bytes_copied;
	atomic_uint_fast64_t alloc_bytes;   /* space the copies took */
};

struct ingest_opts {
	const char *source;         /* absolute source directory */
	const char *dest;           /* destination directory in famfs ("/x") */
	unsigned threads;           /* 0: number of CPUs */
	bool verify;                /* re-read from famfs and compare */
	enum ingest_changed_policy changed;
	/* read sources with plain system calls, never io_uring (which is
	 * used for small files where the kernel allows it)
	 */
	bool plain_io;
	atomic_bool *cancel;        /* set to stop; may be NULL */
};

struct ingest_result {
	int error;                  /* 0 or negative errno */
	char message[1024];         /* the first failure, naming the file */
	uint64_t files_copied, files_skipped, files_changed, files_verified;
	uint64_t skipped_special, hardlinks, sparse;
	uint64_t files_uring;       /* files read through io_uring */
	uint64_t symlinks_made, symlinks_already, symlinks_changed;
	uint64_t symlinks_outside, symlinks_verified;
};

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

/* Bytes a file of @size will take (4 KiB packing, 2 MiB units). */
uint64_t ingest_estimate_alloc(uint64_t size, unsigned ndev);

#endif
