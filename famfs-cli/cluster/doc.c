// SPDX-License-Identifier: Apache-2.0
/*
 * libyaml events -> a tree of ynodes with marks. See doc.h for the rules;
 * the scalar resolution mirrors PyYAML 6's Resolver and SafeConstructor.
 */
#include <errno.h>
#include <math.h> /* isfinite(), a macro: no libm */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cluster/doc.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

struct anchor {
	char *name;
	struct ynode *node;
	bool open; /* its container has not ended yet */
};

struct loader {
	struct ydoc *doc;
	struct ynode *stack[YDOC_MAX_DEPTH];
	struct ynode *pending_key[YDOC_MAX_DEPTH]; /* maps: key seen */
	unsigned depth;
	struct anchor *anchors;
	size_t nanchors, cap_anchors;
	struct ymark *err_mark;
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;

	if (l->failed)
		return;
	l->failed = true;
	l->err_mark->line = m ? (unsigned)m->line + 1 : 0;
	l->err_mark->col = m ? (unsigned)m->column + 1 : 0;
	va_start(ap, fmt);
	vsnprintf(l->err, l->errlen, fmt, ap);
	va_end(ap);
}

static struct ynode *node_new(struct loader *l, enum ynode_kind kind,
			      const yaml_mark_t *m)
{
	struct ynode *n = calloc(1, sizeof(*n));

	if (!n) {
		fail(l, m, "out of memory");
		return NULL;
	}
	n->kind = kind;
	n->mark.line = (unsigned)m->line + 1;
	n->mark.col = (unsigned)m->column + 1;
	n->expanded = 1;
	n->next_alloc = l->doc->nodes;
	l->doc->nodes = n;
	return n;
}

static int node_push(struct ynode *parent, struct ynode *key,
		     struct ynode *val)
{
	if (parent->n == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		struct ynode **v = realloc(parent->vals, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		parent->vals = v;
		if (parent->kind == YN_MAP) {
			struct ynode **k = realloc(parent->keys,
						   cap * sizeof(*k));
			if (!k)
				return -ENOMEM;
			parent->keys = k;
		}
		parent->cap = cap;
	}
	if (parent->kind == YN_MAP)
		parent->keys[parent->n] = key;
	parent->vals[parent->n++] = val;
	return 0;
}

/* ---- scalar resolution (PyYAML 6 Resolver, YAML 1.1) ------------------- */

enum { RX_BOOL, RX_FLOAT, RX_INT, RX_NULL, RX_TIMESTAMP, RX_COUNT };

static const char *const rx_src[RX_COUNT] = {
	[RX_BOOL] = "^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE"
		    "|on|On|ON|off|Off|OFF)$",
	[RX_FLOAT] = "^([-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?"
		     "|\\.[0-9][0-9_]*([eE][-+][0-9]+)?"
		     "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*"
		     "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$",
	[RX_INT] = "^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)"
		   "|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$",
	[RX_NULL] = "^(~|null|Null|NULL|)$",
	[RX_TIMESTAMP] =
		"^([0-9]{4}-[0-9]{2}-[0-9]{2}"
		"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}"
		":[0-9]{2}:[0-9]{2}(\\.[0-9]*)?"
		"([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)$",
};

/*
 * The characters each pattern's matches can start with ('\0' always
 * passes: the empty string goes to regexec()). Most plain scalars are
 * keys and names, which this turns away before five regexec() calls:
 * those were a tenth of a fuzzed load's time.
 */
static const char *const rx_first[RX_COUNT] = {
	[RX_BOOL] = "yYnNtTfFoO",
	[RX_FLOAT] = "-+.0123456789",
	[RX_INT] = "-+0123456789",
	[RX_NULL] = "~nN",
	[RX_TIMESTAMP] = "0123456789",
};

static regex_t rx[RX_COUNT];
static bool rx_ready;

static bool rx_match(int which, const char *s)
{
	if (!strchr(rx_first[which], s[0]))
		return false;
	if (!rx_ready) {
		for (int i = 0; i < RX_COUNT; i++)
			if (regcomp(&rx[i], rx_src[i], REG_EXTENDED | REG_NOSUB))
				abort(); /* a typo above, not a run-time condition */
		rx_ready = true;
	}
	return regexec(&rx[which], s, 0, NULL, 0) == 0;
}

/* Copy @s without '_' into @buf; returns false when it does not fit. */
static bool strip_underscores(const char *s, char *buf, size_t len)
{
	size_t j = 0;

	for (; *s; s++) {
		if (*s == '_')
			continue;
		if (j + 1 >= len)
			return false;
		buf[j++] = *s;
	}
	buf[j] = '\0';
	return true;
}

static bool mag_mul_add(uint64_t *m, unsigned base, unsigned digit)
{
	if (*m > (UINT64_MAX - digit) / base)
		return false;
	*m = *m * base + digit;
	return true;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* construct_yaml_int(); returns false when Python would raise. */
static bool construct_int(struct ynode *n)
{
	char buf[256], *p = buf;
	unsigned base = 10;

	if (!strip_underscores(n->str, buf, sizeof(buf))) {
		n->overflow = true; /* a number this long does not fit */
		n->type = YS_INT;
		return true;
	}
	n->neg = *p == '-';
	if (*p == '-' || *p == '+')
		p++;
	n->type = YS_INT;
	n->mag = 0;
	if (!strcmp(p, "0"))
		return true;
	if (!strncmp(p, "0b", 2)) {
		base = 2;
		p += 2;
	} else if (!strncmp(p, "0x", 2)) {
		base = 16;
		p += 2;
	} else if (*p == '0') {
		base = 8;
	} else if (strchr(p, ':')) {
		uint64_t part = 0;

		for (; ; p++) { /* sexagesimal: a:b:c = (a*60+b)*60+c */
			if (*p == ':' || !*p) {
				if (!n->overflow && !mag_mul_add(&n->mag, 60, 0))
					n->overflow = true;
				if (n->mag > UINT64_MAX - part)
					n->overflow = true;
				n->mag += part;
				part = 0;
				if (!*p)
					break;
				continue;
			}
			part = part * 10 + (uint64_t)(*p - '0');
		}
		return true;
	}
	if (!*p)
		return false;
	for (; *p; p++) {
		int d = digit_value(*p);

		if (d >= (int)base)
			return false;
		if (!mag_mul_add(&n->mag, base, (unsigned)d))
			n->overflow = true;
	}
	return true;
}

/* construct_yaml_float(); records whether the value is integral. */
static bool construct_float(struct ynode *n)
{
	char buf[256], *p = buf;
	double v, sign = 1;

	n->type = YS_FLOAT;
	if (!strip_underscores(n->str, buf, sizeof(buf)))
		return true; /* absurdly long: not integral, no value kept */
	for (char *q = buf; *q; q++)
		*q = (char)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
	if (*p == '-')
		sign = -1;
	if (*p == '-' || *p == '+')
		p++;
	if (!strcmp(p, ".inf") || !strcmp(p, ".nan"))
		return true;
	if (strchr(p, ':')) {
		double part;
		char *end;

		v = 0;
		for (;;) {
			part = strtod(p, &end);
			v = v * 60 + part;
			if (*end != ':')
				break;
			p = end + 1;
		}
	} else {
		errno = 0;
		v = strtod(p, NULL);
	}
	if (isfinite(v) && (v >= 9007199254740992.0 || v <= -9007199254740992.0 ||
			    v == (double)(int64_t)v)) { /* >= 2^53: integral */
		n->integral = true;
		n->neg = sign < 0 && v != 0;
		if (v < 0)
			v = -v;
		if (v >= 18446744073709551616.0)
			n->overflow = true;
		else
			n->mag = (uint64_t)v;
	}
	return true;
}

static bool construct_bool(struct ynode *n)
{
	static const char *const t[] = { "yes", "true", "on" };
	static const char *const f[] = { "no", "false", "off" };

	n->type = YS_BOOL;
	for (size_t i = 0; i < 3; i++) {
		if (!strcasecmp(n->str, t[i])) {
			n->bval = true;
			return true;
		}
		if (!strcasecmp(n->str, f[i])) {
			n->bval = false;
			return true;
		}
	}
	return false;
}

static void resolve_plain(struct ynode *n)
{
	if (strlen(n->str) != n->len) {
		n->type = YS_STR;
		return;
	}
	if (rx_match(RX_BOOL, n->str))
		construct_bool(n);
	else if (rx_match(RX_FLOAT, n->str))
		construct_float(n);
	else if (rx_match(RX_INT, n->str)) {
		if (!construct_int(n))
			n->type = YS_OTHER; /* Python raises: never valid */
	} else if (rx_match(RX_NULL, n->str))
		n->type = YS_NULL;
	else if (rx_match(RX_TIMESTAMP, n->str) || !strcmp(n->str, "="))
		n->type = YS_OTHER;
	else
		n->type = YS_STR;
}

/* An explicit tag on a scalar; false (with the loader failed) if refused. */
static bool resolve_tagged(struct loader *l, struct ynode *n, const char *tag,
			   const yaml_mark_t *m)
{
	const char *t = tag + strlen(TAG_PREFIX);
	bool ok = true;

	if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)))
		t = "";
	if (!strcmp(t, "str"))
		n->type = YS_STR;
	else if (!strcmp(t, "null"))
		n->type = YS_NULL;
	else if (!strcmp(t, "bool"))
		ok = construct_bool(n);
	else if (!strcmp(t, "int"))
		ok = construct_int(n);
	else if (!strcmp(t, "float"))
		ok = construct_float(n);
	else {
		fail(l, m, "unsupported tag '%s'", tag);
		return false;
	}
	if (!ok)
		fail(l, m, "'%s' is not a valid !!%s", n->str, t);
	return ok;
}

/* ---- anchors ----------------------------------------------------------- */

static int anchor_add(struct loader *l, const char *name, struct ynode *node,
		      bool open)
{
	if (l->nanchors == l->cap_anchors) {
		size_t cap = l->cap_anchors ? l->cap_anchors * 2 : 16;
		struct anchor *a = realloc(l->anchors, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		l->anchors = a;
		l->cap_anchors = cap;
	}
	l->anchors[l->nanchors].name = strdup(name);
	if (!l->anchors[l->nanchors].name)
		return -ENOMEM;
	l->anchors[l->nanchors].node = node;
	l->anchors[l->nanchors].open = open;
	l->nanchors++;
	return 0;
}

/* The most recent definition wins, as YAML says. */
static struct anchor *anchor_find(struct loader *l, const char *name)
{
	for (size_t i = l->nanchors; i-- > 0;)
		if (!strcmp(l->anchors[i].name, name))
			return &l->anchors[i];
	return NULL;
}

static void anchor_close(struct loader *l, struct ynode *node)
{
	for (size_t i = 0; i < l->nanchors; i++)
		if (l->anchors[i].node == node)
			l->anchors[i].open = false;
}

/* ---- building the tree ------------------------------------------------- */

/* Merge keys (<<), as PyYAML's flatten_mapping(): the mapping's own keys
 * win, then the merged mappings in the order given. Own duplicates stay
 * for the validator to report.
 */
static bool is_merge_key(const struct ynode *k)
{
	return k->kind == YN_SCALAR && k->type == YS_OTHER && k->len == 2 &&
	       !strcmp(k->str, "<<");
}

static bool map_has(const struct ynode *map, const struct ynode *key)
{
	for (size_t i = 0; i < map->n; i++)
		if (map->keys[i]->kind == YN_SCALAR &&
		    map->keys[i]->len == key->len &&
		    !memcmp(map->keys[i]->str, key->str, key->len))
			return true;
	return false;
}

static int merge_from(struct loader *l, struct ynode *map,
		      const struct ynode *src, const struct ymark *at)
{
	yaml_mark_t m = { .line = at->line - 1, .column = at->col - 1 };

	if (src->kind != YN_MAP) {
		fail(l, &m, "a merge key (<<) needs a mapping or a list of "
		     "mappings");
		return -1;
	}
	for (size_t i = 0; i < src->n; i++)
		if (src->keys[i]->kind != YN_SCALAR || !map_has(map, src->keys[i]))
			if (node_push(map, src->keys[i], src->vals[i]) < 0) {
				fail(l, &m, "out of memory");
				return -1;
			}
	return 0;
}

static int flatten_merges(struct loader *l, struct ynode *map)
{
	struct ynode *merges[64];
	size_t nmerges = 0, j = 0;

	for (size_t i = 0; i < map->n; i++) {
		if (!is_merge_key(map->keys[i])) {
			map->keys[j] = map->keys[i];
			map->vals[j++] = map->vals[i];
			continue;
		}
		if (nmerges == 64) {
			yaml_mark_t m = { .line = map->keys[i]->mark.line - 1,
					  .column = map->keys[i]->mark.col - 1 };
			fail(l, &m, "too many merge keys in one mapping");
			return -1;
		}
		merges[nmerges++] = map->vals[i];
	}
	map->n = j;
	for (size_t i = 0; i < nmerges; i++) {
		struct ynode *v = merges[i];

		if (v->kind != YN_SEQ) {
			if (merge_from(l, map, v, &v->mark) < 0)
				return -1;
			continue;
		}
		for (size_t k = 0; k < v->n; k++)
			if (merge_from(l, map, v->vals[k], &v->vals[k]->mark) < 0)
				return -1;
	}
	return 0;
}

/* Count the subtree with aliases expanded; refuse what is too large. */
static int count_expanded(struct loader *l, struct ynode *n,
			  const yaml_mark_t *m)
{
	uint64_t total = 1;

	for (size_t i = 0; i < n->n; i++) {
		total += n->vals[i]->expanded;
		if (n->kind == YN_MAP)
			total += n->keys[i]->expanded;
		if (total > YDOC_MAX_EXPANDED) {
			fail(l, m, "aliases expand to more than %u nodes; "
			     "refusing (alias bomb?)", YDOC_MAX_EXPANDED);
			return -1;
		}
	}
	n->expanded = total;
	return 0;
}

static int attach(struct loader *l, struct ynode *n, const yaml_mark_t *m)
{
	struct ynode *parent;

	if (!l->depth) {
		l->doc->root = n;
		return 0;
	}
	parent = l->stack[l->depth - 1];
	if (parent->kind == YN_MAP && !l->pending_key[l->depth - 1]) {
		l->pending_key[l->depth - 1] = n;
		return 0;
	}
	if (node_push(parent, l->pending_key[l->depth - 1], n) < 0) {
		fail(l, m, "out of memory");
		return -1;
	}
	l->pending_key[l->depth - 1] = NULL;
	return 0;
}

static int on_scalar(struct loader *l, yaml_event_t *ev)
{
	struct ynode *n = node_new(l, YN_SCALAR, &ev->start_mark);
	const char *tag = (const char *)ev->data.scalar.tag;

	if (!n)
		return -1;
	n->len = ev->data.scalar.length;
	n->str = malloc(n->len + 1);
	if (!n->str) {
		fail(l, &ev->start_mark, "out of memory");
		return -1;
	}
	memcpy(n->str, ev->data.scalar.value, n->len);
	n->str[n->len] = '\0';
	if (tag && strcmp(tag, "!")) {
		if (!resolve_tagged(l, n, tag, &ev->start_mark))
			return -1;
	} else if (!tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		resolve_plain(n);
		if (!strcmp(n->str, "<<"))
			n->type = YS_OTHER; /* the merge key; see is_merge_key() */
	} else {
		n->type = YS_STR;
	}
	if (ev->data.scalar.anchor &&
	    anchor_add(l, (const char *)ev->data.scalar.anchor, n, false) < 0) {
		fail(l, &ev->start_mark, "out of memory");
		return -1;
	}
	return attach(l, n, &ev->start_mark);
}

static int on_alias(struct loader *l, yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct anchor *a = anchor_find(l, name);

	if (!a) {
		fail(l, &ev->start_mark, "alias *%s names no anchor", name);
		return -1;
	}
	if (a->open) {
		fail(l, &ev->start_mark, "alias *%s refers to a node that "
		     "contains it (recursive alias)", name);
		return -1;
	}
	return attach(l, a->node, &ev->start_mark);
}

static int on_start(struct loader *l, yaml_event_t *ev, enum ynode_kind kind)
{
	const char *tag = (const char *)(kind == YN_MAP ?
		ev->data.mapping_start.tag : ev->data.sequence_start.tag);
	const char *anchor = (const char *)(kind == YN_MAP ?
		ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
	const char *want = kind == YN_MAP ? TAG_PREFIX "map" : TAG_PREFIX "seq";
	struct ynode *n;

	if (tag && strcmp(tag, "!") && strcmp(tag, want)) {
		fail(l, &ev->start_mark, "unsupported tag '%s'", tag);
		return -1;
	}
	if (l->depth == YDOC_MAX_DEPTH) {
		fail(l, &ev->start_mark, "nesting deeper than %u levels",
		     YDOC_MAX_DEPTH);
		return -1;
	}
	n = node_new(l, kind, &ev->start_mark);
	if (!n || attach(l, n, &ev->start_mark) < 0)
		return -1;
	if (anchor && anchor_add(l, anchor, n, true) < 0) {
		fail(l, &ev->start_mark, "out of memory");
		return -1;
	}
	l->pending_key[l->depth] = NULL;
	l->stack[l->depth++] = n;
	return 0;
}

static int on_end(struct loader *l, yaml_event_t *ev)
{
	struct ynode *n = l->stack[--l->depth];

	if (n->kind == YN_MAP && flatten_merges(l, n) < 0)
		return -1;
	yaml_mark_t start = { .line = n->mark.line - 1,
			      .column = n->mark.col - 1 };

	(void)ev;
	anchor_close(l, n);
	return count_expanded(l, n, &start);
}

static int on_event(struct loader *l, yaml_event_t *ev, unsigned *ndocs)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*ndocs > 1) {
			fail(l, &ev->start_mark, "more than one YAML document; "
			     "a cluster file holds exactly one");
			return -1;
		}
		return 0;
	case YAML_SCALAR_EVENT:
		return on_scalar(l, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(l, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(l, ev, YN_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_start(l, ev, YN_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(l, ev);
	default:
		return 0;
	}
}

static int load(struct loader *l, yaml_parser_t *p)
{
	unsigned ndocs = 0;
	bool done = false;

	while (!done && !l->failed) {
		yaml_event_t ev;

		if (!yaml_parser_parse(p, &ev)) {
			fail(l, &p->problem_mark, "%s%s%s", p->problem ?
			     p->problem : "YAML syntax error",
			     p->context ? " " : "", p->context ? p->context : "");
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		on_event(l, &ev, &ndocs);
		yaml_event_delete(&ev);
	}
	return l->failed ? -1 : 0;
}

static int load_with(const char *name, FILE *f, const char *buf, size_t len,
		     struct ydoc **out, struct ymark *err_mark, char *err,
		     size_t errlen)
{
	struct loader l = { .err_mark = err_mark, .err = err, .errlen = errlen };
	yaml_parser_t p;
	int r;

	*out = NULL;
	err_mark->line = err_mark->col = 0;
	l.doc = calloc(1, sizeof(*l.doc));
	if (!l.doc || !(l.doc->file = strdup(name))) {
		free(l.doc);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!yaml_parser_initialize(&p)) {
		ydoc_free(l.doc);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (f)
		yaml_parser_set_input_file(&p, f);
	else
		yaml_parser_set_input_string(&p, (const unsigned char *)buf,
					     len);
	r = load(&l, &p);
	yaml_parser_delete(&p);
	for (size_t i = 0; i < l.nanchors; i++)
		free(l.anchors[i].name);
	free(l.anchors);
	if (r < 0) {
		ydoc_free(l.doc);
		return -1;
	}
	*out = l.doc;
	return 0;
}

int ydoc_load(const char *file, struct ydoc **out, struct ymark *err_mark,
	      char *err, size_t errlen)
{
	bool in = file[0] == '-' && !file[1];
	FILE *f = in ? stdin : fopen(file, "rb");
	int r;

	if (!f) {
		*out = NULL;
		err_mark->line = err_mark->col = 0;
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	r = load_with(ydoc_file_name(file), f, NULL, 0, out, err_mark, err,
		      errlen);
	if (!in)
		fclose(f);
	return r;
}

int ydoc_load_buffer(const char *name, const char *buf, size_t len,
		     struct ydoc **out, struct ymark *err_mark, char *err,
		     size_t errlen)
{
	return load_with(name, NULL, buf, len, out, err_mark, err, errlen);
}

void ydoc_free(struct ydoc *d)
{
	struct ynode *n, *next;

	if (!d)
		return;
	for (n = d->nodes; n; n = next) {
		next = n->next_alloc;
		free(n->str);
		free(n->keys);
		free(n->vals);
		free(n);
	}
	free(d->file);
	free(d);
}

struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	struct ynode *found = NULL;
	size_t len = strlen(key);

	if (!map || map->kind != YN_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->keys[i];

		if (k->kind == YN_SCALAR && k->type == YS_STR &&
		    k->len == len && !memcmp(k->str, key, len))
			found = map->vals[i];
	}
	return found;
}

const char *ynode_describe(const struct ynode *n)
{
	if (n->kind == YN_MAP)
		return "a mapping";
	if (n->kind == YN_SEQ)
		return "a list";
	switch (n->type) {
	case YS_STR: return "a string";
	case YS_INT: return "an integer";
	case YS_FLOAT: return "a number";
	case YS_BOOL: return "a boolean";
	case YS_NULL: return "null";
	default: return "a timestamp or other YAML type";
	}
}
