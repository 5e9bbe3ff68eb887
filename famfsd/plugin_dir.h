/* SPDX-License-Identifier: Apache-2.0 */
/* Where famfsd looks for its providers when plugin_dir is not configured. */
#ifndef FAMFSD_PLUGIN_DIR_H
#define FAMFSD_PLUGIN_DIR_H

/*
 * plugin_dir_default() - the build tree's plugin directory when this
 * famfsd is the binary the build tree made (so that `famfsd --foreground`
 * from the build tree loads the providers built with it), else the
 * installed FAMFSD_PLUGIN_DIR (NULL when none was compiled in).
 * Returns a malloc'd string or NULL.
 */
char *plugin_dir_default(void);

#endif
