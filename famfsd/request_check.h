/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exact request parsing: what reaches a handler is what the client
 * meant, or the request is refused with 400 before any handler runs.
 */
#ifndef FAMFSD_REQUEST_CHECK_H
#define FAMFSD_REQUEST_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * url_check() - the raw URL (before percent-decoding, query included)
 * may not hold a control byte, a '%' without two hex digits, or a
 * percent-encoded NUL or control byte; a path segment may not hold a
 * percent-encoded '/'. 0, or -1 with the reason in @err.
 */
int url_check(const char *raw, char *err, size_t errlen);

/* The first of @names that the first-level @resource ("devices", ...)
 * does not read; NULL when all are known. */
const char *query_unknown_param(const char *resource, const char *const *names,
				int n);

/*
 * json_duplicate_key() - @text (@len bytes) is JSON that json-c accepted
 * in strict mode; -1 with the first key that appears twice in one object
 * (decoded) in @dup, else 0. json-c keeps the last one silently.
 */
int json_duplicate_key(const char *text, size_t len, char *dup, size_t duplen);

#endif
