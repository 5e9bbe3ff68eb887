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

#include <json-c/json.h>

#include "source_summary.h"

struct dataset_spec {
	const char *name, *filesystem, *source, *dest;
	uint64_t chunk;       /* 0: policy default */
	unsigned strips;      /* 0: policy default */
	unsigned keep;        /* previous generations kept (generation.h) */
	int64_t job;
	long long serving;    /* set by dataset_begin(): 0 or the generation
			       * that serves */
	long long next;       /* set by dataset_begin(): the generation this
			       * ingest makes, one past every generation
			       * recorded (an undo leaves newer ones kept) */
	int64_t serving_job;  /* set by dataset_begin(): the job that made
			       * it (this one: a resumed job that had
			       * recorded its generation) */
};

/*
 * dataset_begin() - an ingest of @d starts: the row is made (state
 * ingesting) or marked refreshing, its source, destination and policy
 * as the job has them; d->serving gets the generation that serves. 0,
 * or -EIO (logged).
 */
int dataset_begin(struct dataset_spec *d);

/*
 * dataset_succeeded() - the job made generation N+1 of @d at @path from
 * the source summarised in @s (taken before the copy, so that a change
 * made during it shows next time); it serves now. The one that served is
 * kept at @retired, or (NULL: updated in place) gone. @duration_ms: the
 * job's. 0, or -EIO (logged).
 */
int dataset_succeeded(const struct dataset_spec *d, const char *path,
		      const char *retired, const struct source_summary *s,
		      int64_t duration_ms);

/*
 * dataset_expired() - the oldest kept generation of @d beyond its newest
 * d->keep: 1 with its number and path, 0 when there is none.
 * dataset_removed() marks it gone once its tree is removed.
 */
int dataset_expired(const struct dataset_spec *d, long long *gen,
		    char *path, size_t len);
void dataset_removed(const struct dataset_spec *d, long long gen);

/*
 * dataset_expire() - remove the generations of @d that dataset_expired()
 * gives, oldest first, each in its own step under the switch lock
 * (generation.h: gen_lock()), so that a hold taken meanwhile is seen.
 * For the ingest job after a switch and the "dataset_expire" job that
 * famfsd submits when a generation's last hold goes (holds.h). A
 * failure is logged; what is left goes at the next expiry.
 */
struct job;
void dataset_expire(struct job *j, const struct dataset_spec *d);

/*
 * dataset_spec_load() - @d's filesystem and keep from the store for
 * dataset @name (state lock held); @fs (of @len) holds the name. 0 or
 * -ENOENT.
 */
int dataset_spec_load(const char *name, struct dataset_spec *d, char *fs,
		      size_t len);

/* The ingest of @d failed with @error: counted; what serves is kept.
 * dataset_stopped(): cancelled, or stopped by famfsd's shutdown (then
 * resumed at the next start): not a failure, the state only.
 */
void dataset_failed(const struct dataset_spec *d, const char *error);
void dataset_stopped(const struct dataset_spec *d);

/*
 * dataset_summary() - the summary last ingested for @name (state lock
 * held). 0 with @s filled (source_summary_free() it), -ENOENT without
 * one, -EIO if the stored list cannot be read.
 */
int dataset_summary(const char *name, struct source_summary *s);

/* What `rollout undo` switches: the generation that serves and the kept
 * one that stopped serving last (a held one beyond `keep` that stopped
 * earlier is not it).
 */
struct dataset_undo {
	char filesystem[128], dest[4096], kept_path[4096];
	long long serving, kept;
};

/*
 * dataset_undo_target() - fill @u for dataset @name (state lock held).
 * 0; -ENOENT without such a dataset, -ESRCH without a kept generation.
 */
int dataset_undo_target(const char *name, struct dataset_undo *u);

/*
 * dataset_undone() - generation u->kept serves again at u->dest, the one
 * that served is kept at @retired. Takes the lock. 0 or -EIO.
 */
int dataset_undone(const char *name, const struct dataset_undo *u,
		   const char *retired);

/* What `apply --prune` deletes of a dataset: every tree it has in its
 * filesystem (jobs/dataset_delete.c).
 */
struct dataset_trees {
	char filesystem[128], dest[4096], state[16];
	long long serving, next;  /* next: what a refresh stages */
	char **kept;          /* kept (and removed: a kill may have left
			       * them) generations' paths, not dest */
	size_t nkept;
};

/*
 * dataset_trees() - fill @t for dataset @name (state lock held; free with
 * dataset_trees_free()). 0, -ENOENT without such a dataset, -ENOMEM or
 * -EIO.
 */
int dataset_trees(const char *name, struct dataset_trees *t);
void dataset_trees_free(struct dataset_trees *t);

/*
 * dataset_forget() - the dataset's rows go (its trees are removed). Takes
 * the lock. 0 or -EIO.
 */
int dataset_forget(const char *name);

/* The famfs_dataset_* series on @f (state lock held, for reading). */
void dataset_metrics(FILE *f);

/* The dataset a job's params name ({"dataset": NAME} and nothing else,
 * the dataset_undo and dataset_delete jobs): NULL, with @why set, when
 * the field is missing or not a name, or another field is there.
 */
const char *dataset_job_param(json_object *params, char *why, size_t whylen);

#endif
