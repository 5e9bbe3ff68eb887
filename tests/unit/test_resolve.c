// SPDX-License-Identifier: Apache-2.0
/* The one resolve function against a brute-force layout of the chunks. */
#include <stdlib.h>

#include "test_util.h"

static void resolve_issue_example(void **state)
{
	struct famfs_map_item s[4];
	struct famfs_loc loc;

	(void)state;
	for (int i = 0; i < 4; i++) {
		s[i].dev_index = (uint32_t)i;
		s[i].offset = (uint64_t)(i + 1) * 1024 * FAMFS_MiB;
		s[i].length = 8 * FAMFS_MiB;
	}
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_INTERLEAVE, 2 * FAMFS_MiB,
					     s, 4, 15 * FAMFS_MiB, &loc), 0);
	assert_int_equal(loc.dev_index, 3);
	assert_int_equal(loc.dev_offset - s[3].offset, 3 * FAMFS_MiB);
	assert_int_equal(loc.length, 1 * FAMFS_MiB);
}

/* Reference: lay chunks out one by one, round robin, and find @off. */
static void reference(uint32_t n, uint64_t c, const struct famfs_map_item *s,
		      uint64_t off, struct famfs_loc *loc)
{
	uint64_t fill[64] = { 0 };

	for (uint64_t k = 0;; k++) {
		uint32_t strip = (uint32_t)(k % n);

		if (off < (k + 1) * c) {
			uint64_t in = off - k * c;

			loc->dev_index = s[strip].dev_index;
			loc->dev_offset = s[strip].offset + fill[strip] + in;
			loc->length = c - in;
			return;
		}
		fill[strip] += c;
	}
}

static uint64_t rnd(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

static void resolve_matches_brute_force(void **state)
{
	static const uint64_t chunks[] = {
		2 * FAMFS_MiB, 4 * FAMFS_MiB, 64 * FAMFS_MiB, FAMFS_GiB,
		4 * FAMFS_GiB, 6 * FAMFS_GiB, 64 * FAMFS_GiB,
	};
	struct famfs_map_item s[64];

	(void)state;
	srandom(7);
	for (unsigned ci = 0; ci < sizeof(chunks) / sizeof(chunks[0]); ci++) {
		for (uint32_t n = 1; n <= 17; n += (n < 5 ? 1 : 4)) {
			uint64_t c = chunks[ci], stripes = 1 + rnd() % 40;
			uint64_t size = n * c * stripes - rnd() % c;

			for (uint32_t i = 0; i < n; i++) {
				s[i].dev_index = i % 5;
				s[i].offset = (rnd() % 1024) * FAMFS_UNIT_SIZE;
				s[i].length = stripes * c;
			}
			for (int t = 0; t < 300; t++) {
				uint64_t off = t < 4 ? (uint64_t[]){ 0, size - 1, c - 1, c }[t]
						     : rnd() % size;
				struct famfs_loc a, b;

				assert_int_equal(famfs_resolve_items(FAMFS_MAP_INTERLEAVE,
					c, s, n, off, &a), 0);
				reference(n, c, s, off, &b);
				assert_int_equal(a.dev_index, b.dev_index);
				assert_int_equal(a.dev_offset, b.dev_offset);
				assert_int_equal(a.length, b.length);
			}
			/* past the map */
			struct famfs_loc x;

			assert_int_equal(famfs_resolve_items(FAMFS_MAP_INTERLEAVE, c, s,
				n, n * c * stripes, &x), -1);
		}
	}
}

static void resolve_extents_walks_in_order(void **state)
{
	struct famfs_map_item e[3] = {
		{ 0, 0, 100 * FAMFS_MiB, 2 * FAMFS_MiB },
		{ 1, 0, 10 * FAMFS_MiB, 4 * FAMFS_MiB },
		{ 0, 0, 50 * FAMFS_MiB, 2 * FAMFS_MiB },
	};
	struct famfs_loc l;

	(void)state;
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_EXTENTS, 0, e, 3, 0, &l), 0);
	assert_int_equal(l.dev_offset, 100 * FAMFS_MiB);
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_EXTENTS, 0, e, 3, 3 * FAMFS_MiB, &l), 0);
	assert_int_equal(l.dev_index, 1);
	assert_int_equal(l.dev_offset, 11 * FAMFS_MiB);
	assert_int_equal(l.length, 3 * FAMFS_MiB);
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_EXTENTS, 0, e, 3, 7 * FAMFS_MiB, &l), 0);
	assert_int_equal(l.dev_offset, 51 * FAMFS_MiB);
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_EXTENTS, 0, e, 3, 8 * FAMFS_MiB, &l), -1);
}

static void resolve_rejects_malformed_maps(void **state)
{
	struct famfs_map_item s[2] = { { 0, 0, 0, 2 * FAMFS_MiB }, { 1, 0, 0, FAMFS_MiB } };
	struct famfs_loc l;

	(void)state;
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_INTERLEAVE, 0, s, 2, 0, &l), -1);
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_INTERLEAVE, 2 * FAMFS_MiB, s, 0, 0, &l), -1);
	/* strip 1 is shorter than the chunk it would need */
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_INTERLEAVE, 2 * FAMFS_MiB, s, 2,
					     3 * FAMFS_MiB + 5, &l), -1);
	assert_int_equal(famfs_resolve_items(9, 0, s, 2, 0, &l), -1);
}

/* An unchecked map whose item ends past 2^64: the device offset wrapped
 * to a small number (0 here) instead of failing.
 */
static void resolve_refuses_wrapping_device_offset(void **state)
{
	struct famfs_map_item e[1] = { { 0, 0, UINT64_MAX - 4095, 8192 } };
	struct famfs_map_item s[2] = { { 0, 0, 0, 4 * FAMFS_MiB },
				       { 1, 0, UINT64_MAX - FAMFS_MiB + 1,
					 4 * FAMFS_MiB } };
	struct famfs_loc l;

	(void)state;
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_EXTENTS, 0, e, 1, 0, &l), 0);
	assert_true(l.dev_offset == UINT64_MAX - 4095);
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_EXTENTS, 0, e, 1, 4096, &l), -1);
	assert_int_equal(famfs_resolve_items(FAMFS_MAP_INTERLEAVE, 2 * FAMFS_MiB,
					     s, 2, 2 * FAMFS_MiB + FAMFS_MiB, &l), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolve_issue_example),
		cmocka_unit_test(resolve_matches_brute_force),
		cmocka_unit_test(resolve_extents_walks_in_order),
		cmocka_unit_test(resolve_rejects_malformed_maps),
		cmocka_unit_test(resolve_refuses_wrapping_device_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
