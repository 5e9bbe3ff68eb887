// SPDX-License-Identifier: Apache-2.0
/* File maps: size, resolve, and data copies through the one resolver. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "famfs/famfs_overflow.h"
#include "internal.h"

FAMFS_EXPORT size_t famfs_fmap_sizeof(unsigned nitems)
{
	return sizeof(struct famfs_fmap) + nitems * sizeof(struct famfs_map_item);
}

FAMFS_EXPORT uint64_t famfs_fmap_bytes(const struct famfs_fmap *m)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < m->nitems; i++)
		t += m->items[i].length;
	return t;
}

FAMFS_EXPORT int famfs_fmap_resolve(const struct famfs_fmap *m, uint64_t off,
				    struct famfs_loc *loc)
{
	return famfs_resolve_items(m->type, m->chunk, m->items, m->nitems, off, loc);
}

FAMFS_EXPORT int famfs_fmap_check(const struct famfs_fmap *m, uint64_t size,
				  const struct famfs_map_dev *devs, uint32_t ndev,
				  char *why, size_t whylen)
{
	const struct famfs_map_item *it;
	const char *bad;
	int item;

	bad = famfs_map_check(m->type, m->chunk, m->items, m->nitems, size,
			      devs, ndev, &item);
	if (!bad)
		return 0;
	if (item < 0) {
		snprintf(why, whylen, "bad map (type %u, %u items, chunk %llu, "
			 "size %llu): %s", m->type, m->nitems,
			 (unsigned long long)m->chunk, (unsigned long long)size,
			 bad);
		return -EINVAL;
	}
	it = &m->items[item];
	snprintf(why, whylen, "bad map (type %u, chunk %llu), item %d (device "
		 "%u, offset %llu, length %llu): %s", m->type,
		 (unsigned long long)m->chunk, item, it->dev_index,
		 (unsigned long long)it->offset, (unsigned long long)it->length,
		 bad);
	return -EINVAL;
}

/* Copy between @buf and the map; @to_dev picks the direction. */
static int64_t copy_map(struct famfs_fs *fs, const struct famfs_fmap *m,
			uint64_t off, uint8_t *buf, uint64_t len, bool to_dev)
{
	uint64_t done = 0;

	while (done < len) {
		struct famfs_loc loc;
		struct famfs_dev *d;
		uint64_t n;

		if (famfs_fmap_resolve(m, off + done, &loc))
			return done ? (int64_t)done : -EFBIG;
		d = loc.dev_index < FAMFS_MAX_DEVICES ? fs->dev[loc.dev_index] : NULL;
		if (!d || !famfs_range_fits(loc.dev_offset, loc.length, d->size))
			return -EIO;
		n = len - done < loc.length ? len - done : loc.length;
		if (to_dev) {
			int r;

			r = famfs_dev_store(d, loc.dev_offset, buf + done, n);
			if (!r)
				r = famfs_dev_flush(d, loc.dev_offset, n);
			if (r)
				return r;
		} else {
			if (!(fs->flags & FAMFS_OPEN_MASTER))
				famfs_dev_invalidate(d, loc.dev_offset, n);
			memcpy(buf + done, d->base + loc.dev_offset, n);
		}
		done += n;
	}
	return (int64_t)done;
}

FAMFS_EXPORT int64_t famfs_read(struct famfs_fs *fs, const struct famfs_fmap *m,
				uint64_t fsize, uint64_t off, void *buf,
				uint64_t len)
{
	if (off >= fsize)
		return 0;
	if (!m)
		return -EINVAL; /* a symlink (its size is its target's) */
	if (len > fsize - off)
		len = fsize - off;
	return copy_map(fs, m, off, buf, len, false);
}

FAMFS_EXPORT int64_t famfs_write_map(struct famfs_fs *fs,
				     const struct famfs_fmap *m, uint64_t off,
				     const void *buf, uint64_t len)
{
	uint64_t cap = famfs_fmap_bytes(m);

	if (off > cap || len > cap - off)
		return -EFBIG;
	return copy_map(fs, m, off, (uint8_t *)buf, len, true);
}
