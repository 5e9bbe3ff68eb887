// SPDX-License-Identifier: Apache-2.0
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "client/curl_dl.h"

static struct famfs_curl table;

#define FAMFS_CURL_SYMS(X) \
	X(global_init, curl_global_init) \
	X(easy_init, curl_easy_init) \
	X(easy_cleanup, curl_easy_cleanup) \
	X(easy_reset, curl_easy_reset) \
	X(easy_setopt, curl_easy_setopt) \
	X(easy_perform, curl_easy_perform) \
	X(easy_getinfo, curl_easy_getinfo) \
	X(easy_strerror, curl_easy_strerror) \
	X(slist_append, curl_slist_append) \
	X(slist_free_all, curl_slist_free_all)

static int load(void)
{
	void *h = dlopen(FAMFS_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "famfs-cli: error: cannot load %s (libcurl, needed to talk to famfsd): %s\n",
			FAMFS_CURL_SONAME, dlerror());
		return -1;
	}
	/* dlsym's void * into a function pointer: POSIX allows it. */
#define RESOLVE(field, sym) \
	if (!(*(void **)&table.field = dlsym(h, #sym))) { \
		fprintf(stderr, "famfs-cli: error: %s lacks %s\n", FAMFS_CURL_SONAME, #sym); \
		return -1; \
	}
	FAMFS_CURL_SYMS(RESOLVE)
#undef RESOLVE
	if (table.global_init(CURL_GLOBAL_DEFAULT)) {
		fprintf(stderr, "famfs-cli: error: curl_global_init failed\n");
		return -1;
	}
	return 0;
}

const struct famfs_curl *famfs_curl_load(void)
{
	/* 0: not tried, 1: loaded, -1: failed (said once) */
	static int state;

	if (!state)
		state = load() ? -1 : 1;
	if (state < 0) {
		errno = ELIBACC;
		return NULL;
	}
	return &table;
}
