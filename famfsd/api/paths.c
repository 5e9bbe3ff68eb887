// SPDX-License-Identifier: Apache-2.0
/* The allowed-paths check as the handlers use it: see api.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "allowed_paths.h"
#include "api/api.h"
#include "famfsd.h"

int api_path_allowed(const char *setting, const char *path,
		     struct api_resp *r)
{
	const struct famfsd_config *c = famfsd_cfg();
	const char *list = !strcmp(setting, "paths.devices") ? c->paths_devices
			 : !strcmp(setting, "paths.mounts") ? c->paths_mounts
			 : c->paths_sources;
	char real[PATH_MAX];
	int e = path_resolve(path, real, sizeof(real));

	if (e)
		return api_error(r, 400, "invalid_value", "path '%s': %s", path,
				 e == -EINVAL ? "must be absolute"
				 : strerror(-e));
	if (!path_in_list(list, real))
		return api_error(r, 403, "path_not_allowed", "path '%s'%s%s%s "
				 "is not under %s (%s); an operator may add it "
				 "there in famfsd.yaml", path,
				 strcmp(path, real) ? " (resolved: " : "",
				 strcmp(path, real) ? real : "",
				 strcmp(path, real) ? ")" : "", setting,
				 *list ? list : "empty");
	if (!strcmp(setting, "paths.mounts") && path_is_system_dir(real))
		return api_error(r, 403, "path_not_allowed", "path '%s' is the "
				 "system directory %s: no mount may cover it, "
				 "whatever paths.mounts says", path, real);
	return 0;
}

int api_mount_dir_empty(const char *path, bool force, struct api_resp *r)
{
	DIR *d = opendir(path);
	struct dirent *de;
	const char *first = NULL;

	if (!d)
		return 0;                   /* created, or refused, later */
	while (!first && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			first = de->d_name;
	if (first && !force) {
		api_error(r, 409, "conflict", "mount path '%s' is not empty "
			  "(it has '%s'): a mount would hide its contents; send "
			  "\"force\": true to mount over it anyway", path, first);
		closedir(d);
		return -1;
	}
	closedir(d);
	return 0;
}
