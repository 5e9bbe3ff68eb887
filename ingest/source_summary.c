// SPDX-License-Identifier: Apache-2.0
/*
 * A source tree's summary (source_summary.h): one walk with fstatat() on
 * directory fds (nothing followed), a sort, and a digest of the packed
 * list. Its cost is the walk's system calls, as `find -printf`'s.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "source_summary.h"

struct scan {
	struct source_summary *s;
	char path[PATH_MAX];
	char *why;
	size_t whylen;
};

static int fail(struct scan *w, int err, const char *what)
{
	snprintf(w->why, w->whylen, "%s%s%s: %s", w->path[0] ? w->path : ".",
		 what ? " " : "", what ? what : "", strerror(err));
	return -err;
}

static struct summary_entry *add_entry(struct source_summary *s)
{
	if (s->n == s->cap) {
		size_t n = s->cap ? s->cap * 2 : 1024;
		struct summary_entry *v = realloc(s->v, n * sizeof(*v));

		if (!v)
			return NULL;
		s->v = v;
		s->cap = n;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	return &s->v[s->n++];
}

static char type_of(mode_t m)
{
	return S_ISREG(m) ? SUMMARY_FILE : S_ISDIR(m) ? SUMMARY_DIR :
	       S_ISLNK(m) ? SUMMARY_SYMLINK : SUMMARY_OTHER;
}

/* One entry of the directory open as @dfd, named @name; w->path is its
 * relative path.
 */
static int add_one(struct scan *w, int dfd, const char *name,
		   const struct stat *st)
{
	struct source_summary *s = w->s;
	struct summary_entry *e = add_entry(s);

	if (!e || !(e->path = strdup(w->path)))
		return fail(w, ENOMEM, NULL);
	e->type = type_of(st->st_mode);
	e->mode = st->st_mode & 07777;
	if (e->type != SUMMARY_DIR) {
		e->size = (uint64_t)st->st_size;
		e->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000LL +
			      st->st_mtim.tv_nsec;
	}
	switch (e->type) {
	case SUMMARY_FILE:
		s->files++;
		s->bytes += e->size;
		break;
	case SUMMARY_DIR:
		s->dirs++;
		break;
	case SUMMARY_SYMLINK: {
		char t[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, t, sizeof(t) - 1);

		if (n < 0)
			return fail(w, errno, "(readlink)");
		t[n] = '\0';
		if (!(e->target = strdup(t)))
			return fail(w, ENOMEM, NULL);
		s->symlinks++;
		break;
	}
	default:
		s->others++;
	}
	return 0;
}

static int scan_dir(struct scan *w, int dfd)
{
	DIR *d = fdopendir(dfd);
	size_t base = strlen(w->path);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = fail(w, errno, NULL);
		close(dfd);
		return r;
	}
	while (!r && (errno = 0, de = readdir(d))) {
		struct stat st;
		int n;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n = snprintf(w->path + base, sizeof(w->path) - base, "%s%s",
			     base ? "/" : "", de->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->path) - base) {
			w->path[base] = '\0';
			return closedir(d), fail(w, ENAMETOOLONG, NULL);
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			r = fail(w, errno, NULL);
			break;
		}
		r = add_one(w, dirfd(d), de->d_name, &st);
		if (!r && S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY |
					 O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = sub < 0 ? fail(w, errno, NULL) : scan_dir(w, sub);
		}
		if (!r)
			w->path[base] = '\0';
	}
	if (!r && errno)
		r = fail(w, errno, "(readdir)");
	closedir(d);
	return r;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct summary_entry *)a)->path,
		      ((const struct summary_entry *)b)->path);
}

static void digest_of(struct source_summary *s, const unsigned char *buf,
		      size_t len)
{
	XXH128_hash_t h = XXH3_128bits(buf, len);

	snprintf(s->digest, sizeof(s->digest), "%016llx%016llx",
		 (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* Counts and digest from the sorted list. */
static int finish(struct source_summary *s)
{
	unsigned char *buf;
	size_t len;

	if (s->n)
		qsort(s->v, s->n, sizeof(s->v[0]), by_path);
	if (source_summary_pack(s, &buf, &len))
		return -ENOMEM;
	digest_of(s, buf, len);
	free(buf);
	return 0;
}

int source_summary_scan(const char *root, struct source_summary *s,
			char *why, size_t whylen)
{
	struct scan w = { .s = s, .why = why, .whylen = whylen };
	int fd, r;

	memset(s, 0, sizeof(*s));
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = errno;
		snprintf(why, whylen, "%s: %s", root, strerror(r));
		return -r;
	}
	r = scan_dir(&w, fd);
	if (r) {
		char rel[PATH_MAX + 64];

		snprintf(rel, sizeof(rel), "%s", why);
		snprintf(why, whylen, "%s/%s", root, rel);
		return r;
	}
	if ((r = finish(s)))
		snprintf(why, whylen, "%s: %s", root, strerror(-r));
	return r;
}

void source_summary_free(struct source_summary *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].target);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- packed form --------------------------------------------------------- */

/*
 * Per entry, little-endian: type (1 byte), mode (4), size (8), mtime_ns
 * (8), path length (4), path, target length (4), target. The same bytes
 * on every host, so digests compare across restarts and versions.
 */
static void put(unsigned char **p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

static uint64_t get(const unsigned char **p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)*(*p)++ << (8 * i);
	return v;
}

int source_summary_pack(const struct source_summary *s, unsigned char **buf,
			size_t *len)
{
	size_t total = 0;
	unsigned char *p;

	for (size_t i = 0; i < s->n; i++)
		total += 29 + strlen(s->v[i].path) +
			 (s->v[i].target ? strlen(s->v[i].target) : 0);
	p = *buf = malloc(total ? total : 1);
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const struct summary_entry *e = &s->v[i];
		size_t pl = strlen(e->path), tl = e->target ? strlen(e->target) : 0;

		put(&p, (uint8_t)e->type, 1);
		put(&p, e->mode, 4);
		put(&p, e->size, 8);
		put(&p, (uint64_t)e->mtime_ns, 8);
		put(&p, pl, 4);
		memcpy(p, e->path, pl);
		p += pl;
		put(&p, tl, 4);
		memcpy(p, e->target ? e->target : "", tl);
		p += tl;
	}
	*len = total;
	return 0;
}

static char *take_string(const unsigned char **p, const unsigned char *end)
{
	uint64_t n;
	char *s;

	if (end - *p < 4)
		return NULL;
	n = get(p, 4);
	if ((uint64_t)(end - *p) < n || memchr(*p, 0, n) || !(s = malloc(n + 1)))
		return NULL;
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += n;
	return s;
}

static int unpack_one(struct source_summary *s, const unsigned char **p,
		      const unsigned char *end)
{
	struct summary_entry *e;

	if (end - *p < 21 || !(e = add_entry(s)))
		return -EINVAL;
	e->type = (char)get(p, 1);
	e->mode = (uint32_t)get(p, 4);
	e->size = get(p, 8);
	e->mtime_ns = (int64_t)get(p, 8);
	if (!strchr("fdlo", e->type) || !e->type || !(e->path = take_string(p, end)))
		return -EINVAL;
	if (!(e->target = take_string(p, end)))
		return -EINVAL;
	if (e->type != SUMMARY_SYMLINK) {
		free(e->target);
		e->target = NULL;
	}
	switch (e->type) {
	case SUMMARY_FILE: s->files++; s->bytes += e->size; break;
	case SUMMARY_DIR: s->dirs++; break;
	case SUMMARY_SYMLINK: s->symlinks++; break;
	default: s->others++;
	}
	return 0;
}

int source_summary_unpack(const unsigned char *buf, size_t len,
			  struct source_summary *s)
{
	const unsigned char *p = buf, *end = buf + len;

	memset(s, 0, sizeof(*s));
	while (p < end)
		if (unpack_one(s, &p, end)) {
			source_summary_free(s);
			return -EINVAL;
		}
	for (size_t i = 1; i < s->n; i++)
		if (strcmp(s->v[i - 1].path, s->v[i].path) >= 0) {
			source_summary_free(s);
			return -EINVAL;
		}
	digest_of(s, buf, len);
	return 0;
}

/* ---- comparison ---------------------------------------------------------- */

static int same_entry(const struct summary_entry *a,
		      const struct summary_entry *b)
{
	return a->type == b->type && a->mode == b->mode && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns &&
	       !strcmp(a->target ? a->target : "", b->target ? b->target : "");
}

void source_summary_compare(const struct source_summary *then,
			    const struct source_summary *now,
			    struct source_drift *d)
{
	size_t i = 0, j = 0;

	memset(d, 0, sizeof(*d));
	d->bytes_delta = (int64_t)now->bytes - (int64_t)then->bytes;
	while (i < then->n || j < now->n) {
		int c = i == then->n ? 1 : j == now->n ? -1 :
			strcmp(then->v[i].path, now->v[j].path);

		if (c < 0) {
			d->removed++;
			i++;
		} else if (c > 0) {
			d->added++;
			j++;
		} else {
			d->changed += !same_entry(&then->v[i], &now->v[j]);
			i++;
			j++;
		}
	}
}
