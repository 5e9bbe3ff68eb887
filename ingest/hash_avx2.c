// SPDX-License-Identifier: Apache-2.0
/*
 * XXH3-64 update with xxhash's AVX2 kernel, compiled for AVX2 whatever the
 * build's flags (by pragma, so every build of ingest/ that globs this file
 * gets it without flags of its own); hash.c calls it only on CPUs with
 * AVX2. The state has libxxhash's layout (the same header), so reset and
 * digest stay libxxhash's.
 */
#include <assert.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

#if defined(__x86_64__)
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#undef XXH_STATIC_LINKING_ONLY
#define XXH_INLINE_ALL
#define XXH_VECTOR 2 /* XXH_AVX2 */
#include <xxhash.h>

void ingest_hash_update_avx2(void *st, const void *p, size_t n)
{
	XXH3_64bits_update(st, p, n);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
void ingest_hash_update_avx2(void *st, const void *p, size_t n)
{
	XXH3_64bits_update(st, p, n);
}
#endif
