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
#include <pthread.h>
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

/* A 2 MiB-aligned chunk (so the kernel can back it with one huge page),
 * below 2^48 (the name table keeps node addresses in 48 bits).
 */
static void *chunk_alloc(void)
{
	void *p;

	if (posix_memalign(&p, ARENA_CHUNK, ARENA_CHUNK))
		return NULL;
	if (((uintptr_t)p + ARENA_CHUNK - 1) >> FAMFS_SLOT_PTR_BITS) {
		free(p);
		return NULL;
	}
	madvise(p, ARENA_CHUNK, MADV_HUGEPAGE);
	return p;
}

/* Faulting the tree's memory in (the kernel zeroing each page, and in a
 * VM the host backing it) is a third to a half of a mount's time
 * (bench/results/lib.md): a second thread does it for the next chunks
 * while the replay fills this one. It touches only chunks it has not
 * handed over; the handover is under the mutex.
 */
#define PREFAULT_DEPTH 4               /* chunks ready ahead: 8 MiB */

struct arena_prefault {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void *ready[PREFAULT_DEPTH];
	unsigned nready;
	bool stop;
};

static void *prefault_main(void *arg)
{
	struct arena_prefault *pf = arg;

	pthread_mutex_lock(&pf->lock);
	while (!pf->stop) {
		void *p;

		if (pf->nready == PREFAULT_DEPTH) {
			pthread_cond_wait(&pf->cond, &pf->lock);
			continue;
		}
		pthread_mutex_unlock(&pf->lock);
		p = chunk_alloc();
		for (size_t off = 0; p && off < ARENA_CHUNK; off += 4096)
			((volatile uint8_t *)p)[off] = 0;
		pthread_mutex_lock(&pf->lock);
		if (!p)
			break;
		pf->ready[pf->nready++] = p;
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

static void prefault_start(struct famfs_arena *a)
{
	struct arena_prefault *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	if (pthread_create(&pf->thread, NULL, prefault_main, pf)) {
		pthread_cond_destroy(&pf->cond);
		pthread_mutex_destroy(&pf->lock);
		free(pf);
		return;
	}
	a->pf = pf;
}

/* A ready chunk, or NULL when the thread has none yet (then the caller
 * faults its own rather than wait).
 */
static void *prefault_take(struct arena_prefault *pf)
{
	void *p = NULL;

	pthread_mutex_lock(&pf->lock);
	if (pf->nready) {
		p = pf->ready[--pf->nready];
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
	return p;
}

static void spare_push(struct famfs_arena *a, void *p)
{
	((struct arena_chunk *)p)->next = a->spare;
	a->spare = p;
}

unsigned famfs_arena_prefault_after = 4;   /* chunks: a replay of ~50k files */

unsigned famfs_arena_prefault_ready(struct famfs_arena *a)
{
	unsigned n = 0;

	if (a->pf) {
		pthread_mutex_lock(&a->pf->lock);
		n = a->pf->nready;
		pthread_mutex_unlock(&a->pf->lock);
	}
	return n;
}

void famfs_arena_prefault_begin(struct famfs_arena *a)
{
	a->prefault_allowed = true;
	a->taken = 0;
}

void famfs_arena_prefault_end(struct famfs_arena *a)
{
	struct arena_prefault *pf = a->pf;

	a->prefault_allowed = false;
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	while (pf->nready)
		spare_push(a, pf->ready[--pf->nready]);
	pthread_cond_destroy(&pf->cond);
	pthread_mutex_destroy(&pf->lock);
	free(pf);
	a->pf = NULL;
}

static int arena_new_chunk(struct famfs_arena *a)
{
	void *p = NULL;

	if (a->prefault_allowed && !a->pf &&
	    ++a->taken > famfs_arena_prefault_after)
		prefault_start(a);
	if (a->spare) {
		p = a->spare;
		a->spare = ((struct arena_chunk *)p)->next;
	}
	if (!p && a->pf && (p = prefault_take(a->pf)))
		a->prefaulted++;
	if (!p)
		p = chunk_alloc();
	if (!p)
		return -1;
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

static void chunks_free(void *list)
{
	for (struct arena_chunk *c = list, *next; c; c = next) {
		next = c->next;
		free(c);
	}
}

void famfs_arena_destroy(struct famfs_arena *a)
{
	famfs_arena_prefault_end(a);
	chunks_free(a->chunks);
	chunks_free(a->spare);
	memset(a, 0, sizeof(*a));
}
