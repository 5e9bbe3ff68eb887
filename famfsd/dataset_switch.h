/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The switch record of a dataset (famfsd/dataset_switch.c): written
 * before a job exchanges a generation's tree with the dataset's path
 * (jobs/generation.h), so that a famfsd killed between that exchange and
 * the rename of the old tree to GEN_RETIRED_DIR knows, when the job
 * resumes, whether the exchange happened. The path names alone cannot
 * say: after the exchange the staging (or kept) path still exists and
 * holds the old tree. The record names the tree that is to serve by its
 * inode number, which a rename keeps (1 + the seq of the entry that made
 * the directory, the same through libfamfs and a FUSE mount, and after
 * a restart): the dataset's path has that number once the exchange is
 * in the log. One row per dataset, replaced by its next switch; it goes
 * with the dataset. Every function takes the state lock itself.
 */
#ifndef FAMFSD_DATASET_SWITCH_H
#define FAMFSD_DATASET_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

struct dataset_switch {
	int64_t job;          /* the job that switches */
	long long generation; /* the one that is to serve */
	uint64_t ino;         /* its tree's inode number */
	char from[4096];      /* its tree before the switch (staging, kept) */
	char retired[4096];   /* where the tree that served goes */
};

/* dataset_switch_begin() - record @s for dataset @name before the
 * exchange. 0, or -EIO (logged).
 */
int dataset_switch_begin(const char *name, const struct dataset_switch *s);

/* dataset_switch_get() - the record of dataset @name: 0 with @s filled
 * and *@live true while the job that made it is queued or running,
 * -ENOENT without one, -EIO.
 */
int dataset_switch_get(const char *name, struct dataset_switch *s,
		       bool *live);

#endif
