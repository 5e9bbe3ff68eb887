// SPDX-License-Identifier: Apache-2.0
/* Recorded switches of a dataset's generations: see switch.h. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "dataset_switch.h"
#include "jobs/generation.h"
#include "jobs/jobs.h"
#include "jobs/switch.h"
#include "log.h"

/* How long a failed switch waits for the filesystem to answer again, in
 * seconds: famfsd restarts a dead master mount after 1, 2, 4, ... s.
 */
#define SWITCH_SETTLE_S 30

int job_switch(struct job *j, const char *name, const char *fsname,
	       long long gen, const char *from, const char *dest,
	       const char *retired, bool *switched, char *why, size_t len)
{
	struct dataset_switch s = { .job = job_id(j), .generation = gen };
	int r;

	*switched = false;
	snprintf(s.from, sizeof(s.from), "%s", from);
	snprintf(s.retired, sizeof(s.retired), "%s", retired);
	r = gen_ino(j, fsname, from, &s.ino, why, len);
	if (r)
		return r;
	if (dataset_switch_begin(name, &s)) {
		snprintf(why, len, "cannot record the switch (see famfsd's log)");
		return -EIO;
	}
	r = gen_switch(j, fsname, from, dest, retired, switched, why, len);
	/* an error can come with the entry in the log (famfs-fused dying
	 * under the exchange or the rename): the record tells once the
	 * filesystem answers again (famfsd restarts the mount), and the
	 * rename is finished
	 */
	for (int i = 0; r && i < SWITCH_SETTLE_S && !job_cancelled(j); i++) {
		char why2[1024];
		bool sw;
		int e;

		sleep(1);
		e = gen_switch_finish(j, fsname, from, dest, retired, s.ino,
				      &sw, why2, sizeof(why2));
		if (e == -ENOENT)   /* no tree at @dest: none switched in */
			break;
		if (e)
			continue;
		if (sw) {
			log_info("dataset %s: generation %lld switched in, though "
				 "famfs-fused answered: %s", name, gen, why);
			*switched = true;
			r = 0;
		}
		break;
	}
	return r;
}

/* A switch another job made and ended without recording: undone, so
 * that the store's generations are the trees again.
 */
static int unswitch(struct job *j, const char *name, const char *fsname,
		    const char *dest, const struct dataset_switch *s,
		    char *why, size_t len)
{
	bool undone;
	int r = gen_unswitch(j, fsname, s->from, dest, s->retired, s->ino,
			     &undone, why, len);

	if (undone)
		log_warn("dataset %s: generation %lld was switched in by job "
			 "%lld, which ended without recording it; switched "
			 "back (its tree is at %s again)", name, s->generation,
			 (long long)s->job, s->from);
	return r;
}

int job_switch_resume(struct job *j, const char *name, const char *fsname,
		      const char *dest, long long serving, char *retired,
		      size_t rlen, char *why, size_t len)
{
	struct dataset_switch s;
	bool switched, live;
	int r = dataset_switch_get(name, &s, &live);

	if (r == -ENOENT)
		return 0;
	if (r) {
		snprintf(why, len, "cannot read the switch record (see "
			 "famfsd's log)");
		return r;
	}
	if (s.generation == serving)
		return s.job == job_id(j) ? 2 : 0;
	if (s.job != job_id(j))
		return live ? 0 : unswitch(j, name, fsname, dest, &s, why, len);
	r = gen_switch_finish(j, fsname, s.from, dest, s.retired, s.ino,
			      &switched, why, len);
	if (!switched)
		return r;
	log_info("dataset %s: generation %lld was switched in by job %lld "
		 "before famfsd stopped; finishing it", name, s.generation,
		 (long long)s.job);
	/* the old tree stays where the exchange put it if the rename
	 * fails, as with gen_switch()
	 */
	if (r)
		log_warn("dataset %s: the tree that served stays at %s: %s",
			 name, s.from, why);
	snprintf(retired, rlen, "%s", r ? s.from : s.retired);
	return 1;
}
