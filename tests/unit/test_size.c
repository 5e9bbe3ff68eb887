// SPDX-License-Identifier: Apache-2.0
/* famfs_parse_size() and famfs_format_size() at their limits (lib/size.c). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

/* The result of parsing @s, and that *out is untouched on failure. */
static int parse(const char *s, uint64_t *v)
{
	int r;

	*v = SENTINEL;
	r = famfs_parse_size(s, v);
	if (r)
		assert_true(*v == SENTINEL);
	return r;
}

static void parse_size_accepts_the_documented_forms(void **state)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "0", 0 }, { "0B", 0 }, { "1", 1 }, { "4096", 4096 },
		{ "4096B", 4096 }, { "2K", 2048 }, { "2KB", 2048 },
		{ "2KiB", 2048 }, { "2M", 2 * FAMFS_MiB }, { "2MB", 2 * FAMFS_MiB },
		{ "2MiB", 2 * FAMFS_MiB }, { "1G", FAMFS_GiB },
		{ "1GiB", FAMFS_GiB }, { "3T", 3 * 1024 * FAMFS_GiB },
		{ "1048576TiB", 1ULL << 60 },
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		assert_int_equal(parse(ok[i].s, &v), 0);
		assert_true(v == ok[i].v);
	}
}

static void parse_size_limits_are_64_bits(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse("18446744073709551615B", &v), 0);
	assert_int_equal(parse("18446744073709551616", &v), -ERANGE);
	assert_int_equal(parse("99999999999999999999999999", &v), -ERANGE);
	/* the suffix multiplication overflows, the digits alone do not */
	assert_int_equal(parse("16777215TiB", &v), 0);
	assert_true(v == UINT64_MAX - (1ULL << 40) + 1);
	assert_int_equal(parse("16777216TiB", &v), -ERANGE);
	assert_int_equal(parse("17179869184G", &v), -ERANGE);
	assert_int_equal(parse("17592186044416M", &v), -ERANGE);
	assert_int_equal(parse("18014398509481984K", &v), -ERANGE);
	assert_int_equal(parse("18014398509481983K", &v), 0);
	/* junk after an overflowing number is junk, not a range error */
	assert_int_equal(parse("99999999999999999999999X", &v), -EINVAL);
}

static void parse_size_refuses_other_forms(void **state)
{
	static const char *const bad[] = {
		"", "-1", "-0", "+1", " 1", "1 ", "1\n", "1 MiB", "\t4096",
		"1.5G", "1.0M", ".5K", "1e3", "0x10", "08", "00", "007K",
		"1g", "1m", "2mb", "2Mb", "1Gb", "64Mi", "2MiBB", "2MiBx", "2iB",
		"2P", "2E", "2X", "B", "K", "MiB", "2KK", "2BB", "abc", "１",
	};
	uint64_t v;

	(void)state;
	assert_int_equal(famfs_parse_size(NULL, &v), -EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse(bad[i], &v) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
	}
}

static const char *fmt(uint64_t v, unsigned flags)
{
	static char buf[64];

	return famfs_format_size(v, flags, buf, sizeof(buf));
}

static void format_size_exact_and_rounded(void **state)
{
	char small[5];

	(void)state;
	assert_string_equal(fmt(0, FAMFS_SIZE_EXACT), "0 B");
	assert_string_equal(fmt(4097, FAMFS_SIZE_EXACT), "4097 B");
	assert_string_equal(fmt(2 * FAMFS_MiB, FAMFS_SIZE_EXACT), "2 MiB");
	assert_string_equal(fmt(1536 * FAMFS_MiB, FAMFS_SIZE_EXACT), "1536 MiB");
	assert_string_equal(fmt(1ULL << 60, FAMFS_SIZE_EXACT), "1 EiB");
	assert_string_equal(fmt(UINT64_MAX, FAMFS_SIZE_EXACT),
			    "18446744073709551615 B");
	assert_string_equal(fmt(0, FAMFS_SIZE_ROUND), "0 B");
	assert_string_equal(fmt(1023, FAMFS_SIZE_ROUND), "1023 B");
	assert_string_equal(fmt(3000, FAMFS_SIZE_ROUND), "2.9 KiB");
	assert_string_equal(fmt(64 * FAMFS_MiB, FAMFS_SIZE_ROUND), "64 MiB");
	assert_string_equal(fmt(1536 * FAMFS_MiB, FAMFS_SIZE_ROUND), "1.5 GiB");
	assert_string_equal(fmt(UINT64_MAX, FAMFS_SIZE_ROUND), "16.0 EiB");
	/* what is printed parses back to the same bytes */
	for (uint64_t v = 1; v && v < UINT64_MAX / 3; v = v * 3 + 1) {
		char buf[64], *sp;
		uint64_t back;

		famfs_format_size(v, FAMFS_SIZE_EXACT, buf, sizeof(buf));
		sp = strchr(buf, ' ');
		memmove(sp, sp + 1, strlen(sp));
		if (!strcmp(sp, "EiB") || !strcmp(sp, "PiB"))
			continue; /* printed, but not a unit of the syntax */
		assert_int_equal(famfs_parse_size(buf, &back), 0);
		assert_true(back == v);
	}
	famfs_format_size(4 * FAMFS_GiB, FAMFS_SIZE_EXACT, small, sizeof(small));
	assert_string_equal(small, "4 Gi");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_size_accepts_the_documented_forms),
		cmocka_unit_test(parse_size_limits_are_64_bits),
		cmocka_unit_test(parse_size_refuses_other_forms),
		cmocka_unit_test(format_size_exact_and_rounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
