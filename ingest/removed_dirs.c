// SPDX-License-Identifier: Apache-2.0
/*
 * Directories under the destination that the source no longer has (a
 * directory renamed or removed at the source since an earlier run): a
 * re-run reports them, and with ingest_opts.delete_removed (the same
 * --delete that removes such files) removes those left empty, deepest
 * first. A directory still holding a file stays and is reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest.h"

struct dir_list {
	char **v;
	uint64_t n, cap;
	int err;
};

static void dir_list_add(void *arg, const char *path)
{
	struct dir_list *l = arg;

	if (l->err)
		return;
	if (l->n == l->cap) {
		uint64_t cap = l->cap ? l->cap * 2 : 32;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->err = -ENOMEM;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(path)))
		l->err = -ENOMEM;
	else
		l->n++;
}

static void dir_list_free(struct dir_list *l)
{
	for (uint64_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The destination paths of the plan's directories, sorted. */
static int planned_dirs(const struct ingest_opts *o, const struct ingest_plan *p,
			struct dir_list *l)
{
	size_t dl = strlen(o->dest);

	while (dl > 1 && o->dest[dl - 1] == '/')
		dl--;
	for (uint64_t i = 0; i < p->nitems && !l->err; i++) {
		char *s;

		if (p->items[i].kind != INGEST_DIR || !*p->items[i].rel)
			continue;
		if (asprintf(&s, "%.*s/%s", dl == 1 ? 0 : (int)dl, o->dest,
			     p->items[i].rel) < 0)
			return -ENOMEM;
		dir_list_add(l, s);
		free(s);
	}
	if (l->n > 1) /* an empty list has no array (qsort wants one) */
		qsort(l->v, (size_t)l->n, sizeof(*l->v), str_cmp);
	return l->err;
}

static void note_gone(struct ingest_result *res, const char *path)
{
	size_t at = strlen(res->dirs_gone_names);

	res->dirs_gone++;
	if (at + strlen(path) + 3 < sizeof(res->dirs_gone_names))
		snprintf(res->dirs_gone_names + at, sizeof(res->dirs_gone_names) - at,
			 "%s%s", at ? ", " : "", path);
}

int ingest_removed_dirs(const struct ingest_opts *o, const struct ingest_plan *p,
			struct ingest_sink *sink, struct ingest_result *res)
{
	struct dir_list have = { 0 }, want = { 0 };
	int r;

	if (!sink->ops->list_dirs)
		return 0;
	r = planned_dirs(o, p, &want);
	if (!r)
		r = sink->ops->list_dirs(sink->s, o->dest, dir_list_add, &have);
	r = r ? r : have.err;
	/* parents sort before their children: walk backwards, deepest first,
	 * so that a gone tree empties from its leaves up
	 */
	if (!r && have.n > 1)
		qsort(have.v, (size_t)have.n, sizeof(*have.v), str_cmp);
	for (uint64_t i = have.n; !r && i-- > 0;) {
		if (want.n &&
		    bsearch(&have.v[i], want.v, (size_t)want.n, sizeof(*want.v), str_cmp))
			continue;
		if (o->delete_removed && sink->ops->rmdir &&
		    sink->ops->rmdir(sink->s, have.v[i]) == 0)
			res->dirs_deleted++;
		else
			note_gone(res, have.v[i]);
	}
	if (r)
		snprintf(res->message, sizeof(res->message),
			 "cannot list the directories under %s: %s", o->dest,
			 strerror(-r));
	dir_list_free(&have);
	dir_list_free(&want);
	return r;
}
