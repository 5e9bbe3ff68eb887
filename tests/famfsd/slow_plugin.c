// SPDX-License-Identifier: Apache-2.0
/*
 * A provider whose discovery takes as many milliseconds as the file named
 * by $FAMFS_TEST_SLOW_DISCOVER holds (none: no wait), creating
 * "<that file>.started" when the wait begins and ".done" when it ends.
 * famfsd discovers
 * under its state lock, so a rescan holds that lock for a known time:
 * famfsd_healthz_unblocked checks what must still answer meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "provider.h"

static int slow_init(const struct famfs_provider_env *env, void **ctx,
		     char *why, size_t whylen)
{
	(void)env; (void)why; (void)whylen;
	*ctx = NULL;
	return 0;
}

static void slow_fini(void *ctx)
{
	(void)ctx;
}

static int slow_discover(void *ctx, famfs_provider_found_fn fn, void *arg,
			 char **topology_json, char *why, size_t whylen)
{
	const char *f = getenv("FAMFS_TEST_SLOW_DISCOVER");
	FILE *in = f ? fopen(f, "re") : NULL;
	long ms = 0;

	(void)ctx; (void)fn; (void)arg; (void)why; (void)whylen;
	*topology_json = NULL;
	if (in) {
		if (fscanf(in, "%ld", &ms) != 1)
			ms = 0;
		fclose(in);
	}
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		char mark[4096];

		/* "<file>.started", "<file>.done": the test knows when the
		 * lock is held for sure, and when no longer
		 */
		snprintf(mark, sizeof(mark), "%s.started", f);
		in = fopen(mark, "we");
		if (in)
			fclose(in);
		nanosleep(&ts, NULL);
		snprintf(mark, sizeof(mark), "%s.done", f);
		in = fopen(mark, "we");
		if (in)
			fclose(in);
	}
	return 0;
}

static int slow_open(void *ctx, const char *path, struct famfs_provider_dev *dev,
		     char *why, size_t whylen)
{
	(void)ctx; (void)path; (void)dev; (void)why; (void)whylen;
	return -ENOENT;
}

static const struct famfs_provider_ops slow_ops = {
	.abi = FAMFS_PROVIDER_ABI,
	.name = "slow",
	.init = slow_init,
	.fini = slow_fini,
	.discover = slow_discover,
	.open = slow_open,
};

__attribute__((visibility("default")))
const struct famfs_provider_ops *famfs_provider_entry(void);
const struct famfs_provider_ops *famfs_provider_entry(void)
{
	return &slow_ops;
}
