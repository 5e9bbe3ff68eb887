// SPDX-License-Identifier: Apache-2.0
/*
 * The JSON served as xattrs: user.famfs.map has the shape of
 * `famfs-cli getmap -o json` (plus "committed"), user.famfs.devices lists
 * the device paths as this server opened them, in index order.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fused.h"

static char *to_string(struct json_object *o)
{
	char *s = strdup(json_object_to_json_string_ext(o,
				JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(o);
	return s;
}

char *fused_map_json(const char *path, uint64_t size, uint64_t alloc_bytes,
		     const struct famfs_fmap *m, bool committed)
{
	struct json_object *o = json_object_new_object();
	struct json_object *map = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	bool il = m->type == FAMFS_MAP_INTERLEAVE;

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "size", json_object_new_uint64(size));
	json_object_object_add(o, "alloc_bytes", json_object_new_uint64(alloc_bytes));
	json_object_object_add(o, "committed", json_object_new_boolean(committed));
	json_object_object_add(map, "type",
			       json_object_new_string(il ? "interleave" : "extents"));
	if (il) {
		json_object_object_add(map, "chunk", json_object_new_uint64(m->chunk));
		json_object_object_add(map, "nstrips", json_object_new_int(m->nitems));
	}
	for (unsigned i = 0; i < m->nitems; i++) {
		const struct famfs_map_item *it = &m->items[i];
		struct famfs_dev *d = famfs_fs_dev(fused.fs, it->dev_index);
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "device", json_object_new_string(
				       d ? famfs_dev_path(d) : "?"));
		json_object_object_add(x, "device_index",
				       json_object_new_int((int)it->dev_index));
		json_object_object_add(x, "offset", json_object_new_uint64(it->offset));
		json_object_object_add(x, "length", json_object_new_uint64(it->length));
		json_object_array_add(arr, x);
	}
	json_object_object_add(map, il ? "strips" : "extents", arr);
	json_object_object_add(o, "map", map);
	return to_string(o);
}

char *fused_devices_json(void)
{
	struct json_object *arr = json_object_new_array();
	unsigned n = famfs_fs_ndevices(fused.fs);

	for (unsigned i = 0; i < n; i++) {
		struct famfs_dev *d = famfs_fs_dev(fused.fs, i);

		json_object_array_add(arr, json_object_new_string(
				      d ? famfs_dev_path(d) : "?"));
	}
	return to_string(arr);
}
