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

void plan_print(const struct cluster *c, const struct plan *p, FILE *f)
{
	size_t n[3];

	for (size_t i = 0; i < p->nconflicts; i++)
		fprintf(f, "! conflict: %s\n", p->conflicts[i]);
	if (p->nconflicts)
		fprintf(f, "\n");
	if (!p->n) {
		fprintf(f, "No changes. The cluster matches %s.\n", c->file);
	} else {
		for (size_t i = 0; i < p->n; i++) {
			const struct plan_step *s = &p->steps[i];

			fprintf(f, "  %c %s %s %s on %s %s\n", op_sign[s->op],
				plan_op_name(s->op), plan_kind_name(s->kind),
				s->name, c->hosts[s->host].name, s->detail);
		}
		plan_count(p, n);
		fprintf(f, "\nPlan: %zu to create, %zu to update, %zu to "
			"delete.\n", n[PLAN_CREATE], n[PLAN_UPDATE],
			n[PLAN_DELETE]);
	}
	for (size_t i = 0; i < p->nnotes; i++)
		fprintf(f, "Note: %s\n", p->notes[i]);
	if (p->unmanaged)
		fprintf(f, "Note: %zu resource%s on these hosts %s not in the "
			"file; kept (--prune deletes them).\n", p->unmanaged,
			p->unmanaged == 1 ? "" : "s",
			p->unmanaged == 1 ? "is" : "are");
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
	json_object_object_add(o, "summary", summary);
	return o;
}
