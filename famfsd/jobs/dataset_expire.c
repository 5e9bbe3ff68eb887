// SPDX-License-Identifier: Apache-2.0
/*
 * Expiry of a dataset's kept generations (datasets.h: dataset_expire()),
 * and the "dataset_expire" job that runs it on its own: famfsd submits
 * one when the last hold of a generation goes (holds.h), so that a
 * generation kept beyond `keep` only because it was held is removed as
 * a refresh would have removed it, one log entry each, its space reused
 * under the release rule.
 */
#include <errno.h>
#include <stdio.h>

#include "datasets.h"
#include "famfsd.h"
#include "jobs/generation.h"
#include "jobs/jobs.h"
#include "killpoint.h"
#include "log.h"

void dataset_expire(struct job *j, const struct dataset_spec *d)
{
	char path[4200], why[1024];
	long long gen;

	for (;;) {
		gen_lock();
		if (!dataset_expired(d, &gen, path, sizeof(path))) {
			gen_unlock();
			return;
		}
		if (gen_remove(j, d->filesystem, path, why, sizeof(why))) {
			gen_unlock();
			log_warn("dataset %s: generation %lld not removed: %s",
				 d->name, gen, why);
			return;
		}
		/* killed here, the resumed job removes it again (gone:
		 * ENOENT is no error) and records it
		 */
		FAMFS_KILL_POINT("dataset.expired_removed");
		dataset_removed(d, gen);
		gen_unlock();
	}
}

static int expire_validate(json_object *params, char *why, size_t whylen)
{
	return dataset_job_param(params, why, whylen) ? 0 : -EINVAL;
}

static int expire_run(struct job *j)
{
	const char *name = json_object_get_string(json_object_object_get(
		job_params(j), "dataset"));
	struct dataset_spec d;
	char fs[128];
	int r;

	famfsd_lock();
	r = dataset_spec_load(name, &d, fs, sizeof(fs));
	famfsd_unlock();
	if (r) {
		/* deleted meanwhile: nothing is left to expire */
		return 0;
	}
	dataset_expire(j, &d);
	return 0;
}

const struct job_kind job_kind_dataset_expire = {
	.name = "dataset_expire",
	.validate = expire_validate,
	.run = expire_run,
	.resumable = true,
};
