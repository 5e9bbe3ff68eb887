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

/* Load every *.so in @dir; a bad plugin is logged and skipped. */
int providers_load(const char *dir);
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
