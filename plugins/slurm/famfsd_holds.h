/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The holds API of the local famfsd (docs/api.md, "Holds"), over its Unix
 * socket with libcurl. Each call is one request; nothing is kept between
 * calls, so slurmstepd, the epilog and the tests use it alike.
 */
#ifndef FAMFS_SLURM_FAMFSD_HOLDS_H
#define FAMFS_SLURM_FAMFSD_HOLDS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct fs_hold {
	bool created;		/* 201: taken now; 200: the owner's own, taken before */
	long long generation;
	char path[PATH_MAX];
};

/*
 * fs_hold_take() - POST /v1/datasets/@dataset/holds for @owner, waiting up
 * to @timeout seconds for the generation to be visible on this host.
 * Returns 0 with @hold filled; -ECONNREFUSED when famfsd does not answer
 * (-ENOENT: no socket at @socket), -ETIMEDOUT when it answers nothing in
 * time, -EPROTO when it refuses (@why has its message and code). @why is
 * one line, without the dataset's name (the caller adds it).
 */
int fs_hold_take(const char *socket, const char *dataset, const char *owner,
		 const char *note, int timeout, struct fs_hold *hold,
		 char *why, size_t why_len);

/*
 * fs_hold_release() - DELETE /v1/datasets/@dataset/holds?owner=@owner.
 * Returns 0, or a negative errno as fs_hold_take() (-EPROTO also for a
 * 404: the owner held nothing there).
 */
int fs_hold_release(const char *socket, const char *dataset, const char *owner,
		    char *why, size_t why_len);

/*
 * fs_holds_release_owner() - DELETE /v1/holds?owner=@owner: every hold of
 * @owner on this host. Returns 0 with *@released set (0 is normal: the
 * job held nothing here), or a negative errno as fs_hold_take().
 */
int fs_holds_release_owner(const char *socket, const char *owner,
			   long *released, char *why, size_t why_len);

#endif
