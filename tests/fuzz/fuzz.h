/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer entry points of the fuzz_*.c targets. Built only in the separate clang
 * build (-DFAMFS_FUZZ=ON, see tests/fuzz/CMakeLists.txt and fuzz.sh).
 */
#ifndef FAMFS_FUZZ_H
#define FAMFS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant the code under test broke: libFuzzer saves the input. */
#define FUZZ_ASSERT(cond, ...)                                              \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__,      \
				__LINE__, #cond);                           \
			fprintf(stderr, __VA_ARGS__);                       \
			fprintf(stderr, "\n");                              \
			abort();                                            \
		}                                                           \
	} while (0)

#endif
