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
 *   (Header: value LF)*        Content-Type, Authorization, X-Listener: tcp,
 *                              X-Access: none|read (the socket peer's;
 *                              write when absent)
 *   LF
 *   body
 */
#include <errno.h>
#include <stdbool.h>
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

static int names_of(void *ctx, const char **names, int max)
{
	struct args *a = ctx;

	for (int i = 0; i < a->n && i < max; i++)
		names[i] = a->key[i];
	return a->n;
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
	snprintf(conf->read_token, sizeof(conf->read_token), "fuzzreadtoken");
	atomic_init(&conf->refs, 1);
	conf_publish(conf);
	snprintf(famfsd.db_path, sizeof(famfsd.db_path), "%s/" STORE_DB_NAME,
		 state_dir);
	jobs_builtin_init();
	providers_load(famfsd_cfg()->plugin_dir);
	return 0;
}

/*
 * The store every input starts from: one in-memory database, migrated
 * once, whose rows are put back after every input that changed any. The
 * freshly migrated rows of every table are kept in an attached database
 * ("pristine"); a reset empties each table of main that the input
 * changed (sqlite3_update_hook(); with the tables that reference it and
 * sqlite_sequence, which the hook does not report) and copies its
 * pristine rows back, through statements prepared once, so that the
 * schema stays parsed and the pages stay allocated. (Copying a migrated
 * template over the store with SQLite's backup API, as before, changed
 * the schema cookie: SQLite re-parsed the schema and re-allocated every
 * page per input, over half of this target's time.) Nothing here opens
 * famfsd.db_path: the only second connection is the ingest job's, and
 * the job runner is not kicked.
 */
#define MAX_TABLES 32 /* the bits of a uint32_t */

static struct {
	sqlite3_stmt *begin, *commit;
	/* in foreign-key order: a table after the tables it references */
	char *name[MAX_TABLES];
	sqlite3_stmt *del[MAX_TABLES], *ins[MAX_TABLES]; /* ins: NULL if none */
	uint32_t parents[MAX_TABLES]; /* bit i: references table i */
	uint32_t dirty;                /* bit i: the input changed table i */
	int ntables;
	sqlite3_int64 changes; /* sqlite3_total_changes64() after the reset */
} reset;

static void die_sql(const char *what)
{
	fprintf(stderr, "fuzz_api: %s: %s\n", what, sqlite3_errmsg(famfsd.db));
	abort();
}

static sqlite3_stmt *prep_or_die(const char *sql)
{
	sqlite3_stmt *st = store_prep(famfsd.db, sql);

	if (!st)
		die_sql(sql);
	return st;
}

static void step_or_die(sqlite3_stmt *st)
{
	int r = sqlite3_step(st);

	if (r != SQLITE_DONE && r != SQLITE_ROW)
		die_sql(sqlite3_sql(st));
	sqlite3_reset(st);
}

/* Keep the rows of main.@table in pristine and prepare its reset. */
static void keep_table(char *table)
{
	char sql[256];
	int n = reset.ntables++;
	sqlite3_stmt *st;

	reset.name[n] = table;
	snprintf(sql, sizeof(sql), "CREATE TABLE pristine.\"t_%s\" AS "
		 "SELECT * FROM main.\"%s\"", table, table);
	if (store_exec(famfsd.db, sql))
		die_sql(sql);
	snprintf(sql, sizeof(sql), "DELETE FROM main.\"%s\"", table);
	reset.del[n] = prep_or_die(sql);
	snprintf(sql, sizeof(sql), "SELECT 1 FROM pristine.\"t_%s\"", table);
	st = prep_or_die(sql);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(sql, sizeof(sql), "INSERT INTO main.\"%s\" SELECT * "
			 "FROM pristine.\"t_%s\"", table, table);
		reset.ins[n] = prep_or_die(sql);
	}
	sqlite3_finalize(st);
	st = prep_or_die("SELECT \"table\" FROM pragma_foreign_key_list(?)");
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < n; i++)
			if (!strcmp(reset.name[i],
				    (const char *)sqlite3_column_text(st, 0)))
				reset.parents[n] |= 1u << i;
	sqlite3_finalize(st);
}

static void mark_dirty(void *arg, int op, const char *db, const char *table,
		       sqlite3_int64 rowid)
{
	(void)arg;
	(void)op;
	(void)rowid;
	if (strcmp(db, "main"))
		return;
	for (int i = 0; i < reset.ntables; i++)
		if (!strcmp(reset.name[i], table))
			reset.dirty |= 1u << i;
}

/* Does @table reference a table not yet in @placed (itself excepted)? */
static bool waits_for_parent(const char *table, char **placed, int nplaced)
{
	sqlite3_stmt *st = prep_or_die("SELECT \"table\" FROM "
				       "pragma_foreign_key_list(?)");
	bool waits = false;

	sqlite3_bind_text(st, 1, table, -1, SQLITE_TRANSIENT);
	while (!waits && sqlite3_step(st) == SQLITE_ROW) {
		const char *parent = (const char *)sqlite3_column_text(st, 0);
		bool found = !strcmp(parent, table);

		for (int i = 0; i < nplaced && !found; i++)
			found = !strcmp(placed[i], parent);
		waits = !found;
	}
	sqlite3_finalize(st);
	return waits;
}

static void open_store(void)
{
	char *names[MAX_TABLES], *placed[MAX_TABLES], err[512];
	int n = 0, nplaced = 0;
	sqlite3_stmt *st;

	if (store_open(":memory:", &famfsd.db, err, sizeof(err))) {
		fprintf(stderr, "fuzz_api: %s\n", err);
		abort();
	}
	famfsd.started = store_now();
	store_kv_set(famfsd.db, "host.name", famfsd_cfg()->host_name);
	if (store_exec(famfsd.db, "ATTACH ':memory:' AS pristine"))
		die_sql("ATTACH");
	/* every table, sqlite_sequence included (AUTOINCREMENT ids) */
	st = prep_or_die("SELECT name FROM main.sqlite_master "
			 "WHERE type = 'table' ORDER BY name");
	while (sqlite3_step(st) == SQLITE_ROW) {
		FUZZ_ASSERT(n < MAX_TABLES, "more than %d tables", MAX_TABLES);
		names[n++] = strdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	/*
	 * Parents first, so that the reset needs no PRAGMA foreign_keys=OFF
	 * (a flag pragma expires every prepared statement: each would be
	 * prepared again per input).
	 */
	while (nplaced < n) {
		int before = nplaced;

		for (int i = 0; i < n; i++)
			if (names[i] && !waits_for_parent(names[i], placed, nplaced)) {
				placed[nplaced++] = names[i];
				keep_table(names[i]);
				names[i] = NULL;
			}
		FUZZ_ASSERT(nplaced > before, "a cycle of foreign keys");
	}
	sqlite3_update_hook(famfsd.db, mark_dirty, NULL);
	reset.begin = prep_or_die("BEGIN");
	reset.commit = prep_or_die("COMMIT");
	reset.changes = sqlite3_total_changes64(famfsd.db);
}

static void reset_store(void)
{
	uint32_t dirty;

	/* a request that left its transaction open is a bug of its own */
	FUZZ_ASSERT(sqlite3_get_autocommit(famfsd.db),
		    "a request left a transaction open");
	if (sqlite3_total_changes64(famfsd.db) == reset.changes)
		return;
	dirty = reset.dirty;
	for (int i = 0; i < reset.ntables; i++)
		if (reset.parents[i] & dirty ||
		    !strcmp(reset.name[i], "sqlite_sequence"))
			dirty |= 1u << i;
	step_or_die(reset.begin);
	for (int i = reset.ntables - 1; i >= 0; i--)
		if (dirty & 1u << i)
			step_or_die(reset.del[i]);
	for (int i = 0; i < reset.ntables; i++)
		if (dirty & 1u << i && reset.ins[i])
			step_or_die(reset.ins[i]);
	step_or_die(reset.commit);
	reset.dirty = 0;
	reset.changes = sqlite3_total_changes64(famfsd.db);
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
	struct http_request h = { .who = "fuzz", .access = ACCESS_WRITE };
	struct api_resp r = { 0 };
	struct args a;
	char *line, *body = strstr(s, "\n\n"), *raw = NULL;

	if (body) {
		*body = '\0';
		body += 2;
	}
	line = strsep(&s, "\n");
	h.method = strsep(&line, " ");
	h.url = line;
	if (!h.method || !*h.method || !h.url)
		return;
	/* the request line is the raw URL; its path goes to the handlers
	 * undecoded (the server decodes; url_check() sees the raw bytes) */
	raw = strdup(h.url);
	h.raw_url = raw;
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
		else if (!strcasecmp(line, "X-Access"))
			h.access = !strcmp(v, "read") ? ACCESS_READ
				   : !strcmp(v, "none") ? ACCESS_NONE
				   : ACCESS_WRITE;
	}
	h.body = body;
	h.len = body ? strlen(body) : 0;
	h.conf = famfsd_conf();
	h.too_big = h.len > famfsd_cfg()->max_body;
	h.arg = arg_of;
	h.arg_names = names_of;
	h.arg_ctx = &a;
	request_handle(&h, &r);
	check_response(&h, &r);
	json_object_put(r.json);
	free(r.text);
	free(raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *all = malloc(size + 1), *s, *next;
	int n = 0;

	if (!all)
		return 0;
	memcpy(all, data, size);
	all[size] = '\0';
	if (!famfsd.db)
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
	reset_store();
	return 0;
}
