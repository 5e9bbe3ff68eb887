/* SPDX-License-Identifier: Apache-2.0 */
/* The cxl provider's parts: CXL/DAX (cxl.c) and pmem namespaces. */
#ifndef FAMFS_CXL_INTERNAL_H
#define FAMFS_CXL_INTERNAL_H

#include <json-c/json.h>

#include "provider.h"

void cxl_jadd_str(json_object *o, const char *k, const char *v);
void cxl_jadd_u64(json_object *o, const char *k, unsigned long long v);
/* The device's identity: the "uuid" field of @o when it has one (a
 * namespace's label UUID, the same on every host), else derived from
 * @key.
 */
void cxl_json_uuid(json_object *o, char out[37], const char *key);

/* Every pmem namespace into top["namespaces"]; fsdax ones (and ones in a
 * wrong mode, unusable) reported through @fn.
 */
int cxl_namespaces_discover(famfs_provider_found_fn fn, void *arg,
			    json_object *top);
/* Describe the namespace whose block device is @path (/dev/pmemN). */
int cxl_namespace_open(const char *path, struct famfs_provider_dev *dev,
		       char *why, size_t whylen);

/* regions.c: provider region_create() and region_destroy(). */
int cxl_region_create(const struct famfs_provider_region *req,
		      char region[FAMFS_PROVIDER_NAME_LEN],
		      struct famfs_provider_dev *dev, char *why, size_t whylen);
int cxl_region_destroy(const char *name, char *why, size_t whylen);

/* region_ns.c: the fsdax namespace filling the nvdimm region over
 * physical address @resource (described in @dev), and removing every
 * namespace there. 0 or a negative errno with @why set.
 */
int cxl_region_ns_create(unsigned long long resource, const char *name,
			 uint64_t align, struct famfs_provider_dev *dev,
			 char *why, size_t whylen);
int cxl_region_ns_destroy(unsigned long long resource, char *why,
			  size_t whylen);

#endif
