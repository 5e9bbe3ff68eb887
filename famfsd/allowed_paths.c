// SPDX-License-Identifier: Apache-2.0
/* Allowed paths: see allowed_paths.h. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowed_paths.h"

/* Append the components of @rest to @out (a resolved directory). */
static int append_rest(char *out, size_t outlen, const char *rest)
{
	size_t len = strlen(out);

	while (*rest) {
		size_t n;

		rest += strspn(rest, "/");
		n = strcspn(rest, "/");
		if (!n)
			break;
		if (n == 1 && rest[0] == '.') {
			/* nothing */
		} else if (n == 2 && rest[0] == '.' && rest[1] == '.') {
			char *slash = strrchr(out, '/');

			len = slash && slash != out ? (size_t)(slash - out) : 1;
			out[len] = '\0';
		} else {
			if (len + 1 + n >= outlen)
				return -ENAMETOOLONG;
			if (len > 1)
				out[len++] = '/';
			memcpy(out + len, rest, n);
			len += n;
			out[len] = '\0';
		}
		rest += n;
	}
	return 0;
}

int path_resolve(const char *in, char *out, size_t outlen)
{
	char head[PATH_MAX], real[PATH_MAX];
	size_t cut;

	if (in[0] != '/')
		return -EINVAL;
	if (strlen(in) >= sizeof(head))
		return -ENAMETOOLONG;
	snprintf(head, sizeof(head), "%s", in);
	/* the longest prefix that exists, cut at a '/' */
	for (cut = strlen(head);; ) {
		head[cut] = '\0';
		if (realpath(cut ? head : "/", real))
			break;
		while (cut > 0 && head[cut - 1] != '/')
			cut--;
		while (cut > 0 && head[cut - 1] == '/')
			cut--;
	}
	if (strlen(real) >= outlen)
		return -ENAMETOOLONG;
	snprintf(out, outlen, "%s", real);
	return append_rest(out, outlen, in + cut);
}

/* @pat with its wildcard-free leading directories resolved, into @out. */
static void resolve_pattern(const char *pat, char *out, size_t outlen)
{
	size_t wild = strcspn(pat, "*?["), dir;
	char head[PATH_MAX];

	snprintf(out, outlen, "%s", pat);
	if (pat[0] != '/' || wild >= sizeof(head))
		return;
	if (!pat[wild]) {                     /* no wildcard: all of it */
		if (path_resolve(pat, out, outlen))
			snprintf(out, outlen, "%s", pat);
		return;
	}
	for (dir = wild; dir > 0 && pat[dir] != '/'; dir--)
		;
	snprintf(head, sizeof(head), "%.*s", (int)dir, pat);
	if (path_resolve(dir ? head : "/", out, outlen) ||
	    strlen(out) + strlen(pat + dir) >= outlen)
		snprintf(out, outlen, "%s", pat);
	else
		strcat(out, !strcmp(out, "/") && pat[dir] == '/' ?
		       pat + dir + 1 : pat + dir);
}

static bool pattern_covers(const char *pat, const char *resolved)
{
	char prefix[PATH_MAX];
	size_t len = strlen(resolved);

	if (len >= sizeof(prefix))
		return false;
	/* the path itself, then each directory above it */
	for (size_t i = len; i > 0; i--) {
		if (i < len && resolved[i] != '/')
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)i, resolved);
		if (!fnmatch(pat, prefix, FNM_PATHNAME))
			return true;
	}
	return !strcmp(pat, "/");
}

bool path_in_list(const char *list, const char *resolved)
{
	char pat[PATH_MAX], real[PATH_MAX];

	for (const char *s = list ? list : ""; *s;) {
		size_t n = strcspn(s, ":");

		snprintf(pat, sizeof(pat), "%.*s", (int)n, s);
		s += n + (s[n] == ':');
		if (pat[0] != '/')
			continue;
		resolve_pattern(pat, real, sizeof(real));
		if (pattern_covers(real, resolved))
			return true;
	}
	return false;
}

const char *const path_system_dirs[] = { "/", "/etc", "/usr", "/var",
	"/boot", "/proc", "/sys", "/dev", "/run", "/bin", "/sbin", "/lib",
	"/lib64", "/root", "/home", "/tmp" };
const size_t path_system_dirs_n = sizeof(path_system_dirs) /
				  sizeof(path_system_dirs[0]);

bool path_is_system_dir(const char *resolved)
{
	for (size_t i = 0; i < path_system_dirs_n; i++)
		if (!strcmp(resolved, path_system_dirs[i]))
			return true;
	return false;
}
