// SPDX-License-Identifier: Apache-2.0
/*
 * Walking the source tree. Every open is relative to the directory fd it
 * came from, with O_NOFOLLOW: a symlink is never followed, so nothing
 * outside the tree is ever read, whatever the links point at.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ingest.h"
#include "readable.h"
#include "symlinks.h"
#include "uring.h"

struct walk {
	struct ingest_plan *p;
	uint64_t cap;
	size_t dest_len;
	char *why;
	size_t whylen;
	struct source_access access;
	struct uring_reader *u;         /* stats names in batches; NULL: fstatat */
};

/* A directory's entries, listed before any is looked at. */
struct dents {
	char **name;
	struct stat *st;
	int *err;                       /* 0, or the errno of its stat */
	size_t n, cap;
};

static struct ingest_item *add_item(struct walk *w)
{
	struct ingest_plan *p = w->p;

	if (p->nitems == w->cap) {
		uint64_t n = w->cap ? w->cap * 2 : 1024;
		struct ingest_item *it = realloc(p->items, n * sizeof(*it));

		if (!it)
			return NULL;
		p->items = it;
		w->cap = n;
	}
	memset(&p->items[p->nitems], 0, sizeof(p->items[0]));
	return &p->items[p->nitems++];
}

static void fill_attrs(struct ingest_item *it, const struct stat *st)
{
	it->size = (uint64_t)st->st_size;
	it->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ULL +
		       (uint64_t)st->st_mtim.tv_nsec;
	it->ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000ULL +
		       (uint64_t)st->st_ctim.tv_nsec;
	it->mode = st->st_mode & 07777;
	it->uid = st->st_uid;
	it->gid = st->st_gid;
	it->src_dev = st->st_dev;
	it->src_ino = st->st_ino;
	it->alloc_blocks = (uint64_t)st->st_blocks * 512;
}

static const char *special_why(mode_t m)
{
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "device node";
	return "unsupported file type";
}

static void dents_free(struct dents *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	free(l->st);
	free(l->err);
}

static int dents_add(struct dents *l, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		char **nv = realloc(l->name, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->name = nv;
		l->cap = cap;
	}
	l->name[l->n] = strdup(name);
	if (!l->name[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static void stat_of_statx(const struct statx *x, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(x->stx_dev_major, x->stx_dev_minor);
	st->st_ino = x->stx_ino;
	st->st_mode = x->stx_mode;
	st->st_nlink = x->stx_nlink;
	st->st_uid = x->stx_uid;
	st->st_gid = x->stx_gid;
	st->st_size = (off_t)x->stx_size;
	st->st_blocks = (blkcnt_t)x->stx_blocks;
	st->st_mtim.tv_sec = x->stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = x->stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = x->stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = x->stx_ctime.tv_nsec;
}

/*
 * Stat every entry of the directory: in batches through io_uring where
 * it works (measured: the plan's fstatat per file was half of the time
 * the walking thread spends, while the copy threads wait for the plan;
 * io_uring's statx runs in its workers, one submit a batch), else with
 * fstatat. Each entry gets its stat or its errno.
 */
static int stat_all(struct walk *w, int dfd, struct dents *l)
{
	struct uring_stat b[URING_STAT_BATCH];
	const unsigned need = STATX_TYPE | STATX_MODE | STATX_UID | STATX_GID |
			      STATX_INO | STATX_SIZE | STATX_BLOCKS | STATX_MTIME |
			      STATX_CTIME;

	l->st = malloc((l->n + 1) * sizeof(*l->st));
	l->err = calloc(l->n + 1, sizeof(*l->err));
	if (!l->st || !l->err)
		return -ENOMEM;
	for (size_t i = 0; i < l->n;) {
		unsigned k = l->n - i < URING_STAT_BATCH ? (unsigned)(l->n - i)
							 : URING_STAT_BATCH;
		bool done = false;

		for (unsigned j = 0; w->u && j < k; j++)
			b[j].name = l->name[i + j];
		if (w->u && uring_stat_names(w->u, dfd, b, k) == 0) {
			done = true;
			for (unsigned j = 0; j < k; j++) {
				if (b[j].result)
					l->err[i + j] = -b[j].result;
				else if ((b[j].stx.stx_mask & need) == need)
					stat_of_statx(&b[j].stx, &l->st[i + j]);
				else if (fstatat(dfd, l->name[i + j], &l->st[i + j],
						 AT_SYMLINK_NOFOLLOW))
					l->err[i + j] = errno;
			}
		} else if (w->u) {
			/* the ring broke: the rest the plain way */
			uring_reader_free(w->u);
			w->u = NULL;
		}
		for (unsigned j = 0; !done && j < k; j++)
			if (fstatat(dfd, l->name[i + j], &l->st[i + j], AT_SYMLINK_NOFOLLOW))
				l->err[i + j] = errno;
		i += k;
	}
	return 0;
}

static int walk_dir(struct walk *w, int dfd, const char *rel, uint64_t self)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	struct dents l = { 0 };
	int r = 0;

	if (!d) {
		snprintf(w->why, w->whylen, "%s: cannot list: %s", rel, strerror(errno));
		close(dfd);
		return -errno;
	}
	while (!r && (errno = 0, de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r = dents_add(&l, de->d_name);
	if (!r && errno) {
		snprintf(w->why, w->whylen, "%s: cannot list: %s", rel, strerror(errno));
		r = -errno;
	}
	if (!r)
		r = stat_all(w, dirfd(d), &l);
	for (size_t i = 0; !r && i < l.n; i++) {
		struct stat st = l.st[i];
		const char *name = l.name[i];
		struct ingest_item *it;
		char *sub;

		if (asprintf(&sub, "%s%s%s", rel, *rel ? "/" : "", name) < 0) {
			r = -ENOMEM;
			break;
		}
		if (l.err[i]) {
			snprintf(w->why, w->whylen, "%s: cannot stat: %s", sub,
				 strerror(l.err[i]));
			free(sub);
			r = -l.err[i];
			break;
		}
		if (w->dest_len + 1 + strlen(sub) > FAMFS_PATH_MAX ||
		    strlen(name) > FAMFS_NAME_MAX) {
			snprintf(w->why, w->whylen,
				 "%.300s: name too long for the format (paths up to %d "
				 "bytes, names up to %d)", sub, FAMFS_PATH_MAX,
				 FAMFS_NAME_MAX);
			free(sub);
			r = -ENAMETOOLONG;
			break;
		}
		it = add_item(w);
		if (!it) {
			free(sub);
			r = -ENOMEM;
			break;
		}
		it->rel = sub;
		it->parent = self;
		it->name_off = (uint32_t)(strlen(sub) - strlen(name));
		fill_attrs(it, &st);
		if (S_ISDIR(st.st_mode)) {
			int sfd = openat(dirfd(d), name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			it->kind = INGEST_DIR;
			w->p->dirs++;
			if (sfd < 0) {
				snprintf(w->why, w->whylen, "%s: cannot open: %s", sub,
					 strerror(errno));
				r = -errno;
				break;
			}
			r = walk_dir(w, sfd, sub, (uint64_t)(it - w->p->items));
		} else if (S_ISREG(st.st_mode)) {
			/* refuse now, before anything is copied, not half-way */
			if (!source_surely_readable(&w->access, &st) &&
			    faccessat(dirfd(d), name, R_OK, AT_EACCESS) != 0) {
				snprintf(w->why, w->whylen, "source %s: not readable: %s",
					 sub, strerror(errno));
				r = -errno;
				break;
			}
			it->kind = INGEST_FILE;
			w->p->files++;
			w->p->bytes += it->size;
			if (it->alloc_blocks < it->size)
				w->p->sparse++;
		} else if (S_ISLNK(st.st_mode)) {
			r = ingest_symlink_item(it, dirfd(d), name, w->p);
			if (r) {
				snprintf(w->why, w->whylen, "%s: cannot read the link: %s",
					 sub, strerror(-r));
				break;
			}
		} else {
			it->kind = INGEST_SKIP;
			it->skip_why = special_why(st.st_mode);
			w->p->skipped++;
		}
	}
	dents_free(&l);
	closedir(d);
	return r;
}

static int by_dev_ino(const void *a, const void *b)
{
	const struct ingest_item *x = *(struct ingest_item *const *)a;
	const struct ingest_item *y = *(struct ingest_item *const *)b;

	if (x->src_dev != y->src_dev)
		return x->src_dev < y->src_dev ? -1 : 1;
	return x->src_ino < y->src_ino ? -1 : x->src_ino > y->src_ino;
}

/* Count extra names of one inode: each gets its own copy (docs/ingest.md). */
static void count_hardlinks(struct ingest_plan *p)
{
	struct ingest_item **v = malloc(p->files * sizeof(*v) + 1);
	uint64_t n = 0;

	if (!v)
		return;
	for (uint64_t i = 0; i < p->nitems; i++)
		if (p->items[i].kind == INGEST_FILE)
			v[n++] = &p->items[i];
	qsort(v, n, sizeof(*v), by_dev_ino);
	for (uint64_t i = 1; i < n; i++)
		if (v[i]->src_dev == v[i - 1]->src_dev && v[i]->src_ino == v[i - 1]->src_ino)
			p->hardlinks++;
	free(v);
}

int ingest_plan_build(const char *source, const char *dest,
		      struct ingest_plan *p, char *why, size_t whylen)
{
	struct walk w = { .p = p, .dest_len = strlen(dest), .why = why,
			  .whylen = whylen };
	struct stat st;
	int fd, r;

	memset(p, 0, sizeof(*p));
	source_access_init(&w.access);
	fd = open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "source %s: %s", source, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -errno;
	}
	struct ingest_item *root = add_item(&w);

	if (!root) {
		close(fd);
		return -ENOMEM;
	}
	root->rel = strdup("");
	root->kind = INGEST_DIR;
	fill_attrs(root, &st);
	w.u = uring_reader_new();
	r = walk_dir(&w, fd, "", 0);
	uring_reader_free(w.u);
	if (!r)
		count_hardlinks(p);
	if (r)
		ingest_plan_free(p);
	return r;
}

void ingest_plan_free(struct ingest_plan *p)
{
	for (uint64_t i = 0; i < p->nitems; i++) {
		free(p->items[i].rel);
		free(p->items[i].target);
	}
	free(p->items);
	memset(p, 0, sizeof(*p));
}

uint64_t ingest_estimate_alloc(uint64_t size, unsigned ndev)
{
	uint64_t u = FAMFS_UNIT_SIZE;

	if (size == 0)
		return 0;
	if (size <= FAMFS_MiB)
		return (size + FAMFS_BLOCK_SIZE - 1) / FAMFS_BLOCK_SIZE * FAMFS_BLOCK_SIZE;
	if (ndev > 1 && size > u) {
		uint64_t n = (size + u - 1) / u < ndev ? (size + u - 1) / u : ndev;

		return (size + n * u - 1) / (n * u) * (n * u);
	}
	return (size + u - 1) / u * u;
}
