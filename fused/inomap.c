// SPDX-License-Identifier: Apache-2.0
/*
 * The master's kernel inode numbers of committed files. A file created
 * through the master mount is known to the kernel by its provisional
 * number (FUSED_PENDING_INO | n), and a file an O_TRUNC open replaced by
 * the number the kernel had for the old one; when such a file commits it
 * keeps that number for as long as the mount runs (lookup, getattr,
 * readdir), so that st_ino does not change at close: GNU tar checks a
 * placeholder's st_ino before it swaps in a symlink (docs/fuse.md). The
 * map pairs each such kernel number with the committed node's own
 * number (1 + seq), both ways; a pair goes when the node is deleted.
 * Numbers of a restarted famfs-fused are the log's again.
 *
 * The lock is a leaf: nothing else is taken while it is held.
 */
#include <pthread.h>
#include <stdlib.h>

#include "fused.h"

struct ipair {
	uint64_t kino, cino;
	struct ipair *knext, *cnext;   /* the two bucket chains */
};

static struct {
	pthread_mutex_t mu;
	struct ipair **kb, **cb;       /* buckets by kino and by cino */
	size_t nb, n;                  /* bucket count (a power of 2), pairs */
} m = { .mu = PTHREAD_MUTEX_INITIALIZER };

static size_t slot(uint64_t v, size_t nb)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return (size_t)v & (nb - 1);
}

static struct ipair **find_k(uint64_t kino)
{
	struct ipair **pp = &m.kb[slot(kino, m.nb)];

	while (*pp && (*pp)->kino != kino)
		pp = &(*pp)->knext;
	return pp;
}

static struct ipair **find_c(uint64_t cino)
{
	struct ipair **pp = &m.cb[slot(cino, m.nb)];

	while (*pp && (*pp)->cino != cino)
		pp = &(*pp)->cnext;
	return pp;
}

/* Unlink @p from both chains and free it (m.mu held). */
static void drop(struct ipair *p)
{
	struct ipair **kp = find_k(p->kino), **cp = find_c(p->cino);

	*kp = p->knext;
	*cp = p->cnext;
	free(p);
	m.n--;
}

static int grow(void)
{
	size_t nb = m.nb ? m.nb * 2 : 1024;
	struct ipair **kb = calloc(nb, sizeof(*kb)), **cb = calloc(nb, sizeof(*cb));

	if (!kb || !cb) {
		free(kb);
		free(cb);
		return -1;
	}
	for (size_t i = 0; i < m.nb; i++) {
		struct ipair *p = m.kb[i], *next;

		for (; p; p = next) {
			next = p->knext;
			p->knext = kb[slot(p->kino, nb)];
			kb[slot(p->kino, nb)] = p;
			p->cnext = cb[slot(p->cino, nb)];
			cb[slot(p->cino, nb)] = p;
		}
	}
	free(m.kb);
	free(m.cb);
	m.kb = kb;
	m.cb = cb;
	m.nb = nb;
	return 0;
}

int fused_inomap_set(uint64_t kino, uint64_t cino)
{
	struct ipair *p, *old;
	int r = 0;

	if (kino == cino)
		return 0;
	pthread_mutex_lock(&m.mu);
	if (m.n >= m.nb && grow() && !m.nb) {
		pthread_mutex_unlock(&m.mu);
		return -1;
	}
	/* either number's earlier pair is for a deleted file */
	if ((old = *find_k(kino)))
		drop(old);
	if ((old = *find_c(cino)))
		drop(old);
	p = malloc(sizeof(*p));
	if (p) {
		p->kino = kino;
		p->cino = cino;
		p->knext = m.kb[slot(kino, m.nb)];
		m.kb[slot(kino, m.nb)] = p;
		p->cnext = m.cb[slot(cino, m.nb)];
		m.cb[slot(cino, m.nb)] = p;
		m.n++;
	} else {
		r = -1;
	}
	pthread_mutex_unlock(&m.mu);
	return r;
}

uint64_t fused_inomap_kernel(uint64_t cino)
{
	struct ipair *p;

	if (fused.o.client)
		return cino;
	pthread_mutex_lock(&m.mu);
	p = m.nb ? *find_c(cino) : NULL;
	if (p)
		cino = p->kino;
	pthread_mutex_unlock(&m.mu);
	return cino;
}

uint64_t fused_inomap_committed(uint64_t kino)
{
	struct ipair *p;
	uint64_t cino = 0;

	pthread_mutex_lock(&m.mu);
	p = m.nb ? *find_k(kino) : NULL;
	if (p)
		cino = p->cino;
	pthread_mutex_unlock(&m.mu);
	return cino;
}

void fused_inomap_deleted(uint64_t cino)
{
	struct ipair *p;

	pthread_mutex_lock(&m.mu);
	p = m.nb ? *find_c(cino) : NULL;
	if (p)
		drop(p);
	pthread_mutex_unlock(&m.mu);
}

void fused_inomap_free_all(void)
{
	pthread_mutex_lock(&m.mu);
	for (size_t i = 0; i < m.nb; i++)
		while (m.kb[i])
			drop(m.kb[i]);
	free(m.kb);
	free(m.cb);
	m.kb = m.cb = NULL;
	m.nb = m.n = 0;
	pthread_mutex_unlock(&m.mu);
}
