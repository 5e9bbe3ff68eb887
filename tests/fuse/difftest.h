/* SPDX-License-Identifier: Apache-2.0 */
/* The differential test: one random step at a time on tmpfs and on a famfs
 * master mount (difftest.c: sequences, the list, shrinking; difftest_ops.c:
 * the steps and the tree snapshots).
 */
#ifndef FAMFS_DIFFTEST_H
#define FAMFS_DIFFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NSLOT 4       /* descriptors a sequence keeps open at once */
#define NPATH 8       /* the names a sequence works on */

enum op {
	OP_OPEN, OP_WRITE, OP_PWRITE, OP_WRITEV, OP_READ, OP_FTRUNCATE,
	OP_TRUNCATE, OP_CLOSE, OP_FSYNC, OP_RENAME, OP_UNLINK, OP_MKDIR,
	OP_RMDIR, OP_CHMOD, OP_UTIMENS, OP_REDIRECT, OP_CP, OP_COUNT
};

/* Everything a step does is in here; offsets are relative to the file's
 * size on tmpfs when the step runs, so a shrunk sequence stays meaningful.
 */
struct step {
	enum op op;
	int slot;
	int path, path2;
	int flags;       /* open */
	int where;       /* 0 inside the file, 1 at its end, 2 past it;
			  * truncate: 0 down, 1 up
			  */
	unsigned len;
	unsigned seed;   /* the bytes written */
	unsigned mode;
};

struct side {
	char root[4096];   /* this trial's directory */
	int fd[NSLOT];
};

struct result {
	long ret;        /* -1: failed with err */
	int err;
	uint64_t hash;   /* read: the bytes read */
};

extern const char *const dt_paths[NPATH];

/* difftest_ops.c */
/* Fork the process that runs the tools, before anything is open. */
void dt_spawner_start(void);
const char *dt_op_name(enum op op);
/* The call a step's difference is matched to a list row by. */
const char *dt_op_call(enum op op);
void dt_step_str(const struct step *st, char *buf, size_t len);
/* The size of @path under @root (0 if it is no file). */
off_t dt_size(const char *root, const char *path);
struct result dt_run(struct side *s, const struct step *st, off_t size);
/* A sorted listing of the tree under @root, one line a node: path, type,
 * mode, size and a hash of the bytes (malloc'ed).
 */
char *dt_snapshot(const char *root, bool modes);
/* Make tmpfs's files what famfs's are after an intended difference. */
void dt_resync(struct side *tmp, struct side *fam);
uint64_t dt_hash(const void *p, size_t n, uint64_t h);

#endif
