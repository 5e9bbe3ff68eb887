/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A dataset job's switch of generations, recorded so that it survives a
 * famfsd killed between the exchange and the rename (dataset_switch.h):
 * the refresh (jobs/ingest.c) and the undo (jobs/dataset_undo.c) switch
 * through job_switch() and, resumed, ask job_switch_resume() first.
 */
#ifndef FAMFSD_JOBS_SWITCH_H
#define FAMFSD_JOBS_SWITCH_H

#include <stdbool.h>
#include <stddef.h>

struct job;

/*
 * job_switch() - gen_switch() of dataset @name's tree @from (generation
 * @gen, to serve) with @dest, the old tree going to @retired, with the
 * record written before the exchange. As gen_switch(); when that fails,
 * the record is read against the dataset's path again for up to 30 s
 * (until the filesystem answers), so that a switch whose answer was lost
 * (famfs-fused died under it) is finished and reported as made.
 */
int job_switch(struct job *j, const char *name, const char *fsname,
	       long long gen, const char *from, const char *dest,
	       const char *retired, bool *switched, char *why, size_t len);

/*
 * job_switch_resume() - the switch this job recorded for dataset @name
 * before famfsd stopped, whose store still has generation @serving
 * serving: 0 when there is none or its exchange did not happen (then
 * @from still holds the new tree), or the record is another job's (one
 * that ended with its switch made but not recorded, e.g. when its
 * famfs-fused died under the exchange, has it undone here: the trees
 * are the store's generations again); 1 when it happened: the rename to the
 * retired path is done now and @retired gets that path (the path the
 * old tree is at, when that rename fails: logged); 2 when the
 * store already has its generation serving; or a negative errno with
 * @why.
 */
int job_switch_resume(struct job *j, const char *name, const char *fsname,
		      const char *dest, long long serving, char *retired,
		      size_t rlen, char *why, size_t len);

#endif
