// SPDX-License-Identifier: Apache-2.0
/*
 * kmod.map_validate: the kernel module's map validation and iomap
 * arithmetic (kmod/map.c, kmod/famfs_map.h), compiled as user space and
 * checked on fixed vectors. The same code runs in the guest's module.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfs_map.h"

#define MiB (1024ULL * 1024ULL)

static int failures;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			failures++;                                          \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			printf("\n");                                        \
		}                                                            \
	} while (0)

static const struct famfs_kgeom geom = {
	.ndev = 2,
	.dev = {
		{ .size = 256 * MiB, .data_start = 10 * MiB }, /* log 2+8 MiB */
		{ .size = 128 * MiB, .data_start = 2 * MiB },  /* label unit */
	},
};

/* A map of @n items {offset, length}, on devices @devs (NULL: all 0). */
static struct famfs_kmap *kmap_on(uint16_t type, uint64_t chunk, unsigned n,
				  const uint64_t (*ol)[2], const uint32_t *devs)
{
	struct famfs_kmap *m = calloc(1, famfs_kmap_bytes(n));

	if (!m)
		abort();
	m->map_type = type;
	m->chunk = chunk;
	m->nitems = (uint16_t)n;
	for (unsigned i = 0; i < n; i++) {
		m->items[i].dev_index = devs ? devs[i] : 0;
		m->items[i].offset = ol[i][0];
		m->items[i].length = ol[i][1];
	}
	return m;
}

static struct famfs_kmap *kmap(uint16_t type, uint64_t chunk, unsigned n,
			       const uint64_t (*ol)[2])
{
	return kmap_on(type, chunk, n, ol, NULL);
}

static int validate_on(uint16_t type, uint64_t chunk, unsigned n,
		       const uint64_t (*ol)[2], const uint32_t *devs,
		       uint64_t size)
{
	struct famfs_kmap *m = kmap_on(type, chunk, n, ol, devs);
	int rc = famfs_kmap_validate(m, size, &geom);

	free(m);
	return rc;
}

static int validate(uint16_t type, uint64_t chunk, unsigned n,
		    const uint64_t (*ol)[2], uint64_t size)
{
	return validate_on(type, chunk, n, ol, NULL, size);
}

/* Strips on two devices: each checked against its own device. */
static void two_devices(void)
{
	const uint64_t s[2][2] = { { 16 * MiB, 8 * MiB }, { 2 * MiB, 8 * MiB } };
	const uint64_t same[2][2] = { { 16 * MiB, 8 * MiB },
				      { 16 * MiB, 8 * MiB } };
	const uint64_t low[2][2] = { { 16 * MiB, 8 * MiB }, { 0, 8 * MiB } };
	const uint64_t big[2][2] = { { 16 * MiB, 8 * MiB },
				     { 124 * MiB, 8 * MiB } };
	const uint32_t d01[2] = { 0, 1 }, d02[2] = { 0, 2 };

	CHECK(validate_on(FAMFS_MAP_INTERLEAVE, 2 * MiB, 2, s, d01,
			  16 * MiB) == 0, "strips on devices 0 and 1");
	CHECK(validate_on(FAMFS_MAP_INTERLEAVE, 2 * MiB, 2, same, d01,
			  16 * MiB) == 0, "same offsets, different devices");
	CHECK(validate_on(FAMFS_MAP_INTERLEAVE, 2 * MiB, 2, same, NULL,
			  16 * MiB) == -EINVAL, "same offsets, same device");
	CHECK(validate_on(FAMFS_MAP_INTERLEAVE, 2 * MiB, 2, low, d01,
			  16 * MiB) == -EINVAL, "device 1 label unit");
	CHECK(validate_on(FAMFS_MAP_INTERLEAVE, 2 * MiB, 2, big, d01,
			  16 * MiB) == -EINVAL, "past the end of device 1");
	CHECK(validate_on(FAMFS_MAP_INTERLEAVE, 2 * MiB, 2, s, d02,
			  16 * MiB) == -EINVAL, "device 2 does not exist");
}

/* The worked example of docs/DESIGN: N=4, C=2 MiB, o=15 MiB. */
static void resolve_design_example(void)
{
	const uint64_t s[4][2] = { { 16 * MiB, 8 * MiB }, { 32 * MiB, 8 * MiB },
				   { 48 * MiB, 8 * MiB }, { 64 * MiB, 8 * MiB } };
	struct famfs_kmap *m = kmap(FAMFS_MAP_INTERLEAVE, 2 * MiB, 4, s);
	struct famfs_loc loc;

	CHECK(famfs_kmap_resolve(m, 15 * MiB, &loc) == 0, "resolve 15 MiB");
	CHECK(loc.dev_offset == 64 * MiB + 3 * MiB,
	      "15 MiB -> strip 3 + 3 MiB, got %#" PRIx64, loc.dev_offset);
	CHECK(loc.length == 1 * MiB, "rest of chunk, got %" PRIu64, loc.length);
	CHECK(famfs_kmap_resolve(m, 32 * MiB, &loc) == -EINVAL,
	      "beyond the strips");
	free(m);
}

static void extents_accepted_and_refused(void)
{
	const uint64_t one[1][2] = { { 10 * MiB, 8 * MiB } };
	const uint64_t two[2][2] = { { 20 * MiB, 4 * MiB },
				     { 10 * MiB, 4 * MiB } };
	const uint64_t overlap[2][2] = { { 20 * MiB, 4 * MiB },
					 { 22 * MiB, 4 * MiB } };
	const uint64_t sb[1][2] = { { 4096, 4096 } };
	const uint64_t log[1][2] = { { 9 * MiB, 2 * MiB } };
	const uint64_t past[1][2] = { { 254 * MiB, 4 * MiB } };
	const uint64_t wrap[1][2] = { { UINT64_MAX - 4095, 8192 } };
	const uint64_t odd[1][2] = { { 10 * MiB + 512, 4096 } };
	const uint64_t zero[1][2] = { { 10 * MiB, 0 } };

	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, one, 8 * MiB) == 0, "one");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, one, 8 * MiB + 1) == -EINVAL,
	      "size beyond extents");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 2, two, 8 * MiB) == 0, "two");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 2, overlap, 4 * MiB) == -EINVAL,
	      "overlap");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, sb, 4096) == -EINVAL, "sb");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, log, 4096) == -EINVAL, "log");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, past, 4096) == -EINVAL, "past");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, wrap, 4096) == -EINVAL, "wrap");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, odd, 4096) == -EINVAL, "odd");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 1, zero, 0) == -EINVAL, "zero");
	CHECK(validate(FAMFS_MAP_EXTENTS, 2 * MiB, 1, one, 4096) == -EINVAL,
	      "extents with a chunk");
	CHECK(validate(9, 0, 1, one, 4096) == -EINVAL, "map type");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 0, one, 0) == 0, "empty file");
	CHECK(validate(FAMFS_MAP_EXTENTS, 0, 0, one, 1) == -EINVAL,
	      "no items, some size");
}

static void interleave_accepted_and_refused(void)
{
	const uint64_t eq[4][2] = { { 16 * MiB, 8 * MiB }, { 32 * MiB, 8 * MiB },
				    { 48 * MiB, 8 * MiB }, { 64 * MiB, 8 * MiB } };
	/* strip 2 is short: chunk 10 (strip 2, stripe 2) is the first gap */
	const uint64_t uneq[4][2] = { { 16 * MiB, 8 * MiB },
				      { 32 * MiB, 8 * MiB },
				      { 48 * MiB, 4 * MiB },
				      { 64 * MiB, 8 * MiB } };
	struct famfs_kmap *m;
	struct famfs_loc loc;
	uint64_t o;

	CHECK(validate(FAMFS_MAP_INTERLEAVE, 2 * MiB, 4, eq, 32 * MiB) == 0,
	      "4 strips, full");
	CHECK(validate(FAMFS_MAP_INTERLEAVE, 2 * MiB, 4, eq, 32 * MiB + 1) ==
	      -EINVAL, "one byte too many");
	CHECK(validate(FAMFS_MAP_INTERLEAVE, 0, 4, eq, 4096) == -EINVAL,
	      "chunk 0");
	CHECK(validate(FAMFS_MAP_INTERLEAVE, MiB, 4, eq, 4096) == -EINVAL,
	      "chunk 1 MiB");
	CHECK(validate(FAMFS_MAP_INTERLEAVE, 512 * MiB, 4, eq, 4096) ==
	      -EINVAL, "chunk beyond device");
	CHECK(validate(FAMFS_MAP_INTERLEAVE, 2 * MiB, 4, uneq, 20 * MiB) == 0,
	      "uneven strips: 20 MiB prefix");
	CHECK(validate(FAMFS_MAP_INTERLEAVE, 2 * MiB, 4, uneq,
		       20 * MiB + 1) == -EINVAL, "uneven strips: 20 MiB + 1");

	/* Every offset the validator accepts resolves inside a strip. */
	m = kmap(FAMFS_MAP_INTERLEAVE, 2 * MiB, 4, uneq);
	for (o = 0; o < 20 * MiB; o += 4096) {
		int ok = famfs_kmap_resolve(m, o, &loc) == 0;
		int inside = 0;

		for (unsigned i = 0; ok && i < 4; i++)
			inside |= loc.dev_offset >= m->items[i].offset &&
				  loc.dev_offset + loc.length <=
				  m->items[i].offset + m->items[i].length;
		CHECK(ok && inside, "offset %" PRIu64 " resolves inside", o);
	}
	free(m);
}

static void map_bytes_are_constant(void)
{
	/* 100 TB interleaved over 64 strips is still one descriptor. */
	CHECK(famfs_kmap_bytes(64) == 16 + 64 * 24, "64 strips: %zu",
	      famfs_kmap_bytes(64));
	CHECK(famfs_kmap_bytes(4) == 112, "4 strips: %zu", famfs_kmap_bytes(4));
}

int main(void)
{
	resolve_design_example();
	extents_accepted_and_refused();
	interleave_accepted_and_refused();
	map_bytes_are_constant();
	two_devices();
	if (failures) {
		printf("kmod map: %d checks failed\n", failures);
		return 1;
	}
	printf("kmod map: all checks passed\n");
	return 0;
}
