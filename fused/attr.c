// SPDX-License-Identifier: Apache-2.0
/* Attributes of committed nodes, read under the namespace read lock. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fused.h"

/* st_ino: the node's own number */
static void stat_raw(const struct famfs_attr *a, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = a->ino;
	st->st_mode = a->mode;
	st->st_nlink = a->nlink ? a->nlink : 1;
	st->st_uid = a->uid;
	st->st_gid = a->gid;
	st->st_size = (off_t)a->size;
	/* du counts what the map holds: that is what df sees as used */
	st->st_blocks = (blkcnt_t)((a->alloc_bytes + 511) / 512);
	st->st_blksize = FAMFS_UNIT_SIZE;
	st->st_mtim.tv_sec = (time_t)(a->mtime_ns / 1000000000ULL);
	st->st_mtim.tv_nsec = (long)(a->mtime_ns % 1000000000ULL);
	st->st_ctim.tv_sec = (time_t)(a->ctime_ns / 1000000000ULL);
	st->st_ctim.tv_nsec = (long)(a->ctime_ns % 1000000000ULL);
	st->st_atim.tv_sec = (time_t)(a->atime_ns / 1000000000ULL);
	st->st_atim.tv_nsec = (long)(a->atime_ns % 1000000000ULL);
}

void fused_attr_to_stat(const struct famfs_attr *a, struct stat *st)
{
	stat_raw(a, st);
	/* only files have other numbers in the kernel (inomap.c) */
	if (S_ISREG(a->mode))
		st->st_ino = fused_inomap_kernel(a->ino);
}

int fused_node_stat(uint64_t ino, struct stat *st)
{
	struct famfs_node *n;
	struct famfs_attr a;

	famfs_fs_rdlock(fused.fs);
	n = famfs_node_by_ino(fused.fs, ino);
	if (n)
		famfs_node_attr(n, &a);
	famfs_fs_unlock(fused.fs);
	if (!n)
		return -ENOENT;
	fused_attr_to_stat(&a, st);
	return 0;
}

int fused_lookup_committed(uint64_t parent, const char *name,
			   struct fuse_entry_param *e)
{
	int r = fused_lookup_committed_raw(parent, name, e);

	if (!r && S_ISREG(e->attr.st_mode))
		e->ino = e->attr.st_ino = fused_inomap_kernel(e->ino);
	return r;
}

int fused_lookup_committed_raw(uint64_t parent, const char *name,
			       struct fuse_entry_param *e)
{
	struct famfs_node *dir, *n = NULL;
	struct famfs_attr a;
	int r = 0;

	famfs_fs_rdlock(fused.fs);
	dir = famfs_node_by_ino(fused.fs, parent);
	if (!dir)
		r = -ENOENT;
	else if (!famfs_node_is_dir(dir))
		r = -ENOTDIR;
	else if (!(n = famfs_lookup_child(fused.fs, dir, name)))
		r = -ENOENT;
	else
		famfs_node_attr(n, &a);
	famfs_fs_unlock(fused.fs);
	if (r)
		return r;
	memset(e, 0, sizeof(*e));
	e->attr_timeout = fused.entry_timeout;
	e->entry_timeout = fused.entry_timeout;
	stat_raw(&a, &e->attr);
	e->ino = a.ino;
	return 0;
}

int fused_child_path(uint64_t parent, const char *name, char *buf, size_t len)
{
	struct famfs_node *dir;
	int n = -ENOENT;

	famfs_fs_rdlock(fused.fs);
	dir = famfs_node_by_ino(fused.fs, parent);
	if (dir)
		n = famfs_node_path(dir, buf, len);
	famfs_fs_unlock(fused.fs);
	if (n < 0)
		return n;
	if (strlen(name) > FAMFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (snprintf(buf + n, len - (size_t)n, "%s%s", n == 1 ? "" : "/", name) >=
	    (int)(len - (size_t)n))
		return -ENAMETOOLONG;
	return (int)strlen(buf) > FAMFS_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* libfamfs finds and holds in one step: no replay or unlink can free the
 * node in between.
 */
struct famfs_node *fused_hold_node(uint64_t ino)
{
	return famfs_lookup_hold(fused.fs, ino, NULL, FAMFS_HOLD_FILE);
}

void fused_release_node(struct famfs_node *n)
{
	famfs_node_release(fused.fs, n);
}

static pthread_mutex_t ofiles_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ofile *ofiles;

struct ofile *fused_ofile_new(void)
{
	struct ofile *of = calloc(1, sizeof(*of));

	if (!of)
		return NULL;
	pthread_mutex_lock(&ofiles_mu);
	of->next = ofiles;
	if (ofiles)
		ofiles->prev = of;
	ofiles = of;
	pthread_mutex_unlock(&ofiles_mu);
	return of;
}

void fused_ofile_free(struct ofile *of)
{
	if (!of)
		return;
	pthread_mutex_lock(&ofiles_mu);
	if (of->prev)
		of->prev->next = of->next;
	else
		ofiles = of->next;
	if (of->next)
		of->next->prev = of->prev;
	pthread_mutex_unlock(&ofiles_mu);
	free(of);
}

unsigned fused_ofiles_count(uint64_t ino)
{
	unsigned n = 0;

	pthread_mutex_lock(&ofiles_mu);
	for (struct ofile *of = ofiles; of; of = of->next)
		n += of->node && of->ino == ino;
	pthread_mutex_unlock(&ofiles_mu);
	return n;
}

void fused_ofiles_free_all(void)
{
	pthread_mutex_lock(&ofiles_mu);
	while (ofiles) {
		struct ofile *of = ofiles;

		ofiles = of->next;
		if (of->node)
			famfs_node_release(fused.fs, of->node);
		free(of);
	}
	pthread_mutex_unlock(&ofiles_mu);
}

/* direct_io sends the writer's pages straight into the WRITE request: no
 * page-cache page is allocated and filled first (bench/fuse/copy.sh). It
 * would break mmap(MAP_SHARED) (ENODEV) unless the kernel granted
 * FUSE_DIRECT_IO_ALLOW_MMAP, and a write-only descriptor cannot be mapped.
 * Read-only opens keep the page cache: warm reads at memory speed.
 */
void fused_master_open_mode(struct fuse_file_info *fi)
{
	int acc = fi->flags & O_ACCMODE;

	if (!fused.o.client &&
	    (acc == O_WRONLY || (acc == O_RDWR && fused_dio_mmap_granted())))
		fi->direct_io = 1;
}
