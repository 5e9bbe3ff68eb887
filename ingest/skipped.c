// SPDX-License-Identifier: Apache-2.0
/*
 * Naming what ingest skips. The walk already keeps every skipped path in
 * the plan (INGEST_SKIP, with why); this turns them into the stderr lines,
 * the job result and the --strict refusal.
 */
#include <errno.h>

#include "skipped.h"

static const struct ingest_item *next_skipped(const struct ingest_plan *p,
					      uint64_t *i)
{
	for (; *i < p->nitems; (*i)++)
		if (p->items[*i].kind == INGEST_SKIP)
			return &p->items[(*i)++];
	return NULL;
}

void ingest_skipped_print(const struct ingest_plan *p, FILE *f)
{
	const struct ingest_item *it;
	uint64_t i = 0, shown = 0;

	while (shown < INGEST_SKIPPED_SHOWN && (it = next_skipped(p, &i))) {
		fprintf(f, "skipped %s: %s\n", it->rel, it->skip_why);
		shown++;
	}
	if (p->skipped > shown)
		fprintf(f, "skipped %llu more paths (famfs-cli get jobs -o yaml "
			"names up to %d)\n", (unsigned long long)(p->skipped - shown),
			INGEST_SKIPPED_IN_RESULT);
}

json_object *ingest_skipped_json(const struct ingest_plan *p, unsigned max)
{
	json_object *a = json_object_new_array();
	const struct ingest_item *it;
	uint64_t i = 0;

	while (a && json_object_array_length(a) < max && (it = next_skipped(p, &i))) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "path", json_object_new_string(it->rel));
		json_object_object_add(o, "why", json_object_new_string(it->skip_why));
		json_object_array_add(a, o);
	}
	return a;
}

int ingest_skipped_refuse(const struct ingest_plan *p, char *why, size_t whylen)
{
	const struct ingest_item *it;
	uint64_t i = 0;

	if (!p->skipped || !(it = next_skipped(p, &i)))
		return 0;
	snprintf(why, whylen, "--strict: %llu path%s cannot be ingested, the "
		 "first: %.300s (%s); nothing was copied",
		 (unsigned long long)p->skipped, p->skipped == 1 ? "" : "s",
		 it->rel, it->skip_why);
	return -EOPNOTSUPP;
}
