// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/state.h"

const char *const state_paths[ST_NBODIES] = {
	[ST_HOST] = "/v1/host",
	[ST_DEVICES] = "/v1/devices",
	[ST_SETS] = "/v1/interleave-sets",
	[ST_FILESYSTEMS] = "/v1/filesystems",
	[ST_MOUNTS] = "/v1/mounts",
	[ST_JOBS] = "/v1/jobs",
	[ST_DATASETS] = "/v1/datasets?drift=true",
};

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static uint64_t u64(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

static json_object *arr(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

static json_object *obj(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

/* The "items" array of a list body; NULL if @o is NULL, or -1 if wrong. */
static int items(json_object *o, json_object **arr)
{
	*arr = NULL;
	if (!o)
		return 0;
	if (!json_object_object_get_ex(o, "items", arr) ||
	    !json_object_is_type(*arr, json_type_array))
		return -1;
	return 0;
}

#define ALLOC_ITEMS(s, arr, field, count)                                     \
	({                                                                    \
		size_t n_ = (arr) ? json_object_array_length(arr) : 0;        \
		(s)->field = calloc(n_ + 1, sizeof(*(s)->field));             \
		(s)->count = n_;                                              \
		(s)->field ? 0 : -ENOMEM;                                     \
	})

static int parse_devices(struct host_state *s, json_object *arr)
{
	if (ALLOC_ITEMS(s, arr, devices, ndevices))
		return -ENOMEM;
	for (size_t i = 0; i < s->ndevices; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct st_device *d = &s->devices[i];

		d->name = str(o, "name");
		d->provider = str(o, "provider");
		d->path = str(o, "path");
		d->set = str(o, "set");
		d->state = str(o, "state");
		d->reason = str(o, "reason");
		d->region = str(o, "region");
		d->size = u64(o, "size");
		d->details = obj(o, "details");
		if (!d->name)
			return -EINVAL;
	}
	return 0;
}

static int parse_sets(struct host_state *s, json_object *arr)
{
	if (ALLOC_ITEMS(s, arr, sets, nsets))
		return -ENOMEM;
	for (size_t i = 0; i < s->nsets; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *devs;
		struct st_set *st = &s->sets[i];

		st->name = str(o, "name");
		st->filesystem = str(o, "filesystem");
		st->chunk = u64(o, "chunk");
		st->strips = (unsigned)u64(o, "strips");
		if (!st->name || !json_object_object_get_ex(o, "devices", &devs) ||
		    !json_object_is_type(devs, json_type_array))
			return -EINVAL;
		st->ndevices = json_object_array_length(devs);
		st->devices = calloc(st->ndevices + 1, sizeof(*st->devices));
		if (!st->devices)
			return -ENOMEM;
		for (size_t j = 0; j < st->ndevices; j++)
			st->devices[j] = json_object_get_string(
				json_object_array_get_idx(devs, j));
	}
	return 0;
}

static int parse_filesystems(struct host_state *s, json_object *arr)
{
	if (ALLOC_ITEMS(s, arr, filesystems, nfilesystems))
		return -ENOMEM;
	for (size_t i = 0; i < s->nfilesystems; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		json_object *space = obj(o, "space");
		struct st_filesystem *f = &s->filesystems[i];

		f->name = str(o, "name");
		f->set = str(o, "set");
		f->master = str(o, "master");
		f->log_size = u64(o, "log_size");
		f->created = str(o, "created");
		f->has_space = space != NULL;
		f->files = u64(space, "files") + u64(space, "dirs");
		f->free_bytes = u64(space, "free");
		f->largest_file = u64(space, "largest_file");
		if (!f->name)
			return -EINVAL;
	}
	return 0;
}

static int parse_mounts(struct host_state *s, json_object *arr)
{
	if (ALLOC_ITEMS(s, arr, mounts, nmounts))
		return -ENOMEM;
	for (size_t i = 0; i < s->nmounts; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct st_mount *m = &s->mounts[i];

		m->name = str(o, "name");
		m->filesystem = str(o, "filesystem");
		m->path = str(o, "path");
		m->role = str(o, "role");
		m->options = str(o, "options");
		m->backend = str(o, "backend");
		m->state = str(o, "state");
		m->last_error = str(o, "last_error");
		if (!m->name)
			return -EINVAL;
	}
	return 0;
}

static int parse_jobs(struct host_state *s, json_object *arr)
{
	if (ALLOC_ITEMS(s, arr, jobs, njobs))
		return -ENOMEM;
	for (size_t i = 0; i < s->njobs; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		json_object *params = obj(o, "params");
		struct st_job *j = &s->jobs[i];

		j->id = (long)u64(o, "id");
		j->kind = str(o, "kind");
		j->state = str(o, "state");
		j->filesystem = str(params, "filesystem");
		j->source = str(params, "source");
		j->dest = str(params, "dest");
		j->dataset = str(params, "dataset");
		j->created = str(o, "created");
		j->bytes_done = u64(obj(o, "progress"), "bytes_done");
		j->bytes_total = u64(obj(o, "progress"), "bytes_total");
		j->files_done = u64(obj(o, "progress"), "files_done");
		j->files_total = u64(obj(o, "progress"), "files_total");
	}
	return 0;
}

static int parse_datasets(struct host_state *s, json_object *arr)
{
	if (ALLOC_ITEMS(s, arr, datasets, ndatasets))
		return -ENOMEM;
	for (size_t i = 0; i < s->ndatasets; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		json_object *drift = obj(o, "drift"), *v;
		struct st_dataset *d = &s->datasets[i];

		d->name = str(o, "name");
		d->filesystem = str(o, "filesystem");
		d->source = str(o, "source");
		d->dest = str(o, "dest");
		d->state = str(o, "state");
		d->last_error = str(o, "last_error");
		d->created = str(o, "created");
		d->generation = (long long)u64(o, "generation");
		d->job = (long long)u64(o, "job");
		d->files = u64(o, "files");
		d->bytes = u64(o, "bytes");
		d->drift_error = drift ? str(drift, "error") : "not asked";
		d->drift_changed = drift && json_object_object_get_ex(drift,
			"changed", &v) && json_object_get_boolean(v);
		d->added = u64(drift, "added");
		d->changed = u64(drift, "changed_entries");
		d->removed = u64(drift, "removed");
		d->bytes_delta = drift && json_object_object_get_ex(drift,
			"bytes_delta", &v) ? json_object_get_int64(v) : 0;
		if (!d->name || !d->state)
			return -EINVAL;
	}
	return 0;
}

int state_parse(struct host_state *s, json_object *bodies[ST_NBODIES])
{
	static int (*const parsers[ST_NBODIES])(struct host_state *,
						 json_object *) = {
		[ST_DEVICES] = parse_devices, [ST_SETS] = parse_sets,
		[ST_FILESYSTEMS] = parse_filesystems,
		[ST_MOUNTS] = parse_mounts, [ST_JOBS] = parse_jobs,
		[ST_DATASETS] = parse_datasets,
	};
	json_object *host, *policy;

	for (int i = 0; i < ST_NBODIES; i++) {
		s->bodies[i] = bodies[i];
		bodies[i] = NULL;
	}
	host = s->bodies[ST_HOST];
	s->name = str(host, "name");
	policy = obj(host, "policy");
	s->policy.chunk = u64(policy, "chunk");
	s->policy.strips = (unsigned)u64(policy, "strips");
	s->policy.log_size = u64(policy, "log_size");
	s->policy.mount_options = str(policy, "mount_options");
	s->allowed_devices = arr(obj(host, "paths"), "devices");
	s->allowed_mounts = arr(obj(host, "paths"), "mounts");
	s->allowed_sources = arr(obj(host, "paths"), "sources");
	s->system_dirs = arr(obj(host, "paths"), "system");
	for (int i = ST_DEVICES; i < ST_NBODIES; i++) {
		json_object *arr;
		int r = items(s->bodies[i], &arr);

		if (!r)
			r = parsers[i](s, arr);
		if (r < 0) {
			free(s->error);
			if (asprintf(&s->error, "GET %s: unexpected answer "
				     "(not the shape docs/api.md documents)",
				     state_paths[i]) < 0)
				s->error = NULL;
			return r == -ENOMEM ? -ENOMEM : -EINVAL;
		}
	}
	return 0;
}

void state_clear(struct host_state *s)
{
	for (size_t i = 0; s->sets && i < s->nsets; i++)
		free(s->sets[i].devices);
	free(s->devices);
	free(s->sets);
	free(s->filesystems);
	free(s->mounts);
	free(s->jobs);
	free(s->datasets);
	free(s->error);
	for (int i = 0; i < ST_NBODIES; i++)
		json_object_put(s->bodies[i]);
	memset(s, 0, sizeof(*s));
}

#define STATE_LOOKUP(fn, type, arr, n)                                        \
	const type *fn(const struct host_state *s, const char *name)          \
	{                                                                     \
		for (size_t i = 0; name && i < s->n; i++)                     \
			if (s->arr[i].name && !strcmp(s->arr[i].name, name))  \
				return &s->arr[i];                            \
		return NULL;                                                  \
	}

STATE_LOOKUP(state_device, struct st_device, devices, ndevices)
STATE_LOOKUP(state_set, struct st_set, sets, nsets)
STATE_LOOKUP(state_filesystem, struct st_filesystem, filesystems, nfilesystems)
STATE_LOOKUP(state_mount, struct st_mount, mounts, nmounts)
STATE_LOOKUP(state_dataset, struct st_dataset, datasets, ndatasets)
