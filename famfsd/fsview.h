/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Read-only views of filesystems (libfamfs FAMFS_OPEN_READ: no lock, no
 * slot), cached per filesystem and replayed before each use, for the API's
 * reads and for /metrics. Everything here needs the state lock, for
 * writing; fsview_get() and the device path queries also work under the
 * read lock (/metrics), even from several readers at once.
 */
#ifndef FAMFSD_FSVIEW_H
#define FAMFSD_FSVIEW_H

#include <stdbool.h>

#include "famfs.h"

/* Device paths of @fsname's set, in set order. Free with fs_paths_free(). */
int fs_device_paths(const char *fsname, char ***paths, unsigned *n);
/* The same for a set. */
int set_device_paths(const char *set, char ***paths, unsigned *n);
void fs_paths_free(char **paths, unsigned n);

/* A replayed read-only open; owned by the cache. NULL with @err set. */
struct famfs_fs *fsview_get(const char *fsname, char *err, size_t errlen);
/* How many views last found their log corrupt; the first one's reason in
 * @why (/healthz and /v1/host report it).
 */
int fsview_corrupt(char *why, size_t len);
/*
 * A master open of @fsname kept across API calls (the writer lock stays
 * with famfsd while no master mount exists, so file creates do not replay
 * the log each time). NULL with @err (and the negative errno in *@rc).
 */
struct famfs_fs *fsmaster_get(const char *fsname, int *rc, char *err,
			      size_t errlen);
/* Give the writer lock back (before a master mount, mkfs, delete).
 * -EBUSY (and nothing done) while a job holds the handle.
 */
int fsmaster_drop(const char *fsname);
/* A job's hold on the master handle: fsmaster_drop() waits for none. */
struct famfs_fs *fsmaster_hold(const char *fsname, int *rc, char *err,
			       size_t errlen);
void fsmaster_release(struct famfs_fs *fs);
/* Close master handles nobody used for @idle_seconds (their mappings
 * of the devices count in famfsd's RSS).
 */
void fsmaster_expire(int idle_seconds);
/* Is @fsname's master handle held by a job? */
bool fsmaster_busy(const char *fsname);

/* Forget a view and the master handle (before mkfs, after delete). */
void fsview_drop(const char *fsname);
void fsview_drop_all(void);

#endif
