// SPDX-License-Identifier: Apache-2.0
/*
 * plan_build(): the file against each famfsd's state. See plan.h for the
 * order. Which host holds what: a filesystem lives on its master and on
 * every host that mounts it; its set and devices go with it; a set or
 * device no filesystem uses lives on the first master host ("home").
 */
#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "cluster/plan_int.h"

size_t home_host(const struct cluster *c)
{
	for (size_t i = 0; i < c->nhosts; i++)
		if (c->hosts[i].role == CL_ROLE_MASTER)
			return i;
	return 0;
}

size_t host_index(const struct cluster *c, const char *name)
{
	const struct cl_host *h = cluster_host(c, name);

	return h ? (size_t)(h - c->hosts) : home_host(c);
}

bool fs_on_host(const struct cluster *c, const struct cl_filesystem *fs,
		       size_t h)
{
	if (host_index(c, fs->master) == h)
		return true;
	for (size_t i = 0; i < c->nmounts; i++)
		if (!strcmp(c->mounts[i].filesystem, fs->name) &&
		    host_index(c, c->mounts[i].host) == h)
			return true;
	return false;
}

static const struct cl_filesystem *fs_of_set(const struct cluster *c,
					     const char *set)
{
	for (size_t i = 0; i < c->nfilesystems; i++)
		if (!strcmp(c->filesystems[i].set, set))
			return &c->filesystems[i];
	return NULL;
}

bool set_on_host(const struct cluster *c, const struct cl_set *s,
			size_t h)
{
	const struct cl_filesystem *fs = fs_of_set(c, s->name);

	return fs ? fs_on_host(c, fs, h) : h == home_host(c);
}

static const struct cl_set *set_of_device(const struct cluster *c,
					  const char *dev)
{
	for (size_t i = 0; i < c->nsets; i++)
		for (size_t j = 0; j < c->sets[i].devices.n; j++)
			if (!strcmp(c->sets[i].devices.v[j], dev))
				return &c->sets[i];
	return NULL;
}

static const struct cl_region *region_of_memdev(const struct cluster *c,
						const char *dev)
{
	for (size_t i = 0; i < c->nregions; i++)
		for (size_t j = 0; j < c->regions[i].memdevs.n; j++)
			if (!strcmp(c->regions[i].memdevs.v[j], dev))
				return &c->regions[i];
	return NULL;
}

size_t region_host(const struct cluster *c, const struct cl_region *r)
{
	return r->host ? host_index(c, r->host) : home_host(c);
}

bool device_on_host(const struct cluster *c, const struct cl_device *d,
			   size_t h)
{
	const struct cl_set *s = set_of_device(c, d->name);
	const struct cl_region *r = region_of_memdev(c, d->name);

	if (s)
		return set_on_host(c, s, h);
	if (r)
		return region_host(c, r) == h;
	return h == home_host(c);
}

/* The host that creates an emulated device: its filesystem's master, or
 * the first host that has it. The others adopt the file.
 */
size_t device_creator(const struct cluster *c, const struct cl_device *d)
{
	const struct cl_set *s = set_of_device(c, d->name);
	const struct cl_filesystem *fs = s ? fs_of_set(c, s->name) : NULL;

	if (fs)
		return host_index(c, fs->master);
	for (size_t h = 0; h < c->nhosts; h++)
		if (device_on_host(c, d, h))
			return h;
	return home_host(c);
}

bool mount_on_host(const struct cluster *c, const char *name, size_t h)
{
	for (size_t i = 0; i < c->nmounts; i++)
		if (!strcmp(c->mounts[i].name, name) &&
		    host_index(c, c->mounts[i].host) == h)
			return true;
	return false;
}

/* ---- building steps ------------------------------------------------------ */

static void add_line(struct planner *pl, char ***v, size_t *n, size_t h,
		     const char *fmt, va_list ap)
{
	char *msg, *line, **nv;
	int r = vasprintf(&msg, fmt, ap);

	if (r < 0) {
		pl->err = -ENOMEM;
		return;
	}
	r = asprintf(&line, "host %s: %s", pl->c->hosts[h].name, msg);
	free(msg);
	nv = r < 0 ? NULL : realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv) {
		if (r >= 0)
			free(line);
		pl->err = -ENOMEM;
		return;
	}
	*v = nv;
	(*v)[(*n)++] = line;
}

void conflict(struct planner *pl, size_t h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(pl, &pl->p->conflicts, &pl->p->nconflicts, h, fmt, ap);
	va_end(ap);
}

void note(struct planner *pl, size_t h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(pl, &pl->p->notes, &pl->p->nnotes, h, fmt, ap);
	va_end(ap);
}

int plan_add_conflict(struct plan *p, const struct cluster *c, size_t h,
		      const char *fmt, ...)
{
	struct planner pl = { .c = c, .p = p };
	va_list ap;

	va_start(ap, fmt);
	add_line(&pl, &p->conflicts, &p->nconflicts, h, fmt, ap);
	va_end(ap);
	return pl.err;
}

int plan_add_note(struct plan *p, const struct cluster *c, size_t h,
		  const char *fmt, ...)
{
	struct planner pl = { .c = c, .p = p };
	va_list ap;

	va_start(ap, fmt);
	add_line(&pl, &p->notes, &p->nnotes, h, fmt, ap);
	va_end(ap);
	return pl.err;
}

struct plan_step *step(struct planner *pl, enum plan_op op,
		       enum plan_kind kind, size_t h, const char *name,
		       bool adopt, const char *fmt, ...)
{
	struct plan *p = pl->p;
	struct plan_step *s;
	va_list ap;
	int r;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct plan_step *v = realloc(p->steps, cap * sizeof(*v));

		if (!v) {
			pl->err = -ENOMEM;
			return NULL;
		}
		p->steps = v;
		p->cap = cap;
	}
	s = &p->steps[p->n];
	memset(s, 0, sizeof(*s));
	s->op = op;
	s->kind = kind;
	s->host = h;
	s->adopt = adopt;
	s->seq = p->n;
	s->name = strdup(name);
	va_start(ap, fmt);
	r = vasprintf(&s->detail, fmt, ap);
	va_end(ap);
	if (r < 0)
		s->detail = NULL;
	if (!s->name || !s->detail) {
		free(s->name);
		free(s->detail);
		pl->err = -ENOMEM;
		return NULL;
	}
	p->n++;
	return s;
}

void call(struct planner *pl, struct plan_step *s, const char *method,
	  json_object *body, const char *fmt, ...)
{
	struct plan_call *cl;
	va_list ap;
	int r;

	if (!s) {
		json_object_put(body);
		return;
	}
	cl = &s->calls[s->ncalls++];
	cl->method = method;
	cl->body = body;
	va_start(ap, fmt);
	r = vasprintf(&cl->path, fmt, ap);
	va_end(ap);
	if (r < 0) {
		cl->path = NULL;
		pl->err = -ENOMEM;
	}
}

void jstr(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

void jint(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

const char *sz(uint64_t v, char *buf)
{
	return famfs_format_size(v, FAMFS_SIZE_EXACT, buf, 32);
}


/* ---- order --------------------------------------------------------------- */

static int step_cmp(const void *a, const void *b)
{
	const struct plan_step *x = a, *y = b;
	int px = x->op != PLAN_DELETE, py = y->op != PLAN_DELETE;
	int kx = px ? (int)x->kind : PK_COUNT - (int)x->kind;
	int ky = py ? (int)y->kind : PK_COUNT - (int)y->kind;

	if (px != py)
		return px - py;
	if (kx != ky)
		return kx - ky;
	if (x->adopt != y->adopt)
		return x->adopt - y->adopt;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- hosts that could not be read ----------------------------------------- */

static void unknown(struct planner *pl, size_t h, enum plan_kind kind,
		    const char *name)
{
	struct plan *p = pl->p;
	struct plan_unknown *v = realloc(p->unknown,
					 (p->nunknown + 1) * sizeof(*v));

	if (!v || !(name = strdup(name))) {
		if (v)
			p->unknown = v;
		pl->err = -ENOMEM;
		return;
	}
	p->unknown = v;
	v[p->nunknown++] = (struct plan_unknown){ h, kind, (char *)name };
}

static void unreadable_line(struct planner *pl, size_t h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void unreadable_line(struct planner *pl, size_t h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(pl, &pl->p->unreadable, &pl->p->nunreadable, h, fmt, ap);
	va_end(ap);
}

/* Nothing is known of host @h: list what the file puts there, plan none. */
static void plan_unreadable(struct planner *pl, size_t h)
{
	const struct cluster *c = pl->c;
	const char *why = pl->hosts[h].error;
	size_t *v = realloc(pl->p->unreadable_host,
			    (pl->p->nunreadable + 1) * sizeof(*v));

	if (!v) {
		pl->err = -ENOMEM;
		return;
	}
	pl->p->unreadable_host = v;
	v[pl->p->nunreadable] = h;
	unreadable_line(pl, h, "%s", why ? why : "cannot be read");
	if (c->defaults.present)
		unknown(pl, h, PK_POLICY, "defaults");
	for (size_t i = 0; i < c->ndevices; i++)
		if (device_on_host(c, &c->devices[i], h))
			unknown(pl, h, PK_DEVICE, c->devices[i].name);
	for (size_t i = 0; i < c->nregions; i++)
		if (region_host(c, &c->regions[i]) == h)
			unknown(pl, h, PK_REGION, c->regions[i].name);
	for (size_t i = 0; i < c->nsets; i++)
		if (set_on_host(c, &c->sets[i], h))
			unknown(pl, h, PK_SET, c->sets[i].name);
	for (size_t i = 0; i < c->nfilesystems; i++)
		if (fs_on_host(c, &c->filesystems[i], h))
			unknown(pl, h, PK_FILESYSTEM, c->filesystems[i].name);
	for (size_t i = 0; i < c->nmounts; i++)
		if (host_index(c, c->mounts[i].host) == h)
			unknown(pl, h, PK_MOUNT, c->mounts[i].name);
	for (size_t i = 0; i < c->ndatasets; i++) {
		const struct cl_filesystem *fs =
			cluster_filesystem(c, c->datasets[i].filesystem);

		if (fs && host_index(c, fs->master) == h)
			unknown(pl, h, PK_DATASET, c->datasets[i].name);
	}
}

/* The other host an adopting step takes its device or filesystem from. */
static size_t creator_of(const struct cluster *c, const struct plan_step *s)
{
	const struct cl_device *d;
	const struct cl_filesystem *fs;

	if (!s->adopt)
		return SIZE_MAX;
	if (s->kind == PK_DEVICE && (d = cluster_device(c, s->name)))
		return device_creator(c, d);
	if (s->kind == PK_FILESYSTEM && (fs = cluster_filesystem(c, s->name)))
		return host_index(c, fs->master);
	for (size_t i = 0; s->kind == PK_SET && i < c->nfilesystems; i++)
		if (!strcmp(c->filesystems[i].set, s->name))
			return host_index(c, c->filesystems[i].master);
	return SIZE_MAX;
}

static void skip(struct plan_step *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void skip(struct plan_step *s, const char *fmt, ...)
{
	va_list ap;

	s->status = STEP_SKIPPED;
	free(s->error);
	va_start(ap, fmt);
	if (vasprintf(&s->error, fmt, ap) < 0)
		s->error = NULL;
	va_end(ap);
}

/*
 * Steps that adopt from a host that could not be read are skipped, and so
 * is every later create or update on the same host (they build on what
 * was skipped: a set on an adopted device, a mount of an adopted
 * filesystem).
 */
static void skip_waiting(const struct cluster *c,
			 const struct host_state *hosts, struct plan *p)
{
	for (size_t h = 0; h < c->nhosts; h++) {
		const struct plan_step *blocker = NULL;

		for (size_t i = 0; i < p->n; i++) {
			struct plan_step *s = &p->steps[i];
			size_t from = creator_of(c, s);

			if (s->host != h || s->op == PLAN_DELETE ||
			    s->kind == PK_POLICY)
				continue;
			if (blocker && s->kind > blocker->kind)
				skip(s, "waits for %s %s, which was skipped",
				     plan_kind_name(blocker->kind),
				     blocker->name);
			else if (from != SIZE_MAX && !hosts[from].reachable) {
				skip(s, "waits for host %s, which cannot be "
				     "read", c->hosts[from].name);
				if (!blocker)
					blocker = s;
			}
		}
	}
}

int plan_build(const struct cluster *c, const struct host_state *hosts,
	       const struct plan_opts *o, struct plan *p)
{
	struct planner pl = { .c = c, .hosts = hosts, .o = o, .p = p };

	memset(p, 0, sizeof(*p));
	for (size_t h = 0; h < c->nhosts && !pl.err; h++) {
		if (!hosts[h].reachable) {
			plan_unreadable(&pl, h);
			continue;
		}
		plan_policy(&pl, h);
		plan_devices(&pl, h);
		plan_regions(&pl, h);
		plan_sets(&pl, h);
		plan_filesystems(&pl, h);
		plan_mounts(&pl, h);
		plan_datasets(&pl, h);
		plan_prune(&pl, h);
	}
	if (pl.err) {
		plan_free(p);
		return pl.err;
	}
	if (p->n)
		qsort(p->steps, p->n, sizeof(*p->steps), step_cmp);
	skip_waiting(c, hosts, p);
	return 0;
}

bool plan_matches(const struct plan *p)
{
	return !p->n && !p->nconflicts && !p->nunreadable;
}

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct plan_step *s = &p->steps[i];

		for (unsigned j = 0; j < s->ncalls; j++) {
			free(s->calls[j].path);
			json_object_put(s->calls[j].body);
		}
		free(s->name);
		free(s->detail);
		free(s->error);
		free(s->result);
	}
	for (size_t i = 0; i < p->nconflicts; i++)
		free(p->conflicts[i]);
	free(p->conflicts);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	for (size_t i = 0; i < p->nunreadable; i++)
		free(p->unreadable[i]);
	free(p->unreadable);
	free(p->unreadable_host);
	for (size_t i = 0; i < p->nunknown; i++)
		free(p->unknown[i].name);
	free(p->unknown);
	for (size_t i = 0; i < p->unmanaged; i++)
		free(p->unmanaged_names[i]);
	free(p->unmanaged_names);
	free(p->steps);
	memset(p, 0, sizeof(*p));
}

void plan_count(const struct plan *p, size_t counts[3])
{
	counts[0] = counts[1] = counts[2] = 0;
	for (size_t i = 0; i < p->n; i++)
		counts[p->steps[i].op]++;
}

const char *plan_kind_name(enum plan_kind k)
{
	static const char *const n[PK_COUNT] = {
		"policy", "device", "region", "set", "filesystem", "mount",
		"dataset",
	};

	return k < PK_COUNT ? n[k] : "?";
}

const char *plan_op_name(enum plan_op op)
{
	return op == PLAN_CREATE ? "create" : op == PLAN_UPDATE ? "update" :
	       "delete";
}
