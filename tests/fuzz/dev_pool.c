// SPDX-License-Identifier: Apache-2.0
/*
 * A pool of lib's opened devices for the replay and fsck fuzzers.
 *
 * Every famfs_open() (and fsck's device check) opens the two image files
 * and maps each whole 8 MiB device; famfs_close() unmaps them. That was
 * about half of an input's time, none of it spent on the input: the
 * mmap, the page-table pages and faults for every 2 MiB region touched,
 * and the munmap with its TLB shootdown. The bytes an input puts on the
 * device (image.c writes them with pwrite) are seen through a MAP_SHARED
 * mapping kept from the previous input just as through a fresh one, so
 * this file keeps the mappings: the executable is linked with
 * --wrap=famfs_dev_open,famfs_dev_close (CMakeLists.txt), which sends
 * lib's calls here.
 * - The first open of a (path, writable) pair is lib's real
 *   famfs_dev_open(), kept as a template.
 * - Each later open returns a fresh malloc'd copy of the template, and
 *   close frees that copy: a struct used after close is still a
 *   use-after-free for ASan, and so is every way lib could reach a
 *   mapping after close (through the device struct or the fs).
 * - A close of a device that is not open aborts, as a double close would
 *   in lib.
 * Everything after the mapping (labels, superblocks, log, replay, fsck)
 * is lib's real code on the input's bytes.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "fuzz.h"
#include "internal.h"

#define POOL_MAX 8

int __real_famfs_dev_open(const char *path, bool writable,
			  struct famfs_dev **out, struct famfs_err *e);
void __real_famfs_dev_close(struct famfs_dev *d);
int __wrap_famfs_dev_open(const char *path, bool writable,
			  struct famfs_dev **out, struct famfs_err *e);
void __wrap_famfs_dev_close(struct famfs_dev *d);

static struct {
	struct famfs_dev *tmpl;
	struct famfs_dev *lent; /* the copy handed out, or NULL */
} pool[POOL_MAX];
static unsigned npool;

static struct famfs_dev *lend(unsigned i)
{
	struct famfs_dev *d = malloc(sizeof(*d));

	FUZZ_ASSERT(d, "out of memory");
	memcpy(d, pool[i].tmpl, sizeof(*d));
	pool[i].lent = d;
	return d;
}

int __wrap_famfs_dev_open(const char *path, bool writable,
			  struct famfs_dev **out, struct famfs_err *e)
{
	int r;

	for (unsigned i = 0; i < npool; i++)
		if (!pool[i].lent && pool[i].tmpl->writable == writable &&
		    !strcmp(pool[i].tmpl->path, path)) {
			*out = lend(i);
			return 0;
		}
	r = __real_famfs_dev_open(path, writable, out, e);
	if (r || npool == POOL_MAX)
		return r;
	pool[npool].tmpl = *out;
	*out = lend(npool++);
	return 0;
}

void __wrap_famfs_dev_close(struct famfs_dev *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < npool; i++)
		if (pool[i].lent == d) {
			pool[i].lent = NULL;
			free(d);
			return;
		}
	for (unsigned i = 0; i < npool; i++)
		FUZZ_ASSERT(pool[i].tmpl->base != d->base,
			    "device %s closed twice", d->path);
	__real_famfs_dev_close(d);
}
