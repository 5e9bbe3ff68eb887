// SPDX-License-Identifier: Apache-2.0
/* JSON shapes shared by commands (getmap, log). */
#include <stdlib.h>

#include "cli.h"

struct json_object *cli_map_json(struct famfs_fs *fs, const struct famfs_fmap *m)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	bool il = m->type == FAMFS_MAP_INTERLEAVE;

	json_object_object_add(o, "type",
			       json_object_new_string(il ? "interleave" : "extents"));
	if (il) {
		json_object_object_add(o, "chunk", json_object_new_uint64(m->chunk));
		json_object_object_add(o, "nstrips", json_object_new_int(m->nitems));
	}
	for (unsigned i = 0; i < m->nitems; i++) {
		const struct famfs_map_item *it = &m->items[i];
		struct json_object *x = json_object_new_object();
		struct famfs_dev *d = fs ? famfs_fs_dev(fs, it->dev_index) : NULL;
		char name[32];

		snprintf(name, sizeof(name), "dev%u", it->dev_index);
		json_object_object_add(x, "device",
				       json_object_new_string(d ? famfs_dev_path(d) : name));
		json_object_object_add(x, "device_index", json_object_new_int((int)it->dev_index));
		json_object_object_add(x, "offset", json_object_new_uint64(it->offset));
		json_object_object_add(x, "length", json_object_new_uint64(it->length));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, il ? "strips" : "extents", arr);
	return o;
}

long cli_parse_mode(const char *s)
{
	char *end;
	long m = strtol(s, &end, 8);

	return (*s && !*end && m >= 0 && m <= 07777) ? m : -1;
}
