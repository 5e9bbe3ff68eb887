/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Holds (schemas/sql/0005_holds.sql, docs/api.md "Holds"): an owner pins
 * the generation of a dataset that serves, on this host, until it lets
 * go. Each held generation has a pin: a read-only bind mount of its tree,
 * made from a mount of the dataset's filesystem on this host, at
 * <holds.pin_dir>/<dataset>/<generation>. The kernel moves a bind
 * mount's dentry with a rename, and famfs-fused keeps node ids across
 * one, so the pin shows the same tree after the switch that retires it.
 *
 * A held generation is never removed (datasets.c: dataset_expired()
 * skips it; a dataset_delete job refuses). When its last hold goes, its
 * pin is unmounted and a "dataset_expire" job removes what is then
 * beyond `keep` (jobs/dataset_expire.c).
 *
 * Everything here needs the state lock unless it says otherwise.
 */
#ifndef FAMFSD_HOLDS_H
#define FAMFSD_HOLDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HOLDS_PIN_DIR_DEFAULT "/run/famfsd/datasets"
#define HOLDS_MAX_TIMEOUT 3600

/* A mount of a dataset's filesystem on this host that a pin is made from. */
struct hold_mount {
	char name[64], path[4096], role[16], state[16];
};

/* [A-Za-z0-9][A-Za-z0-9._:@-]{0,127} */
bool holds_owner_valid(const char *owner);

/* <holds.pin_dir>/<dataset>/<generation> */
void holds_pin_path(char *buf, size_t len, const char *dataset, long long gen);

/*
 * holds_pick_mount() - the mount of @fs a hold uses: a mounted one first,
 * the master before a client. 0, or -ENOENT when this host has no mount
 * of @fs.
 */
int holds_pick_mount(const char *fs, struct hold_mount *m);

/*
 * holds_prev_retired() - the path of the generation of @dataset that the
 * last switch retired ("" when there is none), for holds_visible().
 */
void holds_prev_retired(const char *dataset, char *buf, size_t len);

/*
 * holds_visible() - true when mount @m shows the generation whose tree
 * is at @gen_path: the master mount at once; a client mount once that
 * tree is there and @prev (the tree the same switch retired, or "") is at
 * its retired path (the client has replayed the switch). It looks at the
 * mount (stat(2)): call it without the state lock, with the switch lock.
 */
bool holds_visible(const struct hold_mount *m, const char *gen_path,
		   const char *prev);

/* A hold is taken in three steps, all under the switch lock
 * (generation.h), the pin made without the state lock: a FUSE server that
 * hangs then blocks this request, not famfsd.
 *
 * holds_pin_ready() - true when generation @gen of @dataset has holds and
 * a live pin from @m (state lock).
 * holds_pin_make() - make the pin of @gen from its tree at @gen_path on
 * @m (no state lock). 0, or a negative errno with @why.
 * holds_record() - record the hold (state lock); makes the pin again if
 * a release took it meanwhile. 0 with *@id, or a negative errno with
 * @why.
 */
bool holds_pin_ready(const char *dataset, long long gen,
		     const struct hold_mount *m);
int holds_pin_make(const char *dataset, long long gen, const char *gen_path,
		   const struct hold_mount *m, char *why, size_t len);
int holds_record(const char *dataset, long long gen, const char *gen_path,
		 const struct hold_mount *m, const char *owner,
		 const char *note, int64_t *id, char *why, size_t len);

/*
 * holds_release() - release @owner's holds, on @dataset or (NULL) on
 * every dataset; unmount the pins of generations left without a hold and
 * submit the "dataset_expire" job of their datasets. @reason goes into
 * the event. The number released, or a negative errno.
 */
int holds_release(const char *dataset, const char *owner, const char *reason);

/* Owners of @dataset's holds, ", "-separated into @buf: their number. */
int holds_owners(const char *dataset, char *buf, size_t len);
/* Owners of the holds whose pins are on mount @mount, as holds_owners(). */
int holds_on_mount(const char *mount, char *buf, size_t len);

/* Every few seconds from the main loop: re-make a pin that is missing or
 * dead (its mount restarted) from a mount that is up.
 */
void holds_tick(void);

/* The owner reaper (holds.owner_check): a thread of its own; no lock. */
void holds_reaper_start(void);
void holds_reaper_stop(void);

/* famfs_dataset_holds, famfs_dataset_hold_oldest_age_seconds,
 * famfs_holds_reaped_total (state lock held, for reading).
 */
void holds_metrics(FILE *f);

#endif
