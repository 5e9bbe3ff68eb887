// SPDX-License-Identifier: Apache-2.0
/*
 * Holds over famfsd's Unix socket. The text each call leaves in @why is
 * what a user reads when a job fails, so it says who did not answer or
 * what famfsd answered, in one line.
 */
#include <curl/curl.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfsd_holds.h"

/* a hold's answer is a few hundred bytes; famfsd's errors fewer */
#define RESPONSE_MAX (64 * 1024)
/* famfsd accepts at once when it runs; a slow accept means it is stuck */
#define CONNECT_TIMEOUT_S 10L
/* what a request may take beyond the wait famfsd was asked for */
#define ANSWER_MARGIN_S 30L

struct response {
	char *data;
	size_t len;
	bool too_long;
};

__attribute__((format(printf, 3, 4)))
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct response *r = arg;
	size_t add = size * n;
	char *grown;

	if (r->len + add > RESPONSE_MAX) {
		r->too_long = true;
		return 0;
	}
	grown = realloc(r->data, r->len + add + 1);
	if (!grown)
		return 0;
	memcpy(grown + r->len, p, add);
	r->data = grown;
	r->len += add;
	r->data[r->len] = 0;
	return add;
}

/* A transport failure in words and as an errno. */
static int transport_error(CURL *k, CURLcode rc, const char *socket,
			   long wait_s, char *why, size_t why_len)
{
	long os_errno = 0;

	curl_easy_getinfo(k, CURLINFO_OS_ERRNO, &os_errno);
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		say(why, why_len, "famfsd on %s did not answer within %ld s",
		    socket, wait_s);
		return -ETIMEDOUT;
	}
	if (rc == CURLE_COULDNT_CONNECT && os_errno) {
		say(why, why_len, "famfsd is not answering on %s (%s)", socket,
		    strerror((int)os_errno));
		return os_errno == ENOENT ? -ENOENT : -ECONNREFUSED;
	}
	say(why, why_len, "famfsd is not answering on %s (%s)", socket,
	    curl_easy_strerror(rc));
	return -ECONNREFUSED;
}

/*
 * One request. Returns 0 with *@status and *@body (parsed JSON or NULL;
 * the caller puts it) for any HTTP answer, or a negative errno with @why.
 */
static int famfsd_request(const char *socket, const char *method,
			  const char *path, const char *body, long wait_s,
			  long *status, json_object **out,
			  char *why, size_t why_len)
{
	struct response resp = { 0 };
	struct curl_slist *h = NULL;
	char url[512];
	CURLcode rc;
	CURL *k;
	int r = 0;

	*out = NULL;
	snprintf(url, sizeof(url), "http://famfsd%s", path);
	k = curl_easy_init();
	if (!k) {
		say(why, why_len, "cannot start libcurl");
		return -ENOMEM;
	}
	curl_easy_setopt(k, CURLOPT_URL, url);
	curl_easy_setopt(k, CURLOPT_UNIX_SOCKET_PATH, socket);
	curl_easy_setopt(k, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(k, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(k, CURLOPT_WRITEDATA, &resp);
	/* slurmstepd has threads: no SIGALRM for timeouts */
	curl_easy_setopt(k, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(k, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(k, CURLOPT_TIMEOUT, wait_s);
	h = curl_slist_append(h, "Accept: application/json");
	if (body) {
		h = curl_slist_append(h, "Content-Type: application/json");
		curl_easy_setopt(k, CURLOPT_POSTFIELDS, body);
	}
	curl_easy_setopt(k, CURLOPT_HTTPHEADER, h);
	rc = curl_easy_perform(k);
	if (rc == CURLE_WRITE_ERROR && resp.too_long) {
		say(why, why_len, "famfsd on %s answered more than %d bytes",
		    socket, RESPONSE_MAX);
		r = -EPROTO;
	} else if (rc != CURLE_OK) {
		r = transport_error(k, rc, socket, wait_s, why, why_len);
	} else {
		curl_easy_getinfo(k, CURLINFO_RESPONSE_CODE, status);
		if (resp.data)
			*out = json_tokener_parse(resp.data);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(k);
	free(resp.data);
	return r;
}

static const char *json_string_at(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* famfsd's error answer in one line: "MESSAGE (famfsd: 404 not_found)". */
static int famfsd_refused(json_object *body, long status, char *why,
			  size_t why_len)
{
	json_object *e = NULL;
	const char *code, *message;

	if (body)
		json_object_object_get_ex(body, "error", &e);
	code = json_string_at(e, "code");
	message = json_string_at(e, "message");
	if (message)
		say(why, why_len, "%s (famfsd: %ld %s)", message, status,
		    code ? code : "");
	else
		say(why, why_len, "famfsd answered HTTP %ld", status);
	return -EPROTO;
}

static int hold_from_json(json_object *o, struct fs_hold *hold, char *why,
			  size_t why_len)
{
	const char *path = json_string_at(o, "path");
	json_object *g;

	if (!path || !json_object_object_get_ex(o, "generation", &g) ||
	    !json_object_is_type(g, json_type_int)) {
		say(why, why_len, "famfsd's hold has no path or generation");
		return -EPROTO;
	}
	if (strlen(path) >= sizeof(hold->path)) {
		say(why, why_len, "famfsd's hold path is too long");
		return -EPROTO;
	}
	snprintf(hold->path, sizeof(hold->path), "%s", path);
	hold->generation = json_object_get_int64(g);
	return 0;
}

int fs_hold_take(const char *socket, const char *dataset, const char *owner,
		 const char *note, int timeout, struct fs_hold *hold,
		 char *why, size_t why_len)
{
	json_object *req = json_object_new_object(), *resp = NULL;
	char path[256];
	long status = 0;
	int r;

	json_object_object_add(req, "owner", json_object_new_string(owner));
	json_object_object_add(req, "note", json_object_new_string(note));
	json_object_object_add(req, "timeout_seconds",
			       json_object_new_int(timeout));
	snprintf(path, sizeof(path), "/v1/datasets/%s/holds", dataset);
	r = famfsd_request(socket, "POST", path,
			   json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN),
			   timeout + ANSWER_MARGIN_S, &status, &resp, why, why_len);
	json_object_put(req);
	if (r < 0)
		return r;
	if (status == 200 || status == 201) {
		hold->created = status == 201;
		r = hold_from_json(resp, hold, why, why_len);
	} else {
		r = famfsd_refused(resp, status, why, why_len);
	}
	json_object_put(resp);
	return r;
}

int fs_hold_release(const char *socket, const char *dataset, const char *owner,
		    char *why, size_t why_len)
{
	json_object *resp = NULL;
	char path[256];
	long status = 0;
	int r;

	snprintf(path, sizeof(path), "/v1/datasets/%s/holds?owner=%s", dataset,
		 owner);
	r = famfsd_request(socket, "DELETE", path, NULL, ANSWER_MARGIN_S,
			   &status, &resp, why, why_len);
	if (r == 0 && status != 204)
		r = famfsd_refused(resp, status, why, why_len);
	json_object_put(resp);
	return r;
}

int fs_holds_release_owner(const char *socket, const char *owner,
			   long *released, char *why, size_t why_len)
{
	json_object *resp = NULL, *n;
	char path[256];
	long status = 0;
	int r;

	snprintf(path, sizeof(path), "/v1/holds?owner=%s", owner);
	r = famfsd_request(socket, "DELETE", path, NULL, ANSWER_MARGIN_S,
			   &status, &resp, why, why_len);
	if (r == 0 && status != 200)
		r = famfsd_refused(resp, status, why, why_len);
	else if (r == 0)
		*released = resp && json_object_object_get_ex(resp, "released", &n) ?
			    (long)json_object_get_int64(n) : 0;
	json_object_put(resp);
	return r;
}
