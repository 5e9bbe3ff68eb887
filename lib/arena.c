// SPDX-License-Identifier: Apache-2.0
/*
 * The node arena: nodes (with their names) and file maps come from 2 MiB
 * chunks handed out in 8-byte size classes, so replaying a million
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

struct arena_chunk {
	struct arena_chunk *next;
};

struct arena_free {
	struct arena_free *next;
};

static size_t size_class(size_t size)
{
	return (size + ARENA_ALIGN - 1) / ARENA_ALIGN;
}

static int arena_new_chunk(struct famfs_arena *a)
{
	void *p;

	/* 2 MiB aligned, so the kernel can back it with one huge page */
	if (posix_memalign(&p, ARENA_CHUNK, ARENA_CHUNK))
		return -1;
	/* the name table keeps node addresses in 48 bits (internal.h) */
	if (((uintptr_t)p + ARENA_CHUNK - 1) >> FAMFS_SLOT_PTR_BITS) {
		free(p);
		return -1;
	}
	madvise(p, ARENA_CHUNK, MADV_HUGEPAGE);
	((struct arena_chunk *)p)->next = a->chunks;
	a->chunks = p;
	a->cur = (uint8_t *)p + ARENA_ALIGN;
	a->end = (uint8_t *)p + ARENA_CHUNK;
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
	for (struct arena_chunk *c = a->chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}
