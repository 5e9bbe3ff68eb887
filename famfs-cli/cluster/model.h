/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A validated cluster file as C structures. Strings point into the loaded
 * document, which struct cluster owns; sizes are in bytes. Optional values
 * that were not given are 0 / NULL (with a `has_` flag where 0 is valid).
 */
#ifndef FAMFS_CLI_CLUSTER_MODEL_H
#define FAMFS_CLI_CLUSTER_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/diag.h"
#include "cluster/doc.h"

enum cl_role { CL_ROLE_UNSET, CL_ROLE_MASTER, CL_ROLE_CLIENT };
enum cl_device_kind { CL_DEV_EMUL, CL_DEV_CXL };

struct cl_names {
	const char **v;
	const struct ynode **nodes; /* for marks */
	size_t n;
};

struct cl_host {
	const char *name, *endpoint, *token_file;
	enum cl_role role;
	const struct ynode *node;
};

struct cl_device {
	const char *name;
	enum cl_device_kind kind;
	const char *path;   /* emul */
	uint64_t size;      /* emul */
	bool has_serial;    /* cxl: exactly one of serial, region, dax, pmem */
	uint64_t serial;
	const char *region, *dax;
	const char *pmem;   /* an fsdax namespace's block device, pmemN[.M] */
	const struct ynode *node;
};

struct cl_region {
	const char *name, *host;
	struct cl_names memdevs;
	unsigned ways;       /* 0: not given (= number of memdevs) */
	uint64_t granularity;
	uint64_t align;      /* the fsdax namespace's; 0: famfsd's (2 MiB) */
	const struct ynode *node;
};

struct cl_set {
	const char *name;
	struct cl_names devices;
	uint64_t chunk;      /* 0: policy default */
	unsigned strips;     /* 0: policy default */
	const struct ynode *node;
};

struct cl_filesystem {
	const char *name, *set, *master;
	uint64_t log_size;   /* 0: policy default */
	const struct ynode *node;
};

struct cl_mount {
	const char *name;    /* given, or "<filesystem>-<role>" */
	char *name_buf;      /* owns the derived name */
	const char *filesystem, *host, *path, *options;
	const char *backend; /* kernel | fuse; NULL: the host's default */
	enum cl_role role;
	const struct ynode *node;
};

struct cl_dataset {
	const char *name, *source, *destination, *filesystem;
	char *destination_buf; /* owns "/<name>" when not given */
	uint64_t chunk;
	unsigned strips;
	bool verify, has_verify;
	unsigned keep;       /* previous generations kept (famfsd: 1) */
	bool has_keep;
	const struct ynode *node;
};

struct cl_defaults {
	bool present;
	uint64_t chunk, log_size;
	bool has_chunk, has_strips, has_log_size, has_mount_options;
	bool has_verify, verify;
	unsigned strips;
	const char *mount_options;
};

struct cluster {
	struct ydoc *doc;
	const char *file;
	const char *name; /* metadata.name */
	struct cl_host *hosts;
	size_t nhosts;
	struct cl_device *devices;
	size_t ndevices;
	struct cl_region *regions;
	size_t nregions;
	struct cl_set *sets;
	size_t nsets;
	struct cl_filesystem *filesystems;
	size_t nfilesystems;
	struct cl_mount *mounts;
	size_t nmounts;
	struct cl_dataset *datasets;
	size_t ndatasets;
	struct cl_defaults defaults;
};

/*
 * cluster_load() - load and validate @file. Every problem goes into @d
 * (whose ->file the caller sets). Returns 0 with *@out set (free with
 * cluster_free()) when the file is valid; -1 when it is not (or cannot be
 * read), with *@out NULL and at least one entry in @d.
 */
int cluster_load(const char *file, struct cluster **out, struct diag *d);
void cluster_free(struct cluster *c);

/*
 * Only what schemas/cluster.schema.json itself says: no references, no
 * duplicate keys, no multiples of 2 MiB or range inside size strings.
 * For comparing with JSON Schema validators; a file valid this way may
 * still be refused by cluster_load(). The model is not fit for planning.
 */
#define CLUSTER_LOAD_SCHEMA_ONLY 0x1u
int cluster_load_flags(const char *file, unsigned flags,
		       struct cluster **out, struct diag *d);

/* Lookups by name; NULL when absent. */
const struct cl_host *cluster_host(const struct cluster *c, const char *name);
const struct cl_device *cluster_device(const struct cluster *c,
				       const char *name);
const struct cl_region *cluster_region(const struct cluster *c,
				       const char *name);
const struct cl_set *cluster_set(const struct cluster *c, const char *name);
const struct cl_filesystem *cluster_filesystem(const struct cluster *c,
					       const char *name);

/* Internal to the validator (schema.c -> refs.c). */
void cluster_check_refs(struct cluster *c, struct diag *d);

#endif
