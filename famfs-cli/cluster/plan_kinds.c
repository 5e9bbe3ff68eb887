// SPDX-License-Identifier: Apache-2.0
/*
 * One function per kind of resource: what the file wants on host @h
 * against what that host's famfsd has. Objects famfsd cannot change in
 * place (devices, filesystems; a set except by growing) are conflicts
 * when they differ; a set given devices at the end grows (and its
 * filesystem with it); mounts are replaced (unmount, mount again); the
 * policy is updated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/plan_int.h"

/* ---- policy -------------------------------------------------------------- */

void plan_policy(struct planner *pl, size_t h)
{
	const struct cl_defaults *d = &pl->c->defaults;
	const struct st_policy *cur = &pl->hosts[h].policy;
	json_object *pol, *body;
	char detail[256] = "", a[32], b[32];
	size_t len = 0;
	struct plan_step *s;

#define CHANGE(...) \
	len += (size_t)snprintf(detail + len, sizeof(detail) - len, \
				"%s" __VA_ARGS__)
	if (!d->present)
		return;
	pol = json_object_new_object();
	if (d->has_chunk && d->chunk != cur->chunk) {
		jint(pol, "chunk", d->chunk);
		CHANGE("chunk %s -> %s", len ? ", " : "", sz(cur->chunk, a),
		       sz(d->chunk, b));
	}
	if (d->has_strips && d->strips != cur->strips && len < 200) {
		jint(pol, "strips", d->strips);
		CHANGE("strips %u -> %u", len ? ", " : "", cur->strips,
		       d->strips);
	}
	if (d->has_log_size && d->log_size != cur->log_size && len < 200) {
		jint(pol, "log_size", d->log_size);
		CHANGE("log size %s -> %s", len ? ", " : "",
		       sz(cur->log_size, a), sz(d->log_size, b));
	}
	if (d->has_mount_options && len < 200 &&
	    strcmp(d->mount_options, cur->mount_options ?
		   cur->mount_options : "")) {
		jstr(pol, "mount_options", d->mount_options);
		CHANGE("mount options '%s' -> '%s'", len ? ", " : "",
		       cur->mount_options ? cur->mount_options : "",
		       d->mount_options);
	}
#undef CHANGE
	if (!json_object_object_length(pol)) {
		json_object_put(pol);
		return;
	}
	body = json_object_new_object();
	json_object_object_add(body, "policy", pol);
	s = step(pl, PLAN_UPDATE, PK_POLICY, h, "defaults", false, "(%s)",
		 detail);
	call(pl, s, "PATCH", body, "/v1/host");
}

/* ---- devices ------------------------------------------------------------- */

/* The famfsd device that is file device @d on host @h, or NULL. */
static const struct st_device *actual_device(const struct host_state *hs,
					     const struct cl_device *d)
{
	const struct st_device *a = state_device(hs, d->name);

	if (a || d->kind == CL_DEV_EMUL)
		return a;
	if (d->dax && (a = state_device(hs, d->dax)))
		return a;
	if (d->pmem && (a = state_device(hs, d->pmem)))
		return a;
	if (d->region && (a = state_device(hs, d->region)))
		return a;
	return NULL;
}

/* The name host @h's famfsd knows file device or region @name by. */
static const char *actual_name(struct planner *pl, size_t h, const char *name)
{
	const struct cl_device *d = cluster_device(pl->c, name);
	const struct st_device *a = d ? actual_device(&pl->hosts[h], d) : NULL;

	return a ? a->name : name;
}

static void plan_emul(struct planner *pl, size_t h, const struct cl_device *d)
{
	const struct st_device *a = state_device(&pl->hosts[h], d->name);
	bool creator = device_creator(pl->c, d) == h;
	json_object *body;
	struct plan_step *s;
	char b1[32], b2[32], what[96];

	if (a) {
		if (!a->path || strcmp(a->path, d->path))
			conflict(pl, h, "device %s is %s, the file says %s: "
				 "famfsd cannot move a device (delete it first)",
				 d->name, a->path ? a->path : "(no path)",
				 d->path);
		else if (a->size && a->size != d->size)
			conflict(pl, h, "device %s has %s, the file says %s: "
				 "famfsd cannot resize a device", d->name,
				 sz(a->size, b1), sz(d->size, b2));
		return;
	}
	snprintf(what, sizeof(what), "device %s", d->name);
	if (plan_path_refused(pl, h, what, "paths.devices", d->path))
		return;
	body = json_object_new_object();
	jstr(body, "name", d->name);
	jstr(body, "provider", "emul");
	jstr(body, "path", d->path);
	if (creator) {
		jint(body, "size", d->size);
		s = step(pl, PLAN_CREATE, PK_DEVICE, h, d->name, false,
			 "(emul, %s, %s)", d->path, sz(d->size, b1));
	} else {
		s = step(pl, PLAN_CREATE, PK_DEVICE, h, d->name, true,
			 "(emul, adopt %s created by %s)", d->path,
			 pl->c->hosts[device_creator(pl->c, d)].name);
	}
	call(pl, s, "POST", body, "/v1/devices");
}

void plan_devices(struct planner *pl, size_t h)
{
	for (size_t i = 0; i < pl->c->ndevices; i++) {
		const struct cl_device *d = &pl->c->devices[i];
		const struct st_device *a;

		if (!device_on_host(pl->c, d, h))
			continue;
		if (d->kind == CL_DEV_EMUL) {
			plan_emul(pl, h, d);
			continue;
		}
		if (!pl->hosts[h].reachable)
			continue; /* discovered hardware: nothing to plan */
		a = actual_device(&pl->hosts[h], d);
		if (!a && d->has_serial && cluster_region(pl->c, d->name))
			continue;
		if (!a && !d->has_serial)
			conflict(pl, h, "cxl device %s (%s) is not among the "
				 "devices famfsd discovered", d->name,
				 d->dax ? d->dax : d->pmem ? d->pmem : d->region);
		else if (a && a->state && strcmp(a->state, "online"))
			conflict(pl, h, "device %s is %s%s%s", a->name,
				 a->state, a->reason && *a->reason ? ": " : "",
				 a->reason ? a->reason : "");
	}
}

static void list_add(char *buf, size_t len, const char *name);

/* POST /v1/regions for file region @r: its memdevs by serial number. */
static void plan_region_create(struct planner *pl, size_t h,
			       const struct cl_region *r)
{
	json_object *body = json_object_new_object();
	json_object *mds = json_object_new_array();
	char serials[256] = "", g[32];
	struct plan_step *s;

	for (size_t j = 0; j < r->memdevs.n; j++) {
		const struct cl_device *d = cluster_device(pl->c,
							   r->memdevs.v[j]);
		char one[40];

		snprintf(one, sizeof(one), "%llu", d && d->has_serial ?
			 (unsigned long long)d->serial : 0ULL);
		json_object_array_add(mds, json_object_new_string(one));
		list_add(serials, sizeof(serials), r->memdevs.v[j]);
	}
	jstr(body, "name", r->name);
	json_object_object_add(body, "memdevs", mds);
	jint(body, "ways", r->memdevs.n);
	if (r->granularity)
		jint(body, "granularity", r->granularity);
	if (r->align)
		jint(body, "align", r->align);
	s = step(pl, PLAN_CREATE, PK_REGION, h, r->name, false,
		 "(pmem over %s, %zu-way, granularity %s, fsdax)", serials,
		 r->memdevs.n, r->granularity ? sz(r->granularity, g) :
		 "default");
	call(pl, s, "POST", body, "/v1/regions");
}

void plan_regions(struct planner *pl, size_t h)
{
	for (size_t i = 0; i < pl->c->nregions; i++) {
		const struct cl_region *r = &pl->c->regions[i];
		const struct st_device *a;

		if (region_host(pl->c, r) != h)
			continue;
		a = state_device(&pl->hosts[h], r->name);
		if (!a)
			plan_region_create(pl, h, r);
		else if (!a->region)
			conflict(pl, h, "region %s: host %s has a device of "
				 "that name that is not a region famfsd made "
				 "(rename one of them)", r->name,
				 pl->c->hosts[h].name);
	}
}

/* ---- sets and filesystems ------------------------------------------------ */

/* The filesystem the file puts on set @set, or NULL. */
static const struct cl_filesystem *fs_on_set(const struct cluster *c,
					     const char *set)
{
	for (size_t i = 0; i < c->nfilesystems; i++)
		if (!strcmp(c->filesystems[i].set, set))
			return &c->filesystems[i];
	return NULL;
}

/* Append ", NAME" to a list being built in @buf. */
static void list_add(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);

	if (n + strlen(name) + 8 < len)
		snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
}

static bool member_available(struct planner *pl, size_t h, const char *name);

/* The set's devices are the file's first ones, in order. */
static bool same_prefix(struct planner *pl, size_t h, const struct cl_set *s,
			const struct st_set *a)
{
	if (a->ndevices > s->devices.n)
		return false;
	for (size_t i = 0; i < a->ndevices; i++)
		if (!a->devices[i] ||
		    strcmp(a->devices[i], actual_name(pl, h, s->devices.v[i])))
			return false;
	return true;
}

/*
 * A set that exists on @h with other devices than the file names. A set
 * only grows: the file's list must be the set's, in order, then new
 * devices (a grow step: PATCH with the whole list; the filesystem's
 * master appends the DEVICE_ADD entries, the other hosts follow). A
 * device left out or moved is a conflict naming exactly those devices.
 */
static void plan_set_grow(struct planner *pl, size_t h, const struct cl_set *s,
			  const struct st_set *a)
{
	const struct cl_filesystem *fs = fs_on_set(pl->c, s->name);
	char gone[512] = "", added[512] = "";
	json_object *body, *devs;
	struct plan_step *st;

	for (size_t i = 0; i < a->ndevices; i++) {
		bool kept = false;

		for (size_t j = 0; j < s->devices.n && !kept; j++)
			kept = a->devices[i] && !strcmp(a->devices[i],
					actual_name(pl, h, s->devices.v[j]));
		if (!kept)
			list_add(gone, sizeof(gone), a->devices[i] ?
				 a->devices[i] : "?");
	}
	if (*gone) {
		conflict(pl, h, "set %s has %s, which the file leaves out: a set "
			 "cannot shrink (%s)", s->name, gone, fs ?
			 "a device never leaves the filesystem on it" :
			 "delete it and create it again");
		return;
	}
	for (size_t i = 0; i < a->ndevices; i++) {
		const char *want = actual_name(pl, h, s->devices.v[i]);
		char one[200];

		if (strcmp(a->devices[i], want)) {
			snprintf(one, sizeof(one), "device %zu %s, the file puts "
				 "%s there", i, a->devices[i], want);
			list_add(gone, sizeof(gone), one);
		}
	}
	if (*gone) {
		conflict(pl, h, "set %s has %s: devices keep their order, new "
			 "ones go at the end", s->name, gone);
		return;
	}
	for (size_t i = a->ndevices; i < s->devices.n; i++) {
		if (!member_available(pl, h, s->devices.v[i]))
			return; /* waits for that device: see its conflict */
		list_add(added, sizeof(added), s->devices.v[i]);
	}
	body = json_object_new_object();
	devs = json_object_new_array();
	for (size_t i = 0; i < s->devices.n; i++)
		json_object_array_add(devs, json_object_new_string(
			actual_name(pl, h, s->devices.v[i])));
	json_object_object_add(body, "devices", devs);
	st = step(pl, PLAN_UPDATE, PK_SET, h, s->name,
		  fs && host_index(pl->c, fs->master) != h,
		  "(grow by %s%s)", added, !fs ? "" :
		  host_index(pl->c, fs->master) == h ?
		  "; the master adds them to the filesystem online" :
		  "; after the master, mounts here follow");
	call(pl, st, "PATCH", body, "/v1/interleave-sets/%s", s->name);
}

/* Whether host @h has (or this plan creates) set member @name: emulated
 * devices are created; CXL devices and regions must be there already
 * (their absence is a conflict reported by plan_devices/plan_regions).
 */
static bool member_available(struct planner *pl, size_t h, const char *name)
{
	const struct cl_device *d = cluster_device(pl->c, name);

	if (!pl->hosts[h].reachable)
		return true;
	if (d)
		return d->kind == CL_DEV_EMUL ||
		       actual_device(&pl->hosts[h], d) != NULL;
	/* a region this plan creates on @h */
	if (cluster_region(pl->c, name) &&
	    region_host(pl->c, cluster_region(pl->c, name)) == h)
		return true;
	return state_device(&pl->hosts[h], name) != NULL;
}

void plan_sets(struct planner *pl, size_t h)
{
	for (size_t i = 0; i < pl->c->nsets; i++) {
		const struct cl_set *s = &pl->c->sets[i];
		const struct st_set *a = state_set(&pl->hosts[h], s->name);
		json_object *body, *devs;
		struct plan_step *st;
		char b1[32], b2[32];
		size_t j;

		if (!set_on_host(pl->c, s, h))
			continue;
		if (a) {
			if (s->chunk && a->chunk != s->chunk)
				conflict(pl, h, "set %s has chunk %s, the file "
					 "says %s", s->name, sz(a->chunk, b1),
					 sz(s->chunk, b2));
			else if (s->strips && a->strips != s->strips)
				conflict(pl, h, "set %s has %u strips, the file "
					 "says %u", s->name, a->strips, s->strips);
			else if (a->ndevices != s->devices.n ||
				 !same_prefix(pl, h, s, a))
				plan_set_grow(pl, h, s, a);
			continue;
		}
		for (j = 0; j < s->devices.n; j++)
			if (!member_available(pl, h, s->devices.v[j]))
				break;
		if (j < s->devices.n)
			continue; /* waits for that device: see the conflict */
		body = json_object_new_object();
		devs = json_object_new_array();
		jstr(body, "name", s->name);
		for (j = 0; j < s->devices.n; j++)
			json_object_array_add(devs, json_object_new_string(
				actual_name(pl, h, s->devices.v[j])));
		json_object_object_add(body, "devices", devs);
		if (s->chunk)
			jint(body, "chunk", s->chunk);
		if (s->strips)
			jint(body, "strips", s->strips);
		st = step(pl, PLAN_CREATE, PK_SET, h, s->name, false,
			  "(%zu device%s, chunk %s, %s strips)", s->devices.n,
			  s->devices.n == 1 ? "" : "s",
			  s->chunk ? sz(s->chunk, b1) : "default",
			  s->strips ? (snprintf(b2, 32, "%u", s->strips), b2) :
			  "default");
		call(pl, st, "POST", body, "/v1/interleave-sets");
	}
}

void plan_filesystems(struct planner *pl, size_t h)
{
	for (size_t i = 0; i < pl->c->nfilesystems; i++) {
		const struct cl_filesystem *fs = &pl->c->filesystems[i];
		const struct st_filesystem *a =
			state_filesystem(&pl->hosts[h], fs->name);
		bool master = host_index(pl->c, fs->master) == h;
		json_object *body;
		struct plan_step *st;
		char b1[32], b2[32];

		if (!fs_on_host(pl->c, fs, h))
			continue;
		if (a) {
			if (!a->set || strcmp(a->set, fs->set))
				conflict(pl, h, "filesystem %s is on set %s, the "
					 "file says %s", fs->name,
					 a->set ? a->set : "?", fs->set);
			else if (a->master && strcmp(a->master, fs->master))
				conflict(pl, h, "filesystem %s has master %s, "
					 "the file says %s", fs->name, a->master,
					 fs->master);
			else if (master && fs->log_size &&
				 a->log_size != fs->log_size)
				conflict(pl, h, "filesystem %s has a %s log, the "
					 "file says %s (a new log size needs a "
					 "new mkfs)", fs->name,
					 sz(a->log_size, b1), sz(fs->log_size, b2));
			continue;
		}
		body = json_object_new_object();
		jstr(body, "name", fs->name);
		jstr(body, "set", fs->set);
		if (master) {
			jstr(body, "master", fs->master);
			if (fs->log_size)
				jint(body, "log_size", fs->log_size);
			st = step(pl, PLAN_CREATE, PK_FILESYSTEM, h, fs->name,
				  false, "(mkfs on set %s, log %s)", fs->set,
				  fs->log_size ? sz(fs->log_size, b1) :
				  "default");
		} else {
			json_object_object_add(body, "adopt",
					       json_object_new_boolean(true));
			st = step(pl, PLAN_CREATE, PK_FILESYSTEM, h, fs->name,
				  true, "(adopt on set %s, formatted by %s)",
				  fs->set, fs->master);
		}
		call(pl, st, "POST", body, "/v1/filesystems");
	}
}

/* ---- mounts and datasets ------------------------------------------------- */

static const char *role_name(enum cl_role r)
{
	return r == CL_ROLE_MASTER ? "master" : "client";
}

static json_object *mount_body(const struct cl_mount *m)
{
	json_object *body = json_object_new_object();

	jstr(body, "name", m->name);
	jstr(body, "filesystem", m->filesystem);
	jstr(body, "path", m->path);
	jstr(body, "role", role_name(m->role));
	if (m->options)
		jstr(body, "options", m->options);
	if (m->backend)
		jstr(body, "backend", m->backend);
	return body;
}

void plan_mounts(struct planner *pl, size_t h)
{
	for (size_t i = 0; i < pl->c->nmounts; i++) {
		const struct cl_mount *m = &pl->c->mounts[i];
		const struct st_mount *a = state_mount(&pl->hosts[h], m->name);
		struct plan_step *st;
		char why[512];

		if (host_index(pl->c, m->host) != h)
			continue;
		if (!a) {
			snprintf(why, sizeof(why), "mount %s", m->name);
			if (plan_path_refused(pl, h, why, "paths.mounts",
					      m->path))
				continue;
			st = step(pl, PLAN_CREATE, PK_MOUNT, h, m->name,
				  m->role != CL_ROLE_MASTER, "(%s on %s, %s)",
				  m->filesystem, m->path, role_name(m->role));
			call(pl, st, "POST", mount_body(m), "/v1/mounts");
			continue;
		}
		if (!a->filesystem || strcmp(a->filesystem, m->filesystem))
			snprintf(why, sizeof(why), "filesystem %s -> %s",
				 a->filesystem ? a->filesystem : "?",
				 m->filesystem);
		else if (!a->path || strcmp(a->path, m->path))
			snprintf(why, sizeof(why), "path %s -> %s",
				 a->path ? a->path : "?", m->path);
		else if (!a->role || strcmp(a->role, role_name(m->role)))
			snprintf(why, sizeof(why), "role %s -> %s",
				 a->role ? a->role : "?", role_name(m->role));
		else if (m->options && strcmp(a->options ? a->options : "",
					      m->options))
			snprintf(why, sizeof(why), "options '%s' -> '%s'",
				 a->options ? a->options : "", m->options);
		else if (m->backend && strcmp(a->backend ? a->backend : "",
					      m->backend))
			snprintf(why, sizeof(why), "backend %s -> %s",
				 a->backend ? a->backend : "?", m->backend);
		else {
			/* as the file says; famfsd supervises it: just tell */
			if (a->state && !strcmp(a->state, "failed"))
				note(pl, h, "mount %s is failed (famfsd keeps "
				     "restarting it): %s", m->name,
				     a->last_error && *a->last_error ?
				     a->last_error : "no error recorded");
			continue;
		}
		st = step(pl, PLAN_UPDATE, PK_MOUNT, h, m->name,
			  m->role != CL_ROLE_MASTER, "(%s: unmount and mount "
			  "again)", why);
		call(pl, st, "DELETE", NULL, "/v1/mounts/%s", m->name);
		call(pl, st, "POST", mount_body(m), "/v1/mounts");
	}
}

/* ---- prune ----------------------------------------------------------------- */

static bool device_wanted(const struct cluster *c, const char *name, size_t h)
{
	const struct cl_device *d = cluster_device(c, name);

	return d && device_on_host(c, d, h);
}

/* A resource the host has and the file does not name: kept, and named in
 * the note (what --prune would delete).
 */
static void unmanaged(struct planner *pl, size_t h, enum plan_kind kind,
		      const char *name)
{
	struct plan *p = pl->p;
	char **v = realloc(p->unmanaged_names,
			   (p->unmanaged + 1) * sizeof(*v));

	if (!v) {
		pl->err = -ENOMEM;
		return;
	}
	p->unmanaged_names = v;
	if (asprintf(&v[p->unmanaged], "%s %s on %s", plan_kind_name(kind),
		     name ? name : "?", pl->c->hosts[h].name) < 0) {
		pl->err = -ENOMEM;
		return;
	}
	p->unmanaged++;
}

/*
 * A dataset famfsd has and the file does not name: with --prune a
 * "dataset_delete" job removes its trees (the one that serves, the kept
 * generations) and famfsd forgets it. One whose filesystem goes too (or
 * is not this host's) goes with it: no step of its own.
 */
static void prune_dataset(struct planner *pl, size_t h,
			  const struct st_dataset *a)
{
	const struct cluster *c = pl->c;
	const struct cl_filesystem *fs = a->filesystem ?
		cluster_filesystem(c, a->filesystem) : NULL;
	json_object *body, *params;
	struct plan_step *st;

	for (size_t i = 0; i < c->ndatasets; i++)
		if (!strcmp(c->datasets[i].name, a->name))
			return;
	if (!fs || !fs_on_host(c, fs, h) || host_index(c, fs->master) != h)
		return;
	if (!pl->o->prune) {
		unmanaged(pl, h, PK_DATASET, a->name);
		return;
	}
	if (a->state && (!strcmp(a->state, "ingesting") ||
			 !strcmp(a->state, "refreshing"))) {
		note(pl, h, "dataset %s is %s (job %lld): --prune deletes it once "
		     "that job ends", a->name, a->state, a->job);
		return;
	}
	st = step(pl, PLAN_DELETE, PK_DATASET, h, a->name, false,
		  "(%s:%s, generation %lld and the kept ones: trees removed)",
		  a->filesystem, a->dest ? a->dest : "?", a->generation);
	body = json_object_new_object();
	params = json_object_new_object();
	jstr(body, "kind", "dataset_delete");
	jstr(params, "dataset", a->name);
	json_object_object_add(body, "params", params);
	call(pl, st, "POST", body, "/v1/jobs");
}

void plan_prune(struct planner *pl, size_t h)
{
	const struct host_state *hs = &pl->hosts[h];
	const struct cluster *c = pl->c;
	bool prune = pl->o->prune, wipe, all_read = true;
	struct plan_step *st;

	for (size_t i = 0; i < c->nhosts; i++)
		all_read &= pl->hosts[i].reachable;

	for (size_t i = 0; i < hs->ndatasets; i++)
		prune_dataset(pl, h, &hs->datasets[i]);
	for (size_t i = 0; i < hs->nmounts; i++) {
		const struct st_mount *a = &hs->mounts[i];

		if (mount_on_host(c, a->name, h))
			continue;
		if (!prune) {
			unmanaged(pl, h, PK_MOUNT, a->name);
			continue;
		}
		st = step(pl, PLAN_DELETE, PK_MOUNT, h, a->name, false,
			  "(%s on %s: unmount)", a->filesystem ? a->filesystem :
			  "?", a->path ? a->path : "?");
		call(pl, st, "DELETE", NULL, "/v1/mounts/%s", a->name);
	}
	for (size_t i = 0; i < hs->nfilesystems; i++) {
		const struct st_filesystem *a = &hs->filesystems[i];
		const struct cl_filesystem *fs = cluster_filesystem(c, a->name);

		if (fs && fs_on_host(c, fs, h))
			continue;
		if (!prune) {
			unmanaged(pl, h, PK_FILESYSTEM, a->name);
			continue;
		}
		if (a->files && !pl->o->force_delete_data) {
			conflict(pl, h, "--prune would delete filesystem %s, "
				 "which is not empty (%llu files and directories); "
				 "refusing without --force-delete-data", a->name,
				 (unsigned long long)a->files);
			continue;
		}
		/* its master wipes what its mkfs wrote, so that the same
		 * file applied again formats it anew; the others forget it
		 */
		wipe = a->master && !strcmp(a->master, c->hosts[h].name);
		st = step(pl, PLAN_DELETE, PK_FILESYSTEM, h, a->name, false,
			  "(on set %s, %llu files%s)", a->set ? a->set : "?",
			  (unsigned long long)a->files,
			  wipe ? ": superblock wiped" : ": forgotten");
		call(pl, st, "DELETE", NULL, "/v1/filesystems/%s%s", a->name,
		     wipe ? "?wipe=1" : "");
	}
	for (size_t i = 0; i < hs->nsets; i++) {
		const struct st_set *a = &hs->sets[i];
		const struct cl_set *s = cluster_set(c, a->name);

		if (s && set_on_host(c, s, h))
			continue;
		if (!prune) {
			unmanaged(pl, h, PK_SET, a->name);
			continue;
		}
		st = step(pl, PLAN_DELETE, PK_SET, h, a->name, false,
			  "(%zu devices)", a->ndevices);
		call(pl, st, "DELETE", NULL, "/v1/interleave-sets/%s", a->name);
	}
	for (size_t i = 0; i < hs->ndevices; i++) {
		const struct st_device *a = &hs->devices[i];
		const struct cl_region *r = cluster_region(c, a->name);

		/* a region famfsd made goes with its device */
		if (!a->region || (r && region_host(c, r) == h))
			continue;
		if (!prune) {
			unmanaged(pl, h, PK_REGION, a->name);
			continue;
		}
		st = step(pl, PLAN_DELETE, PK_REGION, h, a->name, false,
			  "(%s, %s: namespace and region removed)", a->region,
			  a->path ? a->path : "?");
		call(pl, st, "DELETE", NULL, "/v1/regions/%s", a->name);
	}
	for (size_t i = 0; i < hs->ndevices; i++) {
		const struct st_device *a = &hs->devices[i];

		/* discovered hardware is not the file's to delete */
		if (!a->provider || strcmp(a->provider, "emul") ||
		    device_wanted(c, a->name, h))
			continue;
		if (!prune) {
			unmanaged(pl, h, PK_DEVICE, a->name);
			continue;
		}
		/* the file goes too, unless a host that may still use it
		 * could not be read
		 */
		st = step(pl, PLAN_DELETE, PK_DEVICE, h, a->name, false,
			  "(emul %s: %s)", a->path ? a->path : "?", all_read ?
			  "file removed" : "forgotten, the file is kept while "
			  "a host cannot be read");
		call(pl, st, "DELETE", NULL, "/v1/devices/%s%s", a->name,
		     all_read ? "?destroy=1" : "");
	}
}
