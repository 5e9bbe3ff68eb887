/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the ingest job (jobs/ingest.c) shares with its dry run
 * (jobs/ingest_plan.c): the params check and how the params name things.
 */
#ifndef FAMFSD_JOBS_INGEST_JOB_H
#define FAMFSD_JOBS_INGEST_JOB_H

#include <stddef.h>
#include <json-c/json.h>

/* The ingest params' check: 0, or -EINVAL with @why. */
int ingest_validate(json_object *params, char *why, size_t whylen);

/* The string param @k of @p, or @dflt when it is absent. */
const char *ingest_str_param(json_object *p, const char *k, const char *dflt);

/* The filesystem @want (NULL: the only one famfsd has) into @out: 0, or
 * -ENOENT with @why.
 */
int ingest_pick_filesystem(const char *want, char *out, size_t len,
			   char *why, size_t whylen);

#endif
