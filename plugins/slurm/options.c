// SPDX-License-Identifier: Apache-2.0
/*
 * Parsing --famfs-dataset=NAME[,NAME...] and the plugstack.conf
 * arguments. Every error names what was wrong, because srun, sbatch and
 * salloc print it as the only explanation of a refused job.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

__attribute__((format(printf, 3, 4)))
static int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

bool fs_dataset_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > FS_DATASET_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-')))
			return false;
	}
	return true;
}

/*
 * A shell variable name has only letters, digits and '_': the name's '.'
 * and '-' become '_' (docs/slurm.md, "Variables").
 */
static void dataset_env_names(struct fs_dataset *d)
{
	char *p;

	snprintf(d->env_path, sizeof(d->env_path), "FAMFS_DATASET_%s", d->name);
	for (p = d->env_path; *p; p++)
		if (*p == '.' || *p == '-')
			*p = '_';
	snprintf(d->env_generation, sizeof(d->env_generation), "%s_GENERATION",
		 d->env_path);
}

/* Whether @d would set a variable that @e sets too. */
static bool dataset_env_clash(const struct fs_dataset *d,
			      const struct fs_dataset *e)
{
	return !strcmp(d->env_path, e->env_path) ||
	       !strcmp(d->env_path, e->env_generation) ||
	       !strcmp(d->env_generation, e->env_path);
}

/* Adds one name (of @len bytes at @name) to @l, or says why not. */
static int dataset_list_add(struct fs_dataset_list *l, const char *name,
			    size_t len, char *why, size_t why_len)
{
	struct fs_dataset d;

	if (len == 0)
		return refuse(why, why_len, "--famfs-dataset: an empty dataset name (want NAME[,NAME...])");
	if (len > FS_DATASET_NAME_MAX)
		return refuse(why, why_len, "--famfs-dataset: dataset name '%.*s...' is longer than %d characters",
			      20, name, FS_DATASET_NAME_MAX);
	memcpy(d.name, name, len);
	d.name[len] = 0;
	if (!fs_dataset_name_valid(d.name))
		return refuse(why, why_len, "--famfs-dataset: '%s' is not a dataset name (letters, digits, '.', '_', '-'; a letter or digit first)",
			      d.name);
	dataset_env_names(&d);
	for (int i = 0; i < l->count; i++) {
		if (!strcmp(l->items[i].name, d.name))
			return 0;
		if (dataset_env_clash(&d, &l->items[i]))
			return refuse(why, why_len, "--famfs-dataset: datasets '%s' and '%s' would both set %s",
				      l->items[i].name, d.name,
				      strcmp(d.env_path, l->items[i].env_generation) ?
				      d.env_generation : d.env_path);
	}
	if (l->count == FS_DATASETS_MAX)
		return refuse(why, why_len, "--famfs-dataset: more than %d datasets", FS_DATASETS_MAX);
	l->items[l->count++] = d;
	return 0;
}

int fs_dataset_list_parse(const char *value, struct fs_dataset_list *list,
			  char *why, size_t why_len)
{
	struct fs_dataset_list l = { .count = 0 };
	const char *p = value ? value : "";

	for (;;) {
		size_t len = strcspn(p, ",");
		int r = dataset_list_add(&l, p, len, why, why_len);

		if (r < 0)
			return r;
		if (!p[len])
			break;
		p += len + 1;
	}
	*list = l;
	return 0;
}

static int parse_timeout(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' ||
	    v > FS_TIMEOUT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int fs_plugin_args_parse(int argc, char **argv, struct fs_plugin_args *args,
			 char *why, size_t why_len)
{
	struct fs_plugin_args a;

	snprintf(a.socket, sizeof(a.socket), "%s", FS_DEFAULT_SOCKET);
	a.timeout = FS_DEFAULT_TIMEOUT;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];

		if (!strncmp(arg, "socket=", 7)) {
			const char *path = arg + 7;

			if (path[0] != '/')
				return refuse(why, why_len, "plugstack.conf: socket=%s: not an absolute path", path);
			if (strlen(path) >= sizeof(a.socket))
				return refuse(why, why_len, "plugstack.conf: socket=%s: longer than %zu bytes",
					      path, sizeof(a.socket) - 1);
			snprintf(a.socket, sizeof(a.socket), "%s", path);
		} else if (!strncmp(arg, "timeout=", 8)) {
			if (parse_timeout(arg + 8, &a.timeout) < 0)
				return refuse(why, why_len, "plugstack.conf: timeout=%s: not a number of seconds from 0 to %d",
					      arg + 8, FS_TIMEOUT_MAX);
		} else {
			return refuse(why, why_len, "plugstack.conf: unknown argument '%s' (the arguments are socket=PATH and timeout=SECONDS)",
				      arg);
		}
	}
	*args = a;
	return 0;
}
