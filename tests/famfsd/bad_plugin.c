// SPDX-License-Identifier: Apache-2.0
/* A provider with the wrong ABI version: famfsd must refuse to load it. */
#include "provider.h"

static const struct famfs_provider_ops bad_ops = {
	.abi = FAMFS_PROVIDER_ABI + 98,
	.name = "bad-abi",
};

__attribute__((visibility("default")))
const struct famfs_provider_ops *famfs_provider_entry(void);
const struct famfs_provider_ops *famfs_provider_entry(void)
{
	return &bad_ops;
}
