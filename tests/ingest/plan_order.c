// SPDX-License-Identifier: Apache-2.0
/*
 * test_ingest's check of the plan's layout against a reference walk of the
 * same source tree (plan_order.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "ingest.h"
#include "plan_order.h"

/* The reference walk: one thread, depth first, each directory's entries in
 * readdir order with a subdirectory's tree right after its entry.
 */
struct ref_walk {
	char **rel;
	uint64_t *parent;
	uint64_t n, cap;
};

static void ref_walk_dir(struct ref_walk *w, const char *root, const char *rel, uint64_t self)
{
	char path[8192];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		struct stat st;
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		assert_true(asprintf(&sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) > 0);
		if (w->n == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 256;
			w->rel = realloc(w->rel, w->cap * sizeof(*w->rel));
			w->parent = realloc(w->parent, w->cap * sizeof(*w->parent));
		}
		uint64_t k = w->n++;

		w->rel[k] = sub;
		w->parent[k] = self;
		assert_int_equal(fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW), 0);
		if (S_ISDIR(st.st_mode))
			ref_walk_dir(w, root, sub, k);
	}
	closedir(d);
}

/* The plan lays the tree out depth first: each directory's entries in
 * readdir order, a subdirectory's tree right after its entry, each item
 * with its directory's index (copy_order() and the workers' open
 * directory rely on it), the counts of the plan right.
 */
void ingest_plan_is_the_depth_first_walk(void **state)
{
	struct ref_walk w = { 0 };
	struct ingest_plan p;
	char why[256];
	uint64_t files = 0, dirs = 0, skipped = 0;
	const char *src = *(const char **)*state;

	w.cap = 256;
	w.rel = malloc(w.cap * sizeof(*w.rel));
	w.parent = malloc(w.cap * sizeof(*w.parent));
	w.rel[0] = strdup("");
	w.parent[0] = 0;
	w.n = 1;
	ref_walk_dir(&w, src, "", 0);
	for (unsigned round = 0; round < 3; round++) {
		assert_int_equal(ingest_plan_build(src, "/data", &p, why, sizeof(why)), 0);
		assert_int_equal(p.nitems, w.n);
		files = dirs = skipped = 0;
		for (uint64_t i = 0; i < p.nitems; i++) {
			const struct ingest_item *it = &p.items[i];

			if (strcmp(it->rel, w.rel[i]))
				fprintf(stderr, "item %llu: plan %s, walk %s\n",
					(unsigned long long)i, it->rel, w.rel[i]);
			assert_string_equal(it->rel, w.rel[i]);
			assert_int_equal(it->parent, w.parent[i]);
			if (i) {
				assert_true(it->parent < i);
				assert_int_equal(p.items[it->parent].kind, INGEST_DIR);
				assert_string_equal(it->rel + it->name_off,
						    strrchr(w.rel[i], '/') ? strrchr(w.rel[i], '/') + 1
									   : w.rel[i]);
			}
			files += it->kind == INGEST_FILE;
			dirs += i && it->kind == INGEST_DIR;
			skipped += it->kind == INGEST_SKIP;
		}
		assert_int_equal(p.files, files);
		assert_int_equal(p.dirs, dirs);
		assert_int_equal(p.skipped, skipped);
		ingest_plan_free(&p);
	}
	printf("plan = depth-first walk: %llu items, %llu files, %llu dirs\n",
	       (unsigned long long)w.n, (unsigned long long)files, (unsigned long long)dirs);
	for (uint64_t i = 0; i < w.n; i++)
		free(w.rel[i]);
	free(w.rel);
	free(w.parent);
}
