// SPDX-License-Identifier: Apache-2.0
/* The config file is one YAML mapping; "tcp" is a nested mapping. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "config.h"
#include "famfs.h"
#include "plugin_dir.h"

enum key_type { K_STR, K_LIST, K_BOOL, K_SIZE, K_UINT, K_MODE, K_LEVEL,
		K_SECS };

struct key_desc {
	const char *name;
	enum key_type type;
	size_t off;
};

#define K(n, t, f) { n, t, offsetof(struct famfsd_config, f) }
static const struct key_desc keys[] = {
	K("socket", K_STR, socket_path),
	K("socket_group", K_STR, socket_group),
	K("socket_mode", K_MODE, socket_mode),
	K("state_dir", K_STR, state_dir),
	K("plugin_dir", K_STR, plugin_dir),
	K("host_name", K_STR, host_name),
	K("fused_path", K_STR, fused_path),
	K("tcp.listen", K_STR, tcp_listen),
	K("tcp.tls_cert", K_STR, tls_cert),
	K("tcp.tls_key", K_STR, tls_key),
	K("tcp.insecure", K_BOOL, tcp_insecure),
	K("token_file", K_STR, token_file),
	K("read_token_file", K_STR, read_token_file),
	K("access.read", K_LIST, access_read),
	K("access.write", K_LIST, access_write),
	K("paths.devices", K_LIST, paths_devices),
	K("paths.mounts", K_LIST, paths_mounts),
	K("paths.sources", K_LIST, paths_sources),
	K("holds.pin_dir", K_STR, holds_pin_dir),
	K("holds.owner_check", K_STR, holds_owner_check),
	K("holds.reap_interval", K_SECS, holds_reap_interval),
	K("max_body", K_SIZE, max_body),
	K("threads", K_UINT, threads),
	K("log_level", K_LEVEL, log_level),
};
#undef K

static int set_key(struct famfsd_config *c, const char *key, const char *v,
		   char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		void *p = (char *)c + keys[i].off;
		char *end;
		unsigned long n;
		uint64_t sz;

		if (strcmp(keys[i].name, key))
			continue;
		switch (keys[i].type) {
		case K_STR:
			/* a pin directory or a program famfsd runs: never
			 * relative to wherever famfsd was started
			 */
			if (!strncmp(key, "holds.", 6) && *v && *v != '/') {
				snprintf(err, errlen, "bad value '%s' for '%s': "
					 "an absolute path", v, key);
				return -EINVAL;
			}
			free(*(char **)p);
			*(char **)p = *v ? strdup(v) : NULL;
			return 0;
		case K_LIST:            /* "" is the empty list, not unset */
			free(*(char **)p);
			*(char **)p = strdup(v);
			return 0;
		case K_BOOL:
			if (!strcmp(v, "true") || !strcmp(v, "yes"))
				*(bool *)p = true;
			else if (!strcmp(v, "false") || !strcmp(v, "no"))
				*(bool *)p = false;
			else
				break;
			return 0;
		case K_SIZE:
			if (famfs_parse_size(v, &sz))
				break;
			*(uint64_t *)p = sz;
			return 0;
		case K_SECS:            /* holds.reap_interval: 5..86400 */
			errno = 0;
			n = strtoul(v, &end, 10);
			if (errno || *end || !*v || n < 5 || n > 86400) {
				snprintf(err, errlen, "bad value '%s' for '%s': "
					 "seconds, 5 to 86400", v, key);
				return -EINVAL;
			}
			*(unsigned *)p = (unsigned)n;
			return 0;
		case K_UINT:
		case K_MODE:
			errno = 0;
			n = strtoul(v, &end, keys[i].type == K_MODE ? 8 : 10);
			if (errno || *end || !*v || n > 0xffff)
				break;
			*(unsigned *)p = (unsigned)n;
			return 0;
		case K_LEVEL: {
			static const char *lv[] = { "emerg", "alert", "crit",
				"err", "warning", "notice", "info", "debug" };
			for (int l = 0; l < 8; l++)
				if (!strcmp(v, lv[l])) {
					*(int *)p = l;
					return 0;
				}
			break;
		}
		}
		snprintf(err, errlen, "bad value '%s' for '%s'", v, key);
		return -EINVAL;
	}
	snprintf(err, errlen, "unknown key '%s'", key);
	return -EINVAL;
}

static void set_defaults(struct famfsd_config *c)
{
	char host[256] = "localhost";

	memset(c, 0, sizeof(*c));
	gethostname(host, sizeof(host) - 1);
	c->socket_path = strdup(FAMFSD_DEFAULT_SOCKET);
	c->socket_group = strdup("famfs");
	c->socket_mode = 0666;   /* the peer check decides: server.c */
	c->state_dir = strdup(FAMFSD_DEFAULT_STATE_DIR);
	c->plugin_dir = plugin_dir_default();
	c->host_name = strdup(host);
	c->fused_path = strdup(FAMFSD_FUSED_PATH);
	c->max_body = 64 * 1024;
	c->threads = 4;
	c->log_level = LOG_INFO;
	c->access_read = strdup("famfs-read");
	c->access_write = strdup("famfs");
	c->paths_mounts = strdup("/mnt/famfs*:/srv/famfs*");
	c->paths_sources = strdup("/srv:/mnt:/data");
	c->holds_pin_dir = strdup("/run/famfsd/datasets");
	c->holds_reap_interval = 60;
	/* paths.devices defaults after the overrides: it names state_dir */
}

/* The parser @p failed: where and why, into @err. */
static int yaml_failed(const yaml_parser_t *p, const char *path, char *err,
		       size_t errlen)
{
	snprintf(err, errlen, "%s:%zu: %s", path, p->problem_mark.line + 1,
		 p->problem ? p->problem : "YAML error");
	return -EINVAL;
}

/* Is @key a list setting? Only those take a YAML sequence. */
static bool is_list_key(const char *key)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].name, key))
			return keys[i].type == K_LIST;
	return false;
}

/* A sequence of scalars for @key (at @line), joined with ':'. */
static int parse_list(yaml_parser_t *p, const char *key, size_t line,
		      struct famfsd_config *c, const char *path, char *err,
		      size_t errlen)
{
	char joined[4096] = "";
	size_t n = 0;
	yaml_event_t ev;
	int r;

	if (!is_list_key(key)) {
		snprintf(err, errlen, "%s:%zu: '%s' is not a list setting",
			 path, line, key);
		return -EINVAL;
	}
	for (;;) {
		if (!yaml_parser_parse(p, &ev))
			return yaml_failed(p, path, err, errlen);
		if (ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (ev.type != YAML_SCALAR_EVENT ||
		    strchr((char *)ev.data.scalar.value, ':') ||
		    !ev.data.scalar.length ||
		    n + ev.data.scalar.length + 2 > sizeof(joined)) {
			snprintf(err, errlen, "%s:%zu: '%s' must be a list of "
				 "non-empty strings without ':'", path,
				 ev.start_mark.line + 1, key);
			yaml_event_delete(&ev);
			return -EINVAL;
		}
		n += (size_t)snprintf(joined + n, sizeof(joined) - n, "%s%s",
				      n ? ":" : "", ev.data.scalar.value);
		yaml_event_delete(&ev);
	}
	yaml_event_delete(&ev);
	r = set_key(c, key, joined, err, errlen);
	if (r) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s:%zu: %s", path, line, msg);
	}
	return r;
}

/* Walk a YAML mapping; nested mappings give "parent.child" keys. */
static int parse_mapping(yaml_parser_t *p, const char *prefix,
			 struct famfsd_config *c, const char *path,
			 char *err, size_t errlen)
{
	char key[128];
	yaml_event_t ev;
	int r;

	for (;;) {
		if (!yaml_parser_parse(p, &ev))
			return yaml_failed(p, path, err, errlen);
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			snprintf(err, errlen, "%s:%zu: expected a key", path,
				 ev.start_mark.line + 1);
			yaml_event_delete(&ev);
			return -EINVAL;
		}
		snprintf(key, sizeof(key), "%s%s", prefix,
			 (char *)ev.data.scalar.value);
		yaml_event_delete(&ev);
		if (!yaml_parser_parse(p, &ev))
			return yaml_failed(p, path, err, errlen);
		if (ev.type == YAML_MAPPING_START_EVENT && !*prefix) {
			char sub[130];

			yaml_event_delete(&ev);
			snprintf(sub, sizeof(sub), "%s.", key);
			r = parse_mapping(p, sub, c, path, err, errlen);
			if (r)
				return r;
			continue;
		}
		if (ev.type == YAML_SEQUENCE_START_EVENT) {
			size_t line = ev.start_mark.line + 1;

			yaml_event_delete(&ev);
			r = parse_list(p, key, line, c, path, err, errlen);
			if (r)
				return r;
			continue;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			snprintf(err, errlen, "%s:%zu: '%s' must be a scalar",
				 path, ev.start_mark.line + 1, key);
			yaml_event_delete(&ev);
			return -EINVAL;
		}
		r = set_key(c, key, (char *)ev.data.scalar.value, err, errlen);
		if (r) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", err);
			snprintf(err, errlen, "%s:%zu: %s", path,
				 ev.start_mark.line + 1, msg);
			yaml_event_delete(&ev);
			return r;
		}
		yaml_event_delete(&ev);
	}
}

static int parse_file(FILE *f, const char *path, struct famfsd_config *c,
		      char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int r = 0;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			r = yaml_failed(&p, path, err, errlen);
			break;
		}
		yaml_event_type_t t = ev.type;

		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
		if (t == YAML_MAPPING_START_EVENT) {
			r = parse_mapping(&p, "", c, path, err, errlen);
			if (r)
				break;
		} else if (t == YAML_SCALAR_EVENT ||
			   t == YAML_SEQUENCE_START_EVENT) {
			snprintf(err, errlen, "%s: the top level must be a "
				 "mapping", path);
			r = -EINVAL;
			break;
		}
	}
	yaml_parser_delete(&p);
	return r;
}

int config_load(struct famfsd_config *out, const char *path, bool must_exist,
		const struct config_overrides *ov, char *err, size_t errlen)
{
	struct famfsd_config c;
	FILE *f;
	int r = 0;

	set_defaults(&c);
	f = path ? fopen(path, "re") : NULL;
	if (f) {
		r = parse_file(f, path, &c, err, errlen);
		fclose(f);
	} else if (path && (must_exist || errno != ENOENT)) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		r = -errno;
	}
	for (int i = 0; !r && ov && i < ov->n; i++)
		r = set_key(&c, ov->key[i], ov->value[i], err, errlen);
	if (!r && c.tcp_listen && !c.token_file) {
		snprintf(err, errlen, "tcp.listen needs token_file: the TCP "
			 "listener only serves requests with a bearer token");
		r = -EINVAL;
	}
	if (!r && c.tcp_listen && !c.tcp_insecure &&
	    (!c.tls_cert || !c.tls_key)) {
		snprintf(err, errlen, "tcp.listen needs tcp.tls_cert and "
			 "tcp.tls_key (or tcp.insecure: true for tests)");
		r = -EINVAL;
	}
	if (!r && !c.paths_devices) {
		size_t n = strlen(c.state_dir) + sizeof("/dev/shm/famfs*:");

		c.paths_devices = malloc(n);
		if (c.paths_devices)
			snprintf(c.paths_devices, n, "/dev/shm/famfs*:%s",
				 c.state_dir);
	}
	if (!r && (c.threads < 1 || c.threads > 64)) {
		snprintf(err, errlen, "threads must be 1..64");
		r = -EINVAL;
	}
	if (r) {
		config_free(&c);
		return r;
	}
	config_free(out);
	*out = c;
	return 0;
}

void config_free(struct famfsd_config *c)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].type == K_STR || keys[i].type == K_LIST) {
			char **p = (char **)((char *)c + keys[i].off);

			free(*p);
			*p = NULL;
		}
}

/* A ':'-list as a YAML flow sequence: [a, "b*"]. */
static void print_list(const char *l, FILE *f)
{
	fputc('[', f);
	for (const char *s = l ? l : ""; *s;) {
		size_t n = strcspn(s, ":");

		fprintf(f, "%s\"%.*s\"", s == l ? "" : ", ", (int)n, s);
		s += n + (s[n] == ':');
	}
	fputs("]\n", f);
}

void config_print(const struct famfsd_config *c, FILE *f)
{
	static const char *lv[] = { "emerg", "alert", "crit", "err",
		"warning", "notice", "info", "debug" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const void *p = (const char *)c + keys[i].off;

		fprintf(f, "%s: ", keys[i].name);
		switch (keys[i].type) {
		case K_STR:
			fprintf(f, "%s\n", *(char *const *)p ? *(char *const *)p : "~");
			break;
		case K_LIST:
			print_list(*(char *const *)p, f);
			break;
		case K_BOOL:
			fprintf(f, "%s\n", *(const bool *)p ? "true" : "false");
			break;
		case K_SIZE:
			fprintf(f, "%llu\n", (unsigned long long)*(const uint64_t *)p);
			break;
		case K_UINT:
		case K_SECS:
			fprintf(f, "%u\n", *(const unsigned *)p);
			break;
		case K_MODE:
			fprintf(f, "\"%04o\"\n", *(const unsigned *)p);
			break;
		case K_LEVEL:
			fprintf(f, "%s\n", lv[*(const int *)p & 7]);
			break;
		}
	}
}

/* An executable: a path, or a name found on $PATH as execvp() would. */
static bool executable(const char *name)
{
	char buf[4096];
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (const char *s = path ? path : "/usr/bin:/bin"; *s;) {
		size_t n = strcspn(s, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, s, name);
		if (access(buf, X_OK) == 0)
			return true;
		s += n + (s[n] == ':');
	}
	return false;
}

int config_check_paths(const struct famfsd_config *c, FILE *f)
{
	struct stat st;
	int bad = 0;

	if (!c->plugin_dir || stat(c->plugin_dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(f, "plugin_dir: %s: not a directory\n",
			c->plugin_dir ? c->plugin_dir : "(unset)");
		bad++;
	}
	if (!executable(c->fused_path)) {
		fprintf(f, "fused_path: %s: not an executable (mounts would "
			"fail to start)\n", c->fused_path);
		bad++;
	}
	if (c->token_file && access(c->token_file, R_OK)) {
		fprintf(f, "token_file: %s: %s\n", c->token_file, strerror(errno));
		bad++;
	}
	if (c->read_token_file && access(c->read_token_file, R_OK)) {
		fprintf(f, "read_token_file: %s: %s\n", c->read_token_file,
			strerror(errno));
		bad++;
	}
	if (c->tls_cert && access(c->tls_cert, R_OK)) {
		fprintf(f, "tcp.tls_cert: %s: %s\n", c->tls_cert, strerror(errno));
		bad++;
	}
	if (c->tls_key && access(c->tls_key, R_OK)) {
		fprintf(f, "tcp.tls_key: %s: %s\n", c->tls_key, strerror(errno));
		bad++;
	}
	return bad;
}
