/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The checksum ingest records (XXH3-64, docs/ingest.md), computed with the
 * fastest kernel the CPU has. XXH3 is defined bit for bit, so every kernel
 * gives the same value as libxxhash's XXH3_64bits().
 */
#ifndef FAMFS_INGEST_HASH_H
#define FAMFS_INGEST_HASH_H

#include <stddef.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

/* Add @n bytes at @p to @st (reset with XXH3_64bits_reset(), read with
 * XXH3_64bits_digest()).
 */
void ingest_hash_update(XXH3_state_t *st, const void *p, size_t n);

/* The AVX2 kernel (hash_avx2.c); only called when the CPU has AVX2. */
void ingest_hash_update_avx2(void *st, const void *p, size_t n);

#endif
