// SPDX-License-Identifier: Apache-2.0
/* JSON map -> struct famfs_fmap, bounded: see map_json.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_json.h"

static json_object *items_of(json_object *map, bool *il)
{
	json_object *type, *items;
	const char *t;

	if (!json_object_object_get_ex(map, "type", &type) ||
	    !json_object_is_type(type, json_type_string))
		return NULL;
	t = json_object_get_string(type);
	if (strcmp(t, "interleave") && strcmp(t, "extents"))
		return NULL;
	*il = !strcmp(t, "interleave");
	if (!json_object_object_get_ex(map, *il ? "strips" : "extents", &items) ||
	    !json_object_is_type(items, json_type_array))
		return NULL;
	return items;
}

/* A non-negative integer member @key of @o (absent: @dflt). */
static int get_u64(json_object *o, const char *key, uint64_t dflt,
		   uint64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v)) {
		*out = dflt;
		return 0;
	}
	/* get_int64 clamps values above INT64_MAX, so < 0 means negative */
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return -1;
	*out = json_object_get_uint64(v);
	return 0;
}

int map_json_parse(json_object *map, struct famfs_fmap **out, char *why,
		   size_t whylen)
{
	struct famfs_fmap *m;
	json_object *items;
	uint64_t chunk, v;
	size_t n;
	bool il;

	items = json_object_is_type(map, json_type_object) ?
		items_of(map, &il) : NULL;
	if (!items) {
		snprintf(why, whylen, "map has no type \"extents\" or \"interleave\""
			 " with its item list");
		return -EBADMSG;
	}
	n = json_object_array_length(items);
	if (n > (il ? FAMFS_MAX_STRIPS : FAMFS_MAX_EXTENTS)) {
		snprintf(why, whylen, "map has %zu %s: the limit is %d", n,
			 il ? "strips" : "extents",
			 il ? FAMFS_MAX_STRIPS : FAMFS_MAX_EXTENTS);
		return -EBADMSG;
	}
	if (get_u64(map, "chunk", 0, &chunk)) {
		snprintf(why, whylen, "map chunk is not a non-negative integer");
		return -EBADMSG;
	}
	m = calloc(1, famfs_fmap_sizeof((unsigned)n));
	if (!m) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	m->type = il ? FAMFS_MAP_INTERLEAVE : FAMFS_MAP_EXTENTS;
	m->nitems = (uint16_t)n; /* n <= 64, checked above */
	m->chunk = il ? chunk : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(items, i), *dev;
		struct famfs_map_item *mi = &m->items[i];

		if (!json_object_is_type(it, json_type_object) ||
		    !json_object_object_get_ex(it, "device", &dev) ||
		    !json_object_is_type(dev, json_type_string) ||
		    get_u64(it, "device_index", i, &v) || v >= FAMFS_MAX_DEVICES ||
		    get_u64(it, "offset", 0, &mi->offset) ||
		    get_u64(it, "length", 0, &mi->length)) {
			snprintf(why, whylen, "map item %zu is not {\"device\": "
				 "path, \"device_index\": 0..%d, \"offset\": N, "
				 "\"length\": N}", i, FAMFS_MAX_DEVICES - 1);
			free(m);
			return -EBADMSG;
		}
		mi->dev_index = (uint32_t)v;
	}
	*out = m;
	return 0;
}

const char *map_json_device(json_object *map, unsigned i)
{
	json_object *items, *dev;
	bool il;

	items = items_of(map, &il);
	if (!items || i >= json_object_array_length(items) ||
	    !json_object_object_get_ex(json_object_array_get_idx(items, i),
				       "device", &dev))
		return NULL;
	return json_object_get_string(dev);
}
