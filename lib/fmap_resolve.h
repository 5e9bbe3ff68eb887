/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one function that turns a file offset into a device location.
 * Used by lib (readers, fsck, getmap), the FUSE server and the kernel
 * module's iomap_begin, so it is a header of plain arithmetic that builds
 * in both worlds.
 */
#ifndef FAMFS_FMAP_RESOLVE_H
#define FAMFS_FMAP_RESOLVE_H

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
 * is malformed: a strip shorter than the stripe asked for).
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
		strip_off = stripe * chunk + in_chunk;
		if (strip_off >= items[strip].length)
			return -1;
		loc->dev_index = items[strip].dev_index;
		loc->dev_offset = items[strip].offset + strip_off;
		loc->length = chunk - in_chunk;
		if (loc->length > items[strip].length - strip_off)
			loc->length = items[strip].length - strip_off;
		return 0;
	}
	if (map_type != FAMFS_MAP_EXTENTS)
		return -1;
	for (i = 0; i < nitems; i++) {
		if (off < items[i].length) {
			loc->dev_index = items[i].dev_index;
			loc->dev_offset = items[i].offset + off;
			loc->length = items[i].length - off;
			return 0;
		}
		off -= items[i].length;
	}
	return -1;
}

#endif /* FAMFS_FMAP_RESOLVE_H */
