// SPDX-License-Identifier: Apache-2.0
/* Prometheus text exposition (format 0.0.4). Names: docs/metrics.md. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "famfsd.h"
#include "fsview.h"
#include "jobs/jobs.h"
#include "datasets.h"
#include "holds.h"
#include "metrics.h"
#include "store/store.h"

#define MAX_ROUTES 64
#define MAX_COUNTERS 256
/* filesystems with an ingest counter; famfsd opens at most 64 */
#define MAX_INGEST_FS 64

static const double buckets[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 };
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

struct route_hist {
	char route[48];
	uint64_t bucket[NBUCKETS];
	uint64_t count;
	double sum;
};

struct req_counter {
	char route[48];
	char method[8];
	int code;
	uint64_t n;
};

/* What ingest jobs copied into each filesystem since famfsd started. */
struct ingest_counter {
	char fs[128];
	uint64_t bytes, files;
};

static struct route_hist hists[MAX_ROUTES];
static struct req_counter counters[MAX_COUNTERS];
static struct ingest_counter ingests[MAX_INGEST_FS];
static pthread_mutex_t mlock = PTHREAD_MUTEX_INITIALIZER;

/* The method is the client's word: only the ones HTTP defines become a
 * label value, anything else is "other", so the table cannot be filled.
 */
static const char *method_label(const char *method)
{
	static const char *const known[] = { "GET", "HEAD", "POST", "PUT",
		"PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(method, known[i]))
			return known[i];
	return "other";
}

void metrics_observe(const char *route, const char *method, int status,
		     double seconds)
{
	method = method_label(method);
	pthread_mutex_lock(&mlock);
	for (int i = 0; i < MAX_COUNTERS; i++) {
		struct req_counter *c = &counters[i];

		if (!c->route[0]) {
			snprintf(c->route, sizeof(c->route), "%s", route);
			snprintf(c->method, sizeof(c->method), "%s", method);
			c->code = status;
		}
		if (c->code == status && !strcmp(c->route, route) &&
		    !strcmp(c->method, method)) {
			c->n++;
			break;
		}
	}
	for (int i = 0; i < MAX_ROUTES; i++) {
		struct route_hist *h = &hists[i];

		if (!h->route[0])
			snprintf(h->route, sizeof(h->route), "%s", route);
		if (strcmp(h->route, route))
			continue;
		for (size_t b = 0; b < NBUCKETS; b++)
			if (seconds <= buckets[b])
				h->bucket[b]++;
		h->count++;
		h->sum += seconds;
		break;
	}
	pthread_mutex_unlock(&mlock);
}

void metrics_ingest_add(const char *fs, uint64_t bytes, uint64_t files)
{
	pthread_mutex_lock(&mlock);
	for (int i = 0; i < MAX_INGEST_FS; i++) {
		struct ingest_counter *c = &ingests[i];

		if (!c->fs[0])
			snprintf(c->fs, sizeof(c->fs), "%s", fs);
		if (!strcmp(c->fs, fs)) {
			c->bytes += bytes;
			c->files += files;
			break;
		}
	}
	pthread_mutex_unlock(&mlock);
}

/* The counter of @fs; zeros when nothing was ingested into it yet. */
static struct ingest_counter ingest_counter_of(const char *fs)
{
	struct ingest_counter c = { .bytes = 0 };

	pthread_mutex_lock(&mlock);
	for (int i = 0; i < MAX_INGEST_FS && ingests[i].fs[0]; i++)
		if (!strcmp(ingests[i].fs, fs))
			c = ingests[i];
	pthread_mutex_unlock(&mlock);
	return c;
}

static void help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

static void http_metrics(FILE *f)
{
	pthread_mutex_lock(&mlock);
	help(f, "famfsd_http_requests_total", "counter",
	     "API requests by route template, method and status code.");
	for (int i = 0; i < MAX_COUNTERS && counters[i].route[0]; i++)
		fprintf(f, "famfsd_http_requests_total{route=\"%s\",method=\"%s\","
			"code=\"%d\"} %llu\n", counters[i].route,
			counters[i].method, counters[i].code,
			(unsigned long long)counters[i].n);
	help(f, "famfsd_http_request_duration_seconds", "histogram",
	     "API request handling time by route template.");
	for (int i = 0; i < MAX_ROUTES && hists[i].route[0]; i++) {
		struct route_hist *h = &hists[i];

		for (size_t b = 0; b < NBUCKETS; b++)
			fprintf(f, "famfsd_http_request_duration_seconds_bucket"
				"{route=\"%s\",le=\"%g\"} %llu\n", h->route,
				buckets[b], (unsigned long long)h->bucket[b]);
		fprintf(f, "famfsd_http_request_duration_seconds_bucket{route="
			"\"%s\",le=\"+Inf\"} %llu\n", h->route,
			(unsigned long long)h->count);
		fprintf(f, "famfsd_http_request_duration_seconds_sum{route="
			"\"%s\"} %.9f\n", h->route, h->sum);
		fprintf(f, "famfsd_http_request_duration_seconds_count{route="
			"\"%s\"} %llu\n", h->route, (unsigned long long)h->count);
	}
	pthread_mutex_unlock(&mlock);
}

/* Label values: escape backslash, quote and newline. */
static const char *lv(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s && *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			buf[o++] = '\\';
			buf[o++] = *s == '\n' ? 'n' : *s;
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = 0;
	return buf;
}

static void sum_map(const struct famfs_fmap *m, uint64_t *used, unsigned ndev)
{
	for (unsigned i = 0; m && i < m->nitems; i++)
		if (m->items[i].dev_index < ndev)
			used[m->items[i].dev_index] += m->items[i].length;
}

static void walk_used(struct famfs_node *dir, uint64_t *used, unsigned ndev)
{
	for (struct famfs_node *c = famfs_node_first_child(dir); c;
	     c = famfs_node_next_sibling(c)) {
		sum_map(famfs_node_map(c), used, ndev);
		if (famfs_node_is_dir(c))
			walk_used(c, used, ndev);
	}
}

/* Allocated bytes per device of @fs: file maps + reserved areas. */
static void fs_dev_used(struct famfs_fs *fs, uint64_t *used, unsigned ndev)
{
	const struct famfs_superblock *sb = famfs_fs_sb(fs);

	for (unsigned i = 0; i < ndev; i++)
		used[i] = FAMFS_UNIT_SIZE;
	if (ndev)
		used[0] = sb->log_offset + sb->log_size;
	famfs_fs_rdlock(fs);
	walk_used(famfs_root(fs), used, ndev);
	famfs_fs_unlock(fs);
}

struct dev_sample {
	char name[256], provider[256];
	int64_t size, free_b;
	bool online;
};

static void device_metrics(FILE *f)
{
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT d.name, d.provider, "
		"d.size, d.state, f.name, s.idx FROM devices d LEFT JOIN "
		"set_devices s ON s.device=d.name LEFT JOIN filesystems f ON "
		"f.set_name=s.set_name ORDER BY d.name");
	struct dev_sample *v = NULL;
	char err[640];
	int n = 0;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct dev_sample *nv = realloc(v, sizeof(*v) * (size_t)(n + 1));
		struct dev_sample *d;

		if (!nv)
			break;
		v = nv;
		d = &v[n++];
		lv((const char *)sqlite3_column_text(st, 0), d->name,
		   sizeof(d->name));
		lv((const char *)sqlite3_column_text(st, 1), d->provider,
		   sizeof(d->provider));
		d->size = d->free_b = sqlite3_column_int64(st, 2);
		d->online = !strcmp((const char *)sqlite3_column_text(st, 3),
				    "online");
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			struct famfs_fs *fs = fsview_get(
				(const char *)sqlite3_column_text(st, 4), err,
				sizeof(err));
			uint64_t used[FAMFS_MAX_DEVICES] = { 0 };
			unsigned idx = (unsigned)sqlite3_column_int(st, 5);

			if (fs && idx < FAMFS_MAX_DEVICES) {
				fs_dev_used(fs, used, famfs_fs_ndevices(fs));
				d->free_b = d->size - (int64_t)used[idx];
				if (d->free_b < 0)
					d->free_b = 0;
			}
		}
	}
	sqlite3_finalize(st);
	help(f, "famfs_device_capacity_bytes", "gauge", "Size of each device.");
	for (int i = 0; i < n; i++)
		fprintf(f, "famfs_device_capacity_bytes{device=\"%s\",provider="
			"\"%s\"} %lld\n", v[i].name, v[i].provider,
			(long long)v[i].size);
	help(f, "famfs_device_free_bytes", "gauge", "Bytes of each device not "
	     "allocated to files, the log or reserved areas.");
	for (int i = 0; i < n; i++)
		fprintf(f, "famfs_device_free_bytes{device=\"%s\",provider="
			"\"%s\"} %lld\n", v[i].name, v[i].provider,
			(long long)v[i].free_b);
	help(f, "famfs_device_online", "gauge",
	     "1 if the device is present and usable.");
	for (int i = 0; i < n; i++)
		fprintf(f, "famfs_device_online{device=\"%s\",provider=\"%s\"} "
			"%d\n", v[i].name, v[i].provider, v[i].online);
	free(v);
}

#define MAX_SLOTS 64

struct fs_sample {
	char name[256];
	struct famfs_space sp;
	struct famfs_log_status ls;
	int nslots;
	struct famfs_slot_info slots[MAX_SLOTS];
	uint64_t oldest_unreplayed_ns[MAX_SLOTS];  /* 0: caught up */
	bool ok;
};

/* Log walk state: for each slot, the append time of the entry holding
 * the first sequence number the client has not replayed (a batch entry
 * holds several, so it is the last entry starting at or before it).
 */
struct unreplayed_walk {
	struct fs_sample *s;
	uint64_t max_want;
};

static int find_unreplayed(void *arg, uint64_t off,
			   const struct famfs_entry_hdr *h)
{
	struct unreplayed_walk *w = arg;
	struct fs_sample *s = w->s;

	(void)off;
	if (h->seq > w->max_want)
		return 1;   /* past every slot's position: stop early */
	for (int c = 0; c < s->nslots; c++) {
		uint64_t want = s->slots[c].replayed_seq + 1;

		if (s->slots[c].state == FAMFS_SLOT_LIVE && want <= s->ls.last_seq &&
		    h->seq <= want)
			s->oldest_unreplayed_ns[c] = h->logged_ns;
	}
	return 0;
}

/* One walk of the log for all live slots behind the master; none when
 * every client has caught up (the common case costs nothing).
 */
static void sample_unreplayed(struct famfs_fs *fs, struct fs_sample *s)
{
	struct unreplayed_walk w = { .s = s };

	for (int c = 0; c < s->nslots; c++) {
		uint64_t want = s->slots[c].replayed_seq + 1;

		if (s->slots[c].state == FAMFS_SLOT_LIVE &&
		    want <= s->ls.last_seq && want > w.max_want)
			w.max_want = want;
	}
	if (w.max_want)
		famfs_log_walk(fs, find_unreplayed, &w);
}

/* Age of the oldest entry a live client has not replayed, by famfsd's
 * clock against the master's append time; 0 when caught up (or when the
 * clocks disagree so much that the entry seems to come from the future).
 */
static void client_lag_seconds(FILE *f, struct fs_sample *s, int n)
{
	uint64_t now = famfs_now_ns();

	help(f, "famfs_client_follow_lag_seconds", "gauge", "Age of the oldest "
	     "log entry a client slot has not replayed yet; 0 when caught up.");
	for (int i = 0; i < n; i++)
		for (int c = 0; c < s[i].nslots; c++) {
			uint64_t t = s[i].oldest_unreplayed_ns[c];
			char h[64];

			if (s[i].slots[c].state != FAMFS_SLOT_LIVE)
				continue;
			fprintf(f, "famfs_client_follow_lag_seconds{fs=\"%s\","
				"slot=\"%u\",client=\"%s\"} %.3f\n", s[i].name,
				s[i].slots[c].index,
				lv(s[i].slots[c].host_name, h, sizeof(h)),
				t && now > t ? (double)(now - t) / 1e9 : 0.0);
		}
}

static void fs_metrics(FILE *f)
{
	static const struct { const char *name, *type, *help; } m[] = {
		{ "famfs_fs_capacity_bytes", "gauge", "Allocatable bytes." },
		{ "famfs_fs_free_bytes", "gauge", "Allocatable bytes now free." },
		{ "famfs_fs_pending_free_bytes", "gauge", "Deleted bytes waiting "
		  "for every client to replay past the delete." },
		{ "famfs_fs_largest_file_bytes", "gauge", "The largest file the "
		  "allocator places now with the default interleave." },
		{ "famfs_fs_striped_free_bytes", "gauge", "Smallest device's "
		  "free bytes times the device count." },
		{ "famfs_fs_files", "gauge", "Files in the filesystem." },
		{ "famfs_fs_directories", "gauge", "Directories." },
		{ "famfs_fs_log_entries", "gauge", "Valid entries in the log." },
		{ "famfs_fs_log_used_bytes", "gauge", "Log bytes used." },
		{ "famfs_fs_log_capacity_bytes", "gauge", "Log size." },
		{ "famfs_fs_readable", "gauge", "1 if famfsd could read the fs." },
		{ "famfs_fs_log_corrupt", "gauge", "1 if a committed log entry "
		  "fails its check (entries lost; fsck --repair)." },
		{ "famfs_fs_log_lost_entries", "gauge", "Committed entries the "
		  "log proves written but cannot replay." },
	};
	sqlite3_stmt *st = store_prep(famfsd.db,
				      "SELECT name FROM filesystems ORDER BY name");
	struct fs_sample *s = NULL;
	int n = 0;
	char err[640];

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct fs_sample *ns = realloc(s, sizeof(*s) * (size_t)(n + 1));
		struct famfs_fs *fs;

		if (!ns)
			break;
		s = ns;
		memset(&s[n], 0, sizeof(s[n]));
		lv((const char *)sqlite3_column_text(st, 0), s[n].name,
		   sizeof(s[n].name));
		fs = fsview_get((const char *)sqlite3_column_text(st, 0), err,
				sizeof(err));
		if (fs) {
			famfs_statfs(fs, &s[n].sp);
			famfs_log_status(fs, &s[n].ls);
			s[n].nslots = famfs_slots(fs, s[n].slots, MAX_SLOTS);
			sample_unreplayed(fs, &s[n]);
			s[n].ok = true;
		}
		n++;
	}
	sqlite3_finalize(st);
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		help(f, m[k].name, m[k].type, m[k].help);
		for (int i = 0; i < n; i++) {
			uint64_t v[] = { s[i].sp.total_bytes, s[i].sp.free_bytes,
				s[i].sp.pending_bytes,
				s[i].sp.largest_file_bytes,
				s[i].sp.striped_bytes, s[i].sp.nfiles,
				s[i].sp.ndirs, s[i].ls.entries,
				s[i].ls.used_bytes, s[i].ls.size_bytes, s[i].ok,
				s[i].ls.tail_state == FAMFS_TAIL_CORRUPT,
				s[i].ls.tail_state == FAMFS_TAIL_CORRUPT ?
				s[i].ls.corrupt_last - s[i].ls.corrupt_first + 1 : 0 };

			if (s[i].ok || k == sizeof(m) / sizeof(m[0]) - 1)
				fprintf(f, "%s{fs=\"%s\"} %llu\n", m[k].name,
					s[i].name, (unsigned long long)v[k]);
		}
	}
	help(f, "famfs_client_follow_lag_entries", "gauge", "Log entries the "
	     "master has committed that a client slot has not replayed yet.");
	for (int i = 0; i < n; i++)
		for (int c = 0; c < s[i].nslots; c++) {
			char h[64];
			uint64_t last = s[i].ls.last_seq, rep = s[i].slots[c].replayed_seq;

			if (s[i].slots[c].state != FAMFS_SLOT_LIVE)
				continue;
			fprintf(f, "famfs_client_follow_lag_entries{fs=\"%s\","
				"slot=\"%u\",client=\"%s\"} %llu\n", s[i].name,
				s[i].slots[c].index,
				lv(s[i].slots[c].host_name, h, sizeof(h)),
				(unsigned long long)(last > rep ? last - rep : 0));
		}
	client_lag_seconds(f, s, n);
	free(s);
}

static void mount_metrics(FILE *f)
{
	static const char *states[] = { "starting", "mounted", "failed",
		"stopping", "unmounted" };
	const char *sql = "SELECT name, filesystem, role, state, restarts "
			  "FROM mounts ORDER BY name";
	sqlite3_stmt *st = store_prep(famfsd.db, sql);
	char a[256], b[256];

	help(f, "famfs_mount_state", "gauge", "1 for the current state of each "
	     "mount, 0 for the others.");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 3);

		lv((const char *)sqlite3_column_text(st, 0), a, sizeof(a));
		lv((const char *)sqlite3_column_text(st, 1), b, sizeof(b));
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
			fprintf(f, "famfs_mount_state{mount=\"%s\",fs=\"%s\","
				"role=\"%s\",state=\"%s\"} %d\n", a, b,
				sqlite3_column_text(st, 2), states[i],
				!strcmp(state, states[i]));
	}
	sqlite3_finalize(st);
	st = store_prep(famfsd.db, sql);
	help(f, "famfs_mount_restarts_total", "counter",
	     "Times famfsd restarted the mount's server.");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		lv((const char *)sqlite3_column_text(st, 0), a, sizeof(a));
		lv((const char *)sqlite3_column_text(st, 1), b, sizeof(b));
		fprintf(f, "famfs_mount_restarts_total{mount=\"%s\",fs=\"%s\"} "
			"%d\n", a, b, sqlite3_column_int(st, 4));
	}
	sqlite3_finalize(st);
}

static const char *const job_states[] = { "queued", "running", "succeeded",
	"failed", "cancelled" };
#define NJOB_STATES (sizeof(job_states) / sizeof(job_states[0]))

/* A job's kind as a label: a registered kind, or "other" for rows of a
 * kind this famfsd no longer knows, so the label set stays bounded.
 */
static int job_kind_index(const char *kind, int nkinds)
{
	for (int k = 0; k < nkinds; k++)
		if (!strcmp(jobs_kind_name(k), kind))
			return k;
	return nkinds;
}

static void job_metrics(FILE *f)
{
	int nkinds = 0;

	while (jobs_kind_name(nkinds))
		nkinds++;
	/* one row per registered kind, the last for "other" */
	int (*count)[NJOB_STATES] = calloc((size_t)nkinds + 1, sizeof(*count));
	sqlite3_stmt *st = store_prep(famfsd.db, "SELECT kind, state, count(*)"
				      " FROM jobs GROUP BY kind, state");

	while (count && st && sqlite3_step(st) == SQLITE_ROW) {
		int k = job_kind_index((const char *)sqlite3_column_text(st, 0),
				       nkinds);

		for (size_t i = 0; i < NJOB_STATES; i++)
			if (!strcmp((const char *)sqlite3_column_text(st, 1),
				    job_states[i]))
				count[k][i] += sqlite3_column_int(st, 2);
	}
	sqlite3_finalize(st);
	help(f, "famfsd_jobs", "gauge", "Jobs by kind and state.");
	for (int k = 0; count && k <= nkinds; k++) {
		int any = 0;

		for (size_t i = 0; i < NJOB_STATES; i++)
			any += count[k][i];
		if (k == nkinds && !any)
			break;   /* "other" only when there is such a job */
		for (size_t i = 0; i < NJOB_STATES; i++)
			fprintf(f, "famfsd_jobs{kind=\"%s\",state=\"%s\"} %d\n",
				k < nkinds ? jobs_kind_name(k) : "other",
				job_states[i], count[k][i]);
	}
	free(count);
}

/* Per existing filesystem, so a filesystem nothing was ingested into yet
 * shows 0 (rate() needs the series before the first job).
 */
static void ingest_metrics(FILE *f)
{
	sqlite3_stmt *st = store_prep(famfsd.db,
				      "SELECT name FROM filesystems ORDER BY name");
	struct ingest_counter c[MAX_INGEST_FS];
	char name[MAX_INGEST_FS][sizeof(ingests[0].fs)];
	int n = 0;

	while (st && n < MAX_INGEST_FS && sqlite3_step(st) == SQLITE_ROW) {
		const char *fs = (const char *)sqlite3_column_text(st, 0);

		c[n] = ingest_counter_of(fs);
		lv(fs, name[n++], sizeof(name[0]));
	}
	sqlite3_finalize(st);
	help(f, "famfs_ingest_bytes_total", "counter", "Bytes ingest jobs "
	     "copied into each filesystem since famfsd started.");
	for (int i = 0; i < n; i++)
		fprintf(f, "famfs_ingest_bytes_total{fs=\"%s\"} %llu\n", name[i],
			(unsigned long long)c[i].bytes);
	help(f, "famfs_ingest_files_total", "counter", "Files ingest jobs "
	     "copied into each filesystem since famfsd started.");
	for (int i = 0; i < n; i++)
		fprintf(f, "famfs_ingest_files_total{fs=\"%s\"} %llu\n", name[i],
			(unsigned long long)c[i].files);
}

char *metrics_render(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	help(f, "famfsd_build_info", "gauge", "famfsd version.");
	fprintf(f, "famfsd_build_info{version=\"%s\",schema=\"%d\"} 1\n",
		FAMFSD_VERSION, store_schema_version());
	help(f, "famfsd_start_time_seconds", "gauge",
	     "Unix time famfsd started.");
	fprintf(f, "famfsd_start_time_seconds %lld\n", (long long)famfsd.started);
	http_metrics(f);
	device_metrics(f);
	fs_metrics(f);
	mount_metrics(f);
	job_metrics(f);
	ingest_metrics(f);
	dataset_metrics(f);
	holds_metrics(f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
