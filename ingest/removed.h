/* SPDX-License-Identifier: Apache-2.0 */
#ifndef FAMFS_INGEST_REMOVED_H
#define FAMFS_INGEST_REMOVED_H

#include "ingest.h"

/*
 * ingest_removed() - find the files @man has as done that the plan @p
 * does not (removed from the source since they were ingested): count
 * them in @res (files_removed) and name them (@res->removed), or with
 * @o->delete_removed remove each from famfs and the manifest
 * (files_deleted). 0, or a negative errno with @res->message set.
 * Without a manifest that can list its files, nothing is found.
 */
int ingest_removed(const struct ingest_opts *o, const struct ingest_plan *p,
		   struct ingest_sink *sink, struct ingest_manifest *man,
		   struct ingest_result *res);

#endif
