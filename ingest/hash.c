// SPDX-License-Identifier: Apache-2.0
/*
 * Which XXH3 kernel to use, decided once. libxxhash is built for the
 * baseline (SSE2): 11 GB/s here, slower than the copy it follows, while
 * the AVX2 kernel hashes a piece still in L2 at ~45 GB/s
 * (bench/results/ingest.md), which is what lets one pass that copies and
 * hashes run near memcpy speed.
 */
#include <pthread.h>
#include <stdbool.h>

#include "hash.h"

static bool use_avx2;
static pthread_once_t pick_once = PTHREAD_ONCE_INIT;

static void pick_kernel(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	use_avx2 = __builtin_cpu_supports("avx2");
#endif
}

void ingest_hash_update(XXH3_state_t *st, const void *p, size_t n)
{
	pthread_once(&pick_once, pick_kernel);
	if (use_avx2)
		ingest_hash_update_avx2(st, p, n);
	else
		XXH3_64bits_update(st, p, n);
}
