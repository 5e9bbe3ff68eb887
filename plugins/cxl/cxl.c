// SPDX-License-Identifier: Apache-2.0
/*
 * cxl: real CXL/DAX discovery through libcxl and libdaxctl. Reports every
 * DAX device as a famfs device candidate and the whole topology (memdevs,
 * decoders, regions, DAX devices) in a shape close to `cxl list -M -D -R`
 * and `daxctl list`. A DAX device in system-ram mode (onlined as kernel
 * memory by kmem) or with no driver bound is reported unusable with the
 * command that fixes it: it is never opened (famfs upstream faults there).
 * A machine without CXL reports nothing, which is not an error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cxl/libcxl.h>
#include <daxctl/libdaxctl.h>
#include <json-c/json.h>

#include "cxl/cxl_internal.h"

struct cxl_provider {
	const struct famfs_provider_env *env;
};

static const char *decoder_mode_name(enum cxl_decoder_mode m)
{
	switch (m) {
	case CXL_DECODER_MODE_RAM: return "ram";
	case CXL_DECODER_MODE_PMEM: return "pmem";
	case CXL_DECODER_MODE_MIXED: return "mixed";
	case CXL_DECODER_MODE_NONE: return "none";
	default: return "unknown";
	}
}

void cxl_jadd_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v ? v : ""));
}

void cxl_jadd_u64(json_object *o, const char *k, unsigned long long v)
{
	json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}
#define jadd_str cxl_jadd_str
#define jadd_u64 cxl_jadd_u64

static json_object *memdevs_json(struct cxl_ctx *cxl)
{
	json_object *arr = json_object_new_array();
	struct cxl_memdev *md;

	cxl_memdev_foreach(cxl, md) {
		json_object *o = json_object_new_object();

		jadd_str(o, "memdev", cxl_memdev_get_devname(md));
		if (cxl_memdev_get_pmem_size(md))
			jadd_u64(o, "pmem_size", cxl_memdev_get_pmem_size(md));
		if (cxl_memdev_get_ram_size(md))
			jadd_u64(o, "ram_size", cxl_memdev_get_ram_size(md));
		jadd_u64(o, "serial", cxl_memdev_get_serial(md));
		jadd_str(o, "host", cxl_memdev_get_host(md));
		if (!cxl_memdev_is_enabled(md))
			jadd_str(o, "state", "disabled");
		json_object_array_add(arr, o);
	}
	return arr;
}

/* A region's mode: its endpoint decoders' (libcxl 76 has no getter). */
static const char *region_mode(struct cxl_region *r)
{
	struct cxl_memdev_mapping *m;

	cxl_mapping_foreach(r, m) {
		struct cxl_decoder *d = cxl_mapping_get_decoder(m);

		if (d)
			return decoder_mode_name(cxl_decoder_get_mode(d));
	}
	return "none";
}

/* A region in the fields of `cxl list -R`, and its "type" (ram, pmem),
 * which cxl list shows as its endpoint decoders' "mode".
 */
static void region_json(struct cxl_region *r, json_object *regions)
{
	json_object *ro = json_object_new_object();

	jadd_str(ro, "region", cxl_region_get_devname(r));
	jadd_u64(ro, "resource", cxl_region_get_resource(r));
	jadd_u64(ro, "size", cxl_region_get_size(r));
	jadd_str(ro, "type", region_mode(r));
	jadd_u64(ro, "interleave_ways", cxl_region_get_interleave_ways(r));
	jadd_u64(ro, "interleave_granularity",
		 cxl_region_get_interleave_granularity(r));
	jadd_str(ro, "decode_state", cxl_region_decode_is_committed(r) == 1 ?
		 "commit" : "reset");
	if (!cxl_region_is_enabled(r))
		jadd_str(ro, "state", "disabled");
	json_object_array_add(regions, ro);
}

/* A decoder in the fields `cxl list -D` shows for its kind of port. */
static void decoder_json(struct cxl_port *port, struct cxl_decoder *d,
			 json_object *decoders, json_object *regions)
{
	json_object *o = json_object_new_object();
	struct cxl_region *r;

	jadd_str(o, "decoder", cxl_decoder_get_devname(d));
	jadd_u64(o, "resource", cxl_decoder_get_resource(d));
	jadd_u64(o, "size", cxl_decoder_get_size(d));
	jadd_u64(o, "interleave_ways", cxl_decoder_get_interleave_ways(d));
	if (cxl_port_is_root(port)) {
		if (cxl_decoder_is_pmem_capable(d))
			json_object_object_add(o, "pmem_capable",
					       json_object_new_boolean(true));
		if (cxl_decoder_is_volatile_capable(d))
			json_object_object_add(o, "volatile_capable",
					       json_object_new_boolean(true));
	} else if (cxl_decoder_get_region(d)) {
		jadd_str(o, "region",
			 cxl_region_get_devname(cxl_decoder_get_region(d)));
	}
	if (cxl_port_is_endpoint(port)) {
		jadd_u64(o, "dpa_resource", cxl_decoder_get_dpa_resource(d));
		jadd_u64(o, "dpa_size", cxl_decoder_get_dpa_size(d));
		jadd_str(o, "mode", decoder_mode_name(cxl_decoder_get_mode(d)));
	} else {
		jadd_u64(o, "nr_targets", (unsigned long long)
			 cxl_decoder_get_nr_targets(d));
	}
	json_object_array_add(decoders, o);
	if (cxl_port_is_root(port))
		cxl_region_foreach(d, r)
			region_json(r, regions);
}

/* A port's decoders, then those of its endpoints. */
static void port_decoders(struct cxl_port *port, json_object *decoders,
			  json_object *regions)
{
	struct cxl_endpoint *ep;
	struct cxl_decoder *d;

	/* an idle decoder (size 0: e.g. the free one of a memdev in no
	 * region) is left out, as `cxl list -D` leaves it out without -i
	 */
	cxl_decoder_foreach(port, d)
		if (cxl_decoder_get_size(d))
			decoder_json(port, d, decoders, regions);
	cxl_endpoint_foreach(port, ep) {
		struct cxl_port *ep_port = cxl_endpoint_get_port(ep);

		cxl_decoder_foreach(ep_port, d)
			if (cxl_decoder_get_size(d))
				decoder_json(ep_port, d, decoders, regions);
	}
}

static void topology_cxl(json_object *top)
{
	json_object *decoders = json_object_new_array();
	json_object *regions = json_object_new_array();
	struct cxl_ctx *cxl = NULL;
	struct cxl_bus *bus;

	if (cxl_new(&cxl) < 0) {
		json_object_object_add(top, "memdevs", json_object_new_array());
		json_object_object_add(top, "decoders", decoders);
		json_object_object_add(top, "regions", regions);
		return;
	}
	cxl_set_log_priority(cxl, 0);
	json_object_object_add(top, "memdevs", memdevs_json(cxl));
	cxl_bus_foreach(cxl, bus) {
		struct cxl_port *root = cxl_bus_get_port(bus), *p;

		port_decoders(root, decoders, regions);
		cxl_port_foreach_all(root, p)
			port_decoders(p, decoders, regions);
	}
	json_object_object_add(top, "decoders", decoders);
	json_object_object_add(top, "regions", regions);
	cxl_unref(cxl);
}

/* A stable identity for a DAX device: derived from its name and physical
 * address, so every host and every restart computes the same one.
 */
static void dax_uuid(const char *devname, unsigned long long resource,
		     char out[37])
{
	uint64_t h1 = 1469598103934665603ULL, h2 = 0x9e3779b97f4a7c15ULL;
	char key[128];

	snprintf(key, sizeof(key), "dax:%s:%llx", devname, resource);
	for (const char *p = key; *p; p++) {
		h1 = (h1 ^ (unsigned char)*p) * 1099511628211ULL;
		h2 = (h2 ^ (unsigned char)*p) * 0x100000001b3ULL + 7;
	}
	snprintf(out, 37, "%08x-%04x-5%03x-%04x-%012llx",
		 (unsigned)(h1 >> 32), (unsigned)(h1 >> 16) & 0xffff,
		 (unsigned)h1 & 0xfff,
		 (unsigned)((h2 >> 48) & 0x3fff) | 0x8000,
		 (unsigned long long)(h2 & 0xffffffffffffULL));
}

void cxl_json_uuid(json_object *o, char out[37], const char *key)
{
	json_object *u;

	if (json_object_object_get_ex(o, "uuid", &u) &&
	    strlen(json_object_get_string(u)) == 36) {
		snprintf(out, 37, "%s", json_object_get_string(u));
		return;
	}
	dax_uuid(key, 0, out);
}

static void dax_describe(struct daxctl_dev *dev, struct famfs_provider_dev *d,
			 json_object *o)
{
	const char *name = daxctl_dev_get_devname(dev);
	struct daxctl_memory *mem = daxctl_dev_get_memory(dev);
	bool enabled = daxctl_dev_is_enabled(dev);
	const char *mode = mem ? "system-ram" : "devdax";

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->path, sizeof(d->path), "/dev/%s", name);
	d->size = daxctl_dev_get_size(dev);
	dax_uuid(name, daxctl_dev_get_resource(dev), d->uuid);
	if (mem) {
		snprintf(d->reason, sizeof(d->reason),
			 "%s is in system-ram mode (onlined as kernel memory); "
			 "famfs needs devdax: run 'daxctl offline-memory %s && "
			 "daxctl reconfigure-device --mode=devdax %s'",
			 name, name, name);
	} else if (!enabled) {
		snprintf(d->reason, sizeof(d->reason),
			 "%s has no driver bound; run 'daxctl enable-device "
			 "%s' (or 'daxctl reconfigure-device --mode=devdax "
			 "%s')", name, name, name);
	} else if (d->size == 0) {
		snprintf(d->reason, sizeof(d->reason),
			 "%s has size 0; give it capacity with 'daxctl "
			 "create-device'", name);
	} else {
		d->usable = true;
	}
	/* the fields, order and presence rules of `daxctl list` */
	jadd_str(o, "chardev", name);
	jadd_u64(o, "size", d->size);
	if (daxctl_dev_get_target_node(dev) >= 0)
		json_object_object_add(o, "target_node",
			json_object_new_int(daxctl_dev_get_target_node(dev)));
	if (daxctl_dev_get_align(dev) > 0)
		jadd_u64(o, "align", daxctl_dev_get_align(dev));
	jadd_str(o, "mode", mode);
	if (mem && daxctl_dev_get_resource(dev) != 0) {
		int movable = daxctl_memory_is_movable(mem);

		json_object_object_add(o, "online_memblocks",
			json_object_new_int(daxctl_memory_is_online(mem)));
		json_object_object_add(o, "total_memblocks",
			json_object_new_int(daxctl_memory_num_sections(mem)));
		if (movable >= 0)
			json_object_object_add(o, "movable",
				json_object_new_boolean(movable));
	}
	if (!enabled)
		jadd_str(o, "state", "disabled");
}

static int cxl_init(const struct famfs_provider_env *env, void **ctx,
		    char *why, size_t whylen)
{
	struct cxl_provider *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	p->env = env;
	*ctx = p;
	return 0;
}

static void cxl_fini(void *ctx)
{
	free(ctx);
}

static int cxl_discover(void *ctx, famfs_provider_found_fn fn, void *arg,
			char **topology, char *why, size_t whylen)
{
	json_object *top = json_object_new_object();
	json_object *daxdevs = json_object_new_array();
	struct daxctl_ctx *dax = NULL;
	struct daxctl_region *region;
	struct daxctl_dev *dev;
	int r = 0;

	(void)ctx; (void)why; (void)whylen;
	topology_cxl(top);
	if (daxctl_new(&dax) >= 0) {
		daxctl_set_log_priority(dax, 0);
		daxctl_region_foreach(dax, region) {
			daxctl_dev_foreach(region, dev) {
				struct famfs_provider_dev d;
				json_object *o = json_object_new_object();

				/* seed devices, hidden by daxctl list too */
				if (daxctl_dev_get_size(dev) == 0) {
					json_object_put(o);
					continue;
				}
				dax_describe(dev, &d, o);
				d.details_json = strdup(
					json_object_to_json_string(o));
				json_object_array_add(daxdevs, o);
				if (!r)
					r = fn(arg, &d);
				free(d.details_json);
			}
		}
		daxctl_unref(dax);
	}
	json_object_object_add(top, "dax_devices", daxdevs);
	if (!r)
		r = cxl_namespaces_discover(fn, arg, top);
	*topology = strdup(json_object_to_json_string(top));
	json_object_put(top);
	return r;
}

static int cxl_open(void *ctx, const char *path, struct famfs_provider_dev *dev,
		    char *why, size_t whylen)
{
	const char *base = strrchr(path, '/');
	struct daxctl_ctx *dax = NULL;
	struct daxctl_region *region;
	struct daxctl_dev *dd;
	struct stat st;
	int found = 0;

	(void)ctx;
	base = base ? base + 1 : path;
	if (stat(path, &st)) {
		int r = -errno;

		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return r;
	}
	if (S_ISBLK(st.st_mode) && !strncmp(base, "pmem", 4))
		return cxl_namespace_open(path, dev, why, whylen);
	if (!S_ISCHR(st.st_mode) || strncmp(base, "dax", 3)) {
		snprintf(why, whylen, "%s is neither a DAX character device nor "
			 "a pmem block device", path);
		return -ENODEV;
	}
	if (daxctl_new(&dax) < 0) {
		snprintf(why, whylen, "libdaxctl could not start");
		return -ENODEV;
	}
	daxctl_set_log_priority(dax, 0);
	daxctl_region_foreach(dax, region) {
		daxctl_dev_foreach(region, dd) {
			if (found || strcmp(daxctl_dev_get_devname(dd), base))
				continue;
			json_object *o = json_object_new_object();

			dax_describe(dd, dev, o);
			dev->details_json =
				strdup(json_object_to_json_string(o));
			json_object_put(o);
			found = 1;
		}
	}
	daxctl_unref(dax);
	if (!found) {
		snprintf(why, whylen, "%s is not known to libdaxctl", path);
		return -ENODEV;
	}
	return 0;
}

static int cxl_create(void *ctx, const char *path, uint64_t size,
		      struct famfs_provider_dev *dev, char *why, size_t whylen)
{
	(void)ctx; (void)path; (void)size; (void)dev;
	snprintf(why, whylen, "the cxl provider does not create devices by "
		 "path; create a region (POST /v1/regions)");
	return -EOPNOTSUPP;
}

static int cxl_destroy(void *ctx, const char *path, char *why, size_t whylen)
{
	(void)ctx; (void)path;
	snprintf(why, whylen, "the cxl provider does not destroy devices");
	return -EOPNOTSUPP;
}

static int cxl_region_create_op(void *ctx,
				const struct famfs_provider_region *req,
				char region[FAMFS_PROVIDER_NAME_LEN],
				struct famfs_provider_dev *dev, char *why,
				size_t whylen)
{
	(void)ctx;
	return cxl_region_create(req, region, dev, why, whylen);
}

static int cxl_region_destroy_op(void *ctx, const char *region, char *why,
				 size_t whylen)
{
	(void)ctx;
	return cxl_region_destroy(region, why, whylen);
}

static const struct famfs_provider_ops cxl_ops = {
	.abi = FAMFS_PROVIDER_ABI,
	.name = "cxl",
	.caps = FAMFS_PROVIDER_CAN_REGION,
	.init = cxl_init,
	.fini = cxl_fini,
	.discover = cxl_discover,
	.open = cxl_open,
	.create = cxl_create,
	.destroy = cxl_destroy,
	.region_create = cxl_region_create_op,
	.region_destroy = cxl_region_destroy_op,
};

__attribute__((visibility("default")))
const struct famfs_provider_ops *famfs_provider_entry(void);
const struct famfs_provider_ops *famfs_provider_entry(void)
{
	return &cxl_ops;
}
