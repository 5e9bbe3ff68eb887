/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A famfs image for the replay and fsck fuzzers: two emulated devices
 * made once by the real mkfs and filled through the real API (dirs, a
 * packed file, an interleaved file, a setattr, a delete, a batch), whose
 * metadata each input then replaces.
 *
 * Input layout (what fuzz_image_seed() writes for the pristine image):
 *   1 byte     flags (enum fuzz_image_flags)
 *   256        device 0 label                 (at 0)
 *   4096       superblock                     (at FAMFS_SB_OFFSET)
 *   4096       client slot table              (at FAMFS_SLOTS_OFFSET)
 *   4096       log header                     (at FAMFS_LOG_OFFSET)
 *   the rest   log entries                    (after the log header)
 * The committed-tail record is the pristine one unless FUZZ_TAILREC.
 * A short input leaves the pristine bytes in place of what it lacks.
 * CRCs are recomputed where the flags say, so that mutations reach the
 * code behind the CRC checks.
 */
#ifndef FAMFS_FUZZ_IMAGE_H
#define FAMFS_FUZZ_IMAGE_H

#include <stddef.h>
#include <stdint.h>

enum fuzz_image_flags {
	FUZZ_FIX_LABEL = 0x01,    /* reseal the label's CRC */
	FUZZ_FIX_SB = 0x02,       /* reseal the superblock's CRC */
	FUZZ_FIX_LOGHDR = 0x04,   /* reseal the log header's CRC */
	FUZZ_FIX_ENTRIES = 0x08,  /* reseal each entry the length chain finds */
	FUZZ_SB_BACKUP = 0x10,    /* the backup superblock = the primary */
	FUZZ_DROP_DEV1 = 0x20,    /* open with device 0 only */
	FUZZ_CLIENT = 0x40,       /* open as a client (claims a slot) */
	FUZZ_TAILREC = 0x80,      /* the committed-tail record's two slots are
				   * the last 128 bytes of the slot table block
				   * (else the pristine record) */
};

/* Build the pristine image (once); aborts on failure. */
void fuzz_image_init(void);
/* Lay @data over the pristine metadata; returns the device count to open. */
unsigned fuzz_image_load(const uint8_t *data, size_t size, uint8_t *flags);
/* The device paths, device 0 first. */
const char *const *fuzz_image_paths(void);
/* The input that reproduces the pristine image with @flags; malloc'd. */
uint8_t *fuzz_image_seed(uint8_t flags, size_t *len);
/* With FAMFS_FUZZ_WRITE_SEED=dir set: write seeds there and exit. */
void fuzz_image_maybe_write_seeds(void);

#endif
