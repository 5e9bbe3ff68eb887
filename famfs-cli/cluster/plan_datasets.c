// SPDX-License-Identifier: Apache-2.0
/*
 * The planner's datasets (plan_int.h): an ingest job for a dataset famfsd
 * does not have, a new generation for one whose source changed since it
 * was ingested (GET /v1/datasets?drift=true, docs/cluster-yaml.md
 * "Datasets that change"), nothing for one that did not.
 */
#include <stdio.h>
#include <string.h>

#include "famfs.h"
#include "cluster/plan_int.h"

/*
 * A job made for an earlier filesystem of the same name (pruned, then
 * created again, or about to be created by this plan) does not count: its
 * files went with that filesystem.
 */
static bool job_covers(const struct st_job *j, const struct cl_dataset *ds,
		       const struct st_filesystem *fs)
{
	if (!fs || (fs->created && j->created &&
		    strcmp(j->created, fs->created) < 0))
		return false;
	/* one given params.dataset that succeeded recorded the dataset: a
	 * dataset famfsd no longer has was deleted (apply --prune) since
	 */
	if (j->dataset && j->state && !strcmp(j->state, "succeeded"))
		return false;
	return j->kind && !strcmp(j->kind, "ingest") && j->filesystem &&
	       j->source && j->dest && !strcmp(j->filesystem, ds->filesystem) &&
	       !strcmp(j->source, ds->source) &&
	       !strcmp(j->dest, ds->destination) && j->state &&
	       (!strcmp(j->state, "queued") || !strcmp(j->state, "running") ||
		!strcmp(j->state, "succeeded"));
}

static bool dataset_verify(const struct planner *pl,
			   const struct cl_dataset *ds)
{
	return ds->has_verify ? ds->verify :
		pl->c->defaults.has_verify && pl->c->defaults.verify;
}

/* The ingest job's body for @ds; @refresh: a new generation of a dataset
 * famfsd has (files that changed are copied again, removed ones go).
 */
static json_object *dataset_job_body(const struct planner *pl,
				     const struct cl_dataset *ds, bool refresh)
{
	bool verify = dataset_verify(pl, ds);
	json_object *body = json_object_new_object();
	json_object *params = json_object_new_object();

	jstr(body, "kind", "ingest");
	jstr(params, "dataset", ds->name);
	jstr(params, "filesystem", ds->filesystem);
	jstr(params, "source", ds->source);
	jstr(params, "dest", ds->destination);
	json_object_object_add(params, "verify",
			       json_object_new_boolean(verify));
	if (ds->chunk)
		jint(params, "chunk", ds->chunk);
	if (ds->strips)
		jint(params, "strips", ds->strips);
	if (ds->has_keep)
		jint(params, "keep", ds->keep);
	if (refresh) {
		jstr(params, "on_change", "replace");
		json_object_object_add(params, "delete",
				       json_object_new_boolean(true));
	}
	json_object_object_add(body, "params", params);
	return body;
}

/* "+12 files, ~3 changed, -1 removed, +1.2 GiB" (what is not zero). */
static void drift_text(const struct st_dataset *d, char *buf, size_t len)
{
	uint64_t mag = d->bytes_delta < 0 ? (uint64_t)-d->bytes_delta :
		       (uint64_t)d->bytes_delta;
	char b[32];
	size_t n = 0;

	buf[0] = '\0';
	if (d->added)
		n += (size_t)snprintf(buf + n, len - n, "+%llu files",
				      (unsigned long long)d->added);
	if (d->changed && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s~%llu changed",
				      n ? ", " : "", (unsigned long long)d->changed);
	if (d->removed && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s-%llu removed",
				      n ? ", " : "", (unsigned long long)d->removed);
	if (d->bytes_delta && n < len)
		snprintf(buf + n, len - n, "%s%c%s", n ? ", " : "",
			 d->bytes_delta < 0 ? '-' : '+',
			 famfs_format_size(mag, FAMFS_SIZE_ROUND, b, sizeof(b)));
}

/*
 * A dataset famfsd recorded: a new generation when the source changed
 * (or moved) since it was last ingested. True when the dataset needs
 * nothing more here (updated, running, unchanged or in conflict); false
 * when it is to be ingested as new (its first ingest failed).
 */
static bool plan_dataset_recorded(struct planner *pl, size_t h,
				  const struct cl_dataset *ds,
				  const struct st_dataset *d)
{
	struct plan_step *st;
	char why[160], what[96];

	if (strcmp(d->filesystem ? d->filesystem : "", ds->filesystem) ||
	    strcmp(d->dest ? d->dest : "", ds->destination)) {
		conflict(pl, h, "dataset %s is in %s:%s, the file puts it in "
			 "%s:%s: a dataset does not move (give it another name)",
			 ds->name, d->filesystem ? d->filesystem : "?",
			 d->dest ? d->dest : "?", ds->filesystem,
			 ds->destination);
		return true;
	}
	if (!strcmp(d->state, "ingesting") || !strcmp(d->state, "refreshing")) {
		note(pl, h, "dataset %s is %s (job %lld)", ds->name, d->state,
		     d->job);
		return true;
	}
	if (d->generation == 0)
		return false;
	if (d->source && strcmp(d->source, ds->source))
		snprintf(why, sizeof(why), "source %s -> %s", d->source,
			 ds->source);
	else if (d->drift_error) {
		note(pl, h, "dataset %s: its source cannot be compared with "
		     "what was ingested: %s", ds->name, d->drift_error);
		return true;
	} else if (d->drift_changed) {
		char t[128];

		drift_text(d, t, sizeof(t));
		snprintf(why, sizeof(why), "source changed%s%s", *t ? ": " : "",
			 t);
	} else {
		return true;
	}
	snprintf(what, sizeof(what), "dataset %s", ds->name);
	if (plan_path_refused(pl, h, what, "paths.sources", ds->source))
		return true;
	st = step(pl, PLAN_UPDATE, PK_DATASET, h, ds->name, false, "(%s)", why);
	call(pl, st, "POST", dataset_job_body(pl, ds, true), "/v1/jobs");
	return true;
}

void plan_datasets(struct planner *pl, size_t h)
{
	const struct host_state *hs = &pl->hosts[h];

	for (size_t i = 0; i < pl->c->ndatasets; i++) {
		const struct cl_dataset *ds = &pl->c->datasets[i];
		const struct cl_filesystem *fs =
			cluster_filesystem(pl->c, ds->filesystem);
		const struct st_dataset *rec = state_dataset(hs, ds->name);
		struct plan_step *st;
		char what[96];
		size_t j;

		if (!fs || host_index(pl->c, fs->master) != h)
			continue;
		if (rec && plan_dataset_recorded(pl, h, ds, rec))
			continue;
		/* a job of a famfsd from before datasets (or not given
		 * params.dataset) made it: nothing to compare with
		 */
		for (j = 0; !rec && j < hs->njobs && !job_covers(&hs->jobs[j],
				ds, state_filesystem(hs, ds->filesystem)); j++)
			;
		if (!rec && j < hs->njobs) {
			const struct st_job *jb = &hs->jobs[j];

			if (strcmp(jb->state, "succeeded"))
				note(pl, h, "dataset %s: ingest job %ld is %s (%llu "
				     "of %llu files, %llu of %llu bytes)", ds->name,
				     jb->id, jb->state,
				     (unsigned long long)jb->files_done,
				     (unsigned long long)jb->files_total,
				     (unsigned long long)jb->bytes_done,
				     (unsigned long long)jb->bytes_total);
			continue;
		}
		snprintf(what, sizeof(what), "dataset %s", ds->name);
		if (plan_path_refused(pl, h, what, "paths.sources", ds->source))
			continue;
		st = step(pl, PLAN_CREATE, PK_DATASET, h, ds->name, false,
			  "(ingest %s -> %s:%s%s)", ds->source, ds->filesystem,
			  ds->destination,
			  dataset_verify(pl, ds) ? ", verify" : "");
		call(pl, st, "POST", dataset_job_body(pl, ds, false), "/v1/jobs");
		}
}
