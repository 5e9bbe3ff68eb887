// SPDX-License-Identifier: Apache-2.0
/*
 * The structural half of cluster-file validation: the same rules as
 * schemas/cluster.schema.json, written as field tables, filling struct
 * cluster as it goes. Every rule here has its twin in the schema and the
 * corpus in tests/schema/ proves they agree; what JSON Schema cannot say
 * (references, duplicates, multiples of 2 MiB in strings) is in refs.c.
 * This file is the engine; the tables and the loader are in
 * schema_tables.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "cluster/model.h"
#include "cluster/units.h"
#include "cluster/schema_engine.h"

void schema_err(struct ctx *x, const struct ynode *n, const char *fmt, ...)
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

bool schema_is_string(const struct ynode *n)
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
	if (schema_is_string(n))
		return true;
	schema_err(x, n, "must be a string, not %s", ynode_describe(n));
	return false;
}

/* An integer in [lo, hi]; false after reporting otherwise. */
static bool want_integer(struct ctx *x, const struct ynode *n, uint64_t lo,
			 uint64_t hi, uint64_t *out)
{
	if (!is_integer(n)) {
		schema_err(x, n, "must be an integer, not %s", ynode_describe(n));
		return false;
	}
	if ((n->neg && n->mag) || n->overflow || n->mag < lo || n->mag > hi) {
		schema_err(x, n, "must be between %llu and %llu, not %s",
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
			schema_err(x, n, "%llu is not a multiple of 2 MiB (2097152)",
			    (unsigned long long)*out);
			return false;
		}
		return true;
	}
	if (!schema_is_string(n)) {
		schema_err(x, n, "must be a size (bytes, or a string like \"2MiB\"), "
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
		schema_err(x, n, "size '%s' is too large (more than 2^63-1 bytes)", s);
		return false;
	}
	if (r < 0) {
		schema_err(x, n, "'%s' is not a size: use bytes (4096) or digits with "
		    "K, M, G or T, optionally followed by iB or B (2MiB, 1G)",
		    n->str);
		return false;
	}
	if (unit && *out % CL_UNIT_SIZE && !x->schema_only) {
		schema_err(x, n, "%s is not a multiple of 2 MiB", s);
		return false;
	}
	return true;
}

static bool check_names(struct ctx *x, const struct ynode *n,
			struct cl_names *out)
{
	bool ok = true;

	if (n->kind != YN_SEQ) {
		schema_err(x, n, "must be a list of names, not %s", ynode_describe(n));
		return false;
	}
	if (n->n < 1 || n->n > 64) {
		schema_err(x, n, "must name between 1 and 64 entries, not %zu", n->n);
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
			schema_err(x, item, "'%s' is not a valid name ([A-Za-z0-9] "
			    "then up to 62 of [A-Za-z0-9._-])", item->str);
			ok = false;
		} else {
			for (size_t j = 0; j < i; j++)
				if (out->v[j] && !strcmp(out->v[j], item->str)) {
					schema_err(x, item, "'%s' is listed twice",
					    item->str);
					ok = false;
				}
		}
		out->v[out->n] = schema_is_string(item) ? item->str : NULL;
		out->nodes[out->n++] = item;
		kpath_pop(&x->path, old);
	}
	return ok;
}

/* A list of mappings: allocate the array, check each element into it. */
static bool check_list(struct ctx *x, const struct field *f,
		       const struct ynode *n, void *obj)
{
	void **arr = (void **)((char *)obj + f->off);
	size_t *count = (size_t *)((char *)obj + f->count_off);
	bool ok = true;

	if (n->kind != YN_SEQ) {
		schema_err(x, n, "must be a list, not %s", ynode_describe(n));
		return false;
	}
	if (f->required && !n->n) {
		schema_err(x, n, "must have at least one entry");
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
		if (!schema_check_object(x, f->sub, n->vals[i], elem))
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
		return schema_check_object(x, f->sub, n, obj);
	case F_LIST:
		return check_list(x, f, n, obj);
	case F_NAMES:
		return check_names(x, n, dst);
	case F_BOOL:
		if (n->kind != YN_SCALAR || n->type != YS_BOOL) {
			schema_err(x, n, "must be true or false, not %s",
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
			schema_err(x, n, "chunk %s is larger than 1 TiB, the limit",
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
	case F_KEEP:
		if (!want_integer(x, n, 0, 16, &v))
			return false;
		*(unsigned *)dst = (unsigned)v;
		return true;
	case F_WAYS:
		if (!want_integer(x, n, 1, 16, &v))
			return false;
		if (!strchr("\1\2\3\4\6\10\14\20", (int)v)) {
			schema_err(x, n, "must be one of 1, 2, 3, 4, 6, 8, 12, 16");
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
			schema_err(x, n, "'%s' is not a pmem block device name "
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
			schema_err(x, n, "must be 'kernel' or 'fuse'");
			return false;
		}
		*(const char **)dst = s;
		return true;
	}
	if (f->type == F_ROLE) {
		const char *s = plain_string(n);

		if (!s || (strcmp(s, "master") && strcmp(s, "client"))) {
			schema_err(x, n, "must be 'master' or 'client'");
			return false;
		}
		*(enum cl_role *)dst = strcmp(s, "master") ?
			CL_ROLE_CLIENT : CL_ROLE_MASTER;
		return true;
	}
	if (f->type == F_CONST) {
		if (!plain_string(n) || strcmp(n->str, f->cval)) {
			schema_err(x, n, "must be '%s'", f->cval);
			return false;
		}
	} else if (!want_string(x, n)) {
		return false;
	}
	switch (f->type) {
	case F_NAME:
		if (!name_ok(plain_string(n))) {
			schema_err(x, n, "'%s' is not a valid name ([A-Za-z0-9] then up "
			    "to 62 of [A-Za-z0-9._-])", n->str);
			return false;
		}
		/* famfsd refuses them (docs/api.md): they are routes */
		if (!x->schema_only && !strcmp(f->key, "name") &&
		    famfs_name_reserved(n->str)) {
			schema_err(x, n, "'%s' is a reserved name (a route of the famfsd "
			    "API)", n->str);
			return false;
		}
		break;
	case F_ABSPATH:
		if (n->str[0] != '/') {
			schema_err(x, n, "'%s' is not an absolute path", n->str);
			return false;
		}
		break;
	case F_FSPATH:
		if (!famfs_path_is_normal(n->str)) {
			schema_err(x, n, "'%s' is not a normalised absolute path: "
			    "it must start with '/' and have no empty, '.' or "
			    "'..' component and no trailing '/'", n->str);
			return false;
		}
		break;
	case F_ENDPOINT:
		if (!endpoint_ok(n)) {
			schema_err(x, n, "'%s' is not an endpoint: give famfsd's Unix "
			    "socket path (/run/famfsd/famfsd.sock, "
			    "unix:/path) or an https://host:port URL", n->str);
			return false;
		}
		break;
	case F_REGION:
	case F_DAX:
		if (!devname_ok(plain_string(n), f->type == F_DAX ? "dax" :
				"region", f->type == F_DAX)) {
			schema_err(x, n, "'%s' is not a %s name (%s)", n->str,
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
	if (schema_is_string(key))
		schema_err(x, key, "unknown key '%s' (expected: %s)", key->str, known);
	else
		schema_err(x, key, "a key must be a string, not %s (expected: %s)",
		    ynode_describe(key), known);
}

bool schema_check_object(struct ctx *x, const struct objdesc *desc,
			 const struct ynode *map, void *obj)
{
	bool ok = true;

	if (map->kind != YN_MAP) {
		schema_err(x, map, "must be a mapping, not %s", ynode_describe(map));
		return false;
	}
	if (desc->node_off != NO_OFF)
		*(const struct ynode **)((char *)obj + desc->node_off) = map;
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->keys[i];
		const struct field *f = field_find(desc->fields, k);
		size_t old;

		if (!f) {
			old = schema_is_string(k) ? kpath_key(&x->path, k->str) :
				x->path.len;
			unknown_key(x, desc, k);
			kpath_pop(&x->path, old);
			ok = false;
			continue;
		}
		for (size_t j = 0; j < i && !x->schema_only; j++)
			if (field_find(desc->fields, map->keys[j]) == f) {
				old = kpath_key(&x->path, f->key);
				schema_err(x, k, "duplicate key '%s' (first at line %u "
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
				schema_err(x, map, "missing required key '%s'", f->key);
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

