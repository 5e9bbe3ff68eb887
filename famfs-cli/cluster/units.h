/* SPDX-License-Identifier: Apache-2.0 */
#ifndef FAMFS_CLI_CLUSTER_UNITS_H
#define FAMFS_CLI_CLUSTER_UNITS_H

#include <stdint.h>

/* Sizes are parsed and printed by famfs_parse_size() / famfs_format_size()
 * (lib/size.c), as everywhere else.
 */
#define CL_UNIT_SIZE (2ULL * 1024 * 1024) /* = FAMFS_UNIT_SIZE */

#endif
