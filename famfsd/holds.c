// SPDX-License-Identifier: Apache-2.0
/* Holds and their pins: see holds.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "famfsd.h"
#include "holds.h"
#include "jobs/generation.h"
#include "jobs/jobs.h"
#include "log.h"
#include "mounts/backend.h"
#include "store/store.h"

#define TICK_EVERY 5   /* seconds between pin checks */

static const char *text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

bool holds_owner_valid(const char *o)
{
	size_t n = o ? strlen(o) : 0;

	if (n < 1 || n > 128 || !((o[0] >= 'A' && o[0] <= 'Z') ||
				  (o[0] >= 'a' && o[0] <= 'z') ||
				  (o[0] >= '0' && o[0] <= '9')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((o[i] >= 'A' && o[i] <= 'Z') || (o[i] >= 'a' && o[i] <= 'z') ||
		      (o[i] >= '0' && o[i] <= '9') || strchr("._:@-", o[i])))
			return false;
	return true;
}

static const char *pin_dir(void)
{
	const char *d = famfsd_cfg()->holds_pin_dir;

	return d && *d ? d : HOLDS_PIN_DIR_DEFAULT;
}

void holds_pin_path(char *buf, size_t len, const char *dataset, long long gen)
{
	snprintf(buf, len, "%s/%s/%lld", pin_dir(), dataset, gen);
}

static int mkdir_p(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -errno : 0;
}

/* A pin that is a bind mount of @mnt as it is now: a pin of a FUSE
 * server that died (and was started again) has the old connection's
 * device. Read from mountinfo only: a hung FUSE server cannot block the
 * check, which runs under the state lock.
 */
static bool pin_alive(const char *pin, const char *mnt)
{
	char a[64], b[64];

	return mountinfo_dev(pin, a, sizeof(a)) &&
	       mountinfo_dev(mnt, b, sizeof(b)) && !strcmp(a, b);
}

/* The read-only bind mount of @src at @pin. */
static int pin_make(const char *src, const char *pin, char *why, size_t len)
{
	int r = mkdir_p(pin);

	if (!r && mount(src, pin, NULL, MS_BIND, NULL))
		r = -errno;
	else if (!r && mount(NULL, pin, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY,
			     NULL)) {
		r = -errno;
		umount2(pin, MNT_DETACH);
	}
	if (r)
		snprintf(why, len, "cannot pin %s at %s: %s", src, pin,
			 strerror(-r));
	return r;
}

/* Lazily: a reader with files open in the pin keeps reading them. */
static void pin_drop(const char *pin)
{
	char parent[4096], *slash;

	while (mountinfo_has(pin) && !umount2(pin, MNT_DETACH))
		;
	rmdir(pin);
	snprintf(parent, sizeof(parent), "%s", pin);
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		rmdir(parent);   /* the dataset's: gone with its last pin */
	}
}

int holds_pick_mount(const char *fs, struct hold_mount *m)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT name, path, role, "
		"state FROM mounts WHERE filesystem=? ORDER BY "
		"state='mounted' DESC, role='master' DESC, name LIMIT 1");
	int r = -ENOENT;

	store_bind_text(st, 1, fs);
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		snprintf(m->name, sizeof(m->name), "%s", text(st, 0));
		snprintf(m->path, sizeof(m->path), "%s", text(st, 1));
		snprintf(m->role, sizeof(m->role), "%s", text(st, 2));
		snprintf(m->state, sizeof(m->state), "%s", text(st, 3));
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

static bool exists_on(const struct hold_mount *m, const char *path)
{
	char p[8200];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", m->path, path);
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

void holds_prev_retired(const char *dataset, char *buf, size_t len)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT path FROM "
		"dataset_generations WHERE dataset=? AND state='kept' ORDER BY "
		"retired DESC LIMIT 1");

	buf[0] = '\0';
	store_bind_text(st, 1, dataset);
	if (st && sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, len, "%s", text(st, 0));
	sqlite3_finalize(st);
}

bool holds_visible(const struct hold_mount *m, const char *gen_path,
		   const char *prev)
{
	if (strcmp(m->state, "mounted") || !exists_on(m, gen_path))
		return false;
	return !strcmp(m->role, "master") || !prev[0] || exists_on(m, prev);
}

/* How many holds generation @gen of @dataset has. */
static int gen_holds(const char *dataset, long long gen)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT count(*) FROM holds "
				      "WHERE dataset=? AND generation=?");
	int n = 0;

	store_bind_text(st, 1, dataset);
	if (st) {
		sqlite3_bind_int64(st, 2, gen);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

bool holds_pin_ready(const char *dataset, long long gen,
		     const struct hold_mount *m)
{
	char pin[4200];

	holds_pin_path(pin, sizeof(pin), dataset, gen);
	return gen_holds(dataset, gen) && pin_alive(pin, m->path);
}

int holds_pin_make(const char *dataset, long long gen, const char *gen_path,
		   const struct hold_mount *m, char *why, size_t len)
{
	char pin[4200], src[8200];

	holds_pin_path(pin, sizeof(pin), dataset, gen);
	snprintf(src, sizeof(src), "%s%s", m->path, gen_path);
	if (mountinfo_has(pin))
		pin_drop(pin);   /* a dead one, or left by a crash */
	return pin_make(src, pin, why, len);
}

int holds_record(const char *dataset, long long gen, const char *gen_path,
		 const struct hold_mount *m, const char *owner,
		 const char *note, int64_t *id, char *why, size_t len)
{
	char pin[4200];
	sqlite3_stmt *st;
	int r;

	holds_pin_path(pin, sizeof(pin), dataset, gen);
	/* the generation's last other hold was released since the pin was
	 * checked: its pin went with it
	 */
	if (!pin_alive(pin, m->path) &&
	    (r = holds_pin_make(dataset, gen, gen_path, m, why, len)))
		return r;
	st = store_prep(famfsd.db, "INSERT INTO holds (dataset, generation, "
			"owner, note, path, mount, created) VALUES "
			"(?, ?, ?, ?, ?, ?, ?)");
	if (st) {
		store_bind_text(st, 1, dataset);
		sqlite3_bind_int64(st, 2, gen);
		store_bind_text(st, 3, owner);
		store_bind_text(st, 4, note ? note : "");
		store_bind_text(st, 5, pin);
		store_bind_text(st, 6, m->name);
		sqlite3_bind_int64(st, 7, store_now());
	}
	r = st && sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	if (r) {
		snprintf(why, len, "cannot record the hold: %s",
			 sqlite3_errmsg(famfsd.db));
		if (!gen_holds(dataset, gen))
			pin_drop(pin);
		return r;
	}
	*id = sqlite3_last_insert_rowid(famfsd.db);
	store_event(famfsd.db, "info", "holds", "dataset %s: %s holds "
		    "generation %lld (pin %s)", dataset, owner, gen, pin);
	return 0;
}

/* The generation @gen of @dataset lost its last hold: its pin goes, and
 * what is beyond `keep` now is removed by a job.
 */
static void last_hold_gone(const char *dataset, long long gen, const char *pin)
{
	json_object *p = json_object_new_object();
	char why[256];
	int64_t id;

	pin_drop(pin);
	json_object_object_add(p, "dataset", json_object_new_string(dataset));
	if (jobs_submit("dataset_expire", p, &id, why, sizeof(why)))
		log_warn("dataset %s: generation %lld is no longer held, but "
			 "its expiry cannot be started: %s", dataset, gen, why);
	json_object_put(p);
}

int holds_release(const char *dataset, const char *owner, const char *reason)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "DELETE FROM holds WHERE "
		"owner=?1 AND (?2 IS NULL OR dataset=?2) RETURNING dataset, "
		"generation, path");
	struct gone { char dataset[64], pin[4200]; long long gen; } *v = NULL;
	int n = 0, r = 0;

	if (!st)
		return -EIO;
	store_bind_text(st, 1, owner);
	store_bind_text(st, 2, dataset);
	while (!r && (r = sqlite3_step(st)) == SQLITE_ROW) {
		struct gone *w = realloc(v, (n + 1) * sizeof(*v));

		if (!w) {
			r = -ENOMEM;
			break;
		}
		v = w;
		snprintf(v[n].dataset, sizeof(v[n].dataset), "%s", text(st, 0));
		v[n].gen = sqlite3_column_int64(st, 1);
		snprintf(v[n].pin, sizeof(v[n].pin), "%s", text(st, 2));
		n++;
		r = 0;
	}
	r = r == SQLITE_DONE || r == 0 ? 0 : r < 0 ? r : -EIO;
	sqlite3_finalize(st);
	for (int i = 0; !r && i < n; i++) {
		store_event(famfsd.db, "info", "holds", "dataset %s: %s released "
			    "generation %lld (%s)", v[i].dataset, owner, v[i].gen,
			    reason);
		if (!gen_holds(v[i].dataset, v[i].gen))
			last_hold_gone(v[i].dataset, v[i].gen, v[i].pin);
	}
	free(v);
	return r ? r : n;
}

/* The owners @sql selects with @key, ", "-separated into @buf. */
static int owners_of(const char *sql, const char *key, char *buf, size_t len)
{
	sqlite3_stmt *st = store_prep(famfsd.db, sql);
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	store_bind_text(st, 1, key);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 n ? ", " : "", text(st, 0));
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

int holds_owners(const char *dataset, char *buf, size_t len)
{
	return owners_of("SELECT owner FROM holds WHERE dataset=? ORDER BY id",
			 dataset, buf, len);
}

int holds_on_mount(const char *mount, char *buf, size_t len)
{
	return owners_of("SELECT owner FROM holds WHERE mount=? ORDER BY id",
			 mount, buf, len);
}

/* Re-make the pin of one held generation from a mount that is up. */
static void repair(const char *dataset, long long gen, const char *pin)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT d.filesystem, g.path "
		"FROM datasets d JOIN dataset_generations g ON g.dataset=d.name "
		"WHERE d.name=? AND g.generation=? AND g.state <> 'removed'");
	char fs[128] = "", gpath[4096] = "", src[8200], why[512];
	struct hold_mount m;

	store_bind_text(st, 1, dataset);
	if (st) {
		sqlite3_bind_int64(st, 2, gen);
		if (sqlite3_step(st) == SQLITE_ROW) {
			snprintf(fs, sizeof(fs), "%s", text(st, 0));
			snprintf(gpath, sizeof(gpath), "%s", text(st, 1));
		}
	}
	sqlite3_finalize(st);
	if (!fs[0] || holds_pick_mount(fs, &m) || strcmp(m.state, "mounted") ||
	    !exists_on(&m, gpath))
		return;   /* not yet: the next tick tries again */
	if (mountinfo_has(pin))
		pin_drop(pin);
	snprintf(src, sizeof(src), "%s%s", m.path, gpath);
	if (pin_make(src, pin, why, sizeof(why))) {
		log_warn("dataset %s: %s", dataset, why);
		return;
	}
	st = store_prep(famfsd.db, "UPDATE holds SET mount=?3 WHERE dataset=?1 "
			"AND generation=?2");
	store_bind_text(st, 1, dataset);
	if (st) {
		sqlite3_bind_int64(st, 2, gen);
		store_bind_text(st, 3, m.name);
		sqlite3_step(st);
	}
	sqlite3_finalize(st);
	store_event(famfsd.db, "info", "holds", "dataset %s: pin of generation "
		    "%lld made again at %s (from mount %s)", dataset, gen, pin,
		    m.name);
}

void holds_tick(void)
{
	static time_t last;
	time_t now = time(NULL);
	sqlite3_stmt *st;

	if (now - last < TICK_EVERY)
		return;
	/* a switch in progress: the store does not yet say where its trees
	 * are; the next tick sees it recorded
	 */
	if (!gen_trylock())
		return;
	last = now;
	st = store_prep(famfsd.db, "SELECT DISTINCT h.dataset, h.generation, "
			"h.path, coalesce(m.path, '') FROM holds h LEFT JOIN "
			"mounts m ON m.name=h.mount ORDER BY h.dataset, "
			"h.generation");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		if (!pin_alive(text(st, 2), text(st, 3)))
			repair(text(st, 0), sqlite3_column_int64(st, 1),
			       text(st, 2));
	}
	sqlite3_finalize(st);
	gen_unlock();
}
