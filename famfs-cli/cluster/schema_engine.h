/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cluster-file checker's engine, shared by schema.c (the engine: a
 * field table walked over a YAML mapping) and schema_tables.c (the tables,
 * one per mapping of schemas/cluster.schema.json, and the loader).
 */
#ifndef FAMFS_CLUSTER_SCHEMA_ENGINE_H
#define FAMFS_CLUSTER_SCHEMA_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/model.h"

#define NO_OFF ((size_t)-1)
#define INT64_LIMIT ((uint64_t)INT64_MAX)

enum ftype {
	F_CONST,     /* string equal to field.cval */
	F_NAME,      /* ^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$ */
	F_STR,       /* any string */
	F_ABSPATH,   /* string starting with '/' */
	F_FSPATH,    /* a normalised absolute path: no "//", ".", "..", or
		      * trailing '/' (a path inside a filesystem) */
	F_ENDPOINT,  /* /path, unix:/path or https://host... */
	F_ROLE,      /* master | client -> enum cl_role */
	F_BACKEND,   /* kernel | fuse -> const char * */
	F_SIZE,      /* integer >= 1 or size string -> uint64_t */
	F_USIZE,     /* like F_SIZE, integers a multiple of 2 MiB */
	F_STRIPS,    /* integer 1..64 -> unsigned */
	F_STRIPS0,   /* integer 0..64 -> unsigned */
	F_WAYS,      /* integer in {1,2,3,4,6,8,12,16} -> unsigned */
	F_KEEP,      /* integer 0..16 -> unsigned (GEN_MAX_KEEP in famfsd) */
	F_SERIAL,    /* integer 0..2^64-1 -> uint64_t */
	F_REGION,    /* ^region[0-9]+$ */
	F_DAX,       /* ^dax[0-9]+\.[0-9]+$ */
	F_PMEM,      /* ^pmem[0-9]+(\.[0-9]+)?s?$ */
	F_BOOL,      /* -> bool */
	F_NAMES,     /* list of 1..64 unique names -> struct cl_names */
	F_OBJECT,    /* nested mapping, stored into the same struct */
	F_LIST,      /* list of mappings -> array at off, count at count_off */
};

struct objdesc;

struct field {
	const char *key;
	enum ftype type;
	bool required;
	size_t off;            /* where the value goes, or NO_OFF */
	size_t has_off;        /* a bool set when present, or NO_OFF */
	const struct objdesc *sub;
	const char *cval;
	size_t esize, count_off; /* F_LIST */
};

struct ctx {
	struct diag *d;
	struct kpath path;
	bool schema_only; /* CLUSTER_LOAD_SCHEMA_ONLY */
};

typedef void (*obj_check_fn)(struct ctx *x, const struct ynode *map,
			     void *obj);

struct objdesc {
	const struct field *fields;
	obj_check_fn check;    /* rules across keys (oneOf, if/then) */
	size_t node_off;       /* where the element keeps its node, or NO_OFF */
};

#define FLD(k, t, req, type, member) \
	{ k, t, req, offsetof(type, member), NO_OFF, NULL, NULL, 0, 0 }
#define FLDH(k, t, type, member, has) \
	{ k, t, false, offsetof(type, member), offsetof(type, has), NULL, NULL, \
	  0, 0 }
#define FOBJ(k, req, sub) \
	{ k, F_OBJECT, req, NO_OFF, NO_OFF, sub, NULL, 0, 0 }
#define FLIST(k, req, sub, elem, arr, cnt) \
	{ k, F_LIST, req, offsetof(struct cluster, arr), NO_OFF, sub, NULL, \
	  sizeof(elem), offsetof(struct cluster, cnt) }
#define FCONST(k, v) { k, F_CONST, true, NO_OFF, NO_OFF, NULL, v, 0, 0 }
#define FEND { NULL, 0, false, NO_OFF, NO_OFF, NULL, NULL, 0, 0 }

void schema_err(struct ctx *x, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* JSON Schema's "string": a scalar string without embedded NULs. */
bool schema_is_string(const struct ynode *n);
/* Check mapping @n against @desc, storing into @obj; false if invalid
 * (every problem is reported in x->d).
 */
bool schema_check_object(struct ctx *x, const struct objdesc *desc,
			 const struct ynode *n, void *obj);

#endif
