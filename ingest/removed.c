// SPDX-License-Identifier: Apache-2.0
/*
 * Files removed from the source since they were ingested: the manifest
 * has them as done, the plan does not. They are reported, or with
 * --delete (ingest_opts.delete_removed) removed from famfs (a tombstone
 * each) and forgotten by the manifest (docs/ingest.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "removed.h"
#include "source_change.h"

struct removed_scan {
	const char **planned;   /* the plan's file names, sorted */
	uint64_t nplanned;
	char **gone;            /* recorded (then: and not planned) */
	uint64_t ngone;
	int err;
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every recorded name first: a first ingest (no record) sorts nothing. */
static void note_recorded(void *arg, const char *rel)
{
	struct removed_scan *s = arg;
	char **v;

	if (s->err)
		return;
	v = realloc(s->gone, (size_t)(s->ngone + 1) * sizeof(*v));
	if (!v || !(v[s->ngone] = strdup(rel))) {
		s->gone = v ? v : s->gone;
		s->err = -ENOMEM;
		return;
	}
	s->gone = v;
	s->ngone++;
}

/* @rel in the destination directory @dest: "/x" + "a/b" -> "/x/a/b". */
static char *dest_of(const char *dest, const char *rel)
{
	size_t dl = strlen(dest);
	char *s;

	while (dl > 1 && dest[dl - 1] == '/')
		dl--;
	if (asprintf(&s, "%.*s/%s", dl == 1 ? 0 : (int)dl, dest, rel) < 0)
		return NULL;
	return s;
}

static int delete_one(const struct ingest_opts *o, struct ingest_sink *sink,
		      struct ingest_manifest *man, const char *rel,
		      struct ingest_result *res)
{
	char *dst = dest_of(o->dest, rel);
	int r = dst ? sink->ops->remove(sink->s, dst) : -ENOMEM;

	if (r == -ENOENT)
		r = 0;  /* gone from famfs too: only the record is left */
	if (!r && man->ops->forget)
		r = man->ops->forget(man->m, rel);
	if (r)
		snprintf(res->message, sizeof(res->message), "cannot delete %s "
			 "(removed from the source): %s", dst ? dst : rel, strerror(-r));
	else
		res->files_deleted++;
	free(dst);
	return r;
}

/* Keep in s->gone only the names the plan does not have (files and
 * symlinks: both are in the manifest).
 */
static int keep_unplanned(struct removed_scan *s, const struct ingest_plan *p)
{
	uint64_t kept = 0;

	/* symlinks are in the manifest too */
	s->planned = malloc((size_t)(p->files + p->symlinks + 1) * sizeof(*s->planned));
	if (!s->planned)
		return -ENOMEM;
	for (uint64_t i = 0; i < p->nitems; i++)
		if (p->items[i].kind == INGEST_FILE || p->items[i].kind == INGEST_SYMLINK)
			s->planned[s->nplanned++] = p->items[i].rel;
	qsort(s->planned, (size_t)s->nplanned, sizeof(*s->planned), str_cmp);
	for (uint64_t i = 0; i < s->ngone; i++) {
		const char *rel = s->gone[i];

		if (bsearch(&rel, s->planned, (size_t)s->nplanned, sizeof(*s->planned),
			    str_cmp))
			free(s->gone[i]);
		else
			s->gone[kept++] = s->gone[i];
	}
	s->ngone = kept;
	return 0;
}

int ingest_removed(const struct ingest_opts *o, const struct ingest_plan *p,
		   struct ingest_sink *sink, struct ingest_manifest *man,
		   struct ingest_result *res)
{
	struct removed_scan s = { 0 };
	int r = 0;

	if (!man || !man->ops->each_done)
		return 0;
	r = man->ops->each_done(man->m, note_recorded, &s);
	if (r && man->ops->error)
		snprintf(res->message, sizeof(res->message), "manifest: %s",
			 man->ops->error(man->m));
	r = r ? r : s.err;
	if (!r && s.ngone)
		r = keep_unplanned(&s, p);
	for (uint64_t i = 0; !r && i < s.ngone; i++) {
		res->files_removed++;
		if (o->delete_removed)
			r = delete_one(o, sink, man, s.gone[i], res);
		else
			ingest_names_add(&res->removed, "%s", s.gone[i]);
	}
	ingest_names_sort(&res->removed);
	for (uint64_t i = 0; i < s.ngone; i++)
		free(s.gone[i]);
	free(s.gone);
	free(s.planned);
	return r;
}
