// SPDX-License-Identifier: Apache-2.0
/*
 * The semantic half of validation: what JSON Schema cannot express. Names
 * unique per kind, every reference resolving (a mount naming a filesystem,
 * a set naming devices), roles that fit (a filesystem's master is a master
 * host), and limits of famfsd's API. Runs on a partly valid model too:
 * an entry whose field failed the structural check has it NULL and is
 * skipped here, so one run still reports everything it can.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "cluster/model.h"
#include "cluster/units.h"

#define EMUL_MIN_SIZE (8ULL * 1024 * 1024) /* famfsd's POST /v1/devices */

struct refs {
	struct cluster *c;
	struct diag *d;
};

/* Report at @map's key @key (or at @map), path "<section>[i].<key>". */
static void at(struct refs *r, const struct ynode *map, const char *section,
	       size_t i, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void at(struct refs *r, const struct ynode *map, const char *section,
	       size_t i, const char *key, const char *fmt, ...)
{
	const struct ynode *n = key ? ynode_get(map, key) : NULL;
	struct kpath p = { .len = 0 };
	char *msg;
	va_list ap;
	int rc;

	kpath_key(&p, section);
	kpath_index(&p, i);
	if (key)
		kpath_key(&p, key);
	va_start(ap, fmt);
	rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		r->d->dropped++;
		return;
	}
	diag_add(r->d, n ? &n->mark : map ? &map->mark : NULL, p.buf, "%s",
		 msg);
	free(msg);
}

/* Same for item @j of a list of names under @key. */
static void at_item(struct refs *r, const struct cl_names *names, size_t j,
		    const char *section, size_t i, const char *key,
		    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void at_item(struct refs *r, const struct cl_names *names, size_t j,
		    const char *section, size_t i, const char *key,
		    const char *fmt, ...)
{
	struct kpath p = { .len = 0 };
	char *msg;
	va_list ap;
	int rc;

	kpath_key(&p, section);
	kpath_index(&p, i);
	kpath_key(&p, key);
	kpath_index(&p, j);
	va_start(ap, fmt);
	rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		r->d->dropped++;
		return;
	}
	diag_add(r->d, &names->nodes[j]->mark, p.buf, "%s", msg);
	free(msg);
}

#define DUP_NAMES(r, arr, n, section, what)                                   \
	do {                                                                  \
		for (size_t i_ = 0; i_ < (n); i_++)                           \
			for (size_t j_ = 0; j_ < i_; j_++)                    \
				if ((arr)[i_].name && (arr)[j_].name &&       \
				    !strcmp((arr)[i_].name, (arr)[j_].name)) {\
					at(r, (arr)[i_].node, section, i_,    \
					   "name", "%s '%s' is defined twice "\
					   "(also %s[%zu])", what,            \
					   (arr)[i_].name, section, j_);      \
					break;                                \
				}                                             \
	} while (0)

static void check_hosts(struct refs *r)
{
	struct cluster *c = r->c;

	DUP_NAMES(r, c->hosts, c->nhosts, "hosts", "host");
	for (size_t i = 0; i < c->nhosts; i++)
		for (size_t j = 0; j < i; j++)
			if (c->hosts[i].endpoint && c->hosts[j].endpoint &&
			    !strcmp(c->hosts[i].endpoint, c->hosts[j].endpoint)) {
				at(r, c->hosts[i].node, "hosts", i, "endpoint",
				   "same endpoint as hosts[%zu]: one famfsd "
				   "cannot be two hosts", j);
				break;
			}
}

static void check_devices(struct refs *r)
{
	struct cluster *c = r->c;

	DUP_NAMES(r, c->devices, c->ndevices, "devices", "device");
	for (size_t i = 0; i < c->ndevices; i++) {
		const struct cl_device *dev = &c->devices[i];
		const struct ynode *emul = ynode_get(dev->node, "emul");

		if (dev->kind != CL_DEV_EMUL || !dev->size)
			continue;
		if (dev->size < EMUL_MIN_SIZE) {
			struct kpath p = { .len = 0 };

			kpath_key(&p, "devices");
			kpath_index(&p, i);
			kpath_key(&p, "emul.size");
			diag_add(r->d, &ynode_get(emul, "size")->mark, p.buf,
				 "an emulated device must be at least 8 MiB");
		}
	}
	for (size_t i = 0; i < c->ndevices; i++)
		for (size_t j = 0; j < i; j++)
			if (c->devices[i].path && c->devices[j].path &&
			    !strcmp(c->devices[i].path, c->devices[j].path)) {
				struct kpath p = { .len = 0 };
				const struct ynode *emul =
					ynode_get(c->devices[i].node, "emul");
				const struct ynode *n = ynode_get(emul, "path");

				kpath_key(&p, "devices");
				kpath_index(&p, i);
				kpath_key(&p, "emul.path");
				diag_add(r->d, &n->mark, p.buf, "same path as "
					 "devices[%zu]", j);
				break;
			}
}

/* The region before @ri (or @ri itself, before memdev @mj) that uses
 * memdev @ri.memdevs[@mj] too, or NULL.
 */
static const struct cl_region *memdev_taken(const struct cluster *c,
					    size_t ri, size_t mj)
{
	const char *md = c->regions[ri].memdevs.v[mj];

	for (size_t i = 0; i <= ri; i++) {
		const struct cl_names *m = &c->regions[i].memdevs;

		for (size_t j = 0; j < (i == ri ? mj : m->n); j++)
			if (m->v[j] && !strcmp(m->v[j], md))
				return &c->regions[i];
	}
	return NULL;
}

static void check_regions(struct refs *r)
{
	struct cluster *c = r->c;

	DUP_NAMES(r, c->regions, c->nregions, "regions", "region");
	for (size_t i = 0; i < c->nregions; i++) {
		const struct cl_region *rg = &c->regions[i];

		if (rg->name && cluster_device(c, rg->name))
			at(r, rg->node, "regions", i, "name", "'%s' is already "
			   "a device name (sets name both)", rg->name);
		if (rg->host && !cluster_host(c, rg->host))
			at(r, rg->node, "regions", i, "host", "no host is named "
			   "'%s'", rg->host);
		for (size_t j = 0; j < rg->memdevs.n; j++) {
			const struct cl_device *dev =
				cluster_device(c, rg->memdevs.v[j]);

			if (!rg->memdevs.v[j])
				continue;
			if (!dev)
				at_item(r, &rg->memdevs, j, "regions", i,
					"memdevs", "no device is named '%s'",
					rg->memdevs.v[j]);
			else if (dev->kind != CL_DEV_CXL || !dev->has_serial)
				at_item(r, &rg->memdevs, j, "regions", i,
					"memdevs", "'%s' is not a CXL memdev "
					"(a cxl device given by serial)",
					rg->memdevs.v[j]);
			else if (memdev_taken(c, i, j))
				at_item(r, &rg->memdevs, j, "regions", i,
					"memdevs", "memdev '%s' is already in "
					"region '%s' (a memdev's capacity goes "
					"to one region)", rg->memdevs.v[j],
					memdev_taken(c, i, j)->name);
		}
		if (rg->ways && rg->memdevs.n && rg->ways != rg->memdevs.n)
			at(r, rg->node, "regions", i, "ways", "%u ways but %zu "
			   "memdevs", rg->ways, rg->memdevs.n);
		if (rg->granularity && (rg->granularity < 256 ||
		    rg->granularity > 16384 ||
		    (rg->granularity & (rg->granularity - 1))))
			at(r, rg->node, "regions", i, "granularity", "must be a "
			   "power of two from 256 to 16384 bytes");
		if (rg->align && (rg->align < 4096 ||
				  (rg->align & (rg->align - 1))))
			at(r, rg->node, "regions", i, "align", "must be a power "
			   "of two of at least 4 KiB");
	}
}

/* The set (index) that uses device or region @name, other than @self. */
static size_t set_using(const struct cluster *c, const char *name,
			size_t self)
{
	for (size_t i = 0; i < self; i++)
		for (size_t j = 0; j < c->sets[i].devices.n; j++)
			if (c->sets[i].devices.v[j] &&
			    !strcmp(c->sets[i].devices.v[j], name))
				return i;
	return (size_t)-1;
}

static void check_sets(struct refs *r)
{
	struct cluster *c = r->c;

	DUP_NAMES(r, c->sets, c->nsets, "sets", "set");
	for (size_t i = 0; i < c->nsets; i++) {
		const struct cl_set *s = &c->sets[i];

		for (size_t j = 0; j < s->devices.n; j++) {
			const char *dn = s->devices.v[j];
			size_t other;

			if (!dn)
				continue;
			if (!cluster_device(c, dn) && !cluster_region(c, dn)) {
				at_item(r, &s->devices, j, "sets", i, "devices",
					"no device or region is named '%s'", dn);
				continue;
			}
			other = set_using(c, dn, i);
			if (other != (size_t)-1)
				at_item(r, &s->devices, j, "sets", i, "devices",
					"'%s' is already in sets[%zu]: a device "
					"belongs to one set", dn, other);
		}
		if (s->strips && s->devices.n && s->strips > s->devices.n)
			at(r, s->node, "sets", i, "strips", "%u strips over %zu "
			   "devices: at most one strip per device", s->strips,
			   s->devices.n);
	}
}

/*
 * mkfs refuses a log that leaves device 0 (the set's first device) no
 * data unit after the 2 MiB header: known here for emulated devices.
 */
static void check_log_fits(struct refs *r, size_t i)
{
	const struct cl_filesystem *fs = &r->c->filesystems[i];
	const struct cl_set *s = fs->set ? cluster_set(r->c, fs->set) : NULL;
	const struct cl_device *d0 = s && s->devices.n && s->devices.v[0] ?
		cluster_device(r->c, s->devices.v[0]) : NULL;
	uint64_t log = fs->log_size ? fs->log_size :
		       r->c->defaults.has_log_size ? r->c->defaults.log_size : 0;

	if (!log || !d0 || d0->kind != CL_DEV_EMUL || !d0->size)
		return;
	if (log > d0->size ||
	    !famfs_range_fits(FAMFS_LOG_OFFSET, log + FAMFS_UNIT_SIZE, d0->size))
		at(r, fs->node, "filesystems", i, fs->log_size ? "logSize" : "set",
		   "a %llu-byte log does not fit device '%s' (%llu bytes) with "
		   "the 2 MiB header and one 2 MiB data unit",
		   (unsigned long long)log, d0->name,
		   (unsigned long long)d0->size);
}

static void check_filesystems(struct refs *r)
{
	struct cluster *c = r->c;

	DUP_NAMES(r, c->filesystems, c->nfilesystems, "filesystems",
		  "filesystem");
	for (size_t i = 0; i < c->nfilesystems; i++) {
		const struct cl_filesystem *fs = &c->filesystems[i];
		const struct cl_host *h = fs->master ?
			cluster_host(c, fs->master) : NULL;

		if (fs->set && !cluster_set(c, fs->set))
			at(r, fs->node, "filesystems", i, "set", "no set is "
			   "named '%s'", fs->set);
		for (size_t j = 0; fs->set && j < i; j++)
			if (c->filesystems[j].set &&
			    !strcmp(c->filesystems[j].set, fs->set)) {
				at(r, fs->node, "filesystems", i, "set", "set "
				   "'%s' already holds filesystems[%zu]",
				   fs->set, j);
				break;
			}
		check_log_fits(r, i);
		if (fs->master && !h)
			at(r, fs->node, "filesystems", i, "master", "no host is "
			   "named '%s'", fs->master);
		else if (h && h->role != CL_ROLE_MASTER)
			at(r, fs->node, "filesystems", i, "master", "host '%s' "
			   "has role client; a filesystem's master must be a "
			   "host with role master", fs->master);
	}
}

static void name_mounts(struct refs *r)
{
	struct cluster *c = r->c;

	for (size_t i = 0; i < c->nmounts; i++) {
		struct cl_mount *m = &c->mounts[i];

		if (m->name || !m->filesystem)
			continue;
		if (asprintf(&m->name_buf, "%s-%s", m->filesystem,
			     m->role == CL_ROLE_MASTER ? "master" : "client") < 0) {
			m->name_buf = NULL;
			r->d->dropped++;
			continue;
		}
		m->name = m->name_buf;
	}
}

static void check_mounts(struct refs *r)
{
	struct cluster *c = r->c;

	name_mounts(r);
	for (size_t i = 0; i < c->nmounts; i++) {
		const struct cl_mount *m = &c->mounts[i];
		const struct cl_filesystem *fs = m->filesystem ?
			cluster_filesystem(c, m->filesystem) : NULL;
		const struct cl_host *h = m->host ?
			cluster_host(c, m->host) : NULL;

		if (m->filesystem && !fs)
			at(r, m->node, "mounts", i, "filesystem", "no filesystem "
			   "is named '%s'", m->filesystem);
		if (m->host && !h)
			at(r, m->node, "mounts", i, "host", "no host is named "
			   "'%s'", m->host);
		if (fs && h && fs->master && cluster_host(c, fs->master) &&
		    m->role == CL_ROLE_MASTER &&
		    strcmp(fs->master, m->host))
			at(r, m->node, "mounts", i, "role", "a master mount of "
			   "'%s' must be on its master host '%s', not '%s'",
			   fs->name, fs->master, m->host);
		for (size_t j = 0; j < i; j++) {
			const struct cl_mount *o = &c->mounts[j];

			if (!o->host || !m->host || strcmp(o->host, m->host))
				continue;
			if (o->name && m->name && !strcmp(o->name, m->name)) {
				at(r, m->node, "mounts", i, ynode_get(m->node,
				   "name") ? "name" : NULL, "mount name '%s' is "
				   "used twice on host '%s' (also mounts[%zu]); "
				   "give each a 'name'", m->name, m->host, j);
				break;
			}
			if (o->path && m->path && !strcmp(o->path, m->path)) {
				at(r, m->node, "mounts", i, "path", "host '%s' "
				   "already mounts something on %s (mounts[%zu])",
				   m->host, m->path, j);
				break;
			}
		}
		for (size_t j = 0; m->role == CL_ROLE_MASTER && j < i; j++)
			if (c->mounts[j].role == CL_ROLE_MASTER &&
			    c->mounts[j].filesystem && m->filesystem &&
			    !strcmp(c->mounts[j].filesystem, m->filesystem)) {
				at(r, m->node, "mounts", i, "role", "filesystem "
				   "'%s' already has a master mount (mounts[%zu])",
				   m->filesystem, j);
				break;
			}
	}
}

static void check_datasets(struct refs *r)
{
	struct cluster *c = r->c;

	DUP_NAMES(r, c->datasets, c->ndatasets, "datasets", "dataset");
	for (size_t i = 0; i < c->ndatasets; i++) {
		struct cl_dataset *ds = &c->datasets[i];

		if (ds->filesystem && !cluster_filesystem(c, ds->filesystem))
			at(r, ds->node, "datasets", i, "filesystem", "no "
			   "filesystem is named '%s'", ds->filesystem);
		if (!ds->destination && ds->name) {
			if (asprintf(&ds->destination_buf, "/%s", ds->name) < 0)
				ds->destination_buf = NULL;
			ds->destination = ds->destination_buf;
		}
		for (size_t j = 0; j < i; j++) {
			const struct cl_dataset *o = &c->datasets[j];

			if (o->filesystem && ds->filesystem && o->destination &&
			    ds->destination && !strcmp(o->filesystem,
			    ds->filesystem) && !strcmp(o->destination,
			    ds->destination)) {
				at(r, ds->node, "datasets", i, ynode_get(ds->node,
				   "destination") ? "destination" : NULL,
				   "datasets[%zu] already goes to %s on '%s'", j,
				   ds->destination, ds->filesystem);
				break;
			}
		}
	}
}

void cluster_check_refs(struct cluster *c, struct diag *d)
{
	struct refs r = { .c = c, .d = d };

	check_hosts(&r);
	check_devices(&r);
	check_regions(&r);
	check_sets(&r);
	check_filesystems(&r);
	check_mounts(&r);
	check_datasets(&r);
}

void cluster_free(struct cluster *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nregions; i++) {
		free(c->regions[i].memdevs.v);
		free(c->regions[i].memdevs.nodes);
	}
	for (size_t i = 0; i < c->nsets; i++) {
		free(c->sets[i].devices.v);
		free(c->sets[i].devices.nodes);
	}
	for (size_t i = 0; i < c->nmounts; i++)
		free(c->mounts[i].name_buf);
	for (size_t i = 0; i < c->ndatasets; i++)
		free(c->datasets[i].destination_buf);
	free(c->hosts);
	free(c->devices);
	free(c->regions);
	free(c->sets);
	free(c->filesystems);
	free(c->mounts);
	free(c->datasets);
	ydoc_free(c->doc);
	free(c);
}

#define LOOKUP(fn, type, arr, n)                                              \
	const type *fn(const struct cluster *c, const char *name)             \
	{                                                                     \
		for (size_t i = 0; name && i < c->n; i++)                     \
			if (c->arr[i].name && !strcmp(c->arr[i].name, name))  \
				return &c->arr[i];                            \
		return NULL;                                                  \
	}

LOOKUP(cluster_host, struct cl_host, hosts, nhosts)
LOOKUP(cluster_device, struct cl_device, devices, ndevices)
LOOKUP(cluster_region, struct cl_region, regions, nregions)
LOOKUP(cluster_set, struct cl_set, sets, nsets)
LOOKUP(cluster_filesystem, struct cl_filesystem, filesystems, nfilesystems)
