// SPDX-License-Identifier: Apache-2.0
/*
 * A provider that reports the device paths listed in the file named by
 * $FAMFS_TEST_COUNT_DEVICES (one a line) and appends every path famfsd
 * asks it to open() to the file named by $FAMFS_TEST_COUNT_OPENS:
 * famfsd_discovery_opens checks which devices a rescan re-opens.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider.h"

static int count_init(const struct famfs_provider_env *env, void **ctx,
		      char *why, size_t whylen)
{
	(void)env; (void)why; (void)whylen;
	*ctx = NULL;
	return 0;
}

static void count_fini(void *ctx)
{
	(void)ctx;
}

static void describe(const char *path, struct famfs_provider_dev *d)
{
	const char *base = strrchr(path, '/');
	uint64_t h = 1469598103934665603ull;  /* FNV-1a: a uuid per path */

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", base ? base + 1 : path);
	snprintf(d->path, sizeof(d->path), "%s", path);
	for (const char *c = path; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	snprintf(d->uuid, sizeof(d->uuid), "00000000-0000-4000-8000-%012llx",
		 (unsigned long long)(h & 0xffffffffffffull));
	d->size = 8u << 20;
	d->usable = false;  /* never opened for a filesystem */
	snprintf(d->reason, sizeof(d->reason), "a test device");
}

/* Calls @fn for every listed path (or only @want); returns whether @want
 * was listed.
 */
static int each_listed(const char *want, int (*fn)(void *, const char *),
		       void *arg)
{
	const char *f = getenv("FAMFS_TEST_COUNT_DEVICES");
	FILE *in = f ? fopen(f, "re") : NULL;
	char line[FAMFS_PROVIDER_PATH_LEN];
	int found = 0;

	while (in && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || (want && strcmp(line, want)))
			continue;
		found = 1;
		if (fn && fn(arg, line))
			break;
	}
	if (in)
		fclose(in);
	return found;
}

struct report {
	famfs_provider_found_fn fn;
	void *arg;
};

static int report_one(void *arg, const char *path)
{
	struct report *r = arg;
	struct famfs_provider_dev d;

	describe(path, &d);
	return r->fn(r->arg, &d);
}

static int count_discover(void *ctx, famfs_provider_found_fn fn, void *arg,
			  char **topology_json, char *why, size_t whylen)
{
	struct report r = { fn, arg };

	(void)ctx; (void)why; (void)whylen;
	*topology_json = NULL;
	each_listed(NULL, report_one, &r);
	return 0;
}

static int count_open(void *ctx, const char *path,
		      struct famfs_provider_dev *dev, char *why, size_t whylen)
{
	const char *f = getenv("FAMFS_TEST_COUNT_OPENS");
	FILE *out = f ? fopen(f, "ae") : NULL;

	(void)ctx;
	if (out) {
		fprintf(out, "%s\n", path);
		fclose(out);
	}
	if (!each_listed(path, NULL, NULL)) {
		snprintf(why, whylen, "%s is no longer listed", path);
		return -ENOENT;
	}
	describe(path, dev);
	return 0;
}

static const struct famfs_provider_ops count_ops = {
	.abi = FAMFS_PROVIDER_ABI,
	.name = "count",
	.init = count_init,
	.fini = count_fini,
	.discover = count_discover,
	.open = count_open,
};

__attribute__((visibility("default")))
const struct famfs_provider_ops *famfs_provider_entry(void);
const struct famfs_provider_ops *famfs_provider_entry(void)
{
	return &count_ops;
}
