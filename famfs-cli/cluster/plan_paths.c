// SPDX-License-Identifier: Apache-2.0
/*
 * The paths a host's famfsd allows (GET /v1/host .paths, famfsd.yaml
 * paths.*), checked while planning, so that apply shows a refusal as a
 * conflict before it changes anything rather than failing half-way.
 * Here the path is only normalised as written (symlinks live on the
 * host); famfsd checks it again, resolved, when asked.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cluster/plan_int.h"

/* @in with "." dropped, ".." applied and "//" squeezed, into @out. */
static void normalise(const char *in, char *out, size_t outlen)
{
	size_t len = 0;

	out[len] = '\0';
	while (*in) {
		size_t n;

		in += strspn(in, "/");
		n = strcspn(in, "/");
		if (!n)
			break;
		if (n == 2 && in[0] == '.' && in[1] == '.') {
			char *slash = strrchr(out, '/');

			len = slash ? (size_t)(slash - out) : 0;
			out[len] = '\0';
		} else if (!(n == 1 && in[0] == '.') && len + n + 2 < outlen) {
			out[len++] = '/';
			memcpy(out + len, in, n);
			len += n;
			out[len] = '\0';
		}
		in += n;
	}
	if (!len)
		snprintf(out, outlen, "/");
}

/* Does a pattern of @list match @path or a directory above it? */
static bool listed(json_object *list, const char *path)
{
	char prefix[PATH_MAX];
	size_t len = strlen(path);

	for (size_t i = 0; i < json_object_array_length(list); i++) {
		const char *pat = json_object_get_string(
			json_object_array_get_idx(list, i));

		if (!pat)
			continue;
		if (!strcmp(pat, "/"))
			return true;
		for (size_t e = len; e > 0 && len < sizeof(prefix); e--) {
			if (e < len && path[e] != '/')
				continue;
			snprintf(prefix, sizeof(prefix), "%.*s", (int)e, path);
			if (!fnmatch(pat, prefix, FNM_PATHNAME))
				return true;
		}
	}
	return false;
}

/* Is @p one of the directories famfsd mounts over none (.paths.system)? */
static bool system_dir(json_object *sys, const char *p)
{
	for (size_t i = 0; sys && i < json_object_array_length(sys); i++) {
		const char *d = json_object_get_string(
			json_object_array_get_idx(sys, i));

		if (d && !strcmp(p, d))
			return true;
	}
	return false;
}

bool plan_path_refused(struct planner *pl, size_t h, const char *what,
		       const char *setting, const char *path)
{
	const struct host_state *hs = &pl->hosts[h];
	json_object *list = !strcmp(setting, "paths.devices") ?
		hs->allowed_devices : !strcmp(setting, "paths.mounts") ?
		hs->allowed_mounts : hs->allowed_sources;
	char norm[PATH_MAX];

	if (!list || !path)
		return false;             /* a famfsd that does not say */
	normalise(path, norm, sizeof(norm));
	if (!listed(list, norm)) {
		conflict(pl, h, "%s: path %s is outside %s on host %s (%s): "
			 "famfsd would refuse it (403 path_not_allowed); an "
			 "operator may add it there in famfsd.yaml", what, path,
			 setting, pl->c->hosts[h].name,
			 json_object_to_json_string_ext(list,
						JSON_C_TO_STRING_PLAIN |
						JSON_C_TO_STRING_NOSLASHESCAPE));
		return true;
	}
	if (!strcmp(setting, "paths.mounts") &&
	    system_dir(hs->system_dirs, norm)) {
		conflict(pl, h, "%s: path %s is the system directory %s: "
			 "famfsd mounts over none", what, path, norm);
		return true;
	}
	return false;
}
