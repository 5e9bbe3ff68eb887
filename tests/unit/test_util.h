/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the unit tests: emulated devices in a fresh temporary dir. */
#ifndef FAMFS_TEST_UTIL_H
#define FAMFS_TEST_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "famfs.h"

struct tdevs {
	char dir[256];
	char path[8][300];
	const char *paths[8];
	unsigned n;
};

/* Create @n emulated devices of @size bytes each under a new temp dir. */
void tdevs_make(struct tdevs *t, unsigned n, uint64_t size);
void tdevs_remove(struct tdevs *t);
/* mkfs with a small log; asserts success. */
void tdevs_mkfs(struct tdevs *t, uint64_t log_size);
struct famfs_fs *tdevs_open(struct tdevs *t, unsigned flags);
/* fsck of the devices (asserts it ran): the errors, and the warnings
 * in *@warnings when given.
 */
unsigned tdevs_fsck_errors(struct tdevs *t, unsigned *warnings);
/* Device 0 becomes the format 1.0 fixture (tests/unit/data). */
void tdevs_load_format_1_0(struct tdevs *t);
/* The inode number of @path, 0 when it is not there. */
uint64_t tnode_ino(struct famfs_fs *fs, const char *path);
/* Whole contents of a device file, for before/after comparisons. */
uint8_t *tdevs_snapshot(struct tdevs *t, unsigned i, size_t *len);
void fill_pattern(void *buf, size_t len, uint64_t seed);
/*
 * Damage the last entry of device 0's log (log offset @off, @len bytes)
 * every way a torn append or a bit flip can: each byte flipped in turn,
 * then each cut (the first k bytes written, the rest zero). For each, a
 * reader opens the filesystem and @check(fs, applied, @arg) asserts what
 * it sees: applied is true only for a cut that left the whole entry.
 * After a flip the log is reported corrupt (the committed-tail record
 * names the entry). The cuts are torn appends: they run with the record
 * as a crash before it was written leaves it (tlog_tailrec_before()).
 * fsck finds no error after a cut, and exactly one warning (the torn
 * tail) when the entry is incomplete. The entry is left whole, and the
 * record as it was.
 */
void tlog_damage_each(struct tdevs *t, uint64_t off, uint32_t len,
		      void (*check)(struct famfs_fs *fs, bool applied, void *arg),
		      void *arg);

/* Rewrite the committed-tail record as a crash between the append of the
 * entry at log offset @off and its record leaves it: naming the entry
 * before it (both slots).
 */
void tlog_tailrec_before(struct tdevs *t, uint64_t off);
/* Zero the record's two slots: a filesystem of format 1.3 or older. */
void tlog_tailrec_clear(struct tdevs *t);
/* Save (@save true) or put back the record's 128 bytes in @buf. */
void tlog_tailrec_keep(struct tdevs *t, uint8_t buf[128], bool save);

#endif
