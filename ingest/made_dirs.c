// SPDX-License-Identifier: Apache-2.0
/*
 * Directories an ingest run created, so that a run that fails or is
 * refused takes back those that hold nothing: a failed ingest leaves
 * the destination as it found it, except for the files it committed
 * (and the directories holding them), which a re-run skips.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ingest.h"

int ingest_made_dirs_add(struct ingest_made_dirs *d, const char *path)
{
	if (d->n == d->cap) {
		uint64_t cap = d->cap ? d->cap * 2 : 16;
		char **p = realloc(d->paths, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->paths = p;
		d->cap = cap;
	}
	d->paths[d->n] = strdup(path);
	if (!d->paths[d->n])
		return -ENOMEM;
	d->n++;
	return 0;
}

uint64_t ingest_made_dirs_remove_empty(struct ingest_sink *sink,
				       struct ingest_made_dirs *d)
{
	uint64_t removed = 0;

	if (!sink->ops->rmdir)
		return 0;
	/* a parent was made before its children: the newest first, so
	 * that a directory whose only entries were made here empties out
	 * before its turn; one that holds a file stays (-ENOTEMPTY)
	 */
	for (uint64_t i = d->n; i-- > 0;)
		if (sink->ops->rmdir(sink->s, d->paths[i]) == 0)
			removed++;
	return removed;
}

void ingest_made_dirs_free(struct ingest_made_dirs *d)
{
	for (uint64_t i = 0; i < d->n; i++)
		free(d->paths[i]);
	free(d->paths);
	memset(d, 0, sizeof(*d));
}
