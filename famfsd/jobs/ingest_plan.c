// SPDX-License-Identifier: Apache-2.0
/*
 * The dry run of an ingest job (POST /v1/jobs with "dry_run": true,
 * docs/api.md): what the job would copy, placed on paper with the
 * allocator's rule over a read-only open of the filesystem (the committed
 * log replayed), without the state lock while the source is walked.
 * Nothing is written: no job, no directory, no manifest record.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "datasets.h"
#include "famfsd.h"
#include "fsview.h"
#include "ingest.h"
#include "jobs/generation.h"
#include "jobs/ingest_job.h"
#include "jobs/jobs.h"
#include "manifest_sqlite.h"
#include "store/store.h"
#include "skipped.h"
#include "symlinks.h"

/* "geometry": {"devices": [bytes, ...], "log_size": bytes}. */
static int paper_of(json_object *g, struct ingest_paper_fs *pp, char *why,
		    size_t whylen)
{
	json_object *devs, *v;
	size_t n;

	memset(pp, 0, sizeof(*pp));
	json_object_object_foreach(g, key, val) {
		(void)val;
		if (strcmp(key, "devices") && strcmp(key, "log_size")) {
			snprintf(why, whylen, "geometry.%s: unknown field", key);
			return -EINVAL;
		}
	}
	if (!json_object_object_get_ex(g, "devices", &devs) ||
	    !json_object_is_type(devs, json_type_array) ||
	    !(n = json_object_array_length(devs)) || n > FAMFS_MAX_DEVICES) {
		snprintf(why, whylen, "geometry.devices: the size in bytes of "
			 "each device, in set order (1 to %d)", FAMFS_MAX_DEVICES);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		v = json_object_array_get_idx(devs, i);
		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) <= 0) {
			snprintf(why, whylen, "geometry.devices[%zu]: a size in "
				 "bytes above 0", i);
			return -EINVAL;
		}
		pp->dev_bytes[i] = (uint64_t)json_object_get_int64(v);
	}
	pp->ndev = (unsigned)n;
	if (json_object_object_get_ex(g, "log_size", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)) {
		snprintf(why, whylen, "geometry.log_size: a size in bytes (0: "
			 "the default)");
		return -EINVAL;
	}
	pp->log_size = v ? (uint64_t)json_object_get_int64(v) : 0;
	return 0;
}

/*
 * The dry run of a refresh (state lock held): when @params names a
 * dataset that has a generation serving and this build switches
 * generations, the next one's staging path in @buf and its number;
 * else 0. The plan then places the whole new tree while the serving and
 * kept generations still hold their space, as the job will.
 */
static long long refresh_staging(json_object *params, char *buf, size_t len)
{
	const char *name = ingest_str_param(params, "dataset", NULL);
	struct dataset_trees t;
	long long next;

	if (!name || !gen_switch_supported() || dataset_trees(name, &t))
		return 0;
	next = t.serving > 0 ? t.next : 0;
	dataset_trees_free(&t);
	if (next)
		gen_staging_path(buf, len, name, next);
	return next;
}

int ingest_job_plan(json_object *params, json_object *geometry,
		    json_object **out, int *status, char *why, size_t whylen)
{
	struct ingest_paper_fs paper;
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_READ };
	struct famfs_err e = { 0 };
	char fsname[128], dataset[4400], staging[4200] = "";
	long long next = 0;
	struct ingest_opts o = { 0 };
	struct ingest_sink sink = { 0 };
	struct ingest_manifest man = { 0 };
	struct ingest_plan plan;
	struct ingest_result res;
	struct ingest_progress prog;
	struct famfs_fs *fs = NULL;
	sqlite3 *db = NULL;
	char **paths = NULL;
	unsigned ndev = 0;
	json_object *v, *o_js;
	int r;

	*out = NULL;
	*status = 400;
	famfsd_lock();
	r = ingest_validate(params, why, whylen);
	if (!r && geometry)
		r = paper_of(geometry, &paper, why, whylen);
	/* on paper: the filesystem this name will have once made */
	if (!r && geometry)
		snprintf(fsname, sizeof(fsname), "%s",
			 ingest_str_param(params, "filesystem", "(new)"));
	else if (!r && (r = ingest_pick_filesystem(ingest_str_param(params, "filesystem", NULL),
					    fsname, sizeof(fsname), why, whylen)))
		*status = 404;
	if (!r && !geometry)
		next = refresh_staging(params, staging, sizeof(staging));
	if (!r && !geometry && (r = fs_device_paths(fsname, &paths, &ndev))) {
		snprintf(why, whylen, "filesystem %s: its devices: %s", fsname,
			 strerror(-r));
		*status = 409;
	}
	famfsd_unlock();
	if (r)
		return r;
	if (!geometry) {
		r = famfs_open((const char *const *)paths, ndev, &oo, &fs, &e);
		fs_paths_free(paths, ndev);
		if (r) {
			snprintf(why, whylen, "filesystem %s: %s", fsname, e.msg);
			*status = 409;
			return r;
		}
	}
	memset(&prog, 0, sizeof(prog));
	o.source = ingest_str_param(params, "source", NULL);
	o.dest = ingest_str_param(params, "dest", NULL);
	if (next)   /* a refresh: beside the generations that stay */
		o.dest = staging;
	o.plan_only = true;
	o.delete_removed = json_object_object_get_ex(params, "delete", &v) &&
			   json_object_get_boolean(v);
	const char *oc = ingest_str_param(params, "on_change", "keep");

	o.changed = !strcmp(oc, "replace") ? INGEST_CHANGED_REPLACE :
		    !strcmp(oc, "fail") ? INGEST_CHANGED_FAIL : INGEST_CHANGED_KEEP;
	if (geometry)
		ingest_sink_paper(&sink, &paper);
	else
		ingest_sink_lib(&sink, fs);
	snprintf(dataset, sizeof(dataset), "%s:%s", fsname, o.dest);
	*status = 500;
	/* a filesystem not made yet has no files: no manifest to ask */
	if (!geometry && (store_open_conn(famfsd.db_path, &db, why, whylen) ||
			  ingest_manifest_sqlite_attach(&man, db, dataset))) {
		if (!why[0])
			snprintf(why, whylen, "cannot open the manifest");
		r = -EIO;
		goto out;
	}
	*status = 409;
	if ((r = ingest_plan_build(o.source, o.dest, &plan, why, whylen)))
		goto out;
	if (!strcmp(ingest_str_param(params, "symlinks", "keep"), "skip"))
		ingest_plan_skip_symlinks(&plan);
	if (json_object_object_get_ex(params, "strict", &v) &&
	    json_object_get_boolean(v) &&
	    (r = ingest_skipped_refuse(&plan, why, whylen))) {
		ingest_plan_free(&plan);
		goto out;
	}
	r = ingest_run(&o, &plan, &sink, man.m ? &man : NULL, &prog, &res);
	if (r && r != -ENOSPC) {
		snprintf(why, whylen, "%s", res.message);
	} else {
		o_js = json_object_new_object();
		json_object_object_add(o_js, "fits", json_object_new_boolean(!r));
		json_object_object_add(o_js, "filesystem", json_object_new_string(fsname));
		json_object_object_add(o_js, "on_paper", json_object_new_boolean(geometry != NULL));
		json_object_object_add(o_js, "generation", next ?
				       json_object_new_int64(next) : NULL);
		json_object_object_add(o_js, "dest", json_object_new_string(o.dest));
		json_object_object_add(o_js, "files_to_copy",
				       json_object_new_int64((int64_t)res.plan_files));
		json_object_object_add(o_js, "bytes_to_copy",
				       json_object_new_int64((int64_t)res.plan_bytes));
		json_object_object_add(o_js, "files_already_there",
				       json_object_new_int64((int64_t)atomic_load(&prog.files_skipped)));
		if (r) {
			json_object *f = json_object_new_object();

			json_object_object_add(f, "path", json_object_new_string(res.plan_failed));
			json_object_object_add(f, "size",
					       json_object_new_int64((int64_t)res.plan_failed_size));
			json_object_object_add(o_js, "first_unplaced", f);
		} else {
			json_object_object_add(o_js, "first_unplaced", NULL);
		}
		json_object_object_add(o_js, "message",
				       json_object_new_string(r ? res.message : ""));
		*out = o_js;
		*status = 200;
		r = 0;
	}
	ingest_result_free(&res);
	ingest_plan_free(&plan);
out:
	if (man.m)
		ingest_manifest_sqlite_close(&man);
	if (db)
		store_close(db);
	if (fs)
		famfs_close(fs);
	return r;
}
