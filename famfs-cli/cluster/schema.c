// SPDX-License-Identifier: Apache-2.0
/*
 * The structural half of cluster-file validation: the same rules as
 * schemas/cluster.schema.json, written as field tables, filling struct
 * cluster as it goes. Every rule here has its twin in the schema and the
 * corpus in tests/schema/ proves they agree; what JSON Schema cannot say
 * (references, duplicates, multiples of 2 MiB in strings) is in refs.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "cluster/model.h"
#include "cluster/units.h"

#define NO_OFF ((size_t)-1)
#define INT64_LIMIT ((uint64_t)INT64_MAX)

enum ftype {
	F_CONST,     /* string equal to field.cval */
	F_NAME,      /* ^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$ */
	F_STR,       /* any string */
	F_ABSPATH,   /* string starting with '/' */
	F_ENDPOINT,  /* /path, unix:/path or https://host... */
	F_ROLE,      /* master | client -> enum cl_role */
	F_BACKEND,   /* kernel | fuse -> const char * */
	F_SIZE,      /* integer >= 1 or size string -> uint64_t */
	F_USIZE,     /* like F_SIZE, integers a multiple of 2 MiB */
	F_STRIPS,    /* integer 1..64 -> unsigned */
	F_STRIPS0,   /* integer 0..64 -> unsigned */
	F_WAYS,      /* integer in {1,2,3,4,6,8,12,16} -> unsigned */
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

static void err(struct ctx *x, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void err(struct ctx *x, const struct ynode *n, const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		x->d->dropped++;
		return;
	}
	diag_add(x->d, &n->mark, x->path.buf, "%s", msg);
	free(msg);
}

/* ---- scalars ------------------------------------------------------------ */

/* A string without embedded NULs, or NULL. */
static const char *plain_string(const struct ynode *n)
{
	if (n->kind != YN_SCALAR || n->type != YS_STR || strlen(n->str) != n->len)
		return NULL;
	return n->str;
}

static bool is_string(const struct ynode *n)
{
	return n->kind == YN_SCALAR && n->type == YS_STR;
}

/* JSON Schema's "integer": an int or an integral float, not a boolean. */
static bool is_integer(const struct ynode *n)
{
	return n->kind == YN_SCALAR &&
	       (n->type == YS_INT || (n->type == YS_FLOAT && n->integral));
}

static bool want_string(struct ctx *x, const struct ynode *n)
{
	if (is_string(n))
		return true;
	err(x, n, "must be a string, not %s", ynode_describe(n));
	return false;
}

/* An integer in [lo, hi]; false after reporting otherwise. */
static bool want_integer(struct ctx *x, const struct ynode *n, uint64_t lo,
			 uint64_t hi, uint64_t *out)
{
	if (!is_integer(n)) {
		err(x, n, "must be an integer, not %s", ynode_describe(n));
		return false;
	}
	if ((n->neg && n->mag) || n->overflow || n->mag < lo || n->mag > hi) {
		err(x, n, "must be between %llu and %llu, not %s",
		    (unsigned long long)lo, (unsigned long long)hi, n->str);
		return false;
	}
	*out = n->mag;
	return true;
}

static bool name_ok(const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (len < 1 || len > 63 || !((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-", s[i]))
			return false;
	return true;
}

/* "<prefix>[0-9]+" then, for dax, "\.[0-9]+". */
/* pmemN, pmemN.M, and a trailing 's' (a sector-mode namespace's). */
static bool pmem_name_ok(const char *s)
{
	const char *p = s;

	if (!s || strncmp(s, "pmem", 4))
		return false;
	p += 4;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 's')
		p++;
	return !*p;
}

static bool devname_ok(const char *s, const char *prefix, bool dotted)
{
	size_t len = strlen(prefix);
	const char *p;

	if (!s || strncmp(s, prefix, len))
		return false;
	p = s + len;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (dotted) {
		if (*p++ != '.' || *p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return !*p;
}

static bool endpoint_ok(const struct ynode *n)
{
	if (n->len >= 1 && n->str[0] == '/')
		return true;
	if (n->len >= 6 && !memcmp(n->str, "unix:/", 6))
		return true;
	return n->len >= 9 && !memcmp(n->str, "https://", 8) && n->str[8] != '/';
}

static bool check_size(struct ctx *x, const struct ynode *n, bool unit,
		       uint64_t *out)
{
	const char *s;
	int r;

	if (is_integer(n)) {
		uint64_t lo = unit ? CL_UNIT_SIZE : 1;

		if (!want_integer(x, n, lo, INT64_LIMIT, out))
			return false;
		if (unit && *out % CL_UNIT_SIZE) {
			err(x, n, "%llu is not a multiple of 2 MiB (2097152)",
			    (unsigned long long)*out);
			return false;
		}
		return true;
	}
	if (!is_string(n)) {
		err(x, n, "must be a size (bytes, or a string like \"2MiB\"), "
		    "not %s", ynode_describe(n));
		return false;
	}
	s = plain_string(n);
	r = s ? famfs_parse_size(s, out) : -EINVAL;
	/* the schema's pattern: no size string of 0 bytes ("0", "0K") */
	if (r == 0 && *out == 0)
		r = -EINVAL;
	/* a cluster file holds 63-bit integers (YAML, JSON, SQLite) */
	if (r == 0 && *out > INT64_LIMIT)
		r = -ERANGE;
	if (r == -ERANGE) {
		if (x->schema_only) /* the schema's pattern has no bound */
			return *out = 0, true;
		err(x, n, "size '%s' is too large (more than 2^63-1 bytes)", s);
		return false;
	}
	if (r < 0) {
		err(x, n, "'%s' is not a size: use bytes (4096) or digits with "
		    "K, M, G or T, optionally followed by iB or B (2MiB, 1G)",
		    n->str);
		return false;
	}
	if (unit && *out % CL_UNIT_SIZE && !x->schema_only) {
		err(x, n, "%s is not a multiple of 2 MiB", s);
		return false;
	}
	return true;
}

static bool check_names(struct ctx *x, const struct ynode *n,
			struct cl_names *out)
{
	bool ok = true;

	if (n->kind != YN_SEQ) {
		err(x, n, "must be a list of names, not %s", ynode_describe(n));
		return false;
	}
	if (n->n < 1 || n->n > 64) {
		err(x, n, "must name between 1 and 64 entries, not %zu", n->n);
		ok = false;
	}
	out->v = calloc(n->n + 1, sizeof(*out->v));
	out->nodes = calloc(n->n + 1, sizeof(*out->nodes));
	if (!out->v || !out->nodes) {
		x->d->dropped++;
		return false;
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *item = n->vals[i];
		size_t old = kpath_index(&x->path, i);

		if (!want_string(x, item)) {
			ok = false;
		} else if (!name_ok(plain_string(item))) {
			err(x, item, "'%s' is not a valid name ([A-Za-z0-9] "
			    "then up to 62 of [A-Za-z0-9._-])", item->str);
			ok = false;
		} else {
			for (size_t j = 0; j < i; j++)
				if (out->v[j] && !strcmp(out->v[j], item->str)) {
					err(x, item, "'%s' is listed twice",
					    item->str);
					ok = false;
				}
		}
		out->v[out->n] = is_string(item) ? item->str : NULL;
		out->nodes[out->n++] = item;
		kpath_pop(&x->path, old);
	}
	return ok;
}

static bool check_object(struct ctx *x, const struct objdesc *desc,
			 const struct ynode *map, void *obj);

/* A list of mappings: allocate the array, check each element into it. */
static bool check_list(struct ctx *x, const struct field *f,
		       const struct ynode *n, void *obj)
{
	void **arr = (void **)((char *)obj + f->off);
	size_t *count = (size_t *)((char *)obj + f->count_off);
	bool ok = true;

	if (n->kind != YN_SEQ) {
		err(x, n, "must be a list, not %s", ynode_describe(n));
		return false;
	}
	if (f->required && !n->n) {
		err(x, n, "must have at least one entry");
		ok = false;
	}
	*arr = calloc(n->n + 1, f->esize);
	if (!*arr) {
		x->d->dropped++;
		return false;
	}
	for (size_t i = 0; i < n->n; i++) {
		char *elem = (char *)*arr + i * f->esize;
		size_t old = kpath_index(&x->path, i);

		/* every element struct starts with its name and keeps its node */
		if (!check_object(x, f->sub, n->vals[i], elem))
			ok = false;
		kpath_pop(&x->path, old);
	}
	*count = n->n;
	return ok;
}

/* Check @n against @f and store it into @obj; false if it is invalid. */
static bool check_value(struct ctx *x, const struct field *f,
			const struct ynode *n, void *obj)
{
	void *dst = f->off == NO_OFF ? NULL : (char *)obj + f->off;
	uint64_t v;

	switch (f->type) {
	case F_OBJECT:
		return check_object(x, f->sub, n, obj);
	case F_LIST:
		return check_list(x, f, n, obj);
	case F_NAMES:
		return check_names(x, n, dst);
	case F_BOOL:
		if (n->kind != YN_SCALAR || n->type != YS_BOOL) {
			err(x, n, "must be true or false, not %s",
			    ynode_describe(n));
			return false;
		}
		*(bool *)dst = n->bval;
		return true;
	case F_SIZE:
	case F_USIZE:
		if (!check_size(x, n, f->type == F_USIZE, &v))
			return false;
		/* placement refuses larger chunks (docs/format.md) */
		if (!x->schema_only && !strcmp(f->key, "chunk") &&
		    v > FAMFS_MAX_CHUNK) {
			err(x, n, "chunk %s is larger than 1 TiB, the limit",
			    n->str);
			return false;
		}
		*(uint64_t *)dst = v;
		return true;
	case F_STRIPS:
	case F_STRIPS0:
		if (!want_integer(x, n, f->type == F_STRIPS, 64, &v))
			return false;
		*(unsigned *)dst = (unsigned)v;
		return true;
	case F_WAYS:
		if (!want_integer(x, n, 1, 16, &v))
			return false;
		if (!strchr("\1\2\3\4\6\10\14\20", (int)v)) {
			err(x, n, "must be one of 1, 2, 3, 4, 6, 8, 12, 16");
			return false;
		}
		*(unsigned *)dst = (unsigned)v;
		return true;
	case F_SERIAL:
		if (!want_integer(x, n, 0, UINT64_MAX, &v))
			return false;
		*(uint64_t *)dst = v;
		return true;
	case F_PMEM:
		if (!pmem_name_ok(plain_string(n))) {
			err(x, n, "'%s' is not a pmem block device name "
			    "(pmemN, pmemN.M)", n->str);
			return false;
		}
		break;
	default:
		break;
	}
	/* the rest are strings */
	if (f->type == F_BACKEND) {
		const char *s = plain_string(n);

		if (!s || (strcmp(s, "kernel") && strcmp(s, "fuse"))) {
			err(x, n, "must be 'kernel' or 'fuse'");
			return false;
		}
		*(const char **)dst = s;
		return true;
	}
	if (f->type == F_ROLE) {
		const char *s = plain_string(n);

		if (!s || (strcmp(s, "master") && strcmp(s, "client"))) {
			err(x, n, "must be 'master' or 'client'");
			return false;
		}
		*(enum cl_role *)dst = strcmp(s, "master") ?
			CL_ROLE_CLIENT : CL_ROLE_MASTER;
		return true;
	}
	if (f->type == F_CONST) {
		if (!plain_string(n) || strcmp(n->str, f->cval)) {
			err(x, n, "must be '%s'", f->cval);
			return false;
		}
	} else if (!want_string(x, n)) {
		return false;
	}
	switch (f->type) {
	case F_NAME:
		if (!name_ok(plain_string(n))) {
			err(x, n, "'%s' is not a valid name ([A-Za-z0-9] then up "
			    "to 62 of [A-Za-z0-9._-])", n->str);
			return false;
		}
		/* famfsd refuses them (docs/api.md): they are routes */
		if (!x->schema_only && !strcmp(f->key, "name") &&
		    famfs_name_reserved(n->str)) {
			err(x, n, "'%s' is a reserved name (a route of the famfsd "
			    "API)", n->str);
			return false;
		}
		break;
	case F_ABSPATH:
		if (n->str[0] != '/') {
			err(x, n, "'%s' is not an absolute path", n->str);
			return false;
		}
		break;
	case F_ENDPOINT:
		if (!endpoint_ok(n)) {
			err(x, n, "'%s' is not an endpoint: give famfsd's Unix "
			    "socket path (/run/famfsd/famfsd.sock, "
			    "unix:/path) or an https://host:port URL", n->str);
			return false;
		}
		break;
	case F_REGION:
	case F_DAX:
		if (!devname_ok(plain_string(n), f->type == F_DAX ? "dax" :
				"region", f->type == F_DAX)) {
			err(x, n, "'%s' is not a %s name (%s)", n->str,
			    f->type == F_DAX ? "DAX device" : "CXL region",
			    f->type == F_DAX ? "daxX.Y" : "regionN");
			return false;
		}
		break;
	default:
		break;
	}
	if (dst)
		*(const char **)dst = n->str;
	return true;
}

static const struct field *field_find(const struct field *fields,
				      const struct ynode *key)
{
	const char *k = plain_string(key);

	for (const struct field *f = fields; k && f->key; f++)
		if (!strcmp(f->key, k))
			return f;
	return NULL;
}

static void unknown_key(struct ctx *x, const struct objdesc *desc,
			const struct ynode *key)
{
	char known[512] = "";
	size_t len = 0;

	for (const struct field *f = desc->fields; f->key; f++) {
		int r = snprintf(known + len, sizeof(known) - len, "%s%s",
				 len ? ", " : "", f->key);
		if (r < 0 || (size_t)r >= sizeof(known) - len)
			break;
		len += (size_t)r;
	}
	if (is_string(key))
		err(x, key, "unknown key '%s' (expected: %s)", key->str, known);
	else
		err(x, key, "a key must be a string, not %s (expected: %s)",
		    ynode_describe(key), known);
}

static bool check_object(struct ctx *x, const struct objdesc *desc,
			 const struct ynode *map, void *obj)
{
	bool ok = true;

	if (map->kind != YN_MAP) {
		err(x, map, "must be a mapping, not %s", ynode_describe(map));
		return false;
	}
	if (desc->node_off != NO_OFF)
		*(const struct ynode **)((char *)obj + desc->node_off) = map;
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->keys[i];
		const struct field *f = field_find(desc->fields, k);
		size_t old;

		if (!f) {
			old = is_string(k) ? kpath_key(&x->path, k->str) :
				x->path.len;
			unknown_key(x, desc, k);
			kpath_pop(&x->path, old);
			ok = false;
			continue;
		}
		for (size_t j = 0; j < i && !x->schema_only; j++)
			if (field_find(desc->fields, map->keys[j]) == f) {
				old = kpath_key(&x->path, f->key);
				err(x, k, "duplicate key '%s' (first at line %u "
				    "column %u)", f->key, map->keys[j]->mark.line,
				    map->keys[j]->mark.col);
				kpath_pop(&x->path, old);
				ok = false;
				break;
			}
	}
	for (const struct field *f = desc->fields; f->key; f++) {
		const struct ynode *v = ynode_get(map, f->key);
		size_t old;

		if (f->type == F_OBJECT && !f->sub)
			continue; /* checked by desc->check */
		if (!v) {
			if (f->required) {
				err(x, map, "missing required key '%s'", f->key);
				ok = false;
			}
			continue;
		}
		old = kpath_key(&x->path, f->key);
		if (check_value(x, f, v, obj)) {
			if (f->has_off != NO_OFF)
				*(bool *)((char *)obj + f->has_off) = true;
		} else {
			ok = false;
		}
		kpath_pop(&x->path, old);
	}
	if (desc->check)
		desc->check(x, map, obj);
	return ok;
}

/* ---- rules across keys --------------------------------------------------- */

/* JSON Schema oneOf [required a, required b, ...]: exactly one present. */
static void exactly_one(struct ctx *x, const struct ynode *map,
			const char *const *keys, const char *what)
{
	size_t present = 0;

	for (size_t i = 0; keys[i]; i++)
		present += ynode_get(map, keys[i]) != NULL;
	if (present != 1)
		err(x, map, "%s exactly one of %s", present ?
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
	if (ep && is_string(ep) && !strncmp(ep->str, "https:", 6) &&
	    !ynode_get(map, "tokenFile")) {
		size_t old = kpath_key(&x->path, "endpoint");

		err(x, ep, "an https endpoint needs 'tokenFile' (famfsd refuses "
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
	FLD("destination", F_ABSPATH, false, struct cl_dataset, destination),
	FLD("filesystem", F_NAME, true, struct cl_dataset, filesystem),
	FOBJ("interleave", false, &interleave_desc),
	FLDH("verify", F_BOOL, struct cl_dataset, verify, has_verify),
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
	c->defaults.present = check_object(x, &defaults_desc, v, &c->defaults);
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
		check_object(&x, &cluster_desc, c->doc->root, c);
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
