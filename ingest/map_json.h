/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A file's map as JSON (user.famfs.map, `famfs-cli getmap -o json`, see
 * docs/fuse.md) back into a struct famfs_fmap: the one parser, shared by
 * the ingest mount sink and famfs-cli getmap.
 */
#ifndef FAMFS_MAP_JSON_H
#define FAMFS_MAP_JSON_H

#include <json-c/json.h>

#include "famfs.h"

/*
 * map_json_parse() - the "map" object {"type": "extents"|"interleave",
 * "chunk": N, "extents"|"strips": [{"device": S, "device_index": N,
 * "offset": N, "length": N}, ...]} into a new map (free() it).
 * More items than the format allows, numbers that are negative or not
 * integers, a missing type or item list are refused. The result is only
 * well-formed: check it against the devices with famfs_fmap_check().
 * Returns 0 and *@out, or -EBADMSG / -ENOMEM with what is wrong in @why.
 */
int map_json_parse(json_object *map, struct famfs_fmap **out, char *why,
		   size_t whylen);

/* The "device" string of item @i of a map map_json_parse() accepted. */
const char *map_json_device(json_object *map, unsigned i);

#endif
