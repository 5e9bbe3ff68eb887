// SPDX-License-Identifier: Apache-2.0
/*
 * cxl provider, pmem namespaces through libndctl: the fsdax block devices
 * (/dev/pmemN) the kernel module mounts on 6.1, and every other namespace
 * with its mode, in the field names and values of `ndctl list -N`. A
 * namespace in a mode famfs cannot use (sector, raw) is reported unusable
 * with the command that gives it a usable mode; it is never opened.
 * devdax namespaces are reported by their DAX device (cxl.c), not here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <daxctl/libdaxctl.h>
#include <limits.h>
#include <ndctl/libndctl.h>
#include <uuid/uuid.h>
#include <json-c/json.h>

#include "cxl/cxl_internal.h"

static const char *ns_mode_name(enum ndctl_namespace_mode m)
{
	switch (m) {
	case NDCTL_NS_MODE_FSDAX: return "fsdax";
	case NDCTL_NS_MODE_DEVDAX: return "devdax";
	case NDCTL_NS_MODE_SECTOR: return "sector";
	case NDCTL_NS_MODE_RAW: return "raw";
	default: return "unknown";
	}
}

static const char *pfn_loc_name(enum ndctl_pfn_loc l)
{
	switch (l) {
	case NDCTL_PFN_LOC_RAM: return "mem";
	case NDCTL_PFN_LOC_PMEM: return "dev";
	default: return "none";
	}
}

/*
 * One namespace as `ndctl list -N` shows it. Returns the block device
 * name famfs would use (NULL when there is none) and sets *@size.
 */
static const char *ns_json(struct ndctl_namespace *ns, json_object *o,
			   unsigned long long *size)
{
	enum ndctl_namespace_mode mode = ndctl_namespace_get_mode(ns);
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ns);
	struct ndctl_btt *btt = ndctl_namespace_get_btt(ns);
	const char *bdev = NULL;
	unsigned long align = 0;
	char buf[40];
	uuid_t uu;

	struct ndctl_dax *dax = ndctl_namespace_get_dax(ns);
	const char *chardev = NULL;
	unsigned int sector = 0;

	*size = ndctl_namespace_get_size(ns);
	cxl_jadd_str(o, "dev", ndctl_namespace_get_devname(ns));
	cxl_jadd_str(o, "mode", ns_mode_name(mode));
	if (mode == NDCTL_NS_MODE_FSDAX)
		cxl_jadd_str(o, "map", pfn ? pfn_loc_name(
			ndctl_pfn_get_location(pfn)) : "mem");
	else if (mode == NDCTL_NS_MODE_DEVDAX && dax)
		cxl_jadd_str(o, "map", pfn_loc_name(
			ndctl_dax_get_location(dax)));
	if (pfn) {
		*size = ndctl_pfn_get_size(pfn);
		align = ndctl_pfn_get_align(pfn);
		ndctl_pfn_get_uuid(pfn, uu);
		bdev = ndctl_pfn_get_block_device(pfn);
	} else if (dax) {
		struct daxctl_region *dr = ndctl_dax_get_daxctl_region(dax);
		struct daxctl_dev *dd = dr ? daxctl_dev_get_first(dr) : NULL;

		*size = ndctl_dax_get_size(dax);
		align = ndctl_dax_get_align(dax);
		ndctl_dax_get_uuid(dax, uu);
		chardev = dd ? daxctl_dev_get_devname(dd) : NULL;
	} else if (btt) {
		*size = ndctl_btt_get_size(btt);
		ndctl_btt_get_uuid(btt, uu);
		bdev = ndctl_btt_get_block_device(btt);
		sector = ndctl_btt_get_sector_size(btt);
	} else {
		ndctl_namespace_get_uuid(ns, uu);
		bdev = ndctl_namespace_get_block_device(ns);
	}
	if (!dax && !btt) {
		sector = ndctl_namespace_get_sector_size(ns);
		if (!sector || sector == UINT_MAX)
			sector = 512;   /* the kernel's default, as ndctl says */
	}
	cxl_jadd_u64(o, "size", *size);
	if (!uuid_is_null(uu)) {
		uuid_unparse(uu, buf);
		cxl_jadd_str(o, "uuid", buf);
	}
	if (chardev)
		cxl_jadd_str(o, "chardev", chardev);
	if (sector)
		cxl_jadd_u64(o, "sector_size", sector);
	if (align)
		cxl_jadd_u64(o, "align", align);
	if (bdev && bdev[0])
		cxl_jadd_str(o, "blockdev", bdev);
	if (!ndctl_namespace_is_active(ns))
		cxl_jadd_str(o, "state", "disabled");
	return bdev && bdev[0] ? bdev : NULL;
}

/* Usable or not, and what to run when not. */
static void ns_verdict(struct ndctl_namespace *ns, const char *bdev,
		       struct famfs_provider_dev *d)
{
	const char *name = ndctl_namespace_get_devname(ns);
	enum ndctl_namespace_mode mode = ndctl_namespace_get_mode(ns);

	if (!ndctl_namespace_is_active(ns))
		snprintf(d->reason, sizeof(d->reason),
			 "%s is disabled; run 'ndctl enable-namespace %s'",
			 name, name);
	else if (mode != NDCTL_NS_MODE_FSDAX)
		snprintf(d->reason, sizeof(d->reason),
			 "%s%s%s%s is in %s mode; famfs needs fsdax (kernel "
			 "mounts) or devdax: run 'ndctl create-namespace -f "
			 "-e %s -m fsdax' (this erases it)", name,
			 bdev ? " (" : "", bdev ? bdev : "", bdev ? ")" : "",
			 ns_mode_name(mode), name);
	else if (d->size == 0)
		snprintf(d->reason, sizeof(d->reason), "%s has size 0", name);
	else
		d->usable = true;
}

int cxl_namespaces_discover(famfs_provider_found_fn fn, void *arg,
			    json_object *top)
{
	json_object *arr = json_object_new_array();
	struct ndctl_ctx *nd = NULL;
	struct ndctl_bus *bus;
	struct ndctl_region *region;
	struct ndctl_namespace *ns;
	int r = 0;

	if (ndctl_new(&nd) < 0) {
		json_object_object_add(top, "namespaces", arr);
		return 0;
	}
	ndctl_set_log_priority(nd, 0);
	ndctl_bus_foreach(nd, bus)
	ndctl_region_foreach(bus, region)
	ndctl_namespace_foreach(region, ns) {
		enum ndctl_namespace_mode mode = ndctl_namespace_get_mode(ns);
		json_object *o;
		struct famfs_provider_dev d;
		unsigned long long size;
		const char *bdev;

		/* the seed namespaces ndctl list hides too */
		if (ndctl_namespace_get_size(ns) == 0 &&
		    !ndctl_namespace_is_active(ns))
			continue;
		o = json_object_new_object();
		bdev = ns_json(ns, o, &size);
		json_object_array_add(arr, o);
		if (mode == NDCTL_NS_MODE_DEVDAX || r)
			continue;   /* its DAX device is the famfs device */
		memset(&d, 0, sizeof(d));
		snprintf(d.name, sizeof(d.name), "%s",
			 bdev ? bdev : ndctl_namespace_get_devname(ns));
		snprintf(d.path, sizeof(d.path), "/dev/%s", d.name);
		d.size = size;
		cxl_json_uuid(o, d.uuid, ndctl_namespace_get_devname(ns));
		ns_verdict(ns, bdev, &d);
		d.details_json = strdup(json_object_to_json_string(o));
		r = fn(arg, &d);
		free(d.details_json);
	}
	ndctl_unref(nd);
	json_object_object_add(top, "namespaces", arr);
	return r;
}

int cxl_namespace_open(const char *path, struct famfs_provider_dev *dev,
		       char *why, size_t whylen)
{
	const char *base = strrchr(path, '/');
	struct ndctl_ctx *nd = NULL;
	struct ndctl_bus *bus;
	struct ndctl_region *region;
	struct ndctl_namespace *ns;
	int found = 0;

	base = base ? base + 1 : path;
	if (ndctl_new(&nd) < 0) {
		snprintf(why, whylen, "libndctl could not start");
		return -ENODEV;
	}
	ndctl_set_log_priority(nd, 0);
	ndctl_bus_foreach(nd, bus)
	ndctl_region_foreach(bus, region)
	ndctl_namespace_foreach(region, ns) {
		json_object *o;
		unsigned long long size;
		const char *bdev;

		if (found)
			break;
		o = json_object_new_object();
		bdev = ns_json(ns, o, &size);
		if (!bdev || strcmp(bdev, base)) {
			json_object_put(o);
			continue;
		}
		memset(dev, 0, sizeof(*dev));
		snprintf(dev->name, sizeof(dev->name), "%s", bdev);
		snprintf(dev->path, sizeof(dev->path), "/dev/%s", bdev);
		dev->size = size;
		cxl_json_uuid(o, dev->uuid, ndctl_namespace_get_devname(ns));
		ns_verdict(ns, bdev, dev);
		dev->details_json = strdup(json_object_to_json_string(o));
		json_object_put(o);
		found = 1;
	}
	ndctl_unref(nd);
	if (!found) {
		snprintf(why, whylen, "%s is not a pmem namespace known to "
			 "libndctl", path);
		return -ENODEV;
	}
	return 0;
}
