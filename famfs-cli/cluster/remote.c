// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h> /* before client.h, which uses FILE */
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "cluster/remote.h"
#include "killpoint.h"

#define REMOTE_TIMEOUT_MS 300000L /* mkfs and emul creation take a while */

static char *read_token(const char *file, char **err)
{
	char line[512] = "";
	FILE *f = fopen(file, "re");

	if (!f) {
		if (asprintf(err, "cannot read token file %s: %s", file,
			     strerror(errno)) < 0)
			*err = NULL;
		return NULL;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	return strdup(line);
}

static void set_error(struct host_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_error(struct host_state *s, const char *fmt, ...)
{
	va_list ap;
	int r;

	free(s->error);
	va_start(ap, fmt);
	r = vasprintf(&s->error, fmt, ap);
	va_end(ap);
	if (r < 0)
		s->error = NULL;
}

static void read_host(struct remote *r, size_t i)
{
	const struct cl_host *h = &r->c->hosts[i];
	struct host_state *s = &r->states[i];
	json_object *bodies[ST_NBODIES] = { NULL };
	char *token = NULL, *err = NULL;

	if (h->token_file && !(token = read_token(h->token_file, &err))) {
		s->error = err;
		return;
	}
	r->clients[i] = famfs_client_open(h->endpoint, token);
	free(token);
	if (!r->clients[i]) {
		set_error(s, "cannot open a client for %s: %s", h->endpoint,
			  strerror(errno));
		return;
	}
	famfs_client_set_timeout(r->clients[i], REMOTE_TIMEOUT_MS);
	for (int b = 0; b < ST_NBODIES; b++) {
		long status;
		int rc = famfs_client_request(r->clients[i], "GET",
					      state_paths[b], NULL, &status,
					      &bodies[b], &err);
		if (rc == 1 && status == 404 && b == ST_DATASETS) {
			/* a famfsd from before datasets: none recorded */
			free(err);
			err = NULL;
			json_object_put(bodies[b]);
			bodies[b] = NULL;
			continue;
		}
		if (rc) {
			set_error(s, "%s: GET %s: %s", h->endpoint,
				  state_paths[b], err ? err : "failed");
			free(err);
			for (int k = 0; k <= b; k++)
				json_object_put(bodies[k]);
			return;
		}
	}
	if (state_parse(s, bodies) < 0)
		return;
	if (!s->name || strcmp(s->name, h->name)) {
		set_error(s, "%s answers as host '%s', but the file calls it "
			  "'%s' (wrong endpoint, or famfsd's host name "
			  "differs)", h->endpoint, s->name ? s->name : "?",
			  h->name);
		return;
	}
	s->reachable = true;
}

int remote_open(struct remote *r, const struct cluster *c)
{
	int down = 0;

	r->c = c;
	r->clients = calloc(c->nhosts, sizeof(*r->clients));
	r->states = calloc(c->nhosts, sizeof(*r->states));
	if (!r->clients || !r->states) {
		free(r->clients);
		free(r->states);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nhosts; i++) {
		read_host(r, i);
		down += !r->states[i].reachable;
	}
	return down;
}

void remote_close(struct remote *r)
{
	for (size_t i = 0; r->c && i < r->c->nhosts; i++) {
		if (r->clients)
			famfs_client_close(r->clients[i]);
		if (r->states)
			state_clear(&r->states[i]);
	}
	free(r->clients);
	free(r->states);
	memset(r, 0, sizeof(*r));
}

/*
 * The filesystem @fsname this plan makes, as mkfs will: its set's devices
 * in order (the size famfsd reports, or an emulated device's from the
 * file) and its log size (the file's, the defaults', the host's policy).
 * NULL when a device's size is not known.
 */
static json_object *new_fs_geometry(struct remote *r, size_t h,
				    const char *fsname)
{
	const struct cluster *c = r->c;
	const struct host_state *hs = &r->states[h];
	const struct cl_filesystem *fs = cluster_filesystem(c, fsname);
	const struct cl_set *set = fs ? cluster_set(c, fs->set) : NULL;
	json_object *g, *devs;
	uint64_t log;

	if (!set || !set->devices.n)
		return NULL;
	devs = json_object_new_array();
	for (size_t i = 0; i < set->devices.n; i++) {
		const struct cl_device *d = cluster_device(c, set->devices.v[i]);
		const struct st_device *a = state_device(hs, set->devices.v[i]);
		uint64_t size = a && a->size ? a->size :
				d && d->kind == CL_DEV_EMUL ? d->size : 0;

		if (!size) {
			json_object_put(devs);
			return NULL;
		}
		json_object_array_add(devs, json_object_new_int64((int64_t)size));
	}
	log = fs->log_size ? fs->log_size : c->defaults.has_log_size ?
	      c->defaults.log_size : hs->policy.log_size;
	g = json_object_new_object();
	json_object_object_add(g, "devices", devs);
	json_object_object_add(g, "log_size", json_object_new_int64((int64_t)log));
	return g;
}

/*
 * A dataset about to be ingested or refreshed: its master's famfsd
 * places every file the job would copy on paper (POST /v1/jobs with
 * "dry_run": true), the tree being on that host; a refresh's whole new
 * generation in its staging tree, while the generations that serve and
 * are kept hold their space (the answer's "generation"). A tree that does not fit is a conflict naming
 * the dataset, the file and the room (apply changes nothing); one that
 * fits is a note. A filesystem this plan makes is placed on as mkfs
 * will make it (its devices' sizes and log size: "geometry").
 */
static int place_dataset(struct remote *r, struct plan *p,
			 const struct plan_step *s)
{
	const struct cluster *c = r->c;
	json_object *body = s->ncalls ? s->calls[0].body : NULL, *params, *q = NULL;
	json_object *out = NULL, *v;
	const char *fsname;
	char *err = NULL;
	long status = 0;
	long long gen = 0;   /* a refresh: the generation it makes */
	int rc, e = 0;

	if (!body || !json_object_object_get_ex(body, "params", &params) ||
	    !json_object_object_get_ex(params, "filesystem", &v))
		return 0;
	fsname = json_object_get_string(v);
	if (json_object_deep_copy(body, &q, NULL) || !q)
		return -ENOMEM;
	json_object_object_add(q, "dry_run", json_object_new_boolean(1));
	if (!state_filesystem(&r->states[s->host], fsname)) {
		json_object *geo = new_fs_geometry(r, s->host, fsname);

		if (!geo) {
			json_object_put(q);
			return plan_add_note(p, c, s->host, "dataset %s: the "
					     "size of %s's devices is not known "
					     "yet; the ingest job places the tree "
					     "on paper before it writes", s->name,
					     fsname);
		}
		json_object_object_add(q, "geometry", geo);
	}
	rc = famfs_client_request(r->clients[s->host], "POST", "/v1/jobs", q,
				  &status, &out, &err);
	json_object_put(q);
	if (!rc && json_object_object_get_ex(out, "generation", &v))
		gen = (long long)json_object_get_int64(v);   /* null: 0 */
	if (rc) {
		/* e.g. a source that is not there: the step fails the
		 * same way, naming famfsd's reason
		 */
		e = plan_add_note(p, c, s->host, "dataset %s: no placement "
				  "plan: %s", s->name, err ? err : "failed");
	} else if (json_object_object_get_ex(out, "fits", &v) &&
		   !json_object_get_boolean(v)) {
		json_object *m = NULL, *nf = NULL, *nb = NULL;

		json_object_object_get_ex(out, "message", &m);
		json_object_object_get_ex(out, "files_to_copy", &nf);
		json_object_object_get_ex(out, "bytes_to_copy", &nb);
		if (gen)
			e = plan_add_conflict(p, c, s->host, "dataset %s: its "
				"refresh (generation %lld, beside the generations "
				"that stay) cannot be placed in %s (%lld files, "
				"%lld bytes to copy): %s", s->name, gen, fsname,
				(long long)json_object_get_int64(nf),
				(long long)json_object_get_int64(nb),
				m ? json_object_get_string(m) : "");
		else
			e = plan_add_conflict(p, c, s->host, "dataset %s cannot be "
				"placed in %s (%lld files, %lld bytes to "
				"copy): %s", s->name, fsname,
				(long long)json_object_get_int64(nf),
				(long long)json_object_get_int64(nb),
				m ? json_object_get_string(m) : "");
	} else {
		json_object *nf = NULL, *nb = NULL;

		json_object_object_get_ex(out, "files_to_copy", &nf);
		json_object_object_get_ex(out, "bytes_to_copy", &nb);
		e = plan_add_note(p, c, s->host, "dataset %s: the %lld files to "
				  "copy (%lld bytes) place in %s with the "
				  "allocator's rule%s", s->name,
				  (long long)json_object_get_int64(nf),
				  (long long)json_object_get_int64(nb), fsname,
				  gen ? ", beside the generations that stay" : "");
	}
	free(err);
	json_object_put(out);
	return e;
}

int remote_place_datasets(struct remote *r, struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_step *s = &p->steps[i];

		if (s->kind != PK_DATASET || (s->op != PLAN_CREATE &&
					       s->op != PLAN_UPDATE) ||
		    s->status == STEP_SKIPPED || !r->states[s->host].reachable ||
		    !r->clients[s->host])
			continue;
		if (place_dataset(r, p, s))
			return -ENOMEM;
	}
	return 0;
}

/* What a dataset step started, for the report: the id of its job (an
 * ingest, or a dataset_delete for --prune).
 */
static void note_result(struct plan_step *s, json_object *body)
{
	json_object *id;

	if (s->kind != PK_DATASET || !body ||
	    !json_object_object_get_ex(body, "id", &id))
		return;
	s->job_id = (long long)json_object_get_int64(id);
	if (asprintf(&s->result, "%s job %lld", s->op == PLAN_DELETE ?
		     "delete" : "ingest", s->job_id) < 0)
		s->result = NULL;
}

static int run_step(struct remote *r, struct plan_step *s)
{
	for (unsigned i = 0; i < s->ncalls; i++) {
		struct plan_call *cl = &s->calls[i];
		json_object *body = NULL;
		char *err = NULL;
		long status;
		int rc = famfs_client_request(r->clients[s->host], cl->method,
					      cl->path, cl->body, &status, &body,
					      &err);
		if (rc) {
			if (asprintf(&s->error, "%s %s: %s", cl->method,
				     cl->path, err ? err : "failed") < 0)
				s->error = NULL;
			free(err);
			json_object_put(body);
			return -1;
		}
		note_result(s, body);
		json_object_put(body);
		FAMFS_KILL_POINT("apply.call_returned");
	}
	return 0;
}

int remote_apply(struct remote *r, struct plan *p, FILE *log)
{
	int rc = 0;

	for (size_t i = 0; i < p->n; i++) {
		struct plan_step *s = &p->steps[i];
		const char *host = r->c->hosts[s->host].name;

		if (s->status == STEP_SKIPPED) {
			rc = -1;
			if (log)
				fprintf(log, "  skipped: %s %s %s on %s: %s\n",
					plan_op_name(s->op),
					plan_kind_name(s->kind), s->name, host,
					s->error ? s->error : "");
			continue;
		}
		if (run_step(r, s) < 0) {
			s->status = STEP_FAILED;
			if (log)
				fprintf(log, "  failed:  %s %s %s on %s: %s\n",
					plan_op_name(s->op),
					plan_kind_name(s->kind), s->name, host,
					s->error ? s->error : "");
			return -1;
		}
		s->status = STEP_DONE;
		if (log)
			fprintf(log, "  done:    %s %s %s on %s%s%s%s\n",
				plan_op_name(s->op), plan_kind_name(s->kind),
				s->name, host, s->result ? " (" : "",
				s->result ? s->result : "",
				s->result ? ")" : "");
	}
	return rc;
}
