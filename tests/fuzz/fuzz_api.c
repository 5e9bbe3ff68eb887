// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_api: bytes as up to four HTTP requests through famfsd's request
 * layer (famfsd/request.c: token, media type, JSON body, routing, the
 * transaction and audit) into the real resource handlers, on a real
 * SQLite store (in memory), reset to its freshly migrated state for every
 * input. No socket and no providers (so no device is created or opened
 * and no FUSE server is started); the job runner is not kicked.
 *
 * Input: requests separated by a line "%%":
 *   METHOD SP URL[?k=v&k=v] LF
 *   (Header: value LF)*        Content-Type, Authorization, X-Listener: tcp
 *   LF
 *   body
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "famfsd.h"
#include "fuzz.h"
#include "jobs/jobs.h"
#include "log.h"
#include "providers.h"
#include "request.h"
#include "store/store.h"

#define MAX_REQUESTS 4
#define MAX_ARGS 8

static char state_dir[128];

struct args {
	char *key[MAX_ARGS], *value[MAX_ARGS];
	int n;
};

static const char *arg_of(void *ctx, const char *key)
{
	struct args *a = ctx;

	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->key[i], key))
			return a->value[i];
	return NULL;
}

static void remove_state(void)
{
	static const char *const files[] = { STORE_DB_NAME, "template.db" };
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[256];

	for (unsigned i = 0; i < 2; i++)
		for (unsigned j = 0; j < 4; j++) {
			snprintf(p, sizeof(p), "%s/%s%s", state_dir, files[i],
				 suffix[j]);
			unlink(p);
		}
}

static void cleanup(void)
{
	remove_state();
	rmdir(state_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	struct famfsd_conf *conf;
	struct famfsd_config *cfg;
	char err[512];

	(void)argc;
	(void)argv;
	log_init(LOG_CRIT);
	snprintf(state_dir, sizeof(state_dir), "%s/famfsd-fuzz-XXXXXX", tmp);
	conf = calloc(1, sizeof(*conf));
	if (!conf || !mkdtemp(state_dir) ||
	    config_load(&conf->cfg, NULL, false, NULL, err, sizeof(err))) {
		fprintf(stderr, "fuzz_api: setup failed\n");
		abort();
	}
	atexit(cleanup);
	cfg = &conf->cfg;
	free(cfg->state_dir);
	cfg->state_dir = strdup(state_dir);
	free(cfg->plugin_dir);
	cfg->plugin_dir = strdup(state_dir); /* no plugins in it */
	free(cfg->fused_path);
	cfg->fused_path = strdup("/nonexistent/famfs-fused");
	free(cfg->host_name);
	cfg->host_name = strdup("fuzzhost");
	snprintf(conf->token, sizeof(conf->token), "fuzztoken");
	atomic_init(&conf->refs, 1);
	conf_publish(conf);
	snprintf(famfsd.db_path, sizeof(famfsd.db_path), "%s/" STORE_DB_NAME,
		 state_dir);
	jobs_builtin_init();
	providers_load(famfsd_cfg()->plugin_dir);
	return 0;
}

/*
 * The store every input starts from: migrated once into a template, then
 * copied over the working database with SQLite's backup API (a fresh
 * store_open() per input costs the migrations, ten times the requests).
 * Both are in-memory databases: the same schema, SQL and handlers, but no
 * file, lock or WAL write per input, which made this target disk-bound
 * (bench/results/fuzz.md). Nothing here opens famfsd.db_path: the only
 * second connection is the ingest job's, and the job runner is not kicked.
 */
static sqlite3 *pristine;

static void open_store(void)
{
	char err[512];
	sqlite3_backup *b;

	if (!pristine) {
		if (store_open(":memory:", &pristine, err, sizeof(err)) ||
		    store_open(":memory:", &famfsd.db, err, sizeof(err))) {
			fprintf(stderr, "fuzz_api: %s\n", err);
			abort();
		}
		famfsd.started = store_now();
		store_kv_set(pristine, "host.name", famfsd_cfg()->host_name);
	}
	b = sqlite3_backup_init(famfsd.db, "main", pristine, "main");
	if (!b || sqlite3_backup_step(b, -1) != SQLITE_DONE) {
		fprintf(stderr, "fuzz_api: cannot reset the store: %s\n",
			sqlite3_errmsg(famfsd.db));
		abort();
	}
	sqlite3_backup_finish(b);
}

/* Split "url?k=v&k2" in place into the path and its arguments. */
static void split_query(char *url, struct args *a)
{
	char *q = strchr(url, '?'), *kv;

	a->n = 0;
	if (!q)
		return;
	*q++ = '\0';
	while ((kv = strsep(&q, "&")) && a->n < MAX_ARGS) {
		char *eq = strchr(kv, '=');

		if (eq)
			*eq++ = '\0';
		a->key[a->n] = kv;
		a->value[a->n++] = eq ? eq : "";
	}
}

static void check_response(const struct http_request *h,
			   const struct api_resp *r)
{
	json_object *err, *code;

	FUZZ_ASSERT(r->status >= 200 && r->status <= 599, "%s %s: status %d",
		    h->method, h->url, r->status);
	FUZZ_ASSERT(h->route && *h->route, "%s %s: no route", h->method, h->url);
	/* /healthz answers 503 with its status document, not an error */
	if (r->status < 400 || !strcmp(h->route, "/healthz"))
		return;
	FUZZ_ASSERT(r->json && json_object_object_get_ex(r->json, "error", &err) &&
		    json_object_object_get_ex(err, "code", &code) && r->code[0],
		    "%s %s: %d without an error code", h->method, h->url,
		    r->status);
}

/* One request in @s (NUL-terminated, modified in place). */
static void one_request(char *s)
{
	struct http_request h = { .who = "fuzz" };
	struct api_resp r = { 0 };
	struct args a;
	char *line, *body = strstr(s, "\n\n");

	if (body) {
		*body = '\0';
		body += 2;
	}
	line = strsep(&s, "\n");
	h.method = strsep(&line, " ");
	h.url = line;
	if (!h.method || !*h.method || !h.url)
		return;
	split_query(line, &a);
	while (s && (line = strsep(&s, "\n"))) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " ");
		if (!strcasecmp(line, "Content-Type"))
			h.content_type = v;
		else if (!strcasecmp(line, "Authorization"))
			h.authorization = v;
		else if (!strcasecmp(line, "X-Listener"))
			h.tcp = !strcmp(v, "tcp");
	}
	h.body = body;
	h.len = body ? strlen(body) : 0;
	h.conf = famfsd_conf();
	h.too_big = h.len > famfsd_cfg()->max_body;
	h.arg = arg_of;
	h.arg_ctx = &a;
	request_handle(&h, &r);
	check_response(&h, &r);
	json_object_put(r.json);
	free(r.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *all = malloc(size + 1), *s, *next;
	int n = 0;

	if (!all)
		return 0;
	memcpy(all, data, size);
	all[size] = '\0';
	open_store();
	for (s = all; s && n < MAX_REQUESTS; s = next, n++) {
		next = strstr(s, "\n%%\n");
		if (next) {
			*next = '\0';
			next += 4;
		}
		one_request(s);
	}
	free(all);
	return 0;
}
