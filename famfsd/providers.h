/* SPDX-License-Identifier: Apache-2.0 */
/* Device providers (plugins/provider.h) loaded from the plugin directory,
 * and device discovery into the devices table.
 */
#ifndef FAMFSD_PROVIDERS_H
#define FAMFSD_PROVIDERS_H

#include <json-c/json.h>

#include "provider.h"

struct provider {
	const struct famfs_provider_ops *ops;
	void *ctx;
	void *handle;
	char path[4096];
};

/* Load every *.so in @dir; a bad plugin is logged, skipped and kept as a
 * problem (famfsd is then degraded, see providers_problems()).
 */
int providers_load(const char *dir);
/*
 * providers_problems() - why the providers are not all there: one message
 * per plugin that failed to load, for a plugin directory that cannot be
 * read, or for no provider at all. *out points at famfsd's own strings
 * (valid until providers_unload()). Returns how many; 0 means healthy.
 */
int providers_problems(const char ***out);
void providers_unload(void);
int providers_count(void);
struct provider *providers_get(int i);
struct provider *providers_find(const char *name);

/*
 * providers_discover() - run every provider's discover(), upsert what
 * it found, re-check (open()) the devices the db knows, and mark the
 * ones gone as missing. Records an event for every change. Needs the
 * state lock. *topology (if not NULL) gets {"<provider>": {...}}.
 */
int providers_discover(json_object **topology);

#endif
