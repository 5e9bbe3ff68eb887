/* SPDX-License-Identifier: Apache-2.0 */
/*
 * famfs-cli's client for the famfsd REST API (docs/api.md), over a Unix
 * socket or https with a bearer token, through libcurl. Reusable by every
 * command (get, describe, apply, ingest, job).
 *
 *	struct famfs_client *c = famfs_client_open(NULL, NULL);  // $FAMFS_HOST
 *	json_object *out = NULL; long status; char *err = NULL;
 *	int r = famfs_client_request(c, "GET", "/v1/devices", NULL,
 *				     &status, &out, &err);
 *	// r == 0: 2xx, out holds the body (NULL for 204)
 *	// r == 1: famfsd answered >= 400; err is "code: message", out the body
 *	// r < 0:  no answer (connect, TLS, timeout); err says why
 *	json_object_put(out); free(err); famfs_client_close(c);
 */
#ifndef FAMFS_CLIENT_H
#define FAMFS_CLIENT_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#define FAMFS_CLIENT_DEFAULT_ENDPOINT "/run/famfsd/famfsd.sock"

struct famfs_client;

/*
 * famfs_client_open() - a client for @endpoint: a Unix socket path
 * ("/run/famfsd/famfsd.sock" or "unix:/path"), or "https://host:port"
 * ("http://" only for tests). NULL: $FAMFS_HOST, else the default socket.
 * @token: bearer token for https; NULL: $FAMFS_TOKEN, else the first line
 * of $FAMFS_TOKEN_FILE. $FAMFS_CACERT names a CA file for https;
 * $FAMFS_INSECURE=1 skips certificate checks (tests). Returns NULL with
 * errno set on failure: EINVAL for a bad endpoint, ELIBACC when libcurl
 * (loaded on the first open, client/curl_dl.h) cannot be loaded.
 * Free with famfs_client_close().
 */
struct famfs_client *famfs_client_open(const char *endpoint, const char *token);
void famfs_client_close(struct famfs_client *c);
/* The endpoint as resolved, for messages. */
const char *famfs_client_endpoint(const struct famfs_client *c);
void famfs_client_set_timeout(struct famfs_client *c, long ms);

/*
 * famfs_client_request() - one API call. @path is "/v1/..." (with a query
 * string if needed); @body is sent as JSON when not NULL (not consumed).
 * *status gets the HTTP status (0 if no answer). *json_out (may be NULL
 * if unwanted) gets the parsed response body, caller frees with
 * json_object_put(). *err (may be NULL) gets a malloc'd message when the
 * return is not 0, caller frees. Returns 0 on 2xx, 1 on an HTTP error
 * status, a negative errno when famfsd could not be reached.
 */
int famfs_client_request(struct famfs_client *c, const char *method,
			 const char *path, json_object *body, long *status,
			 json_object **json_out, char **err);

/* Same, with a raw text response (for /metrics). *text_out malloc'd. */
int famfs_client_request_text(struct famfs_client *c, const char *method,
			      const char *path, long *status, char **text_out,
			      char **err);

/* Output helpers shared by get/describe (client/output.c). */
/* @o as YAML on @f (libyaml's emitter: correct quoting). */
int famfs_print_yaml(FILE *f, json_object *o);
/* @o as pretty JSON. */
void famfs_print_json(FILE *f, json_object *o);
/*
 * An aligned table of @items (an array of objects): one column per entry
 * of @cols, each "HEADER=key.path" (a dotted path into the object);
 * "HEADER=~key" prints an integer as a size for humans ("64MiB"),
 * "HEADER=%key" in octal (modes). The header line only with @headers.
 */
void famfs_print_table(FILE *f, json_object *items, const char *const *cols,
		       int ncols, bool headers);
/* Dotted-path lookup ("progress.bytes_done"); NULL if absent. */
json_object *famfs_json_path(json_object *o, const char *path);

#endif
