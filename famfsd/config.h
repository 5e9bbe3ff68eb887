/* SPDX-License-Identifier: Apache-2.0 */
/* famfsd configuration: defaults, then /etc/famfs/famfsd.yaml, then the
 * command-line overrides (which also win on every SIGHUP reload).
 */
#ifndef FAMFSD_CONFIG_H
#define FAMFSD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The build sets these from the install layout (CMakeLists.txt). */
#ifndef FAMFSD_DEFAULT_CONFIG
#define FAMFSD_DEFAULT_CONFIG "/etc/famfs/famfsd.yaml"
#endif
#ifndef FAMFSD_FUSED_PATH
#define FAMFSD_FUSED_PATH "famfs-fused"
#endif
#define FAMFSD_DEFAULT_SOCKET "/run/famfsd/famfsd.sock"
#define FAMFSD_DEFAULT_STATE_DIR "/var/lib/famfsd"
#define FAMFSD_MAX_OVERRIDES 32

struct famfsd_config {
	char *socket_path;
	char *socket_group;      /* "famfs"; used only if the group exists */
	unsigned socket_mode;    /* 0666: every request is checked against access.* */
	char *state_dir;
	char *plugin_dir;
	char *host_name;
	char *fused_path;        /* the FUSE server binary */
	char *tcp_listen;        /* "host:port" or NULL: no TCP */
	char *tls_cert;
	char *tls_key;
	char *token_file;        /* TCP token with write access */
	char *read_token_file;   /* TCP token with read access */
	/* Lists, ':'-separated (a YAML sequence in the file). */
	char *access_read;       /* groups whose members may read */
	char *access_write;      /* groups whose members may write */
	char *paths_devices;     /* where emul devices may be */
	char *paths_mounts;      /* where mounts may be */
	char *paths_sources;     /* what ingest jobs may read */
	char *holds_pin_dir;     /* where held generations are bind-mounted */
	char *holds_owner_check; /* run with a hold's owner; NULL: no reaper */
	unsigned holds_reap_interval;  /* seconds between owner checks */
	bool tcp_insecure;       /* TCP without TLS: for tests only */
	uint64_t max_body;       /* bytes */
	unsigned threads;        /* HTTP worker threads */
	int log_level;           /* syslog priority */
};

/* "key=value" pairs from the command line, applied after the file. */
struct config_overrides {
	const char *key[FAMFSD_MAX_OVERRIDES];
	const char *value[FAMFSD_MAX_OVERRIDES];
	int n;
};

/*
 * config_load() - fill @c from defaults, the YAML file @path and @ov.
 * A missing file is fine unless @must_exist. Unknown keys and bad values
 * are errors (message in @err). On error @c is left unchanged.
 */
int config_load(struct famfsd_config *c, const char *path, bool must_exist,
		const struct config_overrides *ov, char *err, size_t errlen);
void config_free(struct famfsd_config *c);
/* famfsd --check-config: the settings as YAML, and the paths they name
 * that are missing (one line each to @f, naming the key); returns how
 * many are. */
void config_print(const struct famfsd_config *c, FILE *f);
int config_check_paths(const struct famfsd_config *c, FILE *f);

#endif
