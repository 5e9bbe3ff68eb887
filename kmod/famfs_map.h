/* SPDX-License-Identifier: GPL-2.0 */
/*
 * famfs kernel module: the map a file holds and the arithmetic on it.
 *
 * This file and map.c build both in the kernel and in user space (the
 * host-side tests and bench/kmod compile them as they are), so that the
 * validation and the iomap offset computation are tested outside a guest.
 * The offset arithmetic itself is famfs_resolve_items() from
 * include/famfs/fmap_resolve.h, the one function lib and the FUSE server
 * use too.
 */
#ifndef FAMFS_KMOD_MAP_H
#define FAMFS_KMOD_MAP_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <stdint.h>
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#endif

#include "famfs/fmap_resolve.h"

/*
 * A file's map as the kernel holds it: the header plus nitems items. For
 * an interleaved file nitems is the strip count, so the size is fixed by
 * the descriptor and never by the file size.
 */
struct famfs_kmap {
	u16 map_type;		/* FAMFS_MAP_EXTENTS or FAMFS_MAP_INTERLEAVE */
	u16 nitems;
	u32 reserved;
	u64 chunk;		/* interleave chunk, 0 for extents */
	struct famfs_map_item items[];
};

/*
 * Devices one mount can hold: the format's own limit (FAMFS_MAX_DEVICES,
 * 64), which bounds every dev_index in the log. The mount keeps a table
 * of pointers this long and allocates each device's state when it opens
 * it, so an unused slot costs 8 bytes and the table never moves under a
 * fault while DEVICE_ADD appends to it.
 */
#define FAMFS_KMOD_MAX_DEVICES FAMFS_MAX_DEVICES

/* What a map is checked against: the devices and their reserved heads. */
struct famfs_kgeom {
	u32 ndev;
	struct famfs_map_dev dev[FAMFS_KMOD_MAX_DEVICES]; /* size, data_start */
};

static inline size_t famfs_kmap_bytes(unsigned int nitems)
{
	return sizeof(struct famfs_kmap) +
	       (size_t)nitems * sizeof(struct famfs_map_item);
}

/*
 * famfs_kmap_validate() - check a map from user space before it is used.
 * Returns 0, or -EINVAL when famfs_map_check()
 * (include/famfs/fmap_resolve.h, the one validator lib's replay and the
 * tools use too) refuses it: an item names a device the mount does not
 * have, lies outside its device or in its reserved head (label,
 * superblock, log), is unaligned, overlaps another item, the sums
 * overflow, the strip count or chunk is not sane, or the map does not
 * hold @size bytes.
 */
int famfs_kmap_validate(const struct famfs_kmap *m, u64 size,
			const struct famfs_kgeom *g);

/*
 * famfs_kmap_resolve() - device location of file offset @pos: 0 and @loc
 * filled, or -EINVAL beyond the map. Plain famfs_resolve_items().
 */
static inline int famfs_kmap_resolve(const struct famfs_kmap *m, u64 pos,
				     struct famfs_loc *loc)
{
	if (famfs_resolve_items(m->map_type, m->chunk, m->items, m->nitems,
				pos, loc))
		return -EINVAL;
	return 0;
}

#endif /* FAMFS_KMOD_MAP_H */
