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

/* What a caller may do: read is GET, /metrics; write is everything. */
enum api_access { ACCESS_NONE, ACCESS_READ, ACCESS_WRITE };

struct http_request {
	const char *method;
	const char *url;              /* path, no query, percent-decoded */
	const char *raw_url;          /* as received, query included; NULL:
				       * not checked (see request_check.h) */
	const char *content_type;     /* header value, NULL if absent */
	const char *authorization;    /* header value, NULL if absent */
	const char *who;              /* for the audit log */
	bool tcp;                     /* TCP listener: the token decides the
				       * access */
	enum api_access access;       /* Unix socket: the peer's (server.c) */
	const char *body;             /* NUL-terminated, @len bytes */
	size_t len;
	bool too_big;                 /* body over max_body: not kept */
	api_arg_fn arg;               /* query arguments */
	void *arg_ctx;
	/* The names of the query arguments: up to @max into @names; returns
	 * how many there are (more than @max: too many to check). */
	int (*arg_names)(void *ctx, const char **names, int max);
	const struct famfsd_conf *conf; /* the configuration it started with */

	/* filled by request_handle() */
	const char *route;            /* metrics label */
	bool changed;                 /* a mutation committed: kick the jobs */
};

#define HTTP_MAX_ARGS 16

/* Answer @h into @r (always a status, a 500 when a handler set none). */
void request_handle(struct http_request *h, struct api_resp *r);

#endif
