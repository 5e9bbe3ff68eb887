// SPDX-License-Identifier: Apache-2.0
/* The plan for people (terraform-like) and for programs (-o json). */
#include <string.h>

#include "cluster/plan.h"

static const char op_sign[] = { '+', '~', '-' };

static const char *status_name(enum step_status s)
{
	switch (s) {
	case STEP_DONE: return "done";
	case STEP_FAILED: return "failed";
	case STEP_SKIPPED: return "skipped";
	default: return "pending";
	}
}

/* "c2" or "c1, c2": the hosts that could not be read. */
static void print_unreadable_hosts(const struct cluster *c,
				   const struct plan *p, FILE *f)
{
	for (size_t i = 0; i < p->nunreadable; i++)
		fprintf(f, "%s%s", i ? ", " : "",
			c->hosts[p->unreadable_host[i]].name);
}

void plan_print(const struct cluster *c, const struct plan *p, FILE *f)
{
	size_t n[3];

	for (size_t i = 0; i < p->nconflicts; i++)
		fprintf(f, "! conflict: %s\n", p->conflicts[i]);
	for (size_t i = 0; i < p->nunreadable; i++)
		fprintf(f, "! error: %s: its state is unknown\n",
			p->unreadable[i]);
	if (p->nconflicts || p->nunreadable)
		fprintf(f, "\n");
	for (size_t i = 0; i < p->nunknown; i++)
		fprintf(f, "  ? unknown %s %s on %s (host not read)\n",
			plan_kind_name(p->unknown[i].kind), p->unknown[i].name,
			c->hosts[p->unknown[i].host].name);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_step *s = &p->steps[i];

		fprintf(f, "  %c %s %s %s on %s %s%s%s%s\n", op_sign[s->op],
			plan_op_name(s->op), plan_kind_name(s->kind), s->name,
			c->hosts[s->host].name, s->detail,
			s->status == STEP_SKIPPED ? " [skipped: " : "",
			s->status == STEP_SKIPPED && s->error ? s->error : "",
			s->status == STEP_SKIPPED ? "]" : "");
	}
	if (p->n) {
		plan_count(p, n);
		fprintf(f, "\nPlan: %zu to create, %zu to update, %zu to "
			"delete.\n", n[PLAN_CREATE], n[PLAN_UPDATE],
			n[PLAN_DELETE]);
	}
	if (p->nunreadable) {
		fprintf(f, "%sUnknown: %zu resource%s of the file on ",
			p->n ? "" : "\n", p->nunknown,
			p->nunknown == 1 ? "" : "s");
		print_unreadable_hosts(c, p, f);
		fprintf(f, ", which could not be read: not compared, nothing "
			"planned there.\n");
	} else if (!p->n && p->nconflicts) {
		fprintf(f, "Nothing can be applied until the conflict%s above "
			"%s resolved.\n", p->nconflicts == 1 ? "" : "s",
			p->nconflicts == 1 ? "is" : "are");
	} else if (!p->n) {
		fprintf(f, "No changes. The cluster matches %s.\n", c->file);
	}
	for (size_t i = 0; i < p->nnotes; i++)
		fprintf(f, "Note: %s\n", p->notes[i]);
	if (p->unmanaged) {
		fprintf(f, "Note: %zu resource%s on these hosts %s not in the "
			"file; kept (--prune deletes them):\n", p->unmanaged,
			p->unmanaged == 1 ? "" : "s",
			p->unmanaged == 1 ? "is" : "are");
		for (size_t i = 0; i < p->unmanaged; i++)
			fprintf(f, "  %s\n", p->unmanaged_names[i]);
	}
}

json_object *plan_to_json(const struct cluster *c, const struct plan *p)
{
	json_object *o = json_object_new_object();
	json_object *steps = json_object_new_array();
	json_object *conflicts = json_object_new_array();
	json_object *summary = json_object_new_object();
	size_t n[3];

	json_object_object_add(o, "cluster", json_object_new_string(c->name));
	json_object_object_add(o, "file", json_object_new_string(c->file));
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_step *s = &p->steps[i];
		json_object *j = json_object_new_object();
		json_object *calls = json_object_new_array();

		json_object_object_add(j, "op",
				       json_object_new_string(plan_op_name(s->op)));
		json_object_object_add(j, "kind", json_object_new_string(
			plan_kind_name(s->kind)));
		json_object_object_add(j, "name", json_object_new_string(s->name));
		json_object_object_add(j, "host", json_object_new_string(
			c->hosts[s->host].name));
		json_object_object_add(j, "detail",
				       json_object_new_string(s->detail));
		json_object_object_add(j, "status", json_object_new_string(
			status_name(s->status)));
		if (s->error)
			json_object_object_add(j, "error",
					       json_object_new_string(s->error));
		if (s->result)
			json_object_object_add(j, "result",
					       json_object_new_string(s->result));
		for (unsigned k = 0; k < s->ncalls; k++) {
			json_object *cl = json_object_new_object();

			json_object_object_add(cl, "method",
				json_object_new_string(s->calls[k].method));
			json_object_object_add(cl, "path",
				json_object_new_string(s->calls[k].path));
			if (s->calls[k].body)
				json_object_object_add(cl, "body",
					json_object_get(s->calls[k].body));
			json_object_array_add(calls, cl);
		}
		json_object_object_add(j, "calls", calls);
		json_object_array_add(steps, j);
	}
	for (size_t i = 0; i < p->nconflicts; i++)
		json_object_array_add(conflicts,
				      json_object_new_string(p->conflicts[i]));
	plan_count(p, n);
	json_object_object_add(summary, "create",
			       json_object_new_int64((int64_t)n[PLAN_CREATE]));
	json_object_object_add(summary, "update",
			       json_object_new_int64((int64_t)n[PLAN_UPDATE]));
	json_object_object_add(summary, "delete",
			       json_object_new_int64((int64_t)n[PLAN_DELETE]));
	json_object_object_add(summary, "unmanaged",
			       json_object_new_int64((int64_t)p->unmanaged));
	json_object_object_add(o, "steps", steps);
	json_object_object_add(o, "conflicts", conflicts);
	conflicts = json_object_new_array();
	for (size_t i = 0; i < p->nnotes; i++)
		json_object_array_add(conflicts,
				      json_object_new_string(p->notes[i]));
	json_object_object_add(o, "notes", conflicts);
	conflicts = json_object_new_array();
	for (size_t i = 0; i < p->nunreadable; i++)
		json_object_array_add(conflicts,
				      json_object_new_string(p->unreadable[i]));
	json_object_object_add(o, "errors", conflicts);
	conflicts = json_object_new_array();
	for (size_t i = 0; i < p->nunknown; i++) {
		json_object *u = json_object_new_object();

		json_object_object_add(u, "kind", json_object_new_string(
			plan_kind_name(p->unknown[i].kind)));
		json_object_object_add(u, "name", json_object_new_string(
			p->unknown[i].name));
		json_object_object_add(u, "host", json_object_new_string(
			c->hosts[p->unknown[i].host].name));
		json_object_array_add(conflicts, u);
	}
	json_object_object_add(o, "unknown", conflicts);
	conflicts = json_object_new_array();
	for (size_t i = 0; i < p->unmanaged; i++)
		json_object_array_add(conflicts, json_object_new_string(
			p->unmanaged_names[i]));
	json_object_object_add(o, "unmanaged", conflicts);
	json_object_object_add(summary, "unknown",
			       json_object_new_int64((int64_t)p->nunknown));
	json_object_object_add(o, "summary", summary);
	return o;
}
