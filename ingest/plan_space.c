// SPDX-License-Identifier: Apache-2.0
/*
 * The up-front space check: every file ingest is about to copy is placed
 * on paper, in copy order, with the allocator's own rule
 * (famfs_place_plan()) before the first directory is made. A tree that
 * cannot be placed is refused naming the first file that does not fit and
 * the room on each device; a tree that passes is then placed for real.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "ingest.h"

int ingest_place_plan_fs(struct famfs_fs *fs, const uint64_t *sizes,
			 uint64_t n, uint64_t *failed, char *why, size_t whylen)
{
	struct famfs_place_result res;
	struct famfs_err e = { 0 };
	int r = famfs_place_plan(fs, sizes, n, NULL, &res, &e);

	if (r) {
		*failed = res.first_failed;
		snprintf(why, whylen, "%s", e.msg);
	}
	return r;
}

static int ingest_plan_mount(const char *mnt, const uint64_t *sizes,
			     uint64_t n, uint64_t *failed, bool describe,
			     char *why, size_t whylen);

/* The devices of the filesystem mounted at @mnt, from its server. */
static int mount_devices(const char *mnt, char ***paths, unsigned *n)
{
	char buf[16384];
	ssize_t len = getxattr(mnt, "user.famfs.devices", buf, sizeof(buf) - 1);
	json_object *a;
	int r = 0;

	if (len < 0)
		return -errno;
	buf[len] = 0;
	a = json_tokener_parse(buf);
	if (!a || !json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return -EINVAL;
	}
	*n = (unsigned)json_object_array_length(a);
	*paths = calloc(*n ? *n : 1, sizeof(**paths));
	for (unsigned i = 0; *paths && i < *n && !r; i++) {
		(*paths)[i] = strdup(json_object_get_string(
				     json_object_array_get_idx(a, i)));
		r = (*paths)[i] ? 0 : -ENOMEM;
	}
	json_object_put(a);
	return *paths ? r : -ENOMEM;
}

int ingest_place_plan_mount(const char *mnt, const uint64_t *sizes,
			    uint64_t n, uint64_t *failed, char *why,
			    size_t whylen)
{
	return ingest_plan_mount(mnt, sizes, n, failed, false, why, whylen);
}

int ingest_nospace_mount(const char *mnt, uint64_t size, char *why,
			 size_t whylen)
{
	uint64_t failed;

	return ingest_plan_mount(mnt, &size, 1, &failed, true, why, whylen);
}

static int ingest_plan_mount(const char *mnt, const uint64_t *sizes,
			     uint64_t n, uint64_t *failed, bool describe,
			     char *why, size_t whylen)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = NULL;
	char **paths = NULL;
	unsigned ndev = 0;
	int r = mount_devices(mnt, &paths, &ndev);

	/* a replay of the committed log: the server's allocator state as
	 * far as the files go (its reservations in flight are not there)
	 */
	if (r)
		snprintf(why, whylen, "%s: cannot read user.famfs.devices: %s",
			 mnt, strerror(-r));
	else if ((r = famfs_open((const char *const *)paths, ndev, &o, &fs, &e)))
		snprintf(why, whylen, "%s", e.msg);
	else if ((r = ingest_place_plan_fs(fs, sizes, n, failed, why, whylen)) == 0 &&
		 describe) {
		/* it fits as committed: the server's reservations in flight
		 * took the room; say what the file needs and what is left
		 */
		char how[700];

		famfs_space_why(fs, sizes[0], NULL, how, sizeof(how));
		snprintf(why, whylen, "no space (the mount's server holds "
			 "space for files not committed yet): %s; as committed",
			 how);
		r = -ENOSPC;
	}
	if (fs)
		famfs_close(fs);
	for (unsigned i = 0; paths && i < ndev; i++)
		free(paths[i]);
	free(paths);
	return r;
}

static int paper_stat(void *s, const char *path, struct famfs_attr *a)
{
	(void)s;
	(void)path;
	(void)a;
	return -ENOENT;
}

static uint64_t paper_free(void *s)
{
	const struct ingest_paper_fs *pp = s;
	uint64_t t = 0;

	for (unsigned d = 0; d < pp->ndev; d++)
		t += pp->dev_bytes[d];
	return t;
}

static int paper_place_plan(void *s, const uint64_t *sizes, uint64_t n,
			    uint64_t *failed, char *why, size_t whylen)
{
	const struct ingest_paper_fs *pp = s;
	struct famfs_place_result res;
	struct famfs_err e = { 0 };
	int r = famfs_place_plan_new(pp->dev_bytes, pp->ndev, pp->log_size,
				     sizes, n, NULL, &res, &e);

	if (r) {
		*failed = r == -ENOSPC ? res.first_failed : n;
		snprintf(why, whylen, "%s", e.msg);
	}
	return r;
}

static const struct ingest_sink_ops paper_ops = {
	.stat = paper_stat, .free_bytes = paper_free,
	.place_plan = paper_place_plan,
};

void ingest_sink_paper(struct ingest_sink *k, struct ingest_paper_fs *pp)
{
	k->ops = &paper_ops;
	k->s = pp;
	k->ndev = pp->ndev;
}

int ingest_check_space(struct ingest_sink *sink, const struct ingest_plan *p,
		       const uint64_t *order, uint64_t norder, uint64_t *at,
		       char *why, size_t whylen)
{
	uint64_t *sizes, failed = 0;
	char how[800];
	int r;

	if (!sink->ops->place_plan || !norder)
		return 0;
	sizes = malloc(norder * sizeof(*sizes));
	if (!sizes) {
		snprintf(why, whylen, "out of memory for the placement plan");
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < norder; i++)
		sizes[i] = p->items[order[i]].size;
	r = sink->ops->place_plan(sink->s, sizes, norder, &failed, how,
				  sizeof(how));
	*at = failed;
	if (r == -ENOSPC && failed < norder)
		snprintf(why, whylen, "%s does not fit (placed largest "
			 "first, %s)", p->items[order[failed]].rel, how);
	else if (r)
		snprintf(why, whylen, "the placement plan failed: %s", how);
	free(sizes);
	return r;
}
