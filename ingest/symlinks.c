// SPDX-License-Identifier: Apache-2.0
/*
 * Symlinks are metadata only: one log entry each, no data, so they are
 * made in the calling thread after the directories and before the file
 * workers start. The manifest keeps each one as a record whose size is
 * the target's length and whose checksum is the XXH3 of the target.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include <famfs/format.h>
#include "symlinks.h"

/* Does @target, in the directory of @rel, leave the tree? Absolute
 * targets do; a relative one does when its ".." climb above the root.
 */
static bool points_outside(const char *rel, const char *target)
{
	long depth = 0;

	if (target[0] == '/')
		return true;
	for (const char *c = rel; *c; c++)
		depth += *c == '/';
	for (const char *c = target; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			depth--;
		else if (n && !(n == 1 && c[0] == '.'))
			depth++;
		if (depth < 0)
			return true;
		c += n;
		c += *c == '/';
	}
	return false;
}

int ingest_symlink_item(struct ingest_item *it, int dfd, const char *name,
			struct ingest_plan *p)
{
	char *buf = malloc(FAMFS_SYMLINK_MAX + 2);
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	n = readlinkat(dfd, name, buf, FAMFS_SYMLINK_MAX + 1);
	if (n < 0 || n > FAMFS_SYMLINK_MAX) {
		free(buf);
		return n < 0 ? -errno : -ENAMETOOLONG;
	}
	buf[n] = '\0';
	it->kind = INGEST_SYMLINK;
	it->target = buf;
	it->size = (uint64_t)n;
	it->outside = points_outside(it->rel, buf);
	p->symlinks++;
	p->symlinks_outside += it->outside;
	return 0;
}

void ingest_plan_skip_symlinks(struct ingest_plan *p)
{
	for (uint64_t i = 0; i < p->nitems; i++) {
		struct ingest_item *it = &p->items[i];

		if (it->kind != INGEST_SYMLINK)
			continue;
		it->kind = INGEST_SKIP;
		it->skip_why = "symlink (--symlinks skip)";
		p->skipped++;
	}
	p->symlinks = p->symlinks_outside = 0;
}

struct linkjob {
	const struct ingest_opts *o;
	struct ingest_sink *sink;
	struct ingest_manifest *man;
	struct ingest_result *res;
	char *have;     /* the destination's target, FAMFS_SYMLINK_MAX + 1 */
};

__attribute__((format(printf, 3, 4)))
static int link_fail(struct linkjob *l, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->res->message, sizeof(l->res->message), fmt, ap);
	va_end(ap);
	l->res->error = err;
	return err;
}

static int create(struct linkjob *l, const struct ingest_item *it, const char *dst,
		  uint64_t sum)
{
	struct ingest_record rec = { it->size, it->mtime_ns, sum, INGEST_DONE };
	int r = l->sink->ops->symlink(l->sink->s, dst, it->target, it->uid, it->gid,
				      it->mtime_ns);

	if (r)
		return link_fail(l, r, "cannot create symlink %s -> %s: %s", dst,
				 it->target, strerror(-r));
	if (l->man && l->man->ops->put(l->man->m, it->rel, &rec))
		return link_fail(l, -EIO, "manifest: %s: %s", it->rel,
				 l->man->ops->error ? l->man->ops->error(l->man->m) : "put failed");
	l->res->symlinks_made++;
	return 0;
}

/* The destination exists with another target (or is no symlink). */
static int changed(struct linkjob *l, const struct ingest_item *it, const char *dst,
		   uint64_t sum, bool known)
{
	l->res->symlinks_changed++;
	if (!known)
		return link_fail(l, -EEXIST, "destination %s exists and is not the "
				 "symlink -> %s", dst, it->target);
	if (l->o->changed == INGEST_CHANGED_FAIL)
		return link_fail(l, -ESTALE, "symlink %s changed since it was "
				 "ingested (now -> %s)", it->rel, it->target);
	if (l->o->changed != INGEST_CHANGED_REPLACE)
		return 0;
	int r = l->sink->ops->remove(l->sink->s, dst);

	if (r)
		return link_fail(l, r, "cannot remove %s to replace it: %s", dst,
				 strerror(-r));
	l->res->symlinks_made--;        /* create() counts it again */
	return create(l, it, dst, sum);
}

static int verify(struct linkjob *l, const struct ingest_item *it, const char *dst)
{
	int n = l->sink->ops->readlink(l->sink->s, dst, l->have, FAMFS_SYMLINK_MAX + 1);

	if (n < 0 || (uint64_t)n != it->size || memcmp(l->have, it->target, it->size))
		return link_fail(l, -EIO, "verify: symlink %s reads back as %s, "
				 "not -> %s", dst, n < 0 ? strerror(-n) : l->have,
				 it->target);
	l->res->symlinks_verified++;
	return 0;
}

static int one_link(struct linkjob *l, const struct ingest_item *it, const char *dst)
{
	uint64_t sum = XXH3_64bits(it->target, it->size);
	struct ingest_record rec;
	int n = l->sink->ops->readlink(l->sink->s, dst, l->have, FAMFS_SYMLINK_MAX + 1);
	bool known = l->man && l->man->ops->get(l->man->m, it->rel, &rec) == 0 &&
		     rec.state == INGEST_DONE;
	bool same = n >= 0 && (uint64_t)n == it->size &&
		    !memcmp(l->have, it->target, it->size);
	struct famfs_attr a;
	int r;

	if (n < 0 && n != -ENOENT && l->sink->ops->stat(l->sink->s, dst, &a) == 0)
		r = changed(l, it, dst, sum, false);     /* a file or directory */
	else if (n == -ENOENT)
		r = create(l, it, dst, sum);
	else if (same) {
		l->res->symlinks_already++;
		r = 0;
		if (!known && l->man) {
			struct ingest_record nr = { it->size, it->mtime_ns, sum, INGEST_DONE };

			l->man->ops->put(l->man->m, it->rel, &nr);
		}
	} else if (n < 0)
		r = link_fail(l, n, "%s: %s", dst, strerror(-n));
	else
		r = changed(l, it, dst, sum, known);
	if (!r && l->o->verify)
		r = verify(l, it, dst);
	return r;
}

int ingest_make_symlinks(const struct ingest_opts *o, const struct ingest_plan *p,
			 struct ingest_sink *sink, struct ingest_manifest *man,
			 struct ingest_result *res)
{
	struct linkjob l = { .o = o, .sink = sink, .man = man, .res = res };
	size_t dl = strlen(o->dest);
	int r = 0;

	while (dl && o->dest[dl - 1] == '/')
		dl--;           /* "/" and "/x/" as "" and "/x" */

	res->symlinks_outside = p->symlinks_outside;
	if (!p->symlinks)
		return 0;
	if (!sink->ops->symlink || !sink->ops->readlink)
		return link_fail(&l, -EOPNOTSUPP, "this destination cannot hold symlinks "
				 "(%llu in the source): use --symlinks skip",
				 (unsigned long long)p->symlinks);
	l.have = malloc(FAMFS_SYMLINK_MAX + 2);
	if (!l.have)
		return link_fail(&l, -ENOMEM, "out of memory");
	for (uint64_t i = 0; i < p->nitems && !r; i++) {
		const struct ingest_item *it = &p->items[i];
		char *dst;

		if (it->kind != INGEST_SYMLINK)
			continue;
		if (o->cancel && atomic_load(o->cancel))
			break;
		if (asprintf(&dst, "%.*s/%s", (int)dl, o->dest, it->rel) < 0) {
			r = link_fail(&l, -ENOMEM, "out of memory");
			break;
		}
		r = one_link(&l, it, dst);
		free(dst);
	}
	free(l.have);
	return r;
}
