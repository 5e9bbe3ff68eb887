/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a map that famfs_map_check() accepted must guarantee, checked by
 * the map fuzzers: every file offset below the size resolves, to a piece
 * that lies inside its device's data area and does not run past the map.
 */
#ifndef FAMFS_FUZZ_MAP_ORACLE_H
#define FAMFS_FUZZ_MAP_ORACLE_H

#include "famfs/fmap_resolve.h"
#include "fuzz.h"

static inline void map_oracle(uint16_t type, uint64_t chunk,
			      const struct famfs_map_item *items,
			      uint32_t nitems, uint64_t size,
			      const struct famfs_map_dev *devs, uint32_t ndev,
			      uint64_t probe)
{
	uint64_t offs[4];
	struct famfs_loc loc;
	uint64_t end;

	if (size == 0)
		return;
	offs[0] = 0;
	offs[1] = size / 2;
	offs[2] = size - 1;
	offs[3] = probe % size;
	for (unsigned i = 0; i < 4; i++) {
		FUZZ_ASSERT(famfs_resolve_items(type, chunk, items, nitems,
						offs[i], &loc) == 0,
			    "offset %llu of a %llu-byte file does not resolve",
			    (unsigned long long)offs[i], (unsigned long long)size);
		FUZZ_ASSERT(loc.dev_index < ndev && loc.length > 0,
			    "offset %llu: device %u, length %llu",
			    (unsigned long long)offs[i], loc.dev_index,
			    (unsigned long long)loc.length);
		FUZZ_ASSERT(!__builtin_add_overflow(loc.dev_offset, loc.length,
						    &end) &&
			    loc.dev_offset >= devs[loc.dev_index].data_start &&
			    end <= devs[loc.dev_index].size,
			    "offset %llu resolves to [%llu, +%llu) on device %u "
			    "of %llu bytes (data from %llu)",
			    (unsigned long long)offs[i],
			    (unsigned long long)loc.dev_offset,
			    (unsigned long long)loc.length, loc.dev_index,
			    (unsigned long long)devs[loc.dev_index].size,
			    (unsigned long long)devs[loc.dev_index].data_start);
	}
}

#endif
