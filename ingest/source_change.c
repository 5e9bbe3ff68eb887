// SPDX-License-Identifier: Apache-2.0
/*
 * A source file that changes while it is copied: what the source says
 * about a file (size, mtime, ctime, inode) before and after its copy, and
 * the lists of files the run names (refused, changed). A copy is
 * committed only when the source said the same before and after it, so
 * the copy holds a state the source had (docs/ingest.md, "A source that
 * changes during the copy").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "source_change.h"

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

int src_state_of_fd(int fd, struct src_state *s)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	*s = (struct src_state){ .size = (uint64_t)st.st_size,
				 .mtime_ns = ts_ns(&st.st_mtim),
				 .ctime_ns = ts_ns(&st.st_ctim),
				 .dev = st.st_dev, .ino = st.st_ino };
	return 0;
}

static uint64_t stx_ns(const struct statx_timestamp *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + t->tv_nsec;
}

int src_state_of_statx(const struct statx *x, struct src_state *s)
{
	const unsigned need = STATX_SIZE | STATX_MTIME | STATX_CTIME | STATX_INO;

	if ((x->stx_mask & need) != need)
		return -EIO;
	*s = (struct src_state){ .size = x->stx_size,
				 .mtime_ns = stx_ns(&x->stx_mtime),
				 .ctime_ns = stx_ns(&x->stx_ctime),
				 .dev = makedev(x->stx_dev_major, x->stx_dev_minor),
				 .ino = x->stx_ino };
	return 0;
}

bool src_state_same(const struct src_state *a, const struct src_state *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns && a->dev == b->dev && a->ino == b->ino;
}

void src_state_of_plan(const struct ingest_item *it, struct src_state *s)
{
	*s = (struct src_state){ .size = it->size, .mtime_ns = it->mtime_ns,
				 .ctime_ns = it->ctime_ns, .dev = it->src_dev,
				 .ino = it->src_ino };
}

bool src_state_is_planned(const struct src_state *s, const struct ingest_item *it)
{
	struct src_state p;

	src_state_of_plan(it, &p);
	return src_state_same(s, &p);
}

int ingest_names_add(struct ingest_names *l, const char *fmt, ...)
{
	va_list ap;
	char *s, **v;
	int r;

	if (l->n >= INGEST_NAMES_KEPT)
		return 0;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	v = realloc(l->v, (size_t)(l->n + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	v[l->n++] = s;
	l->v = v;
	return 0;
}

static void names_free(struct ingest_names *l)
{
	for (uint64_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Workers add names in the order they finish: sorted, the report is
 * the same from one run to the next.
 */
void ingest_names_sort(struct ingest_names *l)
{
	if (l->n > 1)
		qsort(l->v, (size_t)l->n, sizeof(*l->v), name_cmp);
}

void ingest_result_free(struct ingest_result *r)
{
	names_free(&r->refused);
	names_free(&r->changed);
	names_free(&r->removed);
}

bool ingest_result_source_changed(const struct ingest_result *r,
				  const struct ingest_opts *o)
{
	return r->files_refused ||
	       (r->files_changed && o->changed != INGEST_CHANGED_REPLACE) ||
	       r->files_removed > r->files_deleted;
}
