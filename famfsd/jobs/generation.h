/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A dataset's generations in its filesystem (docs/cluster-yaml.md,
 * "Datasets that change"). Generation 1 is ingested at the dataset's
 * path. Generation N+1 is ingested into GEN_STAGING_DIR/<name>.<N+1>,
 * outside every dataset's path (a directory of mode 0700 at the root, so
 * a reader listing the dataset never sees it), then switched with the
 * dataset's path in one log entry (an exchange of the two directories:
 * famfs_rename(FAMFS_RENAME_EXCHANGE), renameat2(RENAME_EXCHANGE) on the
 * FUSE master mount). The tree that served is then renamed to
 * GEN_RETIRED_DIR/<name>.<N>; the newest `keep` retired ones stay, older
 * ones are removed (famfs_remove_tree(), user.famfs.remove_tree through
 * the mount: their space is reused only when every client is past the
 * removal and none holds the files, the release rule).
 *
 * famfsd killed during a refresh resumes the job (jobs/ingest.c): the
 * staging tree is resumed; a switch the job recorded before its exchange
 * (jobs/switch.h) is finished when the dataset's path holds the new tree
 * (gen_switch_finish()), and only its record in the datasets is left; a
 * job that finds its own generation recorded only removes the expired
 * ones. An undo (jobs/dataset_undo.c) resumes the same way.
 *
 * Needs libfamfs's directory exchange (FAMFS_RENAME_EXCHANGE). Without
 * it (gen_switch_supported() false) a refresh updates the dataset's
 * tree in place, as famfsd did before generations.
 */
#ifndef FAMFSD_JOBS_GENERATION_H
#define FAMFSD_JOBS_GENERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job;

#define GEN_STAGING_DIR "/.famfs-staging"
#define GEN_RETIRED_DIR "/.famfs-retired"
#define GEN_MAX_KEEP 16   /* params.keep, cluster.yaml datasets[].keep */

/*
 * gen_lock() - the switch lock: held from a switch of a dataset's trees
 * (a refresh's, an undo's) until the store records it, around each
 * removal of a generation, and while a hold is taken (holds.h), so that
 * a hold pins the tree the store says serves and a removal never takes a
 * generation a hold has just pinned. Taken before the state lock, never
 * while holding it.
 */
void gen_lock(void);
void gen_unlock(void);
/* gen_trylock(): true when taken (the pin repair skips a busy tick). */
bool gen_trylock(void);

/* True when this build can switch generations atomically. */
bool gen_switch_supported(void);

/* GEN_STAGING_DIR/<name>.<gen> and GEN_RETIRED_DIR/<name>.<gen>. */
void gen_staging_path(char *buf, size_t len, const char *name, long long gen);
void gen_retired_path(char *buf, size_t len, const char *name, long long gen);

/*
 * gen_prepare() - make GEN_STAGING_DIR and GEN_RETIRED_DIR (mode 0700) in
 * @fsname if they are not there. 0, or a negative errno with @why.
 */
int gen_prepare(struct job *j, const char *fsname, char *why, size_t len);

/*
 * gen_switch() - exchange the directories @staging and @dest of @fsname
 * in one log entry, then rename @staging (now the old tree) to @retired.
 * 0; a negative errno with @why, and then @dest is untouched when the
 * exchange failed (or serves the new tree when only the rename failed:
 * *@switched says which).
 */
int gen_switch(struct job *j, const char *fsname, const char *staging,
	       const char *dest, const char *retired, bool *switched,
	       char *why, size_t len);

/*
 * gen_switch_finish() - after a restart, the switch of @staging with
 * @dest that a job recorded (dataset_switch.h) with @ino, the inode
 * number of the tree that is to serve: *@switched true when @dest has
 * that number now, and then @staging (the old tree) is renamed to
 * @retired unless that was done. 0, or a negative errno with @why.
 */
int gen_switch_finish(struct job *j, const char *fsname, const char *staging,
		      const char *dest, const char *retired, uint64_t ino,
		      bool *switched, char *why, size_t len);

/*
 * gen_unswitch() - the reverse of gen_switch() for a switch (recorded
 * with @ino) that happened but was never recorded in the store by the
 * job that made it, which ended: when @dest has @ino, the old tree
 * (at @staging, or at @retired) is exchanged back with @dest, the new
 * tree going back to @staging; *@undone says so. 0, or a negative errno
 * with @why.
 */
int gen_unswitch(struct job *j, const char *fsname, const char *staging,
		 const char *dest, const char *retired, uint64_t ino,
		 bool *undone, char *why, size_t len);

/*
 * gen_ino() - the inode number of @path in @fsname (kept by a rename).
 * 0, or a negative errno with @why.
 */
int gen_ino(struct job *j, const char *fsname, const char *path,
	    uint64_t *ino, char *why, size_t len);

/*
 * gen_remove() - remove the tree @path of @fsname (a retired generation).
 * 0, or a negative errno with @why.
 */
int gen_remove(struct job *j, const char *fsname, const char *path,
	       char *why, size_t len);

/*
 * gen_exists() - 1 when @path is in @fsname, 0 when it is not, or a
 * negative errno with @why.
 */
int gen_exists(struct job *j, const char *fsname, const char *path,
	       char *why, size_t len);

#endif
