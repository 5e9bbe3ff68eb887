// SPDX-License-Identifier: Apache-2.0
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cluster/diag.h"

/* Messages quote values from the file: keep one diagnostic on one line.
 * Takes @msg, returns the escaped copy (or @msg itself without memory).
 */
static char *escape_controls(char *msg)
{
	size_t n = 0;
	char *out, *q;

	for (const char *p = msg; *p; p++)
		n += (unsigned char)*p < 0x20 || *p == 0x7f ? 4 : 1;
	out = malloc(n + 1);
	if (!out)
		return msg;
	q = out;
	for (const char *p = msg; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n' || c == '\t')
			q += sprintf(q, "\\%c", c == '\n' ? 'n' : 't');
		else if (c < 0x20 || c == 0x7f)
			q += sprintf(q, "\\x%02x", c);
		else
			*q++ = (char)c;
	}
	*q = '\0';
	free(msg);
	return out;
}

void diag_add(struct diag *d, const struct ymark *m, const char *path,
	      const char *fmt, ...)
{
	struct diag_entry *e;
	va_list ap;
	char *msg;
	int r;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct diag_entry *v = realloc(d->v, cap * sizeof(*v));

		if (!v) {
			d->dropped++;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		d->dropped++;
		return;
	}
	e = &d->v[d->n];
	e->path = strdup(path ? path : "");
	if (!e->path) {
		free(msg);
		d->dropped++;
		return;
	}
	e->msg = escape_controls(msg);
	e->mark = m ? *m : (struct ymark){ 0, 0 };
	e->seq = d->n;
	d->n++;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct diag_entry *x = a, *y = b;

	if (x->mark.line != y->mark.line)
		return x->mark.line < y->mark.line ? -1 : 1;
	if (x->mark.col != y->mark.col)
		return x->mark.col < y->mark.col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* By line and column; qsort() must not be given the NULL of no entries. */
static void sort_entries(struct diag *d)
{
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), entry_cmp);
}

struct json_object *diag_to_json(struct diag *d)
{
	struct json_object *a = json_object_new_array();

	sort_entries(d);
	for (size_t i = 0; a && i < d->n; i++) {
		const struct diag_entry *e = &d->v[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "file", json_object_new_string(d->file));
		json_object_object_add(o, "line", json_object_new_int((int)e->mark.line));
		json_object_object_add(o, "column", json_object_new_int((int)e->mark.col));
		json_object_object_add(o, "path", json_object_new_string(e->path));
		json_object_object_add(o, "message", json_object_new_string(e->msg));
		json_object_array_add(a, o);
	}
	if (a && d->dropped) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "file", json_object_new_string(d->file));
		json_object_object_add(o, "message", json_object_new_string(
			"more problems could not be recorded (out of memory)"));
		json_object_array_add(a, o);
	}
	return a;
}

void diag_print(struct diag *d, FILE *f)
{
	sort_entries(d);
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_entry *e = &d->v[i];

		fprintf(f, "%s:%u:%u: %s%s%s\n", d->file, e->mark.line,
			e->mark.col, e->path, *e->path ? ": " : "", e->msg);
	}
	if (d->dropped)
		fprintf(f, "%s: %zu more problems could not be recorded (out "
			"of memory)\n", d->file, d->dropped);
}

void diag_free(struct diag *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].path);
		free(d->v[i].msg);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

size_t kpath_key(struct kpath *p, const char *key)
{
	size_t old = p->len;
	int r = snprintf(p->buf + p->len, sizeof(p->buf) - p->len, "%s%s",
			 p->len ? "." : "", key);

	if (r > 0)
		p->len += (size_t)r < sizeof(p->buf) - p->len ?
			(size_t)r : sizeof(p->buf) - p->len - 1;
	return old;
}

size_t kpath_index(struct kpath *p, size_t i)
{
	size_t old = p->len;
	int r = snprintf(p->buf + p->len, sizeof(p->buf) - p->len, "[%zu]", i);

	if (r > 0)
		p->len += (size_t)r < sizeof(p->buf) - p->len ?
			(size_t)r : sizeof(p->buf) - p->len - 1;
	return old;
}
