// SPDX-License-Identifier: Apache-2.0
/*
 * The "dataset_undo" job (`famfs-cli rollout undo dataset NAME`): the
 * newest kept generation of a dataset serves again, switched with the
 * one that serves in one exchange, as a refresh switches
 * (jobs/generation.h); the one that served is kept in its place. The
 * switch is recorded first (jobs/switch.h): resumed after a famfsd
 * restart, the job finishes a switch it made, or does nothing when it
 * was recorded, so an undo never switches twice.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "datasets.h"
#include "famfsd.h"
#include "jobs/generation.h"
#include "jobs/jobs.h"
#include "jobs/switch.h"

static int undo_validate(json_object *params, char *why, size_t whylen)
{
	struct dataset_undo u;
	const char *name;
	int r;

	name = dataset_job_param(params, why, whylen);
	if (!name)
		return -EINVAL;
	if (!gen_switch_supported()) {
		snprintf(why, whylen, "this famfsd's libfamfs cannot switch "
			 "generations (no directory exchange)");
		return -EINVAL;
	}
	r = dataset_undo_target(name, &u);
	if (r == -ENOENT)
		snprintf(why, whylen, "no dataset '%s'", name);
	else if (r == -ESRCH)
		snprintf(why, whylen, "dataset %s keeps no previous generation "
			 "(generation %lld serves)", name, u.serving);
	else if (r)
		snprintf(why, whylen, "dataset %s cannot be read", name);
	return r ? -EINVAL : 0;
}

static int undo_run(struct job *j)
{
	const char *name = json_object_get_string(json_object_object_get(
		job_params(j), "dataset"));
	char retired[4200], why[1024];
	struct dataset_undo u;
	bool switched;
	int r;

	/* the switch and its record under the switch lock: a hold taken
	 * meanwhile pins what the store says serves (holds.h). An undo
	 * removes nothing: a held generation only changes its place.
	 */
	gen_lock();
	famfsd_lock();
	r = dataset_undo_target(name, &u);
	famfsd_unlock();
	if (r) {
		gen_unlock();
		job_set_error(j, "dataset %s: %s", name, r == -ESRCH ?
			      "no previous generation kept" : "not found");
		return r;
	}
	/* resumed: a switch it made is finished (1; its old tree is at
	 * @retired), or it was recorded too (2)
	 */
	r = job_switch_resume(j, name, u.filesystem, u.dest, u.serving,
			      retired, sizeof(retired), why, sizeof(why));
	if (r == 2) {
		gen_unlock();
		return 0;
	}
	switched = r == 1;
	if (!r) {
		gen_retired_path(retired, sizeof(retired), name, u.serving);
		r = job_switch(j, name, u.filesystem, u.kept, u.kept_path,
			       u.dest, retired, &switched, why, sizeof(why));
	} else if (r == 1) {
		r = 0;
	}
	if (!switched) {
		gen_unlock();
		job_set_error(j, "cannot switch back to generation %lld: %s",
			      u.kept, why);
		return r;
	}
	if (r)
		job_set_error(j, "switched back to generation %lld: %s", u.kept,
			      why);
	if (dataset_undone(name, &u, r ? u.kept_path : retired)) {
		job_set_error(j, "switched back to generation %lld, but it could "
			      "not be recorded (see famfsd's log)", u.kept);
		r = -EIO;
	}
	gen_unlock();
	jobs_progress(j, 0, 0, 1, 1);
	return r;
}

const struct job_kind job_kind_dataset_undo = {
	.name = "dataset_undo",
	.validate = undo_validate,
	.run = undo_run,
	.resumable = true,
};
