// SPDX-License-Identifier: Apache-2.0
/*
 * The build-tree rule is kept apart from the installed layout: it applies
 * only to the very binary cmake linked in FAMFSD_BUILD_DIR, so an installed
 * famfsd never picks up a stale build tree's plugins.
 */
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_dir.h"

static int running_from_build_tree(void)
{
#if defined(FAMFSD_BUILD_DIR) && defined(FAMFSD_BUILD_PLUGIN_DIR)
	char exe[PATH_MAX], real_build[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 0;
	exe[n] = '\0';
	if (!realpath(FAMFSD_BUILD_DIR, real_build))
		return 0;
	return !strcmp(dirname(exe), real_build) &&
	       !access(FAMFSD_BUILD_PLUGIN_DIR, R_OK | X_OK);
#else
	return 0;
#endif
}

char *plugin_dir_default(void)
{
#ifdef FAMFSD_BUILD_PLUGIN_DIR
	if (running_from_build_tree())
		return strdup(FAMFSD_BUILD_PLUGIN_DIR);
#endif
#ifdef FAMFSD_PLUGIN_DIR
	return strdup(FAMFSD_PLUGIN_DIR);
#else
	return NULL;
#endif
}
