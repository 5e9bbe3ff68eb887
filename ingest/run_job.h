/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the parts of a running ingest share (run.c decides and schedules,
 * copy.c copies one file and checks that its source held still): the
 * job, a worker's open source directory, a copied file waiting for its
 * commit. Private to ingest/.
 */
#ifndef FAMFS_INGEST_RUN_JOB_H
#define FAMFS_INGEST_RUN_JOB_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ingest.h"

struct job {
	const struct ingest_opts *o;
	const struct ingest_plan *p;
	struct ingest_sink *sink;
	struct ingest_manifest *man;
	struct ingest_progress *prog;
	struct ingest_result *res;
	int srcfd;
	uint64_t *order;        /* indexes of items to copy, copy_order() */
	uint64_t norder;
	bool *update;           /* per item: copy beside the old copy, rename */
	unsigned tries;         /* copies of a file whose source changes */
	atomic_uint_fast64_t next;
	atomic_bool failed;
	atomic_uint_fast64_t res_uring_files;
	pthread_mutex_t lock;
	struct ingest_made_dirs made;   /* taken back if the run fails */
};

/*
 * A worker's open directory: a file is opened by its name in its
 * directory's fd, one path lookup instead of one per component (measured:
 * three quarters of the dentry lookups of a small-file ingest were the
 * components above the file). The directory itself is opened from the
 * root with the same RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, so a symlink
 * swapped in for it after the plan is refused as before. One per worker:
 * small files are copied directory by directory (see copy_order), and an
 * io_uring group holds files of one directory only (its dirfd).
 */
struct src_dir {
	uint64_t dir;           /* item index of the directory held, or UINT64_MAX */
	int fd;
};

/* Copied and flushed, waiting for the worker's group commit. */
struct done_copy {
	const struct ingest_item *it;
	struct ingest_target t;
	char *dst;
	char *final;            /* an update: @dst is renamed over it */
	uint64_t hash;
	/* the source state copied: the plan's, or what the open file said
	 * when it had changed since the plan
	 */
	uint64_t size, mtime_ns;
	bool seen_changing;     /* counted in files_rewritten */
};

/*
 * The piece one pread copies and the hash then reads: small enough to be
 * still in L2 when XXH3 reads it, so the bytes cross memory once; large
 * enough that the syscall costs nothing (measured: 1 MiB pieces hash
 * from memory, 256 KiB ones from cache).
 */
#define COPY_PIECE (256u << 10)

/* The job fails with @err and the message (the first failure is kept). */
__attribute__((format(printf, 3, 0)))
void job_vfail(struct job *j, int err, const char *fmt, va_list ap);

__attribute__((format(printf, 3, 4)))
static inline void fail(struct job *j, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_vfail(j, err, fmt, ap);
	va_end(ap);
}

static inline bool stopping(struct job *j)
{
	return atomic_load(&j->failed) || (j->o->cancel && atomic_load(j->o->cancel));
}

/* Open the source file @it by its name in its directory, held in @d:
 * its fd, or -1 and errno.
 */
int job_open_source(struct job *j, struct src_dir *d, const struct ingest_item *it);

/* XXH3 and size of the open file @fd, read from its start: 0 or -EIO. */
int job_hash_fd(int fd, uint64_t *h, uint64_t *size);

/*
 * job_copy_plain() - copy @c's source into its reservation with plain
 * system calls, checked (copy.c): made again while the source changes
 * under it, up to the job's tries; then refused (named in the result).
 * @first: no copy of it was tried yet (an io_uring copy that did not
 * hold was one). 0: copied, ready to commit; else -errno and nothing to
 * commit (the caller gives the reservation back).
 */
int job_copy_plain(struct job *j, struct done_copy *c, struct src_dir *sd, bool first);

#endif
