/* SPDX-License-Identifier: Apache-2.0 */
#ifndef FAMFS_CLI_CLUSTER_UNITS_H
#define FAMFS_CLI_CLUSTER_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#define CL_UNIT_SIZE (2ULL * 1024 * 1024) /* = FAMFS_UNIT_SIZE */

/*
 * parse_size() - "4096", "4096B", "2M", "2MB", "2MiB", "1G" ... "3T":
 * digits (no leading zero) with an optional unit K, M, G or T (powers of
 * 1024), itself optionally followed by "iB" or "B"; or digits and "B".
 * Returns 0 and *@out, -EINVAL for another form, -ERANGE when the value
 * does not fit in 63 bits.
 */
int parse_size(const char *s, uint64_t *out);

/* "2 MiB", "1536 MiB", "4097 B": the largest binary unit that divides
 * @v exactly, for messages and plans. Returns @buf. */
const char *format_size(uint64_t v, char *buf, unsigned len);

#endif
