// SPDX-License-Identifier: Apache-2.0
/*
 * Finding a filesystem from a path in a famfs mount: famfs-fused answers
 * the xattrs user.famfs.map (a file's map, getmap's JSON) and
 * user.famfs.devices (the device paths, in index order) (docs/fuse.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "cli.h"

struct json_object *cli_mount_xattr_json(const char *path, const char *name)
{
	ssize_t n = getxattr(path, name, NULL, 0);
	char *buf;
	struct json_object *o;

	if (n <= 0)
		return NULL;
	buf = malloc((size_t)n + 1);
	if (!buf)
		return NULL;
	n = getxattr(path, name, buf, (size_t)n);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	o = json_tokener_parse(buf);
	free(buf);
	return o;
}

int cli_mount_devices(const char *cmd, const char *mnt, struct cli_devices *d,
		      struct json_object **keep)
{
	struct json_object *arr = cli_mount_xattr_json(mnt, "user.famfs.devices");

	if (!arr || !json_object_is_type(arr, json_type_array)) {
		cli_error(cmd, "%s: not a famfs mount (no user.famfs.devices xattr)", mnt);
		json_object_put(arr);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		if (cli_devices_add(cmd, d, json_object_get_string(
				json_object_array_get_idx(arr, i)))) {
			json_object_put(arr);
			return -1;
		}
	*keep = arr; /* the strings live as long as the array */
	return 0;
}
