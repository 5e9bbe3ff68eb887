// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_mapjson: bytes as a JSON map (user.famfs.map, getmap -o json)
 * through map_json_parse() (ingest/map_json.c), then famfs_fmap_check()
 * against two devices; a map it accepts must satisfy map_oracle().
 */
#include <string.h>

#include <json-c/json.h>

#include "famfs.h"
#include "fuzz.h"
#include "map_json.h"
#include "map_oracle.h"

static const struct famfs_map_dev devs[2] = {
	{ .size = 64 * FAMFS_MiB, .data_start = 4 * FAMFS_MiB },
	{ .size = 1ULL << 40, .data_start = 2 * FAMFS_MiB },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o, *map, *sz;
	struct famfs_fmap *m = NULL;
	uint64_t fsize = 0;
	char why[256];

	if (!tok)
		return 0;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (!o)
		return 0;
	/* {"size": N, "map": {...}} as getmap writes it; else the map alone */
	if (!json_object_object_get_ex(o, "map", &map))
		map = o;
	if (json_object_object_get_ex(o, "size", &sz) &&
	    json_object_is_type(sz, json_type_int))
		fsize = json_object_get_uint64(sz);
	if (map_json_parse(map, &m, why, sizeof(why)) == 0) {
		FUZZ_ASSERT(m->nitems <= FAMFS_MAX_EXTENTS, "%u items", m->nitems);
		for (unsigned i = 0; i < m->nitems; i++)
			FUZZ_ASSERT(map_json_device(map, i), "item %u: no device", i);
		if (famfs_fmap_check(m, fsize, devs, 2, why, sizeof(why)) == 0)
			map_oracle(m->type, m->chunk, m->items, m->nitems, fsize,
				   devs, 2, size * 0x9e3779b97f4a7c15ULL);
		free(m);
	} else {
		FUZZ_ASSERT(why[0], "refusal without a reason");
	}
	json_object_put(o);
	return 0;
}
