// SPDX-License-Identifier: Apache-2.0
/* libfamfs_mountq: see famfs_mountq.h. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "famfs_mountq.h"

int famfs_mountq_xattr(const char *path, const char *what, char **out)
{
	char name[64];
	ssize_t n, m;
	char *v;

	snprintf(name, sizeof(name), "user.famfs.%s", what);
	for (int tries = 0; tries < 3; tries++) {
		n = getxattr(path, name, NULL, 0);
		if (n < 0)
			return -errno;
		v = malloc((size_t)n + 1);
		if (!v)
			return -ENOMEM;
		m = getxattr(path, name, v, (size_t)n);
		if (m >= 0) {
			v[m] = '\0';
			*out = v;
			return 0;
		}
		free(v);
		if (errno != ERANGE) /* grew between the two calls: again */
			return -errno;
	}
	return -ERANGE;
}

void famfs_mountq_free(char **devs, unsigned ndev)
{
	for (unsigned i = 0; devs && i < ndev; i++)
		free(devs[i]);
	free(devs);
}

int famfs_mountq_resolve(const char *path, char ***devs, unsigned *ndev,
			 char **fs_path)
{
	struct json_object *arr;
	char *js = NULL, **d;
	size_t n;
	int r;

	r = famfs_mountq_xattr(path, "devices", &js);
	if (r)
		return r;
	arr = json_tokener_parse(js);
	free(js);
	if (!arr || !json_object_is_type(arr, json_type_array) ||
	    (n = json_object_array_length(arr)) == 0) {
		json_object_put(arr);
		return -EBADMSG;
	}
	d = calloc(n, sizeof(*d));
	for (size_t i = 0; d && i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(arr, i));

		d[i] = strdup(s ? s : "");
		if (!d[i]) {
			famfs_mountq_free(d, (unsigned)i);
			d = NULL;
		}
	}
	json_object_put(arr);
	if (!d)
		return -ENOMEM;
	r = famfs_mountq_xattr(path, "path", fs_path);
	if (r) {
		famfs_mountq_free(d, (unsigned)n);
		return r;
	}
	*devs = d;
	*ndev = (unsigned)n;
	return 0;
}

int famfs_mountq_devices(const char *mountpoint, unsigned long cmd,
			 const char *const *paths, unsigned n, char *msg,
			 size_t msglen)
{
	struct famfs_ioc_devices *q = calloc(1, sizeof(*q));
	size_t off = 0;
	int fd, r;

	if (!q)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(paths[i]) + 1;

		if (off + len > sizeof(q->paths)) {
			snprintf(msg, msglen, "device paths longer than %d bytes "
				 "in all", FAMFS_IOC_PATHS_MAX);
			free(q);
			return -E2BIG;
		}
		memcpy(q->paths + off, paths[i], len);
		off += len;
	}
	q->ndev = n;
	fd = open(mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(msg, msglen, "%s: %s", mountpoint, strerror(errno));
		free(q);
		return r;
	}
	if (ioctl(fd, cmd, q) < 0) {
		r = -errno;
		snprintf(msg, msglen, "%s: %s", mountpoint, r == -ENOTTY ?
			 "not a famfs-fused mount that can grow" : strerror(-r));
	} else {
		r = q->result;
		snprintf(msg, msglen, "%s", r ? q->msg : "");
	}
	close(fd);
	free(q);
	return r;
}
