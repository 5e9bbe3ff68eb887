// SPDX-License-Identifier: Apache-2.0
/*
 * cxl provider: the fsdax namespace famfs mounts on a region famfsd made
 * (the kernel module mounts /dev/pmemN on 6.1), through libndctl in the
 * steps of `ndctl create-namespace -m fsdax` (ndctl/namespace.c
 * setup_namespace), and its removal (`ndctl destroy-namespace`).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ndctl/libndctl.h>
#include <uuid/uuid.h>

#include "cxl/cxl_internal.h"

#define SZ_2M (2UL << 20)
#define NS_MAX 1024       /* namespaces of one region, at most */
#define PROBE_TRIES 100   /* x 50 ms: the nvdimm region probes async */

static struct ndctl_region *region_at(struct ndctl_ctx *nd,
				      unsigned long long resource)
{
	struct ndctl_region *region;
	struct ndctl_bus *bus;

	ndctl_bus_foreach(nd, bus) {
		ndctl_bus_wait_probe(bus);
		ndctl_region_foreach(bus, region)
			if (ndctl_region_get_resource(region) == resource)
				return region;
	}
	return NULL;
}

/*
 * The libnvdimm region over physical address @resource: the CXL region's
 * nvdimm region registers asynchronously after the region is enabled,
 * so wait for it, failing after PROBE_TRIES. *@nd is the context that
 * owns it (the caller unrefs it).
 */
static struct ndctl_region *region_wait(struct ndctl_ctx **nd,
					unsigned long long resource)
{
	const struct timespec pause = { 0, 50 * 1000 * 1000 };

	for (int i = 0; i < PROBE_TRIES; i++) {
		struct ndctl_region *r;

		if (ndctl_new(nd) < 0)
			return NULL;
		ndctl_set_log_priority(*nd, 0);
		r = region_at(*nd, resource);
		if (r && ndctl_region_is_enabled(r))
			return r;
		ndctl_unref(*nd);
		*nd = NULL;
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/* The steps, undone by the caller on failure. */
static int ns_setup(struct ndctl_region *region, struct ndctl_namespace *ns,
		    struct ndctl_pfn *pfn, const char *name, uint64_t align,
		    char *why, size_t whylen)
{
	unsigned long ralign = ndctl_region_get_align(region);
	unsigned long long size;
	const char *step = "";
	uuid_t uu;
	int e;

	size = ndctl_region_get_max_available_extent(region);
	if (ralign)
		size = size / ralign * ralign;
#define TRY(call, what) do { \
		step = what; \
		if ((e = (call))) \
			goto fail; \
	} while (0)
	/* a label-less (io) namespace has a fixed size and no uuid */
	if (strcmp(ndctl_namespace_get_type_name(ns), "namespace_io")) {
		uuid_generate(uu);
		TRY(ndctl_namespace_set_uuid(ns, uu), "setting the uuid");
		TRY(ndctl_namespace_set_alt_name(ns, name), "setting the name");
		TRY(ndctl_namespace_set_size(ns, size), "setting the size");
	}
	ndctl_namespace_set_enforce_mode(ns, NDCTL_NS_MODE_FSDAX);
	uuid_generate(uu);
	TRY(ndctl_pfn_set_uuid(pfn, uu), "setting the fsdax uuid");
	TRY(ndctl_pfn_set_location(pfn, NDCTL_PFN_LOC_PMEM),
	    "placing the page map on the device");
	TRY(ndctl_pfn_set_align(pfn, align ? align : SZ_2M),
	    "setting the alignment");
	TRY(ndctl_pfn_set_namespace(pfn, ns), "attaching the namespace");
	TRY(ndctl_pfn_enable(pfn), "enabling fsdax");
#undef TRY
	return 0;
fail:
	snprintf(why, whylen, "%s: %s (%s) failed: %s",
		 ndctl_namespace_get_devname(ns), step,
		 !strcmp(step, "setting the alignment") ? "the kernel refused "
		 "it; see the region's supported_alignments" : "fsdax",
		 strerror(-e));
	return e < 0 ? e : -EIO;
}

/*
 * Remove namespace @ns and what claims it (pfn), as destroy-namespace.
 * libndctl frees @ns (and a deleted pfn): the caller must not use it, nor
 * go on walking the region's namespace list.
 */
static int ns_remove(struct ndctl_namespace *ns, char *why, size_t whylen)
{
	char name[64];
	int e;

	snprintf(name, sizeof(name), "%s", ndctl_namespace_get_devname(ns));
	if (ndctl_namespace_is_enabled(ns)) {
		e = ndctl_namespace_disable_safe(ns);
		if (e) {
			snprintf(why, whylen, "%s is in use (mounted?): %s",
				 name, strerror(-e));
			return e;
		}
	} else {
		struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ns);

		if (pfn)
			ndctl_pfn_delete(pfn);
	}
	e = ndctl_namespace_delete(ns);
	if (e)
		snprintf(why, whylen, "%s: delete failed: %s", name,
			 strerror(-e));
	return e;
}

int cxl_region_ns_create(unsigned long long resource, const char *name,
			 uint64_t align, struct famfs_provider_dev *dev,
			 char *why, size_t whylen)
{
	struct ndctl_ctx *nd = NULL;
	struct ndctl_region *region = region_wait(&nd, resource);
	struct ndctl_namespace *ns;
	struct ndctl_pfn *pfn;
	char path[80];
	int e;

	if (!region) {
		snprintf(why, whylen, "no nvdimm region appeared for the CXL "
			 "region at %#llx (is cxl_pmem loaded?)", resource);
		if (nd)
			ndctl_unref(nd);
		return -ENXIO;
	}
	ns = ndctl_region_get_namespace_seed(region);
	pfn = ndctl_region_get_pfn_seed(region);
	if (!ns || !pfn || !ndctl_namespace_is_configuration_idle(ns)) {
		snprintf(why, whylen, "%s offers no idle namespace or fsdax "
			 "seed", ndctl_region_get_devname(region));
		ndctl_unref(nd);
		return -ENXIO;
	}
	e = ns_setup(region, ns, pfn, name, align, why, whylen);
	if (e) {
		char ignored[FAMFS_PROVIDER_WHY_LEN];

		ndctl_pfn_delete(pfn);
		ns_remove(ns, ignored, sizeof(ignored));
		ndctl_unref(nd);
		return e;
	}
	snprintf(path, sizeof(path), "/dev/%s",
		 ndctl_pfn_get_block_device(pfn));
	ndctl_unref(nd);
	/* described exactly as discovery and open() will */
	return cxl_namespace_open(path, dev, why, whylen);
}

int cxl_region_ns_destroy(unsigned long long resource, char *why,
			  size_t whylen)
{
	struct ndctl_ctx *nd = NULL;
	struct ndctl_region *region;
	int e = 0;

	if (ndctl_new(&nd) < 0) {
		snprintf(why, whylen, "libndctl could not start");
		return -ENODEV;
	}
	ndctl_set_log_priority(nd, 0);
	region = region_at(nd, resource);
	/* one at a time: a delete frees the namespace list it was on */
	for (int n = 0; region && n < NS_MAX; n++) {
		struct ndctl_namespace *ns, *victim = NULL;

		ndctl_namespace_foreach(region, ns)
			if (ndctl_namespace_get_size(ns) ||
			    ndctl_namespace_is_enabled(ns)) {
				victim = ns;
				break;
			}
		if (!victim)
			break;
		e = ns_remove(victim, why, whylen);
		if (e)
			break;
	}
	ndctl_unref(nd);
	return e;
}
