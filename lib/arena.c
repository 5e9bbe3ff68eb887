// SPDX-License-Identifier: Apache-2.0
/*
 * The node arena: nodes (with their names) and file maps come from 2 MiB
 * chunks (of 32 MiB slabs) handed out in 8-byte size classes, so replaying a million
 * entries makes no malloc call per entry and its memory is touched in
 * order. Freed blocks go on a per-class free list and are reused by the
 * next allocation of the same class (a master that creates and deletes
 * forever does not grow); chunks go back only when the arena is destroyed.
 * Blocks are at most FAMFS_ARENA_MAX bytes (a node with the longest name,
 * a map with the most items: internal.h checks both). Callers hold the fs
 * write lock.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define ARENA_CHUNK (2u << 20)
#define ARENA_ALIGN 8u
#define ARENA_SLAB_CHUNKS 16u

/* At the start of each slab's first chunk. */
struct arena_slab {
	struct arena_slab *next;
	size_t bytes;
};

struct arena_free {
	struct arena_free *next;
};

static size_t size_class(size_t size)
{
	return (size + ARENA_ALIGN - 1) / ARENA_ALIGN;
}

/* A slab of ARENA_SLAB_CHUNKS chunks, 2 MiB aligned (so the kernel can
 * back each chunk with one huge page), mapped straight from the kernel:
 * a chunk from malloc carried its header on a 4 KiB page of its own
 * before the aligned part, and the first touch of a page in a new 2 MiB
 * of address space costs ~80 us here (a page-table page,
 * bench/results/lib.md, 2026-12-05), for every 2 MiB of nodes. Address
 * space only: a chunk costs memory when it is handed out and written.
 */
static int arena_new_slab(struct famfs_arena *a)
{
	size_t bytes = (size_t)ARENA_SLAB_CHUNKS * ARENA_CHUNK;
	uint8_t *m = mmap(NULL, bytes + ARENA_CHUNK, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t start, end;
	struct arena_slab *s;

	if (m == MAP_FAILED)
		return -1;
	start = ((uintptr_t)m + ARENA_CHUNK - 1) & ~(uintptr_t)(ARENA_CHUNK - 1);
	end = (uintptr_t)m + bytes + ARENA_CHUNK;
	if (start > (uintptr_t)m)
		munmap(m, start - (uintptr_t)m);
	if (end > start + bytes)
		munmap((void *)(start + bytes), end - (start + bytes));
	/* the name table keeps node addresses in 48 bits (internal.h) */
	if ((start + bytes - 1) >> FAMFS_SLOT_PTR_BITS) {
		munmap((void *)start, bytes);
		return -1;
	}
	madvise((void *)start, bytes, MADV_HUGEPAGE);
	s = (struct arena_slab *)start;
	s->next = a->chunks;
	s->bytes = bytes;
	a->chunks = s;
	a->cur = (uint8_t *)start + sizeof(*s);
	a->end = (uint8_t *)start + ARENA_CHUNK;
	a->slab_end = (uint8_t *)start + bytes;
	return 0;
}

static int arena_new_chunk(struct famfs_arena *a)
{
	if (!a->chunks || a->end == a->slab_end)
		return arena_new_slab(a);
	a->cur = a->end;
	a->end += ARENA_CHUNK;
	return 0;
}

void *famfs_arena_alloc(struct famfs_arena *a, size_t size)
{
	size_t c = size_class(size ? size : 1), bytes = c * ARENA_ALIGN;
	void *p;

	if (size > FAMFS_ARENA_MAX)
		return NULL;
	if (a->free[c]) {
		struct arena_free *f = a->free[c];

		a->free[c] = f->next;
		return f;
	}
	if ((size_t)(a->end - a->cur) < bytes && arena_new_chunk(a))
		return NULL;
	p = a->cur;
	a->cur += bytes;
	return p;
}

void famfs_arena_free(struct famfs_arena *a, void *p, size_t size)
{
	size_t c = size_class(size ? size : 1);
	struct arena_free *f = p;

	if (!p)
		return;
	f->next = a->free[c];
	a->free[c] = f;
}

void famfs_arena_destroy(struct famfs_arena *a)
{
	for (struct arena_slab *s = a->chunks, *next; s; s = next) {
		next = s->next;
		munmap(s, s->bytes);
	}
	memset(a, 0, sizeof(*a));
}
