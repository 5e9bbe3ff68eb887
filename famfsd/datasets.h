/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Datasets (schemas/sql/0004_datasets.sql): what an ingest job given
 * params.dataset made, and the source summary it ingested, so that a
 * changed source is seen. The ingest job records (dataset_begin() at its
 * start, dataset_succeeded() or dataset_failed() at its end); the API
 * (api/datasets.c) and /metrics read. Every function here takes the
 * state lock itself unless it says otherwise.
 */
#ifndef FAMFSD_DATASETS_H
#define FAMFSD_DATASETS_H

#include <stdint.h>
#include <stdio.h>

#include "source_summary.h"

struct dataset_spec {
	const char *name, *filesystem, *source, *dest;
	uint64_t chunk;       /* 0: policy default */
	unsigned strips;      /* 0: policy default */
	int64_t job;
};

/*
 * dataset_begin() - an ingest of @d starts: the row is made (state
 * ingesting) or marked refreshing, its source, destination and policy
 * as the job has them. 0, or -EIO (logged).
 */
int dataset_begin(const struct dataset_spec *d);

/*
 * dataset_succeeded() - the job made generation N+1 of @d at @path from
 * the source summarised in @s (taken before the copy, so that a change
 * made during it shows next time); it serves now. @duration_ms: the
 * job's. 0, or -EIO (logged).
 */
int dataset_succeeded(const struct dataset_spec *d, const char *path,
		      const struct source_summary *s, int64_t duration_ms);

/* The ingest of @d failed with @error: counted; what serves is kept. */
void dataset_failed(const struct dataset_spec *d, const char *error);

/*
 * dataset_summary() - the summary last ingested for @name (state lock
 * held). 0 with @s filled (source_summary_free() it), -ENOENT without
 * one, -EIO if the stored list cannot be read.
 */
int dataset_summary(const char *name, struct source_summary *s);

/* The famfs_dataset_* series on @f (state lock held, for reading). */
void dataset_metrics(FILE *f);

#endif
