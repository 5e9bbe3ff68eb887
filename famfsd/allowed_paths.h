/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The paths an operator allows the API to touch (famfsd.yaml paths.*),
 * checked on the path as the kernel would resolve it: symlinks and ".."
 * followed, so that neither leads out of an allowed tree.
 */
#ifndef FAMFSD_ALLOWED_PATHS_H
#define FAMFSD_ALLOWED_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * path_resolve() - @in (absolute) as the kernel would reach it: the
 * realpath() of its longest existing prefix, then the missing rest with
 * "." dropped and ".." taking off one component. 0, or a negative errno
 * (-EINVAL: not absolute; -ENAMETOOLONG).
 */
int path_resolve(const char *in, char *out, size_t outlen);

/*
 * path_in_list() - is the resolved path @resolved, or a directory above
 * it, matched by a pattern (fnmatch, '*' within one component) of the
 * ':'-separated @list? The patterns are resolved the same way up to their
 * first wildcard, so an allowed /dev/shm still matches when it is a
 * symlink.
 */
bool path_in_list(const char *list, const char *resolved);

/* The directories no mount may cover, even if paths.mounts allows them
 * (GET /v1/host .paths.system lists them for apply's plan). */
extern const char *const path_system_dirs[];
extern const size_t path_system_dirs_n;
bool path_is_system_dir(const char *resolved);

#endif
