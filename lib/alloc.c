// SPDX-License-Identifier: Apache-2.0
/*
 * Space allocator, rebuilt from the log at every open. Each device is a
 * bitmap of 2 MiB units; small files share "pack units" at 4 KiB blocks so
 * that a 16 KiB file costs 16 KiB, not 2 MiB. Every allocation is marked
 * at once (a reservation) and undone completely on failure: -ENOSPC never
 * leaves a side effect.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfs/famfs_overflow.h"
#include "internal.h"

#define WORD_BITS 64ULL

bool famfs_bit_test(const uint64_t *b, uint64_t i)
{
	return b[i / WORD_BITS] >> (i % WORD_BITS) & 1;
}

static void bits_assign(uint64_t *b, uint64_t from, uint64_t n, bool v)
{
	for (uint64_t i = from; i < from + n; i++) {
		if (i % WORD_BITS == 0 && from + n - i >= WORD_BITS) {
			b[i / WORD_BITS] = v ? ~0ULL : 0;
			i += WORD_BITS - 1;
			continue;
		}
		if (v)
			b[i / WORD_BITS] |= 1ULL << (i % WORD_BITS);
		else
			b[i / WORD_BITS] &= ~(1ULL << (i % WORD_BITS));
	}
}

static bool bits_all_clear(const uint64_t *b, uint64_t from, uint64_t n)
{
	for (uint64_t i = from; i < from + n; i++)
		if (famfs_bit_test(b, i))
			return false;
	return true;
}

/* First run of @n clear bits in [from, limit); returns its start or limit. */
uint64_t famfs_bits_find_run(const uint64_t *b, uint64_t from, uint64_t limit,
			      uint64_t n)
{
	uint64_t run = 0, start = from;

	for (uint64_t i = from; i < limit; i++) {
		if (i % WORD_BITS == 0 && b[i / WORD_BITS] == ~0ULL) {
			run = 0;
			i += WORD_BITS - 1;
			start = i + 1;
			continue;
		}
		/* a free word whole: 64 units at once (statfs's placement
		 * search scans every free unit of a large device many times)
		 */
		if (i % WORD_BITS == 0 && i + WORD_BITS <= limit &&
		    b[i / WORD_BITS] == 0 && n) {
			if (run + WORD_BITS >= n)
				return start;
			run += WORD_BITS;
			i += WORD_BITS - 1;
			continue;
		}
		if (famfs_bit_test(b, i)) {
			run = 0;
			start = i + 1;
		} else if (++run == n) {
			return start;
		}
	}
	return limit;
}

int famfs_alloc_init_dev(struct famfs_fs *fs, unsigned d)
{
	struct dev_alloc *da = &fs->alloc.dev[d];

	da->nunits = fs->dev[d]->size / FAMFS_UNIT_SIZE;
	da->first_unit = d == 0 ?
		(fs->sb.log_offset + fs->sb.log_size) / FAMFS_UNIT_SIZE : 1;
	/* a label or superblock that says less than one data unit */
	if (da->nunits <= da->first_unit)
		return -EINVAL;
	da->bits = calloc(DIV_ROUND_UP(da->nunits, WORD_BITS), 8);
	if (!da->bits)
		return -ENOMEM;
	bits_assign(da->bits, 0, da->first_unit, true);
	da->free_units = da->nunits - da->first_unit;
	da->hint = da->first_unit;
	return 0;
}

int famfs_alloc_init(struct famfs_fs *fs)
{
	struct famfs_alloc_state *a = &fs->alloc;

	for (unsigned d = 0; d < fs->ndev; d++) {
		int r = famfs_alloc_init_dev(fs, d);

		if (r)
			return r;
	}
	a->npack_slots = 64;
	a->packs = calloc(a->npack_slots, sizeof(*a->packs));
	return a->packs ? 0 : -ENOMEM;
}

void famfs_alloc_free_state(struct famfs_fs *fs)
{
	struct famfs_alloc_state *a = &fs->alloc;

	for (unsigned d = 0; d < FAMFS_MAX_DEVICES; d++)
		free(a->dev[d].bits);
	free(a->packs);
	for (struct pending_free *p = a->pending, *n; p; p = n) {
		n = p->next;
		free(p->map);
		free(p);
	}
	memset(a, 0, sizeof(*a));
}

static uint64_t pack_hash(uint32_t dev, uint64_t unit)
{
	return ((uint64_t)dev << 48 ^ unit) * 0x9e3779b97f4a7c15ULL;
}

static struct pack_unit *pack_slot(struct famfs_alloc_state *a, uint32_t dev,
				   uint64_t unit, bool create)
{
	uint64_t mask = a->npack_slots - 1;

	for (uint64_t i = pack_hash(dev, unit) >> 16 & mask;; i = (i + 1) & mask) {
		struct pack_unit *p = &a->packs[i];

		if (p->in_use && p->dev == dev && p->unit == unit)
			return p;
		if (!p->in_use) {
			if (!create)
				return NULL;
			p->in_use = 1;
			p->dev = dev;
			p->unit = unit;
			a->npacks++;
			return p;
		}
	}
}

/* Keep the table at most half full; entries are only ever added. */
static int pack_table_reserve(struct famfs_alloc_state *a)
{
	struct pack_unit *old = a->packs;
	uint64_t oldn = a->npack_slots;

	if ((a->npacks + 1) * 2 <= a->npack_slots)
		return 0;
	a->packs = calloc(oldn * 2, sizeof(*a->packs));
	if (!a->packs) {
		a->packs = old;
		return -ENOMEM;
	}
	a->npack_slots = oldn * 2;
	a->npacks = 0;
	for (uint64_t i = 0; i < oldn; i++)
		if (old[i].in_use)
			*pack_slot(a, old[i].dev, old[i].unit, true) = old[i];
	free(old);
	return 0;
}

static bool item_is_units(const struct famfs_map_item *it)
{
	return it->offset % FAMFS_UNIT_SIZE == 0 && it->length % FAMFS_UNIT_SIZE == 0;
}

/* Mark or unmark one item; @check refuses overlap and out-of-range. */
static int item_assign(struct famfs_fs *fs, const struct famfs_map_item *it,
		       bool used, char *why, size_t whylen)
{
	struct famfs_alloc_state *a = &fs->alloc;
	struct dev_alloc *da;
	uint64_t unit, n;

	if (it->dev_index >= fs->ndev) {
		snprintf(why, whylen, "device index %u does not exist", it->dev_index);
		return -ERANGE;
	}
	da = &a->dev[it->dev_index];
	if (it->length == 0 ||
	    !famfs_range_within(it->offset, it->length,
				da->first_unit * FAMFS_UNIT_SIZE,
				da->nunits * FAMFS_UNIT_SIZE)) {
		snprintf(why, whylen,
			 "extent dev %u [%llu, +%llu) is outside the data area",
			 it->dev_index, (unsigned long long)it->offset,
			 (unsigned long long)it->length);
		return -ERANGE;
	}
	if (item_is_units(it)) {
		unit = it->offset / FAMFS_UNIT_SIZE;
		n = it->length / FAMFS_UNIT_SIZE;
		if (used && !bits_all_clear(da->bits, unit, n)) {
			snprintf(why, whylen,
				 "extent dev %u [%llu, +%llu) overlaps another file",
				 it->dev_index, (unsigned long long)it->offset,
				 (unsigned long long)it->length);
			return -EEXIST;
		}
		bits_assign(da->bits, unit, n, used);
		if (used)
			da->free_units -= n;
		else
			da->free_units += n;
		return 0;
	}
	/* packed: whole 4 KiB blocks inside one unit */
	unit = it->offset / FAMFS_UNIT_SIZE;
	if (it->offset % FAMFS_BLOCK_SIZE ||
	    (it->offset + it->length - 1) / FAMFS_UNIT_SIZE != unit) {
		snprintf(why, whylen,
			 "packed extent dev %u [%llu, +%llu) is misaligned or "
			 "crosses a 2 MiB unit", it->dev_index,
			 (unsigned long long)it->offset,
			 (unsigned long long)it->length);
		return -ERANGE;
	}
	uint64_t blk = it->offset % FAMFS_UNIT_SIZE / FAMFS_BLOCK_SIZE;
	uint64_t nblk = DIV_ROUND_UP(it->length, FAMFS_BLOCK_SIZE);
	struct pack_unit *p;

	if (used && pack_table_reserve(a))
		return -ENOMEM;
	p = pack_slot(a, it->dev_index, unit, used);
	if (used) {
		if (!p->active) {
			if (famfs_bit_test(da->bits, unit)) {
				snprintf(why, whylen,
					 "packed extent dev %u at %llu overlaps a "
					 "whole-unit file", it->dev_index,
					 (unsigned long long)it->offset);
				return -EEXIST;
			}
			memset(p->bits, 0, sizeof(p->bits));
			p->free_blocks = FAMFS_BLOCKS_PER_UNIT;
			p->active = 1;
			bits_assign(da->bits, unit, 1, true);
			da->free_units--;
		}
		if (!bits_all_clear(p->bits, blk, nblk)) {
			snprintf(why, whylen,
				 "packed extent dev %u [%llu, +%llu) overlaps another file",
				 it->dev_index, (unsigned long long)it->offset,
				 (unsigned long long)it->length);
			if (p->free_blocks == FAMFS_BLOCKS_PER_UNIT) {
				p->active = 0;
				bits_assign(da->bits, unit, 1, false);
				da->free_units++;
			}
			return -EEXIST;
		}
		bits_assign(p->bits, blk, nblk, true);
		p->free_blocks -= (uint32_t)nblk;
		return 0;
	}
	if (!p || !p->active)
		return 0;
	bits_assign(p->bits, blk, nblk, false);
	p->free_blocks += (uint32_t)nblk;
	if (p->free_blocks == FAMFS_BLOCKS_PER_UNIT) {
		p->active = 0;
		bits_assign(da->bits, unit, 1, false);
		da->free_units++;
	}
	return 0;
}

int famfs_alloc_mark(struct famfs_fs *fs, const struct famfs_fmap *m,
		     char *why, size_t whylen)
{
	for (unsigned i = 0; i < m->nitems; i++) {
		int r = item_assign(fs, &m->items[i], true, why, whylen);

		if (r) {
			while (i--)
				item_assign(fs, &m->items[i], false, NULL, 0);
			return r;
		}
	}
	return 0;
}

int famfs_alloc_mark_item(struct famfs_fs *fs, const struct famfs_map_item *it,
		     char *why, size_t whylen)
{
	return item_assign(fs, it, true, why, whylen);
}

void famfs_alloc_unmark_item(struct famfs_fs *fs, const struct famfs_map_item *it)
{
	item_assign(fs, it, false, NULL, 0);
}

void famfs_alloc_unmark(struct famfs_fs *fs, const struct famfs_fmap *m)
{
	for (unsigned i = 0; i < m->nitems; i++)
		item_assign(fs, &m->items[i], false, NULL, 0);
}

uint64_t famfs_alloc_total_bytes(struct famfs_fs *fs)
{
	uint64_t t = 0;

	for (unsigned d = 0; d < fs->ndev; d++)
		t += (fs->alloc.dev[d].nunits - fs->alloc.dev[d].first_unit) *
		     FAMFS_UNIT_SIZE;
	return t;
}

uint64_t famfs_alloc_free_bytes(struct famfs_fs *fs)
{
	struct famfs_alloc_state *a = &fs->alloc;
	uint64_t t = 0;

	for (unsigned d = 0; d < fs->ndev; d++)
		t += a->dev[d].free_units * FAMFS_UNIT_SIZE;
	for (uint64_t i = 0; i < a->npack_slots; i++)
		if (a->packs[i].in_use && a->packs[i].active)
			t += (uint64_t)a->packs[i].free_blocks * FAMFS_BLOCK_SIZE;
	return t;
}

void famfs_pending_add(struct famfs_fs *fs, uint64_t seq,
		       struct famfs_node *held_by, struct famfs_fmap *m)
{
	struct pending_free *p = calloc(1, sizeof(*p));
	struct pending_free **tail = &fs->alloc.pending;

	if (!p) {
		free(m); /* the space stays marked: lost until next open */
		return;
	}
	p->seq = seq;
	p->held_by = held_by;
	p->map = m;
	while (*tail)
		tail = &(*tail)->next;
	*tail = p; /* kept in seq order */
	fs->alloc.pending_bytes += famfs_fmap_bytes(m);
}

void famfs_pending_unhold(struct famfs_fs *fs, struct famfs_node *n)
{
	for (struct pending_free *p = fs->alloc.pending; p; p = p->next)
		if (p->held_by == n)
			p->held_by = NULL;
}
