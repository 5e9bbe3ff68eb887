/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one function that turns a file offset into a device location.
 * Used by lib (readers, fsck, getmap), the FUSE server and the kernel
 * module's iomap_begin, so it is a header of plain arithmetic that builds
 * in both worlds.
 */
#ifndef FAMFS_FMAP_RESOLVE_H
#define FAMFS_FMAP_RESOLVE_H

#include "famfs_overflow.h"
#include "format.h"

/* Where one contiguous piece of a file lives. */
struct famfs_loc {
	uint32_t dev_index;
	uint64_t dev_offset;
	uint64_t length;   /* contiguous bytes from dev_offset, within the map */
};

/*
 * famfs_resolve_items() - locate file offset @off.
 * @map_type: FAMFS_MAP_EXTENTS or FAMFS_MAP_INTERLEAVE
 * @chunk:    interleave chunk (bytes, > 0) for FAMFS_MAP_INTERLEAVE
 * @items:    extents in file order, or the strips
 * @nitems:   number of items (> 0)
 *
 * Interleave: chunk = off / C; strip = chunk % N; stripe = chunk / N;
 * dev_off = strips[strip].offset + stripe * C + off % C. The map does not
 * grow with the file, and the cost is two divisions whatever the size.
 * Extents are walked in order; the format caps them at FAMFS_MAX_EXTENTS.
 *
 * Returns 0 and fills @loc, or -1 when @off is beyond the map (or the map
 * is malformed: a strip shorter than the stripe asked for, a device
 * offset that wraps).
 */
static inline int famfs_resolve_items(uint16_t map_type, uint64_t chunk,
				      const struct famfs_map_item *items,
				      uint32_t nitems, uint64_t off,
				      struct famfs_loc *loc)
{
	uint32_t i;

	if (nitems == 0)
		return -1;
	if (map_type == FAMFS_MAP_INTERLEAVE) {
		uint64_t chunk_no, stripe, in_chunk, strip_off;
		uint32_t strip;

		if (chunk == 0)
			return -1;
		chunk_no = off / chunk;
		in_chunk = off % chunk;
		strip = (uint32_t)(chunk_no % nitems);
		stripe = chunk_no / nitems;
		/* stripe * chunk <= off: no overflow */
		strip_off = stripe * chunk + in_chunk;
		if (strip_off >= items[strip].length ||
		    famfs_add_overflows(items[strip].offset, strip_off,
					&loc->dev_offset))
			return -1;
		loc->dev_index = items[strip].dev_index;
		loc->length = chunk - in_chunk;
		if (loc->length > items[strip].length - strip_off)
			loc->length = items[strip].length - strip_off;
		return 0;
	}
	if (map_type != FAMFS_MAP_EXTENTS)
		return -1;
	for (i = 0; i < nitems; i++) {
		if (off < items[i].length) {
			if (famfs_add_overflows(items[i].offset, off,
						&loc->dev_offset))
				return -1;
			loc->dev_index = items[i].dev_index;
			loc->length = items[i].length - off;
			return 0;
		}
		off -= items[i].length;
	}
	return -1;
}

/* One device as a map is checked against. */
struct famfs_map_dev {
	uint64_t size;		/* bytes of the device the filesystem owns */
	uint64_t data_start;	/* first byte a file may use */
};

/* Non-zero if items @a and @b share a byte; an end that wraps reaches to
 * the end of the address space.
 */
static inline int famfs_items_overlap(const struct famfs_map_item *a,
				      const struct famfs_map_item *b)
{
	uint64_t a_end, b_end;

	if (famfs_add_overflows(a->offset, a->length, &a_end))
		a_end = ~(uint64_t)0;
	if (famfs_add_overflows(b->offset, b->length, &b_end))
		b_end = ~(uint64_t)0;
	return a->dev_index == b->dev_index && a->offset < b_end &&
	       b->offset < a_end;
}

/*
 * The longest file prefix a map holds without a gap, or -1 if the sum
 * overflows. Extents: the sum of the lengths. Interleave: strip s holds
 * k_s = len_s / C whole chunks, so the first chunk it lacks is number
 * k_s * N + s; every chunk before the smallest such number is mapped (a
 * partial chunk at the end of a strip is not counted).
 */
static inline int famfs_map_capacity(uint16_t map_type, uint64_t chunk,
				     const struct famfs_map_item *items,
				     uint32_t nitems, uint64_t *cap)
{
	uint64_t sum = 0, first_gap = ~(uint64_t)0, gap;
	uint32_t s;

	if (map_type == FAMFS_MAP_EXTENTS) {
		for (s = 0; s < nitems; s++)
			if (famfs_add_overflows(sum, items[s].length, &sum))
				return -1;
		*cap = sum;
		return 0;
	}
	for (s = 0; s < nitems; s++) {
		if (famfs_mul_overflows(items[s].length / chunk, nitems, &gap) ||
		    famfs_add_overflows(gap, s, &gap))
			return -1;
		if (gap < first_gap)
			first_gap = gap;
	}
	return famfs_mul_overflows(first_gap, chunk, cap) ? -1 : 0;
}

/*
 * famfs_map_check() - the one validator of a map from outside: the log
 * (replay and the master's own commits), the kernel module's ioctl, and
 * every JSON map a tool reads. @devs[0..@ndev) are the devices it may use.
 * Checks the type, the item count, the chunk (a multiple of 2 MiB, at
 * most FAMFS_MAX_CHUNK and no larger than a strip's device), every item
 * (an existing device, 4 KiB aligned, not empty, inside the device's data
 * area without overflow, reserved field zero), no two items overlapping,
 * and that the map holds @size bytes (which is at most FAMFS_MAX_FILE_SIZE).
 *
 * Returns NULL when the map is good, else what is wrong (a constant
 * string; *@bad is the item it concerns, or -1).
 */
static inline const char *famfs_map_check(uint16_t map_type, uint64_t chunk,
					  const struct famfs_map_item *items,
					  uint32_t nitems, uint64_t size,
					  const struct famfs_map_dev *devs,
					  uint32_t ndev, int *bad)
{
	uint64_t cap;
	uint32_t i, j;

	*bad = -1;
	if (size > FAMFS_MAX_FILE_SIZE)
		return "size is larger than the limit (64 PiB)";
	if (map_type == FAMFS_MAP_EXTENTS) {
		if (chunk != 0)
			return "an extent map has a chunk";
		if (nitems > FAMFS_MAX_EXTENTS)
			return "more extents than the limit";
	} else if (map_type == FAMFS_MAP_INTERLEAVE) {
		if (chunk == 0 || chunk % FAMFS_UNIT_SIZE ||
		    chunk > FAMFS_MAX_CHUNK)
			return "interleave chunk is not a multiple of 2 MiB "
			       "up to 1 TiB";
		if (nitems > FAMFS_MAX_STRIPS)
			return "more strips than the limit";
	} else {
		return "unknown map type";
	}
	if (nitems == 0)
		return size == 0 ? (const char *)0 : "no items for a non-empty file";
	for (i = 0; i < nitems; i++) {
		const struct famfs_map_item *it = &items[i];

		*bad = (int)i;
		if (it->dev_index >= ndev)
			return "item names a device the filesystem lacks";
		if (it->reserved != 0)
			return "item reserved field is not zero";
		if (it->length == 0)
			return "item length is 0";
		if (it->offset % FAMFS_BLOCK_SIZE || it->length % FAMFS_BLOCK_SIZE)
			return "item is not 4 KiB aligned";
		if (!famfs_range_within(it->offset, it->length,
					devs[it->dev_index].data_start,
					devs[it->dev_index].size))
			return "item is outside its device's data area";
		if (map_type == FAMFS_MAP_INTERLEAVE &&
		    chunk > devs[it->dev_index].size)
			return "interleave chunk is larger than a strip's device";
		for (j = 0; j < i; j++)
			if (famfs_items_overlap(it, &items[j]))
				return "items overlap";
	}
	*bad = -1;
	if (famfs_map_capacity(map_type, chunk, items, nitems, &cap))
		return "map length overflows";
	if (size > cap)
		return "map holds fewer bytes than the file size";
	return (const char *)0;
}

#endif /* FAMFS_FMAP_RESOLVE_H */
