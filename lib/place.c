// SPDX-License-Identifier: Apache-2.0
/*
 * Placement: which shape a new file's map takes and where it goes.
 *   size <= pack threshold  -> one packed extent, 4 KiB aligned
 *   nstrips > 1, size > chunk -> one interleave descriptor, a strip per
 *                              device (round robin), each strip contiguous
 *   otherwise               -> whole 2 MiB units, one extent if possible
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "famfs/famfs_overflow.h"
#include "internal.h"

static struct famfs_fmap *fmap_new(uint16_t type, unsigned nitems, uint64_t chunk)
{
	struct famfs_fmap *m = calloc(1, famfs_fmap_sizeof(nitems));

	if (m) {
		m->type = type;
		m->chunk = chunk;
	}
	return m;
}

static uint64_t find_units(struct dev_alloc *da, uint64_t n)
{
	uint64_t s = famfs_bits_find_run(da->bits, da->hint, da->nunits, n);

	if (s == da->nunits && da->hint > da->first_unit)
		s = famfs_bits_find_run(da->bits, da->first_unit, da->nunits, n);
	return s;
}

/* The device with the most free units, preferring @avoid's absence. */
static int emptiest_device(struct famfs_fs *fs)
{
	int best = 0;

	for (unsigned d = 1; d < fs->ndev; d++)
		if (fs->alloc.dev[d].free_units > fs->alloc.dev[best].free_units)
			best = (int)d;
	return best;
}

static int take_units(struct famfs_fs *fs, uint32_t dev, uint64_t n,
		      struct famfs_map_item *it)
{
	struct dev_alloc *da = &fs->alloc.dev[dev];
	uint64_t s;
	char why[8];

	if (da->free_units < n ||
	    famfs_mul_overflows(n, FAMFS_UNIT_SIZE, &it->length))
		return -ENOSPC;
	s = find_units(da, n);
	if (s == da->nunits)
		return -ENOSPC;
	it->dev_index = dev;
	it->offset = s * FAMFS_UNIT_SIZE; /* s < nunits: inside the device */
	da->hint = s + n;
	return famfs_alloc_mark_item(fs, it, why, sizeof(why));
}

static int place_interleave(struct famfs_fs *fs, uint64_t size, uint32_t nstrips,
			    uint64_t chunk, struct famfs_fmap *m)
{
	/* famfs_alloc_map() bounds size and chunk; checked all the same */
	uint64_t span, units;
	uint32_t start = (uint32_t)emptiest_device(fs);

	if (famfs_mul_overflows(nstrips, chunk, &span) ||
	    famfs_mul_overflows(DIV_ROUND_UP(size, span),
				chunk / FAMFS_UNIT_SIZE, &units))
		return -EFBIG;

	for (uint32_t i = 0; i < nstrips; i++) {
		int r = -ENOSPC;

		/* the strip's own device first, then any device with room */
		for (uint32_t k = 0; k < fs->ndev && r; k++)
			r = take_units(fs, (start + i + k) % fs->ndev, units,
				       &m->items[i]);
		if (r) {
			while (i--)
				famfs_alloc_unmark_item(fs, &m->items[i]);
			return r;
		}
		m->nitems = (uint16_t)(i + 1);
	}
	return 0;
}

static int place_units(struct famfs_fs *fs, uint64_t size, struct famfs_fmap *m)
{
	uint64_t need = DIV_ROUND_UP(size, FAMFS_UNIT_SIZE);
	int d = emptiest_device(fs);

	if (take_units(fs, (uint32_t)d, need, &m->items[0]) == 0) {
		m->nitems = 1;
		return 0;
	}
	/* Fragmented: gather runs, largest devices first, up to the cap. */
	for (unsigned dev = 0; dev < fs->ndev && need; dev++) {
		struct dev_alloc *da = &fs->alloc.dev[dev];

		for (uint64_t u = da->first_unit; u < da->nunits && need;) {
			uint64_t len = 0;

			if (famfs_bit_test(da->bits, u)) {
				u++;
				continue;
			}
			while (u + len < da->nunits && len < need &&
			       !famfs_bit_test(da->bits, u + len))
				len++;
			if (m->nitems == FAMFS_MAX_EXTENTS)
				goto fail;
			struct famfs_map_item *it = &m->items[m->nitems];
			char why[8];

			it->dev_index = dev;
			it->offset = u * FAMFS_UNIT_SIZE;
			it->length = len * FAMFS_UNIT_SIZE;
			famfs_alloc_mark_item(fs, it, why, sizeof(why));
			m->nitems++;
			need -= len;
			u += len;
		}
	}
	if (!need)
		return 0;
fail:
	famfs_alloc_unmark(fs, m);
	m->nitems = 0;
	return -ENOSPC;
}

static int place_packed(struct famfs_fs *fs, uint64_t size, struct famfs_fmap *m)
{
	struct famfs_alloc_state *a = &fs->alloc;
	uint64_t nblk = DIV_ROUND_UP(size, FAMFS_BLOCK_SIZE);
	struct famfs_map_item *it = &m->items[0];
	char why[8];

	for (uint64_t k = 0; k < a->npack_slots; k++) {
		uint64_t i = (a->pack_cursor + k) % a->npack_slots;
		struct pack_unit *p = &a->packs[i];
		uint64_t b;

		if (!p->in_use || !p->active || p->free_blocks < nblk)
			continue;
		b = famfs_bits_find_run(p->bits, 0, FAMFS_BLOCKS_PER_UNIT, nblk);
		if (b == FAMFS_BLOCKS_PER_UNIT)
			continue;
		it->dev_index = p->dev;
		it->offset = p->unit * FAMFS_UNIT_SIZE + b * FAMFS_BLOCK_SIZE;
		it->length = nblk * FAMFS_BLOCK_SIZE;
		a->pack_cursor = i;
		m->nitems = 1;
		return famfs_alloc_mark_item(fs, it, why, sizeof(why));
	}
	/* a fresh unit becomes a pack unit */
	int d = emptiest_device(fs);
	struct dev_alloc *da = &a->dev[d];
	uint64_t u = find_units(da, 1);

	if (u == da->nunits)
		return -ENOSPC;
	it->dev_index = (uint32_t)d;
	it->offset = u * FAMFS_UNIT_SIZE;
	it->length = nblk * FAMFS_BLOCK_SIZE;
	m->nitems = 1;
	return famfs_alloc_mark_item(fs, it, why, sizeof(why));
}

int famfs_alloc_map(struct famfs_fs *fs, uint64_t size,
		    const struct famfs_alloc_policy *p, struct famfs_fmap **out,
		    struct famfs_err *e)
{
	uint32_t nstrips = p && p->nstrips ? p->nstrips : fs->ndev;
	uint64_t chunk = p && p->chunk ? p->chunk : FAMFS_UNIT_SIZE;
	struct famfs_fmap *m;
	int r;

	if (chunk % FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"chunk %llu is not a multiple of 2 MiB",
			(unsigned long long)chunk);
	if (chunk > FAMFS_MAX_CHUNK)
		return famfs_set_err(e, -EINVAL,
			"chunk %llu is larger than the limit of %llu (1 TiB)",
			(unsigned long long)chunk,
			(unsigned long long)FAMFS_MAX_CHUNK);
	if (size > FAMFS_MAX_FILE_SIZE)
		return famfs_set_err(e, -EFBIG,
			"size %llu is larger than the limit of %llu (64 PiB)",
			(unsigned long long)size,
			(unsigned long long)FAMFS_MAX_FILE_SIZE);
	if (nstrips > FAMFS_MAX_STRIPS)
		return famfs_set_err(e, -EINVAL, "%u strips: the limit is %d",
				     nstrips, FAMFS_MAX_STRIPS);
	if (size == 0) {
		m = fmap_new(FAMFS_MAP_EXTENTS, 0, 0);
		r = 0;
	} else if (size <= fs->sb.pack_threshold) {
		m = fmap_new(FAMFS_MAP_EXTENTS, 1, 0);
		r = m ? place_packed(fs, size, m) : -ENOMEM;
	} else if (nstrips > 1 && size > chunk) {
		/* no more strips than chunks: a 3 MiB file takes 2 strips, not 4 */
		if (DIV_ROUND_UP(size, chunk) < nstrips)
			nstrips = (uint32_t)DIV_ROUND_UP(size, chunk);
		m = fmap_new(FAMFS_MAP_INTERLEAVE, nstrips, chunk);
		r = m ? place_interleave(fs, size, nstrips, chunk, m) : -ENOMEM;
	} else {
		m = fmap_new(FAMFS_MAP_EXTENTS, FAMFS_MAX_EXTENTS, 0);
		r = m ? place_units(fs, size, m) : -ENOMEM;
	}
	if (!m)
		return famfs_set_err(e, -ENOMEM, "out of memory");
	if (r) {
		char room[520];

		free(m);
		famfs_space_describe(fs, size, p, room, sizeof(room));
		return famfs_set_err(e, r, "no space: %s; %llu bytes wait for "
			"clients to pass deletes", room,
			(unsigned long long)fs->alloc.pending_bytes);
	}
	*out = m;
	return 0;
}
