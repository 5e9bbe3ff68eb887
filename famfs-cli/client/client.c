// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/curl_dl.h"

struct famfs_client {
	const struct famfs_curl *cu;
	CURL *curl;
	char *endpoint;
	char *socket_path;     /* Unix socket, or NULL for http(s) */
	char *base_url;        /* "http://famfsd" or "https://host:port" */
	char *auth_header;
	long timeout_ms;
};

struct buf {
	char *p;
	size_t n;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct buf *b = arg;
	size_t len = size * nmemb;
	char *np = realloc(b->p, b->n + len + 1);

	if (!np)
		return 0;
	memcpy(np + b->n, ptr, len);
	b->p = np;
	b->n += len;
	b->p[b->n] = 0;
	return len;
}

static char *token_from_env(void)
{
	const char *t = getenv("FAMFS_TOKEN"), *file = getenv("FAMFS_TOKEN_FILE");
	char line[512] = "";
	FILE *f;

	if (t && *t)
		return strdup(t);
	if (!file || !(f = fopen(file, "re")))
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\r\n")] = 0;
	return line[0] ? strdup(line) : NULL;
}

struct famfs_client *famfs_client_open(const char *endpoint, const char *token)
{
	const struct famfs_curl *cu = famfs_curl_load();
	struct famfs_client *c;
	char *tok = NULL;

	if (!cu)
		return NULL;
	if (!endpoint || !*endpoint)
		endpoint = getenv("FAMFS_HOST");
	if (!endpoint || !*endpoint)
		endpoint = FAMFS_CLIENT_DEFAULT_ENDPOINT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cu = cu;
	c->endpoint = strdup(endpoint);
	c->timeout_ms = 120000;
	if (!strncmp(endpoint, "unix:", 5)) {
		c->socket_path = strdup(endpoint + 5);
	} else if (endpoint[0] == '/' || endpoint[0] == '.') {
		c->socket_path = strdup(endpoint);
	} else if (!strncmp(endpoint, "https://", 8) ||
		   !strncmp(endpoint, "http://", 7)) {
		size_t n = strlen(endpoint);

		c->base_url = strdup(endpoint);
		if (n && c->base_url[n - 1] == '/')
			c->base_url[n - 1] = 0;
	} else {
		famfs_client_close(c);
		errno = EINVAL;
		return NULL;
	}
	if (c->socket_path)
		c->base_url = strdup("http://famfsd");
	tok = token ? strdup(token) : token_from_env();
	if (tok && asprintf(&c->auth_header, "Authorization: Bearer %s", tok) < 0)
		c->auth_header = NULL;
	free(tok);
	c->curl = cu->easy_init();
	if (!c->curl || !c->base_url) {
		famfs_client_close(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void famfs_client_close(struct famfs_client *c)
{
	if (!c)
		return;
	if (c->curl)
		c->cu->easy_cleanup(c->curl);
	free(c->endpoint);
	free(c->socket_path);
	free(c->base_url);
	free(c->auth_header);
	free(c);
}

const char *famfs_client_endpoint(const struct famfs_client *c)
{
	return c->endpoint;
}

void famfs_client_set_timeout(struct famfs_client *c, long ms)
{
	c->timeout_ms = ms;
}

static int transport_errno(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT: return -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT: return -ETIMEDOUT;
	case CURLE_COULDNT_RESOLVE_HOST: return -EHOSTUNREACH;
	default: return -EIO;
	}
}

static int perform(struct famfs_client *c, const char *method,
		   const char *path, const char *body, long *status,
		   struct buf *resp, char **err)
{
	struct curl_slist *h = NULL;
	char *url = NULL;
	CURLcode rc;
	CURL *k = c->curl;
	const struct famfs_curl *cu = c->cu;
	const char *cacert = getenv("FAMFS_CACERT");
	const char *insecure = getenv("FAMFS_INSECURE");

	*status = 0;
	if (asprintf(&url, "%s%s", c->base_url, path) < 0)
		return -ENOMEM;
	cu->easy_reset(k);
	cu->easy_setopt(k, CURLOPT_URL, url);
	if (c->socket_path)
		cu->easy_setopt(k, CURLOPT_UNIX_SOCKET_PATH, c->socket_path);
	cu->easy_setopt(k, CURLOPT_CUSTOMREQUEST, method);
	cu->easy_setopt(k, CURLOPT_WRITEFUNCTION, on_data);
	cu->easy_setopt(k, CURLOPT_WRITEDATA, resp);
	cu->easy_setopt(k, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	cu->easy_setopt(k, CURLOPT_NOSIGNAL, 1L);
	if (cacert && *cacert)
		cu->easy_setopt(k, CURLOPT_CAINFO, cacert);
	if (insecure && !strcmp(insecure, "1")) {
		cu->easy_setopt(k, CURLOPT_SSL_VERIFYPEER, 0L);
		cu->easy_setopt(k, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	h = cu->slist_append(h, "Accept: application/json");
	if (c->auth_header)
		h = cu->slist_append(h, c->auth_header);
	if (body) {
		h = cu->slist_append(h, "Content-Type: application/json");
		cu->easy_setopt(k, CURLOPT_POSTFIELDS, body);
		cu->easy_setopt(k, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	} else if (!strcmp(method, "GET")) {
		cu->easy_setopt(k, CURLOPT_HTTPGET, 1L);
		cu->easy_setopt(k, CURLOPT_CUSTOMREQUEST, NULL);
	}
	cu->easy_setopt(k, CURLOPT_HTTPHEADER, h);
	rc = cu->easy_perform(k);
	cu->slist_free_all(h);
	free(url);
	if (rc != CURLE_OK) {
		if (err && asprintf(err, "cannot reach famfsd at %s: %s",
				    c->endpoint, cu->easy_strerror(rc)) < 0)
			*err = NULL;
		return transport_errno(rc);
	}
	cu->easy_getinfo(k, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

int famfs_client_request(struct famfs_client *c, const char *method,
			 const char *path, json_object *body, long *status,
			 json_object **json_out, char **err)
{
	struct buf resp = { 0 };
	json_object *o = NULL, *e;
	int r;

	if (json_out)
		*json_out = NULL;
	if (err)
		*err = NULL;
	r = perform(c, method, path, body ? json_object_to_json_string_ext(
			body, JSON_C_TO_STRING_PLAIN) : NULL, status, &resp, err);
	if (r) {
		free(resp.p);
		return r;
	}
	if (resp.n)
		o = json_tokener_parse(resp.p);
	if (*status >= 400) {
		e = famfs_json_path(o, "error");
		if (err && asprintf(err, "%s: %s (HTTP %ld)",
				    json_object_get_string(famfs_json_path(e, "code")),
				    e ? json_object_get_string(famfs_json_path(
						e, "message")) : resp.p ? resp.p : "",
				    *status) < 0)
			*err = NULL;
		r = 1;
	}
	free(resp.p);
	if (json_out)
		*json_out = o;
	else
		json_object_put(o);
	return r;
}

int famfs_client_request_text(struct famfs_client *c, const char *method,
			      const char *path, long *status, char **text_out,
			      char **err)
{
	struct buf resp = { 0 };
	int r;

	if (err)
		*err = NULL;
	r = perform(c, method, path, NULL, status, &resp, err);
	if (r) {
		free(resp.p);
		*text_out = NULL;
		return r;
	}
	*text_out = resp.p ? resp.p : strdup("");
	if (*status >= 400) {
		if (err && asprintf(err, "HTTP %ld: %s", *status, *text_out) < 0)
			*err = NULL;
		return 1;
	}
	return 0;
}
