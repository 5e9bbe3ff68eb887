// SPDX-License-Identifier: Apache-2.0
/* The built-in "rescan" job: device discovery by every provider. */
#include <stdio.h>

#include "famfsd.h"
#include "jobs/jobs.h"
#include "providers.h"

static int rescan_validate(json_object *params, char *why, size_t whylen)
{
	if (json_object_object_length(params)) {
		snprintf(why, whylen, "a rescan job takes no params");
		return -22;
	}
	return 0;
}

static int rescan_run(struct job *j)
{
	int r;

	famfsd_lock();
	r = providers_discover(NULL);
	famfsd_unlock();
	jobs_progress(j, 0, 0, 1, 1);
	return r;
}

const struct job_kind job_kind_rescan = {
	.name = "rescan",
	.validate = rescan_validate,
	.run = rescan_run,
	.resumable = true,
};

