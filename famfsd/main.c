// SPDX-License-Identifier: Apache-2.0
/*
 * famfsd: the famfs management daemon. Reads like its life: configure,
 * open the store, load providers, discover devices, recover jobs, bring
 * mounts back, serve the API, tell systemd, then supervise until SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "famfsd.h"
#include "holds.h"
#include "fsview.h"
#include "jobs/jobs.h"
#include "log.h"
#include "mounts/supervisor.h"
#include "providers.h"
#include "server.h"
#include "store/store.h"

/* A master handle unused this long is closed (it is reopened, with one log
 * replay, by the next create).
 */
#define FSMASTER_IDLE_SECONDS 30


static void usage(FILE *f)
{
	fprintf(f,
"usage: famfsd [options]\n"
"  -c, --config FILE      config file (default " FAMFSD_DEFAULT_CONFIG ")\n"
"  -s, --socket PATH      API Unix socket (default " FAMFSD_DEFAULT_SOCKET ")\n"
"  -d, --state-dir DIR    database and logs (default " FAMFSD_DEFAULT_STATE_DIR ")\n"
"  -p, --plugin-dir DIR   device provider plugins\n"
"                         (default " FAMFSD_PLUGIN_DIR ")\n"
"  -n, --host-name NAME   this host's name (default: hostname)\n"
"      --fused PATH       the famfs-fused binary\n"
"                         (default " FAMFSD_FUSED_PATH ")\n"
"      --tcp HOST:PORT    also listen on TCP (needs token_file, TLS)\n"
"      --token-file FILE  bearer token for TCP (write access)\n"
"      --read-token-file FILE  bearer token for TCP (read access)\n"
"      --log-level LEVEL  err, warning, notice, info, debug\n"
"      --set KEY=VALUE    any famfsd.yaml setting (lists ':'-separated),\n"
"                         e.g. --set paths.mounts=/mnt/famfs*:/data/fs\n"
"  -f, --foreground       run in the foreground (famfsd never forks;\n"
"                         accepted for scripts and unit files)\n"
"      --check-config     check the configuration (file and options), print\n"
"                         it, exit 0 if valid, 1 if not\n"
"  -h, --help, --version\n");
}

static void add_override(const char *key, const char *value)
{
	struct config_overrides *o = &famfsd.ov;

	if (o->n < FAMFSD_MAX_OVERRIDES) {
		o->key[o->n] = key;
		o->value[o->n++] = value;
	}
}

static bool check_config;

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "plugin-dir", required_argument, NULL, 'p' },
		{ "host-name", required_argument, NULL, 'n' },
		{ "fused", required_argument, NULL, 'F' },
		{ "tcp", required_argument, NULL, 'T' },
		{ "token-file", required_argument, NULL, 'K' },
		{ "read-token-file", required_argument, NULL, 'R' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "set", required_argument, NULL, 'S' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "check-config", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	famfsd.config_path = FAMFSD_DEFAULT_CONFIG;
	while ((c = getopt_long(argc, argv, "c:s:d:p:n:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'c': famfsd.config_path = optarg;
			  famfsd.config_explicit = true; break;
		case 's': add_override("socket", optarg); break;
		case 'd': add_override("state_dir", optarg); break;
		case 'p': add_override("plugin_dir", optarg); break;
		case 'n': add_override("host_name", optarg); break;
		case 'F': add_override("fused_path", optarg); break;
		case 'T': add_override("tcp.listen", optarg); break;
		case 'K': add_override("token_file", optarg); break;
		case 'R': add_override("read_token_file", optarg); break;
		case 'L': add_override("log_level", optarg); break;
		case 'S': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg) {
				fprintf(stderr, "famfsd: --set '%s': not "
					"KEY=VALUE\n", optarg);
				return -1;
			}
			*eq = '\0';
			add_override(optarg, eq + 1);
			break;
		}
		case 'f': break;
		case 'C': check_config = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("famfsd %s\n", FAMFSD_VERSION); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "famfsd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* The token in @file into @out (sizeof famfsd_conf.token); @key names
 * the setting in messages. No file: an empty token, which never matches. */
static int read_token(const char *file, const char *key, char *out,
		      char *err, size_t errlen)
{
	char buf[sizeof(((struct famfsd_conf *)0)->token)] = "";
	FILE *f;

	out[0] = 0;
	if (!file)
		return 0;
	f = fopen(file, "re");
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cannot read %s %s: %s", key, file,
			 strerror(e));
		return -e;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\r\n")] = 0;
	if (strlen(buf) < 16) {
		snprintf(err, errlen, "%s %s: the token must be at least 16 "
			 "characters", key, file);
		return -EINVAL;
	}
	memcpy(out, buf, sizeof(buf));
	return 0;
}

/* The tokens of @c's token files into @c (a snapshot not yet published). */
static int load_token(struct famfsd_conf *c, char *err, size_t errlen)
{
	int r = read_token(c->cfg.token_file, "token_file", c->token, err,
			   errlen);

	if (!r)
		r = read_token(c->cfg.read_token_file, "read_token_file",
			       c->read_token, err, errlen);
	if (!r && c->token[0] && !strcmp(c->token, c->read_token)) {
		snprintf(err, errlen, "token_file and read_token_file hold the "
			 "same token: a read token must not grant writes");
		r = -EINVAL;
	}
	return r;
}

/* A new snapshot from the config file and the overrides, token included;
 * NULL with the reason in @err when any of it is bad.
 */
static struct famfsd_conf *conf_load(char *err, size_t errlen)
{
	struct famfsd_conf *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	atomic_init(&c->refs, 1);
	if (config_load(&c->cfg, famfsd.config_path, famfsd.config_explicit,
			&famfsd.ov, err, errlen)) {
		free(c);
		return NULL;
	}
	if (check_config || !load_token(c, err, errlen))
		return c;
	config_free(&c->cfg);
	free(c);
	return NULL;
}

static int mkdir_p(const char *dir, mode_t mode)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", dir);
	for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static void notify_status(void)
{
	sqlite3_stmt *st;
	int nm = 0, nd = 0;

	famfsd_lock();
	st = store_prep(famfsd.db, "SELECT (SELECT count(*) FROM devices), "
			"(SELECT count(*) FROM mounts WHERE state='mounted')");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		nd = sqlite3_column_int(st, 0);
		nm = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	famfsd_unlock();
	sd_notifyf(0, "STATUS=serving on %s: %d devices, %d mounts",
		   famfsd_cfg()->socket_path, nd, nm);
}

/* Serving, but degraded while a provider is missing: /healthz says 503
 * and GET /v1/host lists why (docs/api.md). systemd still gets READY=1,
 * so that the mounts famfsd supervises stay managed.
 */
static void report_ready(void)
{
	const char **why;
	int n = providers_problems(&why);

	sd_notify(0, "READY=1");
	if (!n) {
		log_info("famfsd %s ready (host %s, state %s)", FAMFSD_VERSION,
			 famfsd_cfg()->host_name, famfsd_cfg()->state_dir);
		notify_status();
		return;
	}
	log_err("famfsd %s serving DEGRADED (host %s, state %s): %d provider "
		"problem%s, first: %s", FAMFSD_VERSION, famfsd_cfg()->host_name,
		famfsd_cfg()->state_dir, n, n == 1 ? "" : "s", why[0]);
	sd_notifyf(0, "STATUS=degraded: %s", why[0]);
}

/* A new configuration and token, or none of it: the snapshot is swapped
 * whole under the write lock (request threads hold a reference to theirs).
 */
static void reload(void)
{
	const struct famfsd_config *old = famfsd_cfg();
	struct famfsd_conf *c;
	char err[512];

	log_info("SIGHUP: reloading %s", famfsd.config_path);
	sd_notify(0, "RELOADING=1");
	c = conf_load(err, sizeof(err));
	if (!c) {
		log_err("reload: %s; keeping the running configuration", err);
	} else {
		if (strcmp(c->cfg.socket_path, old->socket_path) ||
		    strcmp(c->cfg.state_dir, old->state_dir))
			log_warn("reload: socket and state_dir changes need a "
				 "restart");
		free(c->cfg.socket_path);
		free(c->cfg.state_dir);
		c->cfg.socket_path = strdup(old->socket_path);
		c->cfg.state_dir = strdup(old->state_dir);
	}
	famfsd_lock();
	if (c) {
		conf_publish(c);
		log_set_level(famfsd_cfg()->log_level);
	}
	providers_discover(NULL);
	famfsd_unlock();
	report_ready();
}

static int serve(void)
{
	uint64_t wd_usec = 0;
	int wd = sd_watchdog_enabled(0, &wd_usec) > 0;
	int timeout = 1000, sfd;
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (wd && wd_usec / 2000 < (uint64_t)timeout)
		timeout = (int)(wd_usec / 2000);
	if (wd)
		log_info("watchdog every %llu ms", (unsigned long long)wd_usec / 2000);
	for (;;) {
		struct pollfd p = { .fd = sfd, .events = POLLIN };
		struct signalfd_siginfo si;

		poll(&p, 1, timeout);
		if (wd)
			sd_notify(0, "WATCHDOG=1");
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
				close(sfd);
				return (int)si.ssi_signo;
			}
			if (si.ssi_signo == SIGHUP)
				reload();
		}
		famfsd_lock();
		mounts_tick();
		holds_tick();
		fsmaster_expire(FSMASTER_IDLE_SECONDS);
		famfsd_unlock();
		jobs_kick();
	}
}

int main(int argc, char **argv)
{
	const struct famfsd_config *cfg;
	struct famfsd_conf *conf;
	char err[1024];
	sigset_t mask;
	int r, sig;

	log_init(LOG_INFO);
	if (parse_args(argc, argv))
		return 2;
	conf = conf_load(err, sizeof(err));
	if (!conf) {
		log_err("%s", err);
		return 1;
	}
	conf_publish(conf);   /* no other thread yet */
	cfg = famfsd_cfg();
	if (check_config) {
		int bad = config_check_paths(cfg, stderr);

		printf("# %s\n", famfsd.config_path);
		config_print(cfg, stdout);
		if (bad)
			fprintf(stderr, "famfsd: %s: %d problem%s\n",
				famfsd.config_path, bad, bad == 1 ? "" : "s");
		return bad ? 1 : 0;
	}
	log_set_level(cfg->log_level);
	/* Signals go to the signalfd; threads inherit this mask. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	if ((r = mkdir_p(cfg->state_dir, 0750))) {
		log_err("cannot create state dir %s: %s", cfg->state_dir,
			strerror(-r));
		return 1;
	}
	snprintf(famfsd.db_path, sizeof(famfsd.db_path), "%s/" STORE_DB_NAME,
		 cfg->state_dir);
	if (store_open(famfsd.db_path, &famfsd.db, err, sizeof(err))) {
		log_err("%s", err);
		sd_notifyf(0, "STATUS=%s", err);
		return 1;
	}
	famfsd.started = store_now();
	jobs_builtin_init();
	providers_load(cfg->plugin_dir);

	famfsd_lock();
	store_kv_set(famfsd.db, "host.name", cfg->host_name);
	providers_discover(NULL);
	jobs_recover();
	mounts_reconcile();
	famfsd_unlock();

	if (server_start(err, sizeof(err))) {
		log_err("%s", err);
		sd_notifyf(0, "STATUS=%s", err);
		return 1;
	}
	jobs_kick();
	holds_reaper_start();
	report_ready();

	sig = serve();
	log_info("%s: finishing in-flight requests", strsignal(sig));
	atomic_store(&famfsd.stopping, true);
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
	server_stop(25000);   /* below the unit's TimeoutStopSec=30 */
	holds_reaper_stop();
	jobs_shutdown();
	famfsd_lock();
	fsview_drop_all();
	providers_unload();
	store_close(famfsd.db);
	famfsd.db = NULL;
	famfsd_unlock();
	log_info("stopped");
	conf_publish(NULL);   /* frees the last snapshot */
	return 0;
}
