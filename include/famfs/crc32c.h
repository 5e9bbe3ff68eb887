/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The checksum of every on-media structure (format.h): CRC-32C
 * (Castagnoli), bit-reflected, initial value ~0, final xor ~0: the
 * kernel's crc32c(). libfamfs computes it as famfs_crc32c(0, buf, len)
 * (lib/crc32c.c: the SSE4.2 instruction or a slicing table built from
 * FAMFS_CRC32C_POLY), the module as ~__crc32c_le(~0, buf, len)
 * (kmod/devices.c, which checks at build time that the kernel's
 * polynomial is this one). Both must give FAMFS_CRC32C_CHECK for the
 * nine bytes "123456789" (tests/unit/test_threads.c).
 */
#ifndef FAMFS_CRC32C_H
#define FAMFS_CRC32C_H

#define FAMFS_CRC32C_POLY 0x82f63b78U  /* reflected Castagnoli polynomial */
#define FAMFS_CRC32C_CHECK 0xe3069283U /* CRC-32C of "123456789" */

#endif /* FAMFS_CRC32C_H */
