// SPDX-License-Identifier: Apache-2.0
/*
 * A dataset's generations: see generation.h. Every step goes through the
 * FUSE master mount when this host has one (its server writes the log),
 * else through famfsd's own master handle, as the ingest job's copy does.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "famfs.h"
#include "jobs/generation.h"
#include "jobs/jobs.h"
#include "killpoint.h"

static pthread_mutex_t switch_lock = PTHREAD_MUTEX_INITIALIZER;

void gen_lock(void)
{
	pthread_mutex_lock(&switch_lock);
}

void gen_unlock(void)
{
	pthread_mutex_unlock(&switch_lock);
}

bool gen_trylock(void)
{
	return pthread_mutex_trylock(&switch_lock) == 0;
}

bool gen_switch_supported(void)
{
#ifdef FAMFS_RENAME_EXCHANGE
	return true;
#else
	return false;
#endif
}

void gen_staging_path(char *buf, size_t len, const char *name, long long gen)
{
	snprintf(buf, len, GEN_STAGING_DIR "/%s.%lld", name, gen);
}

void gen_retired_path(char *buf, size_t len, const char *name, long long gen)
{
	snprintf(buf, len, GEN_RETIRED_DIR "/%s.%lld", name, gen);
}

/* The mount's path of @path, when this host has a FUSE master mount. */
static bool via_mount(const char *fsname, const char *path, char *out,
		      size_t len)
{
	char mnt[4096];

	if (job_master_mount_path(fsname, mnt, sizeof(mnt)))
		return false;
	snprintf(out, len, "%s%s", mnt, path);
	return true;
}

static int fail(char *why, size_t len, int r, const char *what,
		const char *path, const char *msg)
{
	snprintf(why, len, "%s %s: %s", what, path, msg ? msg : strerror(-r));
	return r;
}

#ifdef FAMFS_RENAME_EXCHANGE
/* famfsd's master handle for one step; NULL with @why. */
static struct famfs_fs *hold(struct job *j, const char *fsname, int *r,
			     char *why, size_t len)
{
	struct famfs_fs *fs = job_hold_master(j, fsname, r, why, len);

	if (!fs && !*r)
		*r = -EIO;
	return fs;
}
#endif

static int mkdir_one(struct job *j, const char *fsname, const char *path,
		     char *why, size_t len)
{
	char p[4200];
	int r;

	if (via_mount(fsname, path, p, sizeof(p))) {
		r = mkdir(p, 0700) && errno != EEXIST ? -errno : 0;
		return r ? fail(why, len, r, "mkdir", path, NULL) : 0;
	}
#ifdef FAMFS_RENAME_EXCHANGE
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = hold(j, fsname, &r, why, len);

	if (!fs)
		return r;
	r = famfs_mkdir(fs, path, 0700, 0, 0, &e);
	job_release_master(j);
	return r && r != -EEXIST ? fail(why, len, r, "mkdir", path, e.msg) : 0;
#else
	(void)j;
	return fail(why, len, -EOPNOTSUPP, "mkdir", path, NULL);
#endif
}

int gen_prepare(struct job *j, const char *fsname, char *why, size_t len)
{
	int r = mkdir_one(j, fsname, GEN_STAGING_DIR, why, len);

	return r ? r : mkdir_one(j, fsname, GEN_RETIRED_DIR, why, len);
}

/* rename(2) of @from to @to in @fsname, with renameat2() @mflags through
 * the mount or famfs_rename() @lflags.
 */
static int rename_one(struct job *j, const char *fsname, const char *from,
		      const char *to, unsigned mflags, unsigned lflags,
		      char *why, size_t len)
{
	char a[4200], b[4200];
	int r;

	if (via_mount(fsname, from, a, sizeof(a)) &&
	    via_mount(fsname, to, b, sizeof(b))) {
		r = renameat2(AT_FDCWD, a, AT_FDCWD, b, mflags) ? -errno : 0;
		return r ? fail(why, len, r, "rename", from, NULL) : 0;
	}
#ifdef FAMFS_RENAME_EXCHANGE
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = hold(j, fsname, &r, why, len);

	if (!fs)
		return r;
	r = famfs_rename(fs, from, to, lflags, &e);
	job_release_master(j);
	return r ? fail(why, len, r, "rename", from, e.msg) : 0;
#else
	(void)j;
	(void)lflags;
	return fail(why, len, -EOPNOTSUPP, "rename", from, NULL);
#endif
}

int gen_switch(struct job *j, const char *fsname, const char *staging,
	       const char *dest, const char *retired, bool *switched,
	       char *why, size_t len)
{
	int r;

	*switched = false;
#ifdef FAMFS_RENAME_EXCHANGE
	r = rename_one(j, fsname, staging, dest, RENAME_EXCHANGE,
		       FAMFS_RENAME_EXCHANGE, why, len);
#else
	(void)dest;
	r = fail(why, len, -EOPNOTSUPP, "exchange", staging,
		 "this libfamfs has no directory exchange");
#endif
	if (r)
		return r;
	*switched = true;
	/* killed here, @staging holds the old tree: the switch record
	 * (dataset_switch.h) tells, and gen_switch_finish() renames it
	 */
	FAMFS_KILL_POINT("dataset.exchanged");
	return rename_one(j, fsname, staging, retired, RENAME_NOREPLACE,
			  FAMFS_RENAME_NOREPLACE, why, len);
}

int gen_switch_finish(struct job *j, const char *fsname, const char *staging,
		      const char *dest, const char *retired, uint64_t ino,
		      bool *switched, char *why, size_t len)
{
	uint64_t now;
	int r = gen_ino(j, fsname, dest, &now, why, len);

	*switched = false;
	if (r)
		return r;
	if (now != ino)
		return 0;
	*switched = true;
	r = gen_exists(j, fsname, staging, why, len);
	if (r <= 0)   /* renamed before the kill (or an error) */
		return r;
	return rename_one(j, fsname, staging, retired, RENAME_NOREPLACE,
			  FAMFS_RENAME_NOREPLACE, why, len);
}

static int unlink_entry(const char *p, const struct stat *st, int type,
			struct FTW *f)
{
	(void)st;
	(void)f;
	return (type == FTW_DP ? rmdir(p) : unlink(p)) ? -errno : 0;
}

int gen_remove(struct job *j, const char *fsname, const char *path,
	       char *why, size_t len)
{
	char p[4200];
	int r;

	if (via_mount(fsname, path, p, sizeof(p))) {
		/* famfs-fused removes a tree in batches of deletes; one
		 * without that (ENOTSUP) one name at a time
		 */
		r = setxattr(p, "user.famfs.remove_tree", "1", 1, 0) ? -errno : 0;
		if (r == -ENOTSUP)
			r = nftw(p, unlink_entry, 16, FTW_DEPTH | FTW_PHYS);
		if (r > 0)
			r = -EIO;
		return r && r != -ENOENT ? fail(why, len, r, "remove", path,
						NULL) : 0;
	}
#ifdef FAMFS_RENAME_EXCHANGE
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = hold(j, fsname, &r, why, len);

	if (!fs)
		return r;
	int64_t n = famfs_remove_tree(fs, path, &e);

	job_release_master(j);
	r = n < 0 ? (int)n : 0;
	return r && r != -ENOENT ? fail(why, len, r, "remove", path, e.msg) : 0;
#else
	(void)j;
	return fail(why, len, -EOPNOTSUPP, "remove", path, NULL);
#endif
}

int gen_exists(struct job *j, const char *fsname, const char *path,
	       char *why, size_t len)
{
	struct stat st;
	char p[4200];
	int r;

	if (via_mount(fsname, path, p, sizeof(p))) {
		if (!stat(p, &st))
			return 1;
		r = -errno;
		return r == -ENOENT ? 0 : fail(why, len, r, "stat", path, NULL);
	}
#ifdef FAMFS_RENAME_EXCHANGE
	struct famfs_fs *fs = hold(j, fsname, &r, why, len);

	if (!fs)
		return r;
	r = famfs_lookup(fs, path) ? 1 : 0;
	job_release_master(j);
	return r;
#else
	(void)j;
	return fail(why, len, -EOPNOTSUPP, "stat", path, NULL);
#endif
}

int gen_unswitch(struct job *j, const char *fsname, const char *staging,
		 const char *dest, const char *retired, uint64_t ino,
		 bool *undone, char *why, size_t len)
{
	uint64_t now;
	int r = gen_ino(j, fsname, dest, &now, why, len);

	*undone = false;
	if (r || now != ino)
		return r;
	r = gen_exists(j, fsname, staging, why, len);
	/* each step leaves a state this function takes up again */
	if (r == 0)
		r = rename_one(j, fsname, retired, staging, RENAME_NOREPLACE,
			       FAMFS_RENAME_NOREPLACE, why, len);
	else if (r == 1)
		r = 0;
#ifdef FAMFS_RENAME_EXCHANGE
	if (!r)
		r = rename_one(j, fsname, staging, dest, RENAME_EXCHANGE,
			       FAMFS_RENAME_EXCHANGE, why, len);
#else
	if (!r)
		r = fail(why, len, -EOPNOTSUPP, "exchange", staging, NULL);
#endif
	*undone = !r;
	return r;
}

int gen_ino(struct job *j, const char *fsname, const char *path,
	    uint64_t *ino, char *why, size_t len)
{
	struct stat st;
	char p[4200];
	int r;

	if (via_mount(fsname, path, p, sizeof(p))) {
		/* a directory's st_ino is its node's own (fused/attr.c) */
		if (stat(p, &st))
			return fail(why, len, -errno, "stat", path, NULL);
		*ino = st.st_ino;
		return 0;
	}
#ifdef FAMFS_RENAME_EXCHANGE
	struct famfs_fs *fs = hold(j, fsname, &r, why, len);
	struct famfs_node *n;
	struct famfs_attr a;

	if (!fs)
		return r;
	n = famfs_lookup(fs, path);
	if (n)
		famfs_node_attr(n, &a);
	job_release_master(j);
	if (!n)
		return fail(why, len, -ENOENT, "stat", path, NULL);
	*ino = a.ino;
	return 0;
#else
	(void)j;
	(void)r;
	(void)ino;
	return fail(why, len, -EOPNOTSUPP, "stat", path, NULL);
#endif
}
