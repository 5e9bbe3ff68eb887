// SPDX-License-Identifier: Apache-2.0
/*
 * The cluster file's structure as field tables, one per mapping of
 * schemas/cluster.schema.json, the rules across keys that JSON Schema
 * says with oneOf/if-then, and cluster_load(), which runs the engine
 * (schema.c) over a file and then the reference checks (refs.c).
 */
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "cluster/model.h"
#include "cluster/schema_engine.h"

/* ---- rules across keys --------------------------------------------------- */

/* JSON Schema oneOf [required a, required b, ...]: exactly one present. */
static void exactly_one(struct ctx *x, const struct ynode *map,
			const char *const *keys, const char *what)
{
	size_t present = 0;

	for (size_t i = 0; keys[i]; i++)
		present += ynode_get(map, keys[i]) != NULL;
	if (present != 1)
		schema_err(x, map, "%s exactly one of %s", present ?
		    "gives more than one: use" : "needs", what);
}

static void device_rules(struct ctx *x, const struct ynode *map, void *obj)
{
	static const char *const keys[] = { "emul", "cxl", NULL };
	struct cl_device *dev = obj;

	exactly_one(x, map, keys, "'emul' or 'cxl'");
	dev->kind = ynode_get(map, "emul") ? CL_DEV_EMUL : CL_DEV_CXL;
}

static void cxl_rules(struct ctx *x, const struct ynode *map, void *obj)
{
	static const char *const keys[] = { "serial", "region", "dax", "pmem",
					    NULL };

	(void)obj;
	exactly_one(x, map, keys, "'serial', 'region', 'dax' or 'pmem'");
}

static void host_rules(struct ctx *x, const struct ynode *map, void *obj)
{
	const struct ynode *ep = ynode_get(map, "endpoint");

	(void)obj;
	if (ep && schema_is_string(ep) && !strncmp(ep->str, "https:", 6) &&
	    !ynode_get(map, "tokenFile")) {
		size_t old = kpath_key(&x->path, "endpoint");

		schema_err(x, ep, "an https endpoint needs 'tokenFile' (famfsd refuses "
		    "TCP requests without the bearer token)");
		kpath_pop(&x->path, old);
	}
}

/* ---- the tables: one per mapping of schemas/cluster.schema.json --------- */

#define NODE(type) offsetof(type, node)

static const struct field metadata_fields[] = {
	FLD("name", F_NAME, true, struct cluster, name), FEND,
};
static const struct objdesc metadata_desc = { metadata_fields, NULL, NO_OFF };

static const struct field host_fields[] = {
	FLD("name", F_NAME, true, struct cl_host, name),
	FLD("endpoint", F_ENDPOINT, true, struct cl_host, endpoint),
	FLD("role", F_ROLE, true, struct cl_host, role),
	FLD("tokenFile", F_ABSPATH, false, struct cl_host, token_file),
	FEND,
};
static const struct objdesc host_desc = {
	host_fields, host_rules, NODE(struct cl_host) };

static const struct field emul_fields[] = {
	FLD("path", F_ABSPATH, true, struct cl_device, path),
	FLD("size", F_USIZE, true, struct cl_device, size),
	FEND,
};
static const struct objdesc emul_desc = { emul_fields, NULL, NO_OFF };

static const struct field cxl_fields[] = {
	FLDH("serial", F_SERIAL, struct cl_device, serial, has_serial),
	FLD("region", F_REGION, false, struct cl_device, region),
	FLD("dax", F_DAX, false, struct cl_device, dax),
	FLD("pmem", F_PMEM, false, struct cl_device, pmem),
	FEND,
};
static const struct objdesc cxl_desc = { cxl_fields, cxl_rules, NO_OFF };

static const struct field device_fields[] = {
	FLD("name", F_NAME, true, struct cl_device, name),
	FOBJ("emul", false, &emul_desc),
	FOBJ("cxl", false, &cxl_desc),
	FEND,
};
static const struct objdesc device_desc = {
	device_fields, device_rules, NODE(struct cl_device) };

static const struct field region_fields[] = {
	FLD("name", F_NAME, true, struct cl_region, name),
	FLD("host", F_NAME, false, struct cl_region, host),
	FLD("memdevs", F_NAMES, true, struct cl_region, memdevs),
	FLD("ways", F_WAYS, false, struct cl_region, ways),
	FLD("granularity", F_SIZE, false, struct cl_region, granularity),
	FLD("align", F_SIZE, false, struct cl_region, align),
	FEND,
};
static const struct objdesc region_desc = {
	region_fields, NULL, NODE(struct cl_region) };

static const struct field set_fields[] = {
	FLD("name", F_NAME, true, struct cl_set, name),
	FLD("devices", F_NAMES, true, struct cl_set, devices),
	FLD("chunk", F_USIZE, false, struct cl_set, chunk),
	FLD("strips", F_STRIPS, false, struct cl_set, strips),
	FEND,
};
static const struct objdesc set_desc = {
	set_fields, NULL, NODE(struct cl_set) };

static const struct field fs_fields[] = {
	FLD("name", F_NAME, true, struct cl_filesystem, name),
	FLD("set", F_NAME, true, struct cl_filesystem, set),
	FLD("master", F_NAME, true, struct cl_filesystem, master),
	FLD("logSize", F_USIZE, false, struct cl_filesystem, log_size),
	FEND,
};
static const struct objdesc fs_desc = {
	fs_fields, NULL, NODE(struct cl_filesystem) };

static const struct field mount_fields[] = {
	FLD("name", F_NAME, false, struct cl_mount, name),
	FLD("filesystem", F_NAME, true, struct cl_mount, filesystem),
	FLD("host", F_NAME, true, struct cl_mount, host),
	FLD("path", F_ABSPATH, true, struct cl_mount, path),
	FLD("role", F_ROLE, true, struct cl_mount, role),
	FLD("options", F_STR, false, struct cl_mount, options),
	FLD("backend", F_BACKEND, false, struct cl_mount, backend),
	FEND,
};
static const struct objdesc mount_desc = {
	mount_fields, NULL, NODE(struct cl_mount) };

static const struct field interleave_fields[] = {
	FLD("chunk", F_USIZE, false, struct cl_dataset, chunk),
	FLD("strips", F_STRIPS, false, struct cl_dataset, strips),
	FEND,
};
static const struct objdesc interleave_desc = {
	interleave_fields, NULL, NO_OFF };

static const struct field dataset_fields[] = {
	FLD("name", F_NAME, true, struct cl_dataset, name),
	FLD("source", F_ABSPATH, true, struct cl_dataset, source),
	FLD("destination", F_FSPATH, false, struct cl_dataset, destination),
	FLD("filesystem", F_NAME, true, struct cl_dataset, filesystem),
	FOBJ("interleave", false, &interleave_desc),
	FLDH("verify", F_BOOL, struct cl_dataset, verify, has_verify),
	FLDH("keep", F_KEEP, struct cl_dataset, keep, has_keep),
	FEND,
};
static const struct objdesc dataset_desc = {
	dataset_fields, NULL, NODE(struct cl_dataset) };

static const struct field defaults_fields[] = {
	FLDH("chunk", F_USIZE, struct cl_defaults, chunk, has_chunk),
	FLDH("strips", F_STRIPS0, struct cl_defaults, strips, has_strips),
	FLDH("logSize", F_USIZE, struct cl_defaults, log_size, has_log_size),
	FLDH("mountOptions", F_STR, struct cl_defaults, mount_options,
	     has_mount_options),
	FLDH("verify", F_BOOL, struct cl_defaults, verify, has_verify),
	FEND,
};
static const struct objdesc defaults_desc = { defaults_fields, NULL, NO_OFF };

static void defaults_rules(struct ctx *x, const struct ynode *map, void *obj)
{
	const struct ynode *v = ynode_get(map, "defaults");
	struct cluster *c = obj;
	size_t old;

	if (!v)
		return;
	old = kpath_key(&x->path, "defaults");
	c->defaults.present = schema_check_object(x, &defaults_desc, v, &c->defaults);
	kpath_pop(&x->path, old);
}

static const struct field cluster_fields[] = {
	FCONST("apiVersion", "famfs.io/v1alpha1"),
	FCONST("kind", "Cluster"),
	FOBJ("metadata", true, &metadata_desc),
	FLIST("hosts", true, &host_desc, struct cl_host, hosts, nhosts),
	FLIST("devices", false, &device_desc, struct cl_device, devices,
	      ndevices),
	FLIST("regions", false, &region_desc, struct cl_region, regions,
	      nregions),
	FLIST("sets", false, &set_desc, struct cl_set, sets, nsets),
	FLIST("filesystems", false, &fs_desc, struct cl_filesystem,
	      filesystems, nfilesystems),
	FLIST("mounts", false, &mount_desc, struct cl_mount, mounts, nmounts),
	FLIST("datasets", false, &dataset_desc, struct cl_dataset, datasets,
	      ndatasets),
	/* checked by defaults_rules() into c->defaults, not c itself */
	{ "defaults", F_OBJECT, false, NO_OFF, NO_OFF, NULL, NULL, 0, 0 },
	FEND,
};
static const struct objdesc cluster_desc = {
	cluster_fields, defaults_rules, NO_OFF };

/* ---- loading ------------------------------------------------------------- */

int cluster_load(const char *file, struct cluster **out, struct diag *d)
{
	return cluster_load_flags(file, 0, out, d);
}

int cluster_load_flags(const char *file, unsigned flags,
		       struct cluster **out, struct diag *d)
{
	struct ctx x = { .d = d,
			  .schema_only = flags & CLUSTER_LOAD_SCHEMA_ONLY };
	struct cluster *c;
	struct ymark m;
	char msg[512];
	size_t before = d->n + d->dropped;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		diag_add(d, NULL, "", "out of memory");
		return -1;
	}
	c->file = file;
	if (ydoc_load(file, &c->doc, &m, msg, sizeof(msg)) < 0) {
		diag_add(d, &m, "", "%s", msg);
		free(c);
		return -1;
	}
	if (!c->doc->root) {
		struct ymark start = { 1, 1 };

		diag_add(d, &start, "", "the file is empty: a cluster file is "
			 "a mapping with apiVersion, kind, metadata and hosts");
	} else {
		/* references too, so that one run reports everything */
		schema_check_object(&x, &cluster_desc, c->doc->root, c);
		if (!x.schema_only)
			cluster_check_refs(c, d);
	}
	if (d->n + d->dropped != before) {
		cluster_free(c);
		return -1;
	}
	*out = c;
	return 0;
}
