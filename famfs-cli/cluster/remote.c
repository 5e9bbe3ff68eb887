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

/* What a create made, for the report: the id of an ingest job. */
static void note_result(struct plan_step *s, json_object *body)
{
	json_object *id;

	if (s->kind != PK_DATASET || !body ||
	    !json_object_object_get_ex(body, "id", &id))
		return;
	s->job_id = (long long)json_object_get_int64(id);
	if (asprintf(&s->result, "ingest job %lld", s->job_id) < 0)
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
