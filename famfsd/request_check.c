// SPDX-License-Identifier: Apache-2.0
/*
 * The request checks that json-c and libmicrohttpd do not make: the raw
 * URL before it is decoded, the query parameters a route takes, and
 * duplicate keys in a JSON body. See request_check.h.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "request_check.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int url_check(const char *raw, char *err, size_t errlen)
{
	bool query = false;

	for (size_t i = 0; raw[i]; i++) {
		unsigned char c = (unsigned char)raw[i];
		int hi, lo;

		if (c == '?')
			query = true;
		if (is_control(c)) {
			snprintf(err, errlen, "the URL has a control byte "
				 "(0x%02x) at offset %zu", c, i);
			return -1;
		}
		if (c != '%')
			continue;
		hi = hex_digit(raw[i + 1]);
		lo = hi < 0 ? -1 : hex_digit(raw[i + 2]);
		if (lo < 0) {
			snprintf(err, errlen, "the URL has a '%%' not followed "
				 "by two hex digits at offset %zu", i);
			return -1;
		}
		c = (unsigned char)(hi << 4 | lo);
		/* a decoded '/' in a path segment would make a name that no
		 * route can tell from two segments */
		if (is_control(c) || (!query && c == '/')) {
			snprintf(err, errlen, "the URL has '%.3s' at offset %zu:"
				 " %s may not be percent-encoded %s", raw + i,
				 i, c ? (c == '/' ? "'/'" : "a control byte")
				 : "NUL", query ? "in a query parameter"
				 : "in a path segment");
			return -1;
		}
		i += 2;
	}
	return 0;
}

/* The query parameters each first-level resource reads (famfsd/api). */
static const struct {
	const char *resource;
	const char *params[4];
} route_params[] = {
	{ "devices", { "topology", "destroy" } },
	{ "filesystems", { "wipe" } },
	{ "jobs", { "state" } },
	{ "events", { "since", "limit" } },
	{ "datasets", { "drift", "owner" } },
	{ "holds", { "owner" } },
};

static bool param_known(const char *resource, const char *name)
{
	for (size_t i = 0; resource && i < sizeof(route_params) /
	     sizeof(route_params[0]); i++) {
		if (strcmp(route_params[i].resource, resource))
			continue;
		for (int j = 0; j < 4 && route_params[i].params[j]; j++)
			if (!strcmp(route_params[i].params[j], name))
				return true;
	}
	return false;
}

const char *query_unknown_param(const char *resource, const char *const *names,
				int n)
{
	for (int i = 0; i < n; i++)
		if (!param_known(resource, names[i]))
			return names[i];
	return NULL;
}

/*
 * A scanner over text that json-c has already accepted in strict mode, so
 * it only has to find where strings, objects and arrays start and end.
 * Each object's keys go, decoded by json-c, into a json-c object used as
 * a set: "a" and "\u0061" are the same key.
 */
struct scan {
	const char *s, *end;
	char dup[128];
};

static void skip_ws(struct scan *x)
{
	while (x->s < x->end && strchr(" \t\r\n", *x->s))
		x->s++;
}

/* Past the string at x->s (on its opening quote). */
static const char *string_end(const char *s, const char *end)
{
	for (s++; s < end && *s != '"'; s++)
		if (*s == '\\')
			s++;
	return s < end ? s + 1 : end;
}

static int scan_value(struct scan *x);

/* The string token [@s, @e) decoded; NULL if json-c cannot (it did once). */
static json_object *decode_string(const char *s, const char *e)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o = tok ? json_tokener_parse_ex(tok, s, (int)(e - s)) : NULL;

	json_tokener_free(tok);
	return o;
}

static int scan_object(struct scan *x)
{
	json_object *seen = json_object_new_object();
	int r = 0;

	x->s++;                                       /* '{' */
	for (skip_ws(x); !r && x->s < x->end && *x->s != '}'; skip_ws(x)) {
		const char *k = x->s, *ke = string_end(k, x->end);
		json_object *key = decode_string(k, ke);
		const char *name = key ? json_object_get_string(key) : "";

		if (json_object_object_get_ex(seen, name, NULL)) {
			snprintf(x->dup, sizeof(x->dup), "%s", name);
			r = -1;
		} else {
			json_object_object_add(seen, name, NULL);
		}
		json_object_put(key);
		x->s = ke;
		skip_ws(x);
		x->s++;                               /* ':' */
		skip_ws(x);
		if (!r)
			r = scan_value(x);
		skip_ws(x);
		if (x->s < x->end && *x->s == ',')
			x->s++;
	}
	x->s++;                                       /* '}' */
	json_object_put(seen);
	return r;
}

static int scan_array(struct scan *x)
{
	int r = 0;

	x->s++;                                       /* '[' */
	for (skip_ws(x); !r && x->s < x->end && *x->s != ']'; skip_ws(x)) {
		r = scan_value(x);
		skip_ws(x);
		if (x->s < x->end && *x->s == ',')
			x->s++;
	}
	x->s++;                                       /* ']' */
	return r;
}

static int scan_value(struct scan *x)
{
	if (x->s >= x->end)
		return 0;
	switch (*x->s) {
	case '{':
		return scan_object(x);
	case '[':
		return scan_array(x);
	case '"':
		x->s = string_end(x->s, x->end);
		return 0;
	default:          /* number, true, false, null */
		while (x->s < x->end && !strchr(",]} \t\r\n", *x->s))
			x->s++;
		return 0;
	}
}

int json_duplicate_key(const char *text, size_t len, char *dup, size_t duplen)
{
	struct scan x = { .s = text, .end = text + len };

	skip_ws(&x);
	if (!scan_value(&x))
		return 0;
	snprintf(dup, duplen, "%s", x.dup);
	return -1;
}
