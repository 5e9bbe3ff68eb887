// SPDX-License-Identifier: Apache-2.0
/*
 * The "dataset_delete" job (`famfs-cli apply --prune` of a dataset the
 * cluster file no longer names): every tree of the dataset goes, its
 * kept generations, a staging generation a refresh left, then the tree
 * at its path, each removed as an expired generation is (gen_remove():
 * the release rule), and then famfsd forgets it. Killed half-way, the
 * rows stay and the same job again removes what is left.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "datasets.h"
#include "famfsd.h"
#include "holds.h"
#include "jobs/generation.h"
#include "jobs/jobs.h"

static int delete_validate(json_object *params, char *why, size_t whylen)
{
	struct dataset_trees t;
	char owners[512];
	const char *name;
	bool held = false;
	int r;

	name = dataset_job_param(params, why, whylen);
	if (!name)
		return -EINVAL;
	r = dataset_trees(name, &t);
	if (r == -ENOENT)
		snprintf(why, whylen, "no dataset '%s'", name);
	else if (r)
		snprintf(why, whylen, "dataset %s cannot be read", name);
	else if (!strcmp(t.state, "ingesting") || !strcmp(t.state, "refreshing"))
		snprintf(why, whylen, "dataset %s is %s: cancel its job first",
			 name, t.state), r = -EBUSY;
	else if (holds_owners(name, owners, sizeof(owners)) > 0)
		snprintf(why, whylen, "dataset %s has holds (%s): they are "
			 "released first", name, owners), held = true, r = -EBUSY;
	else if (!strcmp(t.dest, "/") || !t.dest[0])
		snprintf(why, whylen, "dataset %s is the filesystem's root: "
			 "delete the filesystem instead", name), r = -EINVAL;
	dataset_trees_free(&t);
	return held ? -EBUSY : r ? -EINVAL : 0;   /* held: 409 conflict */
}

static int delete_run(struct job *j)
{
	const char *name = json_object_get_string(json_object_object_get(
		job_params(j), "dataset"));
	char staging[4200], why[1024], owners[512];
	struct dataset_trees t;
	int r, n;

	/* the switch lock for the whole removal: no hold is taken on a
	 * tree half removed, and one taken before it is seen here
	 */
	gen_lock();
	famfsd_lock();
	r = dataset_trees(name, &t);
	n = r ? 0 : holds_owners(name, owners, sizeof(owners));
	famfsd_unlock();
	if (r) {
		gen_unlock();
		job_set_error(j, "dataset %s: %s", name, r == -ENOENT ?
			      "not found" : "cannot be read");
		return r;
	}
	if (n > 0) {
		gen_unlock();
		dataset_trees_free(&t);
		job_set_error(j, "dataset %s has holds (%s): nothing removed",
			      name, owners);
		return -EBUSY;
	}
	jobs_progress(j, 0, 0, 0, t.nkept + 2);
	for (size_t i = 0; i < t.nkept && !r; i++) {
		r = gen_remove(j, t.filesystem, t.kept[i], why, sizeof(why));
		jobs_progress(j, 0, 0, i + 1, t.nkept + 2);
	}
	if (!r && gen_switch_supported()) {
		gen_staging_path(staging, sizeof(staging), name, t.next);
		r = gen_remove(j, t.filesystem, staging, why, sizeof(why));
	}
	if (!r)
		r = gen_remove(j, t.filesystem, t.dest, why, sizeof(why));
	if (r) {
		job_set_error(j, "dataset %s: %s", name, why);
	} else if (dataset_forget(name)) {
		job_set_error(j, "dataset %s: its trees are removed, but famfsd "
			      "could not forget it (see famfsd's log)", name);
		r = -EIO;
	} else {
		jobs_progress(j, 0, 0, t.nkept + 2, t.nkept + 2);
	}
	gen_unlock();
	dataset_trees_free(&t);
	return r;
}

const struct job_kind job_kind_dataset_delete = {
	.name = "dataset_delete",
	.validate = delete_validate,
	.run = delete_run,
	.resumable = false,
};
