/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Overflow-checked size and offset arithmetic, for every sum or product
 * whose operands come from outside (the media, a map, an ioctl, a request,
 * a size string). Plain arithmetic on such values wraps silently; these
 * say so instead. Header-only and free of libc, so lib, the FUSE server
 * and the kernel module (kmod/) share it.
 */
#ifndef FAMFS_OVERFLOW_H
#define FAMFS_OVERFLOW_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif

/* Non-zero when @a + @b does not fit in *@out (which is then undefined). */
static inline bool famfs_add_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_add_overflow(a, b, out);
}

/* Non-zero when @a * @b does not fit in *@out. */
static inline bool famfs_mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

/* [@off, @off + @len) lies within [0, @limit), the end computed without
 * wrapping: the one bounds check of a range read from outside.
 */
static inline bool famfs_range_fits(uint64_t off, uint64_t len,
				    uint64_t limit)
{
	uint64_t end;

	return !famfs_add_overflows(off, len, &end) && end <= limit;
}

/* [@off, @off + @len) lies within [@start, @limit). */
static inline bool famfs_range_within(uint64_t off, uint64_t len,
				      uint64_t start, uint64_t limit)
{
	return off >= start && famfs_range_fits(off, len, limit);
}

#endif /* FAMFS_OVERFLOW_H */
