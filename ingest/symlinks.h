/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Symlinks in an ingested tree: kept as symlinks, their targets verbatim
 * (never followed, never rewritten, even when they point outside the
 * tree), resumed through the manifest, compared by verify.
 */
#ifndef FAMFS_INGEST_SYMLINKS_H
#define FAMFS_INGEST_SYMLINKS_H

#include "ingest.h"

/*
 * ingest_symlink_item() - make @it (already filled from lstat) the
 * INGEST_SYMLINK of link @name in directory @dfd: its target, whether it
 * points outside the tree, counted in @p. 0 or a negative errno
 * (-ENAMETOOLONG for a target longer than the format holds).
 */
int ingest_symlink_item(struct ingest_item *it, int dfd, const char *name,
			struct ingest_plan *p);

/*
 * ingest_plan_skip_symlinks() - for --symlinks skip: every symlink of @p
 * becomes a skipped path, named like the others (skipped.h).
 */
void ingest_plan_skip_symlinks(struct ingest_plan *p);

/*
 * ingest_make_symlinks() - create the plan's symlinks under @o->dest once
 * its directories exist: each one the manifest has as done with the same
 * target is left alone; one that exists with another target is handled by
 * @o->changed like a changed file; with @o->verify each target is read
 * back and compared. Counts go in @res; 0 or a negative errno with
 * @res->message naming the link.
 */
int ingest_make_symlinks(const struct ingest_opts *o, const struct ingest_plan *p,
			 struct ingest_sink *sink, struct ingest_manifest *man,
			 struct ingest_result *res);

#endif
