// SPDX-License-Identifier: Apache-2.0
/*
 * cxl provider, region creation through libcxl: the sequence of ndctl's
 * `cxl create-region -t pmem` (cxl/region.c) and `cxl destroy-region`,
 * then the fsdax namespace famfs mounts (region_ns.c). Everything is
 * checked before the first write, so bad input changes nothing; a step
 * that fails later undoes the steps before it (all or nothing).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxl/libcxl.h>
#include <uuid/uuid.h>

#include "cxl/cxl_internal.h"

#define REGION_MAX_WAYS 16
#define SZ_256M (256ULL << 20)

/* The memdev named @id: "memN", or its serial number. */
static struct cxl_memdev *memdev_find(struct cxl_ctx *cxl, const char *id)
{
	struct cxl_memdev *md;
	unsigned long long serial;
	char *end;

	errno = 0;
	serial = strtoull(id, &end, 0);
	if (errno || end == id || *end)
		end = NULL;   /* not a number: a name */
	cxl_memdev_foreach(cxl, md) {
		if (!strcmp(cxl_memdev_get_devname(md), id))
			return md;
		if (end && cxl_memdev_get_serial(md) == serial)
			return md;
	}
	return NULL;
}

/* The endpoint decoder holding @md's capacity in a region, or NULL. */
static struct cxl_decoder *memdev_busy_decoder(struct cxl_memdev *md)
{
	struct cxl_endpoint *ep = cxl_memdev_get_endpoint(md);
	struct cxl_decoder *d;

	if (!ep)
		return NULL;
	cxl_decoder_foreach(cxl_endpoint_get_port(ep), d)
		if (cxl_decoder_get_region(d) || cxl_decoder_get_dpa_size(d))
			return d;
	return NULL;
}

/* A free endpoint decoder of @md (size 0), as ndctl picks one. */
static struct cxl_decoder *memdev_free_decoder(struct cxl_memdev *md)
{
	struct cxl_endpoint *ep = cxl_memdev_get_endpoint(md);
	struct cxl_decoder *d;

	if (!ep)
		return NULL;
	cxl_decoder_foreach(cxl_endpoint_get_port(ep), d)
		if (cxl_decoder_get_size(d) == 0 &&
		    !cxl_decoder_get_dpa_size(d))
			return d;
	return NULL;
}

/* A pmem-capable root decoder that reaches every memdev. */
static struct cxl_decoder *root_decoder_for(struct cxl_ctx *cxl,
					    struct cxl_memdev **md, unsigned n)
{
	struct cxl_bus *bus;

	cxl_bus_foreach(cxl, bus) {
		struct cxl_port *root = cxl_bus_get_port(bus);
		struct cxl_decoder *d;

		if (!cxl_port_is_root(root))
			continue;
		cxl_decoder_foreach(root, d) {
			unsigned i;

			if (!cxl_decoder_is_pmem_capable(d))
				continue;
			for (i = 0; i < n; i++)
				if (!cxl_decoder_get_target_by_memdev(d, md[i]))
					break;
			if (i == n)
				return d;
		}
	}
	return NULL;
}

/* Everything that can be checked before the first write. */
struct region_plan {
	struct cxl_memdev *md[REGION_MAX_WAYS];
	struct cxl_decoder *ep[REGION_MAX_WAYS];
	struct cxl_decoder *root;
	unsigned ways;
	unsigned granularity;
	unsigned long long size;
};

static int check_request(struct cxl_ctx *cxl,
			 const struct famfs_provider_region *req,
			 struct region_plan *pl, char *why, size_t whylen)
{
	unsigned long long min = 0, avail;
	unsigned root_ig, root_iw;

	if (req->nmemdevs < 1 || req->nmemdevs > REGION_MAX_WAYS ||
	    req->ways != req->nmemdevs) {
		snprintf(why, whylen, "ways %u must equal the number of memdevs "
			 "(%u, at most %d)", req->ways, req->nmemdevs,
			 REGION_MAX_WAYS);
		return -EINVAL;
	}
	pl->ways = req->ways;
	for (unsigned i = 0; i < pl->ways; i++) {
		struct cxl_decoder *busy;
		unsigned long long sz;

		pl->md[i] = memdev_find(cxl, req->memdevs[i]);
		if (!pl->md[i]) {
			snprintf(why, whylen, "memdev '%s' not found (cxl list "
				 "-M lists the memdevs and their serials)",
				 req->memdevs[i]);
			return -ENODEV;
		}
		for (unsigned j = 0; j < i; j++)
			if (pl->md[j] == pl->md[i]) {
				snprintf(why, whylen, "memdev '%s' is named "
					 "twice", req->memdevs[i]);
				return -EINVAL;
			}
		busy = memdev_busy_decoder(pl->md[i]);
		if (busy) {
			struct cxl_region *r = cxl_decoder_get_region(busy);

			snprintf(why, whylen, "memdev '%s' (%s) is already in "
				 "%s%s", req->memdevs[i],
				 cxl_memdev_get_devname(pl->md[i]),
				 r ? "region " : "use by decoder ",
				 r ? cxl_region_get_devname(r) :
				 cxl_decoder_get_devname(busy));
			return -EBUSY;
		}
		pl->ep[i] = memdev_free_decoder(pl->md[i]);
		sz = cxl_memdev_get_pmem_size(pl->md[i]);
		if (!pl->ep[i] || !sz) {
			snprintf(why, whylen, "memdev '%s' (%s) has %s",
				 req->memdevs[i], cxl_memdev_get_devname(pl->md[i]),
				 sz ? "no free endpoint decoder" :
				 "no persistent capacity");
			return -EINVAL;
		}
		min = !min || sz < min ? sz : min;
	}
	pl->root = root_decoder_for(cxl, pl->md, pl->ways);
	if (!pl->root) {
		snprintf(why, whylen, "no pmem-capable root decoder reaches "
			 "all of the memdevs (cxl list -D -d root)");
		return -EINVAL;
	}
	root_ig = cxl_decoder_get_interleave_granularity(pl->root);
	root_iw = cxl_decoder_get_interleave_ways(pl->root);
	pl->granularity = req->granularity ? (unsigned)req->granularity :
			  root_ig;
	if (pl->granularity < 256 || pl->granularity > 16384 ||
	    (pl->granularity & (pl->granularity - 1))) {
		snprintf(why, whylen, "granularity %llu: must be a power of two "
			 "from 256 to 16384 bytes",
			 (unsigned long long)req->granularity);
		return -EINVAL;
	}
	if (root_iw > 1 && pl->granularity != root_ig) {
		snprintf(why, whylen, "granularity %u: root decoder %s "
			 "interleaves %u ways and allows only its own "
			 "granularity (%u)", pl->granularity,
			 cxl_decoder_get_devname(pl->root), root_iw, root_ig);
		return -EINVAL;
	}
	/* as ndctl: each memdev gives the smallest one's capacity */
	pl->size = min * pl->ways;
	avail = cxl_decoder_get_max_available_extent(pl->root);
	if (pl->size > avail)
		pl->size = avail / (SZ_256M * pl->ways) * (SZ_256M * pl->ways);
	if (!pl->size) {
		snprintf(why, whylen, "root decoder %s has no room left for a "
			 "region", cxl_decoder_get_devname(pl->root));
		return -ENOSPC;
	}
	return 0;
}

/*
 * Undo a region: disable, reset the decode, clear its targets, give back
 * the endpoint decoders' capacity (@ep, also the ones not yet targets),
 * delete. Every step is tried; the first error is returned.
 */
static int region_teardown(struct cxl_region *r, struct cxl_decoder **ep,
			   unsigned n, char *why, size_t whylen)
{
	const char *name = cxl_region_get_devname(r);
	int first = 0, e;

#define STEP(call, what) do { \
		e = (call); \
		if (e && !first) { \
			first = e; \
			snprintf(why, whylen, "%s: %s failed: %s", name, what, \
				 strerror(-e)); \
		} \
	} while (0)
	if (cxl_region_is_enabled(r))
		STEP(cxl_region_disable(r), "disable");
	if (cxl_region_decode_is_committed(r) == 1)
		STEP(cxl_region_decode_reset(r), "decode reset");
	for (unsigned i = 0; i < n; i++)
		if (cxl_region_get_target_decoder(r, (int)i))
			STEP(cxl_region_clear_target(r, (int)i),
			     "clearing a target");
	for (unsigned i = 0; i < n; i++)
		if (ep[i] && cxl_decoder_get_dpa_size(ep[i]))
			STEP(cxl_decoder_set_dpa_size(ep[i], 0),
			     "freeing endpoint capacity");
	STEP(cxl_region_delete(r), "delete");
#undef STEP
	return first;
}

/* The region steps of `cxl create-region`, undone on failure. */
static struct cxl_region *region_build(struct region_plan *pl, char *why,
				       size_t whylen, int *err)
{
	struct cxl_decoder *allocated[REGION_MAX_WAYS] = { NULL };
	unsigned long long per = pl->size / pl->ways;
	struct cxl_region *r;
	const char *step = "";
	uuid_t uu;
	int e;

	r = cxl_decoder_create_pmem_region(pl->root);
	if (!r) {
		*err = -ENXIO;
		snprintf(why, whylen, "%s: cannot create a pmem region",
			 cxl_decoder_get_devname(pl->root));
		return NULL;
	}
	uuid_generate(uu);
#define TRY(call, what) do { \
		step = what; \
		if ((e = (call))) \
			goto fail; \
	} while (0)
	TRY(cxl_region_set_interleave_granularity(r, pl->granularity),
	    "setting the granularity");
	TRY(cxl_region_set_interleave_ways(r, pl->ways), "setting the ways");
	TRY(cxl_region_set_uuid(r, uu), "setting the uuid");
	TRY(cxl_region_set_size(r, pl->size), "setting the size");
	for (unsigned i = 0; i < pl->ways; i++) {
		if (cxl_decoder_get_mode(pl->ep[i]) != CXL_DECODER_MODE_PMEM)
			TRY(cxl_decoder_set_mode(pl->ep[i],
						 CXL_DECODER_MODE_PMEM),
			    "setting an endpoint decoder to pmem");
		allocated[i] = pl->ep[i];
		TRY(cxl_decoder_set_dpa_size(pl->ep[i], per),
		    "allocating endpoint capacity");
		TRY(cxl_region_set_target(r, (int)i, pl->ep[i]),
		    "setting a target");
	}
	TRY(cxl_region_decode_commit(r), "committing the decode");
	TRY(cxl_region_enable(r), "enabling");
#undef TRY
	return r;
fail:
	*err = e;
	snprintf(why, whylen, "%s: %s failed: %s", cxl_region_get_devname(r),
		 step, strerror(-e));
	{
		char ignored[FAMFS_PROVIDER_WHY_LEN];

		/* the first error is the one to report */
		region_teardown(r, allocated, pl->ways, ignored,
				sizeof(ignored));
	}
	return NULL;
}

int cxl_region_create(const struct famfs_provider_region *req,
		      char region[FAMFS_PROVIDER_NAME_LEN],
		      struct famfs_provider_dev *dev, char *why, size_t whylen)
{
	struct region_plan pl = { .ways = 0 };
	struct cxl_ctx *cxl = NULL;
	struct cxl_region *r;
	int e;

	if (cxl_new(&cxl) < 0) {
		snprintf(why, whylen, "libcxl could not start (is cxl_acpi "
			 "loaded?)");
		return -ENODEV;
	}
	cxl_set_log_priority(cxl, 0);
	e = check_request(cxl, req, &pl, why, whylen);
	if (e)
		goto out;
	r = region_build(&pl, why, whylen, &e);
	if (!r)
		goto out;
	snprintf(region, FAMFS_PROVIDER_NAME_LEN, "%s",
		 cxl_region_get_devname(r));
	e = cxl_region_ns_create(cxl_region_get_resource(r), req->name,
				 req->align, dev, why, whylen);
	if (e) {
		size_t used = strlen(why);
		char tw[FAMFS_PROVIDER_WHY_LEN] = "";

		if (region_teardown(r, pl.ep, pl.ways, tw, sizeof(tw)))
			snprintf(why + used, whylen - used, "; undoing %s "
				 "failed too: %s", region, tw);
		else
			snprintf(why + used, whylen - used, " (%s was removed "
				 "again)", region);
	}
out:
	cxl_unref(cxl);
	return e;
}

static struct cxl_region *region_by_name(struct cxl_ctx *cxl, const char *name)
{
	struct cxl_bus *bus;

	cxl_bus_foreach(cxl, bus) {
		struct cxl_port *root = cxl_bus_get_port(bus);
		struct cxl_decoder *d;
		struct cxl_region *r;

		cxl_decoder_foreach(root, d)
			cxl_region_foreach(d, r)
				if (!strcmp(cxl_region_get_devname(r), name))
					return r;
	}
	return NULL;
}

int cxl_region_destroy(const char *name, char *why, size_t whylen)
{
	struct cxl_decoder *ep[REGION_MAX_WAYS] = { NULL };
	struct cxl_ctx *cxl = NULL;
	struct cxl_region *r;
	unsigned ways;
	int e;

	if (cxl_new(&cxl) < 0) {
		snprintf(why, whylen, "libcxl could not start");
		return -ENODEV;
	}
	cxl_set_log_priority(cxl, 0);
	r = region_by_name(cxl, name);
	if (!r) {
		snprintf(why, whylen, "no CXL region %s", name);
		e = -ENOENT;
		goto out;
	}
	e = cxl_region_ns_destroy(cxl_region_get_resource(r), why, whylen);
	if (e)
		goto out;
	ways = cxl_region_get_interleave_ways(r);
	if (ways > REGION_MAX_WAYS)
		ways = REGION_MAX_WAYS;
	for (unsigned i = 0; i < ways; i++)
		ep[i] = cxl_region_get_target_decoder(r, (int)i);
	e = region_teardown(r, ep, ways, why, whylen);
out:
	cxl_unref(cxl);
	return e;
}
