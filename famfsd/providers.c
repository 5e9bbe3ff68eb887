// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfsd.h"
#include "log.h"
#include "providers.h"
#include "store/store.h"

#define MAX_PROVIDERS 16
#define MAX_PROBLEMS 16

static struct provider providers[MAX_PROVIDERS];
static int nproviders;
static struct famfs_provider_env env = { .log = log_plain };
/* Why famfsd is degraded: every plugin that did not load, a plugin
 * directory that cannot be read, no provider at all (docs/api.md).
 */
static char *problems[MAX_PROBLEMS];
static int nproblems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Log an error and keep it for /healthz and GET /v1/host. */
static void problem(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	log_err("%s", s);
	if (nproblems < MAX_PROBLEMS)
		problems[nproblems++] = s;
	else
		free(s);
}

static int load_one(const char *path)
{
	struct provider *p = &providers[nproviders];
	famfs_provider_entry_fn entry;
	char why[FAMFS_PROVIDER_WHY_LEN] = "";
	void *h;

	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		problem("plugin %s: %s", path, dlerror());
		return -ENOEXEC;
	}
	entry = (famfs_provider_entry_fn)dlsym(h, FAMFS_PROVIDER_ENTRY);
	p->ops = entry ? entry() : NULL;
	if (!p->ops || p->ops->abi != FAMFS_PROVIDER_ABI) {
		problem("plugin %s: %s (want ABI %d, it has %d)", path,
			entry ? "wrong provider ABI" : "no " FAMFS_PROVIDER_ENTRY,
			FAMFS_PROVIDER_ABI, p->ops ? (int)p->ops->abi : -1);
		dlclose(h);
		return -ENOEXEC;
	}
	for (int i = 0; i < nproviders; i++)
		if (!strcmp(providers[i].ops->name, p->ops->name)) {
			log_warn("plugin %s: provider '%s' already loaded from "
				 "%s; skipped", path, p->ops->name,
				 providers[i].path);
			dlclose(h);
			return -EEXIST;
		}
	if (p->ops->init(&env, &p->ctx, why, sizeof(why))) {
		problem("plugin %s: init failed: %s", path, why);
		dlclose(h);
		return -EIO;
	}
	p->handle = h;
	snprintf(p->path, sizeof(p->path), "%s", path);
	nproviders++;
	log_info("loaded provider '%s' from %s", p->ops->name, path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int providers_load(const char *dir)
{
	char *names[64];
	int n = 0;
	struct dirent *de;
	DIR *d;

	env.state_dir = famfsd_cfg()->state_dir;
	if (!dir) {
		problem("no plugin directory configured (plugin_dir, "
			"--plugin-dir): no device providers");
		return 0;
	}
	d = opendir(dir);
	if (!d) {
		int e = errno;

		problem("plugin directory %s: %s; no device providers "
			"(set plugin_dir or --plugin-dir)", dir, strerror(e));
		return -e;
	}
	while ((de = readdir(d)) && n < 64) {
		size_t l = strlen(de->d_name);

		if (l > 3 && !strcmp(de->d_name + l - 3, ".so"))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (nproviders < MAX_PROVIDERS)
			load_one(path);
		else
			problem("plugin %s: more than %d providers; skipped",
				path, MAX_PROVIDERS);
		free(names[i]);
	}
	if (!nproviders && !nproblems)
		problem("plugin directory %s holds no provider (*.so)", dir);
	return 0;
}

int providers_problems(const char ***out)
{
	*out = (const char **)problems;
	return nproblems;
}

void providers_unload(void)
{
	for (int i = 0; i < nproviders; i++) {
		providers[i].ops->fini(providers[i].ctx);
		dlclose(providers[i].handle);
	}
	nproviders = 0;
	for (int i = 0; i < nproblems; i++)
		free(problems[i]);
	nproblems = 0;
}

int providers_count(void)
{
	return nproviders;
}

struct provider *providers_get(int i)
{
	return i >= 0 && i < nproviders ? &providers[i] : NULL;
}

struct provider *providers_find(const char *name)
{
	for (int i = 0; i < nproviders; i++)
		if (!strcmp(providers[i].ops->name, name))
			return &providers[i];
	return NULL;
}

/* Insert or refresh a device row; events on state changes. */
static int upsert(const char *provider, const struct famfs_provider_dev *d,
		  const char *name)
{
	const char *state = d->usable ? "online" : "unusable";
	sqlite3_stmt *st;
	char old[16] = "";
	bool known = false;

	st = store_prep(famfsd.db, "SELECT state FROM devices WHERE path=?");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, d->path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		known = true;
		snprintf(old, sizeof(old), "%s", sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	if (known)
		st = store_prep(famfsd.db, "UPDATE devices SET size=?2, state=?3,"
			" reason=?4, details=?5, seen=?6 WHERE path=?1");
	else
		st = store_prep(famfsd.db, "INSERT INTO devices(path,size,state,"
			"reason,details,seen,created,name,uuid,provider) "
			"VALUES(?1,?2,?3,?4,?5,?6,?6,?7,?8,?9)");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, d->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)d->size);
	sqlite3_bind_text(st, 3, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, d->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, d->details_json ? d->details_json : "{}", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, store_now());
	if (!known) {
		sqlite3_bind_text(st, 7, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, d->uuid, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, provider, -1, SQLITE_STATIC);
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		log_err("devices: cannot record %s: %s", d->path,
			sqlite3_errmsg(famfsd.db));
		sqlite3_finalize(st);
		return -EIO;
	}
	sqlite3_finalize(st);
	if (!known || strcmp(old, state)) {
		char res[128];

		snprintf(res, sizeof(res), "devices/%s", name);
		store_event(famfsd.db, d->usable ? "info" : "warning", res,
			    "%s %s%s%s", d->path, known ? "is now " : "found, ",
			    state, d->usable ? "" : "");
		if (!d->usable)
			store_event(famfsd.db, "warning", res, "%s", d->reason);
	}
	return 0;
}

/* The paths one discovery pass reported: their rows are fresh already. */
struct found_paths {
	char (*path)[FAMFS_PROVIDER_PATH_LEN];
	size_t n, cap;
};

struct found_arg {
	struct provider *p;
	struct found_paths *found;
};

static void found_add(struct found_paths *f, const char *path)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;
		void *np = realloc(f->path, cap * sizeof(*f->path));

		if (!np)
			return;  /* the device is only re-checked: slower, same */
		f->path = np;
		f->cap = cap;
	}
	snprintf(f->path[f->n++], sizeof(*f->path), "%s", path);
}

static bool found_has(const struct found_paths *f, const char *path)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->path[i], path))
			return true;
	return false;
}

static int on_found(void *arg, const struct famfs_provider_dev *d)
{
	struct found_arg *a = arg;

	found_add(a->found, d->path);
	return upsert(a->p->ops->name, d, d->name[0] ? d->name : d->path) ? 1 : 0;
}

/* Re-check the devices we know that discovery did not just report (emul
 * ones exist only in our db; others may have gone). Re-opening the ones it
 * reported cost one full libndctl walk each: quadratic in the namespaces,
 * 5-34 s of a famfsd start in the CXL guest (docs/testing.md).
 */
static void recheck_known(const struct found_paths *found)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
		"SELECT name, provider, path, state FROM devices");
	char (*rows)[3][4096] = NULL;
	int n = 0;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		void *nr = realloc(rows, sizeof(*rows) * (size_t)(n + 1));

		if (!nr)
			break;
		rows = nr;
		for (int c = 0; c < 3; c++)
			snprintf(rows[n][c], 4096, "%s",
				 sqlite3_column_text(st, c));
		n++;
	}
	sqlite3_finalize(st);
	for (int i = 0; i < n; i++) {
		struct provider *p = providers_find(rows[i][1]);
		struct famfs_provider_dev d;
		char why[FAMFS_PROVIDER_WHY_LEN] = "", res[128];

		if (!p || found_has(found, rows[i][2]))
			continue;
		if (!p->ops->open(p->ctx, rows[i][2], &d, why, sizeof(why))) {
			upsert(p->ops->name, &d, rows[i][0]);
			free(d.details_json);
			continue;
		}
		st = store_prep(famfsd.db, "UPDATE devices SET state='missing',"
				" reason=?2 WHERE name=?1 AND state<>'missing'");
		if (!st)
			continue;
		sqlite3_bind_text(st, 1, rows[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, why, -1, SQLITE_STATIC);
		sqlite3_step(st);
		if (sqlite3_changes(famfsd.db)) {
			snprintf(res, sizeof(res), "devices/%s", rows[i][0]);
			store_event(famfsd.db, "warning", res, "missing: %s", why);
		}
		sqlite3_finalize(st);
	}
	free(rows);
}

int providers_discover(json_object **topology)
{
	json_object *top = json_object_new_object();
	struct found_paths found = { 0 };

	for (int i = 0; i < nproviders; i++) {
		struct provider *p = &providers[i];
		struct found_arg a = { p, &found };
		char why[FAMFS_PROVIDER_WHY_LEN] = "", *tj = NULL;

		if (p->ops->discover(p->ctx, on_found, &a, &tj, why,
				     sizeof(why)))
			log_err("provider %s: discovery failed: %s",
				p->ops->name, why);
		if (tj) {
			json_object *t = json_tokener_parse(tj);

			if (t)
				json_object_object_add(top, p->ops->name, t);
			free(tj);
		}
	}
	recheck_known(&found);
	free(found.path);
	if (topology)
		*topology = top;
	else
		json_object_put(top);
	return 0;
}
