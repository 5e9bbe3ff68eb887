/* SPDX-License-Identifier: Apache-2.0 */
/*
 * famfsd device provider interface, ABI version 2 (2 added regions).
 *
 * A provider is a shared object in famfsd's plugin directory exporting one
 * symbol, famfs_provider_entry(), that returns a static ops table. famfsd
 * refuses a table whose abi is not FAMFS_PROVIDER_ABI. Every function
 * returns 0 or a negative errno and, on failure, writes a sentence for an
 * operator into @why (what is wrong, and what to do). Providers never print
 * and never exit; famfsd calls them with its state lock held, one call at a
 * time, so they need no locking of their own.
 */
#ifndef FAMFS_PROVIDER_H
#define FAMFS_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAMFS_PROVIDER_ABI 2
#define FAMFS_PROVIDER_ENTRY "famfs_provider_entry"

#define FAMFS_PROVIDER_NAME_LEN 64
#define FAMFS_PROVIDER_PATH_LEN 4096
#define FAMFS_PROVIDER_WHY_LEN 512

enum famfs_provider_caps {
	FAMFS_PROVIDER_CAN_CREATE = 1,   /* create() and destroy() work */
	FAMFS_PROVIDER_CAN_REGION = 2,   /* region_create/destroy() work */
};

/* A hardware-interleaved region to create (region_create()). */
struct famfs_provider_region {
	const char *const *memdevs;           /* "memN" or a serial number
					       * ("4096", "0x1000"), in
					       * interleave position order */
	unsigned int nmemdevs;
	unsigned int ways;                    /* must equal nmemdevs */
	uint64_t granularity;                 /* bytes; 0: the root
					       * decoder's */
	uint64_t align;                       /* the fsdax namespace's page
					       * alignment; 0: 2 MiB */
	const char *name;                     /* the namespace's alt name */
};

/* One device, as a provider describes it. */
struct famfs_provider_dev {
	char name[FAMFS_PROVIDER_NAME_LEN];   /* e.g. "dax0.0"; may be empty */
	char path[FAMFS_PROVIDER_PATH_LEN];   /* what famfs_dev_open() takes */
	char uuid[37];                        /* stable identity, lower-case */
	uint64_t size;                        /* bytes */
	bool usable;                          /* false: never open it */
	char reason[FAMFS_PROVIDER_WHY_LEN];  /* why not usable, what to do */
	char *details_json;                   /* malloc'd JSON object or NULL;
					       * famfsd frees it */
};

/* What famfsd hands a provider at init. */
struct famfs_provider_env {
	const char *state_dir;                /* famfsd's state directory */
	void (*log)(int prio, const char *msg);  /* syslog priorities */
};

/* Called by discover() for every device found; returns 0 to continue. */
typedef int (*famfs_provider_found_fn)(void *arg,
				       const struct famfs_provider_dev *dev);

struct famfs_provider_ops {
	uint32_t abi;                         /* FAMFS_PROVIDER_ABI */
	const char *name;                     /* "emul", "cxl" */
	uint32_t caps;                        /* enum famfs_provider_caps */

	int (*init)(const struct famfs_provider_env *env, void **ctx,
		    char *why, size_t whylen);
	void (*fini)(void *ctx);

	/*
	 * discover() - report every device this provider finds by itself.
	 * Finding none is success. *@topology_json, when set, is a malloc'd
	 * JSON object describing everything seen (for cxl: memdevs,
	 * decoders, regions, DAX devices, close to `cxl list`); famfsd frees
	 * it.
	 */
	int (*discover)(void *ctx, famfs_provider_found_fn fn, void *arg,
			char **topology_json, char *why, size_t whylen);

	/*
	 * open() - check and describe one device by path, before famfsd (or
	 * libfamfs) opens it. A device in the wrong mode is returned with
	 * usable = false and a reason, and the call still succeeds; -ENOENT
	 * when the path does not exist. Nothing is mapped.
	 */
	int (*open)(void *ctx, const char *path, struct famfs_provider_dev *dev,
		    char *why, size_t whylen);

	/* create() - make a new device of @size bytes at @path. */
	int (*create)(void *ctx, const char *path, uint64_t size,
		      struct famfs_provider_dev *dev, char *why, size_t whylen);
	/* destroy() - remove a device create() made. */
	int (*destroy)(void *ctx, const char *path, char *why, size_t whylen);

	/*
	 * region_create() - create a pmem region over @req's memdevs and the
	 * device famfs uses on it (an fsdax namespace filling the region),
	 * described in @dev; the kernel's region name goes into @region.
	 * All or nothing: a step that fails undoes the ones before it.
	 * -ENODEV: a memdev does not exist; -EBUSY: a memdev is already in a
	 * region; -EINVAL: a request the hardware or kernel refuses.
	 */
	int (*region_create)(void *ctx, const struct famfs_provider_region *req,
			     char region[FAMFS_PROVIDER_NAME_LEN],
			     struct famfs_provider_dev *dev, char *why,
			     size_t whylen);
	/* region_destroy() - remove a region region_create() made, with its
	 * namespaces. -ENOENT when there is no such region.
	 */
	int (*region_destroy)(void *ctx, const char *region, char *why,
			      size_t whylen);
};

typedef const struct famfs_provider_ops *(*famfs_provider_entry_fn)(void);

#endif
