// SPDX-License-Identifier: Apache-2.0
/* Machine and human output for the client commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "client/client.h"
#include "famfs.h"
#include "famfs_cleanup.h"

json_object *famfs_json_path(json_object *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); o && tok;
	     tok = strtok_r(NULL, ".", &save))
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, tok, &o))
			return NULL;
	return o;
}

static int emit(yaml_emitter_t *em, yaml_event_t *ev)
{
	return yaml_emitter_emit(em, ev) ? 0 : -1;
}

static int emit_scalar(yaml_emitter_t *em, const char *s, bool plain_ok)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
				     (int)strlen(s), plain_ok, !plain_ok,
				     plain_ok ? YAML_ANY_SCALAR_STYLE :
				     YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	return emit(em, &ev);
}

static int emit_json(yaml_emitter_t *em, json_object *o)
{
	yaml_event_t ev;

	switch (json_object_get_type(o)) {
	case json_type_null:
		return emit_scalar(em, "null", true);
	case json_type_object:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						    YAML_BLOCK_MAPPING_STYLE);
		if (emit(em, &ev))
			return -1;
		json_object_object_foreach(o, k, v) {
			if (emit_scalar(em, k, true) || emit_json(em, v))
				return -1;
		}
		yaml_mapping_end_event_initialize(&ev);
		return emit(em, &ev);
	case json_type_array:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
						     YAML_BLOCK_SEQUENCE_STYLE);
		if (emit(em, &ev))
			return -1;
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (emit_json(em, json_object_array_get_idx(o, i)))
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return emit(em, &ev);
	case json_type_string: {
		const char *s = json_object_get_string(o);
		/* Strings that YAML would read as another type get quotes. */
		char *end = NULL;
		bool plain;

		strtod(s, &end);
		plain = *s && *end && !(*s >= '0' && *s <= '9') &&
			strcmp(s, "null") && strcmp(s, "true") &&
			strcmp(s, "false") && strcmp(s, "~") &&
			strcasecmp(s, "yes") && strcasecmp(s, "no") &&
			strcasecmp(s, "on") && strcasecmp(s, "off");
		return emit_scalar(em, s, plain);
	}
	default:
		return emit_scalar(em, json_object_get_string(o), true);
	}
}

int famfs_print_yaml(FILE *f, json_object *o)
{
	_cleanup_(yaml_emitter_delete) yaml_emitter_t em;
	yaml_event_t ev;

	yaml_emitter_initialize(&em);
	yaml_emitter_set_output_file(&em, f);
	yaml_emitter_set_unicode(&em, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (emit(&em, &ev))
		return -1;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (emit(&em, &ev) || emit_json(&em, o))
		return -1;
	yaml_document_end_event_initialize(&ev, 1);
	if (emit(&em, &ev))
		return -1;
	yaml_stream_end_event_initialize(&ev);
	return emit(&em, &ev);
}

void famfs_print_json(FILE *f, json_object *o)
{
	fprintf(f, "%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* 67108864 -> "64 MiB", 3000 -> "2.9 KiB": for humans only. */
static char *human_size(int64_t n)
{
	char buf[32];

	if (n < 0) /* not a size after all: show what it is */
		snprintf(buf, sizeof(buf), "%lld", (long long)n);
	else
		famfs_format_size((uint64_t)n, FAMFS_SIZE_ROUND, buf,
				  sizeof(buf));
	return strdup(buf);
}

static char *cell(json_object *o, const char *path)
{
	bool size = path[0] == '~', octal = path[0] == '%';
	json_object *v = famfs_json_path(o, size || octal ? path + 1 : path);
	char *out;

	if (v && size && json_object_is_type(v, json_type_int))
		return human_size(json_object_get_int64(v));
	if (v && octal && json_object_is_type(v, json_type_int))
		return asprintf(&out, "%04llo", (unsigned long long)
				json_object_get_int64(v)) < 0 ? NULL : out;
	if (v && json_object_is_type(v, json_type_array) &&
	    !json_object_array_length(v))
		return strdup("-");

	if (!v)
		return strdup("-");
	if (json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v), len = 1;
		char *s;

		for (size_t i = 0; i < n; i++)
			len += strlen(json_object_get_string(
				json_object_array_get_idx(v, i))) + 1;
		s = calloc(1, len);
		for (size_t i = 0; s && i < n; i++) {
			if (i)
				strcat(s, ",");
			strcat(s, json_object_get_string(
				json_object_array_get_idx(v, i)));
		}
		return s ? s : strdup("");
	}
	return strdup(*json_object_get_string(v) ? json_object_get_string(v)
						   : "-");
}

void famfs_print_table(FILE *f, json_object *items, const char *const *cols,
		       int ncols, bool headers)
{
	size_t n = json_object_array_length(items), w[32] = { 0 };
	char hdr[32][64];
	const char *keys[32];

	if (ncols > 32)
		ncols = 32;
	for (int c = 0; c < ncols; c++) {
		const char *eq = strchr(cols[c], '=');

		snprintf(hdr[c], sizeof(hdr[c]), "%.*s", (int)(eq - cols[c]),
			 cols[c]);
		keys[c] = eq + 1;
		w[c] = strlen(hdr[c]);
	}
	char ***cells = calloc(n ? n : 1, sizeof(*cells));

	for (size_t i = 0; cells && i < n; i++) {
		cells[i] = calloc((size_t)ncols, sizeof(char *));
		for (int c = 0; cells[i] && c < ncols; c++) {
			cells[i][c] = cell(json_object_array_get_idx(items, i),
					   keys[c]);
			if (strlen(cells[i][c]) > w[c])
				w[c] = strlen(cells[i][c]);
		}
	}
	for (int c = 0; headers && c < ncols; c++)
		fprintf(f, "%-*s%s", c + 1 < ncols ? (int)w[c] : 0, hdr[c],
			c + 1 < ncols ? "  " : "\n");
	for (size_t i = 0; cells && i < n; i++) {
		for (int c = 0; cells[i] && c < ncols; c++) {
			fprintf(f, "%-*s%s", c + 1 < ncols ? (int)w[c] : 0,
				cells[i][c], c + 1 < ncols ? "  " : "\n");
			free(cells[i][c]);
		}
		free(cells[i]);
	}
	free(cells);
}
