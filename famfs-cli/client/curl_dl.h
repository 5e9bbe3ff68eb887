/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libcurl, loaded on first use: only the commands that talk to a famfsd
 * need it, and linking it made every famfs-cli start load its ~30
 * libraries (TLS, Kerberos, LDAP, SSH; docs/testing.md).
 *
 *	const struct famfs_curl *cu = famfs_curl_load();
 *	if (!cu) ... // errno ELIBACC; the reason is on stderr
 *	CURL *k = cu->easy_init();
 */
#ifndef FAMFS_CURL_DL_H
#define FAMFS_CURL_DL_H

#include <curl/curl.h>

#define FAMFS_CURL_SONAME "libcurl.so.4"

/* The few libcurl functions famfs-cli uses. */
struct famfs_curl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *k);
	void (*easy_reset)(CURL *k);
	CURLcode (*easy_setopt)(CURL *k, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *k);
	CURLcode (*easy_getinfo)(CURL *k, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
};

/*
 * famfs_curl_load() - dlopen FAMFS_CURL_SONAME once, resolve the table and
 * run curl_global_init(). NULL (errno ELIBACC) if the library or one of
 * its functions is missing; the first failure says which on stderr.
 */
const struct famfs_curl *famfs_curl_load(void);

#endif
