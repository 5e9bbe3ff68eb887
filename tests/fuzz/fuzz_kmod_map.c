// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_kmod_map: the kernel module's ioctl map validation (kmod/map.c,
 * compiled for the host as the kmod unit test does) on raw bytes:
 *   u32 ndev, u32 pad, FUZZ_DEVS x (u64 size, u64 data_start),
 *   u64 size, struct famfs_kmap header, items...
 * A map it accepts must satisfy map_oracle(), which is what iomap_begin
 * relies on: no offset inside the file reaches outside a device.
 *
 * The device table in the input has a fixed FUZZ_DEVS entries (the
 * module's limit when the corpus was made), not sizeof(struct
 * famfs_kgeom): when that limit went to 64 the geometry alone outgrew
 * every seed, each input was returned before the validator, and the
 * target reached 18 edges instead of 53. ndev is taken as given (up to
 * 2^32), so devices past FUZZ_DEVS are there with size 0.
 */
#include <errno.h>
#include <string.h>

#include "famfs_map.h"
#include "fuzz.h"
#include "map_oracle.h"

#define FUZZ_DEVS 8
#define FUZZ_GEOM_BYTES (8 + FUZZ_DEVS * sizeof(struct famfs_map_dev))

_Static_assert(FUZZ_DEVS <= FAMFS_KMOD_MAX_DEVICES, "input table too big");

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct famfs_kgeom g;
	struct famfs_kmap *m;
	size_t hdr = FUZZ_GEOM_BYTES + sizeof(uint64_t) + sizeof(struct famfs_kmap);
	uint64_t fsize;
	unsigned n;

	if (size < hdr)
		return 0;
	memset(&g, 0, sizeof(g));
	memcpy(&g.ndev, data, sizeof(g.ndev));
	memcpy(g.dev, data + 8, FUZZ_DEVS * sizeof(struct famfs_map_dev));
	memcpy(&fsize, data + FUZZ_GEOM_BYTES, sizeof(fsize));
	n = (unsigned)((size - hdr) / sizeof(struct famfs_map_item));
	m = malloc(famfs_kmap_bytes(n));
	if (!m)
		return 0;
	memcpy(m, data + FUZZ_GEOM_BYTES + sizeof(fsize), famfs_kmap_bytes(n));
	/* the ioctl copies exactly nitems items; fewer bytes: not a map */
	if (m->nitems <= n && famfs_kmap_validate(m, fsize, &g) == 0) {
		FUZZ_ASSERT(g.ndev <= FAMFS_KMOD_MAX_DEVICES, "ndev %u", g.ndev);
		map_oracle(m->map_type, m->chunk, m->items, m->nitems, fsize,
			   g.dev, g.ndev, size);
	}
	free(m);
	return 0;
}
