// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: validation of maps handed in by user space.
 * Builds in the kernel and in user space (see famfs_map.h).
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

#include "famfs_map.h"

int famfs_kmap_validate(const struct famfs_kmap *m, u64 size,
			const struct famfs_kgeom *g)
{
	int bad;

	if (m->reserved != 0 || g->ndev > FAMFS_KMOD_MAX_DEVICES)
		return -EINVAL;
	if (famfs_map_check(m->map_type, m->chunk, m->items, m->nitems, size,
			    g->dev, g->ndev, &bad))
		return -EINVAL;
	return 0;
}
