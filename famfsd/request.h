/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One API request from method, URL, headers and body to a response: the
 * checks (token, media type, JSON), the routing, the state lock and the
 * transaction around the resource handler, and the audit record. No
 * socket: server.c feeds it from libmicrohttpd, tests/fuzz/fuzz_api.c
 * straight from bytes.
 */
#ifndef FAMFSD_REQUEST_H
#define FAMFSD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "api/api.h"
#include "famfsd.h"

struct http_request {
	const char *method;
	const char *url;              /* path, no query */
	const char *content_type;     /* header value, NULL if absent */
	const char *authorization;    /* header value, NULL if absent */
	const char *who;              /* for the audit log */
	bool tcp;                     /* TCP listener: the token is required */
	const char *body;             /* NUL-terminated, @len bytes */
	size_t len;
	bool too_big;                 /* body over max_body: not kept */
	api_arg_fn arg;               /* query arguments */
	void *arg_ctx;
	const struct famfsd_conf *conf; /* the configuration it started with */

	/* filled by request_handle() */
	const char *route;            /* metrics label */
	bool changed;                 /* a mutation committed: kick the jobs */
};

/* Answer @h into @r (always a status, a 500 when a handler set none). */
void request_handle(struct http_request *h, struct api_resp *r);

#endif
