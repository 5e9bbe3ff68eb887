// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_kmod_map: the kernel module's ioctl map validation (kmod/map.c,
 * compiled for the host as the kmod unit test does) on raw bytes:
 *   struct famfs_kgeom, u64 size, struct famfs_kmap header, items...
 * A map it accepts must satisfy map_oracle(), which is what iomap_begin
 * relies on: no offset inside the file reaches outside a device.
 */
#include <errno.h>
#include <string.h>

#include "famfs_map.h"
#include "fuzz.h"
#include "map_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct famfs_kgeom g;
	struct famfs_kmap *m;
	size_t hdr = sizeof(g) + sizeof(uint64_t) + sizeof(struct famfs_kmap);
	uint64_t fsize;
	unsigned n;

	if (size < hdr)
		return 0;
	memcpy(&g, data, sizeof(g));
	memcpy(&fsize, data + sizeof(g), sizeof(fsize));
	n = (unsigned)((size - hdr) / sizeof(struct famfs_map_item));
	m = malloc(famfs_kmap_bytes(n));
	if (!m)
		return 0;
	memcpy(m, data + sizeof(g) + sizeof(fsize), famfs_kmap_bytes(n));
	/* the ioctl copies exactly nitems items; fewer bytes: not a map */
	if (m->nitems <= n && famfs_kmap_validate(m, fsize, &g) == 0) {
		FUZZ_ASSERT(g.ndev <= FAMFS_KMOD_MAX_DEVICES, "ndev %u", g.ndev);
		map_oracle(m->map_type, m->chunk, m->items, m->nitems, fsize,
			   g.dev, g.ndev, size);
	}
	free(m);
	return 0;
}
