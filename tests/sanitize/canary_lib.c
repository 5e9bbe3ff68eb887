// SPDX-License-Identifier: Apache-2.0
/* Undefined behaviour in a shared library, for sanitize_catches_ub_lib. */
#include <limits.h>

int famfs_san_canary_lib_add(int a);

int famfs_san_canary_lib_add(int a)
{
	return a + INT_MAX;	/* overflows for a > 0 */
}
