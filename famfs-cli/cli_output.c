// SPDX-License-Identifier: Apache-2.0
/*
 * The one output-format helper of the read commands (get, describe, job
 * list, fsck, ls, log, getmap, clients, validate): -o table|wide|name|
 * json|yaml and --no-headers mean the same everywhere. A command builds its
 * answer as JSON once; this file turns it into what was asked for.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client/client.h"

static const char *const out_names[CLI_OUT_COUNT] = {
	[CLI_OUT_HUMAN] = "human", [CLI_OUT_TABLE] = "table",
	[CLI_OUT_WIDE] = "wide", [CLI_OUT_NAME] = "name",
	[CLI_OUT_JSON] = "json", [CLI_OUT_YAML] = "yaml",
};

int cli_parse_output(const char *cmd, const char *arg, unsigned valid,
		     enum cli_output *out)
{
	char list[96] = "";

	for (int i = 0; i < CLI_OUT_COUNT; i++) {
		if (!(valid & (1u << i)))
			continue;
		if (!strcmp(arg, out_names[i])) {
			*out = (enum cli_output)i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", *list ? ", " : "", out_names[i]);
	}
	cli_error(cmd, "-o '%s': not an output format of this command "
		  "(valid: %s)", arg, list);
	return -1;
}

/* The columns -o table (or -o wide, @wide) shows; "+HDR=key" is wide-only. */
static int pick_columns(const struct cli_table *t, bool wide,
			const char **cols)
{
	int n = 0;

	for (int i = 0; i < t->ncols; i++) {
		if (t->cols[i][0] != '+')
			cols[n++] = t->cols[i];
		else if (wide)
			cols[n++] = t->cols[i] + 1;
	}
	return n;
}

static void print_names(json_object *items, const struct cli_table *t)
{
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *v = famfs_json_path(json_object_array_get_idx(items, i),
						 t->name_key ? t->name_key : "name");

		if (!v)
			continue;
		if (t->kind)
			printf("%s/%s\n", t->kind, json_object_get_string(v));
		else
			printf("%s\n", json_object_get_string(v));
	}
}

void cli_print(const struct cli_view *v, json_object *obj, json_object *items,
	       const struct cli_table *t)
{
	json_object *one = NULL;
	const char *cols[64];
	int n;

	switch (v->out) {
	case CLI_OUT_JSON:
		famfs_print_json(stdout, obj);
		return;
	case CLI_OUT_YAML:
		famfs_print_yaml(stdout, obj);
		return;
	default:
		break;
	}
	if (!items) {
		one = json_object_new_array();
		json_object_array_add(one, json_object_get(obj));
		items = one;
	}
	if (v->out == CLI_OUT_NAME) {
		print_names(items, t);
	} else {
		n = pick_columns(t, v->out == CLI_OUT_WIDE, cols);
		famfs_print_table(stdout, items, cols, n, !v->no_headers);
	}
	json_object_put(one);
}

void cli_usage_error_text(const char *cmd, const char *usage)
{
	const char *end = strstr(usage, "\n\n");
	size_t len = end ? (size_t)(end - usage) + 1 : strlen(usage);

	fwrite(usage, 1, len, stderr);
	if (len && usage[len - 1] != '\n')
		fputc('\n', stderr);
	fprintf(stderr, "see 'famfs-cli %s --help'\n", cmd);
}

void cli_usage_error(const char *cmd, void (*usage)(FILE *f))
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		fprintf(stderr, "see 'famfs-cli %s --help'\n", cmd);
		return;
	}
	usage(m);
	fclose(m);
	cli_usage_error_text(cmd, text);
	free(text);
}
