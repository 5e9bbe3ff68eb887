// SPDX-License-Identifier: Apache-2.0
/*
 * A pool of lib's arena chunks for the replay and fsck fuzzers.
 *
 * Every famfs_open() takes a 2 MiB, 2 MiB-aligned arena chunk
 * (lib/arena.c) and famfs_close() frees it. Under ASan that size is a
 * fresh mmap of twice the chunk each time, whose shadow is poisoned on
 * map and released on unmap: about half of each input's time went to
 * those page faults and memsets. This file's posix_memalign() and free()
 * (the executable's definitions win over ASan's weak interceptors, as
 * image.c's getrandom() does over libc's) keep such chunks instead:
 * - a chunk is allocated once by ASan itself, so its redzones stay;
 * - a chunk given back is poisoned until it is handed out again, so a use
 *   after famfs_close() is still reported (as use-after-poison);
 * - freeing a chunk twice aborts, as ASan would.
 * Everything else goes to ASan unchanged. The fix that would make this
 * unneeded is in lib (reuse chunks across opens); see bench/results/fuzz.md.
 */
#include <sanitizer/asan_interface.h>
#include <stdbool.h>
#include <stddef.h>

#include "fuzz.h"

#define CHUNK (2u << 20) /* lib/arena.c ARENA_CHUNK */
#define POOL_MAX 16

int __interceptor_posix_memalign(void **out, size_t align, size_t size);
void __interceptor_free(void *p);

static struct {
	void *p;
	bool used;
} pool[POOL_MAX];
static unsigned npool;

int posix_memalign(void **out, size_t align, size_t size)
{
	int r;

	if (align != CHUNK || size != CHUNK)
		return __interceptor_posix_memalign(out, align, size);
	for (unsigned i = 0; i < npool; i++)
		if (!pool[i].used) {
			pool[i].used = true;
			ASAN_UNPOISON_MEMORY_REGION(pool[i].p, CHUNK);
			*out = pool[i].p;
			return 0;
		}
	r = __interceptor_posix_memalign(out, align, size);
	if (r == 0 && npool < POOL_MAX) {
		pool[npool].p = *out;
		pool[npool++].used = true;
	}
	return r;
}

void free(void *p)
{
	for (unsigned i = 0; i < npool; i++)
		if (pool[i].p == p) {
			FUZZ_ASSERT(pool[i].used, "arena chunk %p freed twice", p);
			pool[i].used = false;
			ASAN_POISON_MEMORY_REGION(p, CHUNK);
			return;
		}
	__interceptor_free(p);
}
