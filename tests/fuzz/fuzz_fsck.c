// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_fsck: famfs_fsck() of a filesystem whose metadata the input
 * replaced (image.h). fsck must run to the end on any bytes, never write,
 * and count exactly the errors and warnings it reports.
 */
#include <string.h>

#include "famfs.h"
#include "fuzz.h"
#include "image.h"

struct tally {
	unsigned errors, warnings;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_image_init();
	fuzz_image_maybe_write_seeds();
	return 0;
}

static void finding(void *arg, enum famfs_fsck_severity sev,
		    const char *check, const char *msg)
{
	struct tally *t = arg;

	FUZZ_ASSERT(check && *check && msg, "finding without a check name");
	(void)strlen(msg);
	if (sev == FAMFS_FSCK_ERROR)
		t->errors++;
	else if (sev == FAMFS_FSCK_WARNING)
		t->warnings++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct famfs_fsck_result res;
	struct famfs_err e = { 0 };
	struct tally t = { 0 };
	uint8_t flags;
	unsigned ndev = fuzz_image_load(data, size, &flags);
	int r = famfs_fsck(fuzz_image_paths(), ndev, finding, &t, &res, &e);

	FUZZ_ASSERT(r == 0, "fsck could not run: %d %s", r, e.msg);
	FUZZ_ASSERT(t.errors == res.errors && t.warnings == res.warnings,
		    "counted %u/%u, reported %u/%u", res.errors, res.warnings,
		    t.errors, t.warnings);
	return 0;
}
