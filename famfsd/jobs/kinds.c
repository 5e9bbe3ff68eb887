// SPDX-License-Identifier: Apache-2.0
/*
 * The job kinds famfsd knows, in one table. Each is defined in its own
 * file in this directory; the weak declarations let a kind's file arrive
 * later (ingest: issue 7) without touching anything else.
 */
#include <stddef.h>

#include "jobs/jobs.h"

extern const struct job_kind job_kind_rescan __attribute__((weak));
extern const struct job_kind job_kind_ingest __attribute__((weak));
extern const struct job_kind job_kind_verify __attribute__((weak));
extern const struct job_kind job_kind_dataset_undo __attribute__((weak));
extern const struct job_kind job_kind_dataset_delete __attribute__((weak));
extern const struct job_kind job_kind_dataset_expire __attribute__((weak));

void jobs_builtin_init(void)
{
	const struct job_kind *all[] = { &job_kind_rescan, &job_kind_ingest,
					 &job_kind_verify, &job_kind_dataset_undo,
					 &job_kind_dataset_delete,
					 &job_kind_dataset_expire };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i])
			jobs_register(all[i]);
}
