// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <systemd/sd-daemon.h>

#include "api/api.h"
#include "famfs_cleanup.h"
#include "famfsd.h"
#include "jobs/jobs.h"
#include "log.h"
#include "metrics.h"
#include "request.h"
#include "server.h"

struct listener {
	struct MHD_Daemon *d;
	int fd;
	bool tcp;
	bool own_socket;       /* we created the Unix socket file */
};

static struct listener listeners[2];
static int nlisteners;
static atomic_int inflight;
static char *tls_cert, *tls_key;

struct reqctx {
	struct listener *l;
	char *raw_url;             /* as received: request_check.h */
	bool started;              /* on_request has seen the headers */
	struct famfsd_conf *conf;  /* the configuration the request started with */
	struct timespec t0;
	char *body;
	size_t len;
	bool too_big;
};

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Is @gid one of the groups named in the ':'-list @list? */
static bool gid_listed(gid_t gid, const char *list)
{
	char name[256];

	for (const char *s = list ? list : ""; *s;) {
		size_t n = strcspn(s, ":");
		struct group *g;

		snprintf(name, sizeof(name), "%.*s", (int)n, s);
		s += n + (s[n] == ':');
		g = getgrnam(name);
		if (g && g->gr_gid == gid)
			return true;
	}
	return false;
}

/*
 * What the peer of the Unix socket @fd may do: root writes; otherwise the
 * best of its groups (primary and supplementary, as the kernel saw them
 * at connect()) against access.write and access.read.
 */
static enum api_access peer_access(int fd, const struct ucred *cr,
				   const struct famfsd_config *cfg)
{
	gid_t groups[256];
	socklen_t len = sizeof(groups);
	enum api_access best = ACCESS_NONE;
	int n;

	if (cr->uid == 0)
		return ACCESS_WRITE;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		len = 0;
	n = (int)(len / sizeof(gid_t));
	groups[n < 256 ? n++ : 255] = cr->gid;
	for (int i = 0; i < n; i++) {
		if (gid_listed(groups[i], cfg->access_write))
			return ACCESS_WRITE;
		if (gid_listed(groups[i], cfg->access_read))
			best = ACCESS_READ;
	}
	return best;
}

/* Who is asking, for the audit log, and (Unix socket) with what access. */
static enum api_access who_of(struct MHD_Connection *c, struct listener *l,
			      const struct famfsd_config *cfg, char *buf,
			      size_t len)
{
	const union MHD_ConnectionInfo *ci;

	snprintf(buf, len, "unknown");
	if (l->tcp) {
		char ip[64] = "?";

		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (ci && ci->client_addr &&
		    ci->client_addr->sa_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)
				  ci->client_addr)->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "token@%s", ip);
		return ACCESS_NONE;         /* the token decides */
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci) {
		struct ucred cr;
		socklen_t sl = sizeof(cr);

		if (!getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr,
				&sl)) {
			snprintf(buf, len, "uid:%u gid:%u pid:%d", cr.uid,
				 cr.gid, cr.pid);
			return peer_access(ci->connect_fd, &cr, cfg);
		}
	}
	return ACCESS_NONE;
}

static const char *query_arg(void *conn, const char *key)
{
	return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
}

struct name_walk {
	const char **names;
	int n, max;
};

static enum MHD_Result add_name(void *cls, enum MHD_ValueKind kind,
				const char *key, const char *value)
{
	struct name_walk *w = cls;

	(void)kind;
	(void)value;
	if (w->n < w->max)
		w->names[w->n] = key;
	w->n++;
	return MHD_YES;
}

static int query_names(void *conn, const char **names, int max)
{
	struct name_walk w = { names, 0, max };

	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_name, &w);
	return w.n;
}

/* libmicrohttpd's URI log hook: the URL before it decodes it, kept as the
 * request's context (on_completed frees it). */
static void *keep_raw_url(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct reqctx *x = calloc(1, sizeof(*x));

	(void)cls;
	(void)c;
	if (x)
		x->raw_url = strdup(uri);
	return x;
}

static void handle(struct reqctx *x, struct MHD_Connection *c,
		   const char *url, const char *method, struct api_resp *r)
{
	struct http_request h = {
		.method = method, .url = url, .tcp = x->l->tcp,
		.content_type = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							    "Content-Type"),
		.authorization = MHD_lookup_connection_value(c,
					MHD_HEADER_KIND, "Authorization"),
		.body = x->body, .len = x->len, .too_big = x->too_big,
		.arg = query_arg, .arg_ctx = c, .conf = x->conf,
		.arg_names = query_names,
		/* without it (out of memory) nothing is checked: refuse */
		.raw_url = x->raw_url ? x->raw_url : "%",
	};
	char who[96];

	h.access = who_of(c, x->l, &x->conf->cfg, who, sizeof(who));
	h.who = who;
	request_handle(&h, r);
	metrics_observe(h.route, method, r->status, elapsed(&x->t0));
	if (h.changed)
		jobs_kick();
}

static enum MHD_Result send_resp(struct MHD_Connection *c, struct api_resp *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	const char *s;
	size_t len;
	char *buf;

	if (r->text) {
		buf = r->text;
		len = strlen(buf);
		r->text = NULL;
	} else if (r->json) {
		s = json_object_to_json_string_ext(r->json,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		len = strlen(s);
		buf = malloc(len + 2);
		if (buf) {
			memcpy(buf, s, len);
			buf[len++] = '\n';
			buf[len] = 0;
		}
	} else {
		buf = strdup("");
		len = 0;
	}
	if (!buf)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(buf);
		return MHD_NO;
	}
	if (len)
		MHD_add_response_header(resp, "Content-Type",
					r->ctype ? r->ctype : "application/json");
	if (r->status == 401)
		MHD_add_response_header(resp, "WWW-Authenticate",
					"Bearer realm=\"famfsd\"");
	if (atomic_load(&famfsd.stopping))
		MHD_add_response_header(resp, "Connection", "close");
	ret = MHD_queue_response(c, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct reqctx *x = *con_cls;
	struct api_resp r = { 0 };
	enum MHD_Result ret;

	(void)version;
	if (!x || !x->started) {
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						"Content-Length");
		if (!x)
			x = calloc(1, sizeof(*x));
		if (!x)
			return MHD_NO;
		x->started = true;
		x->l = cls;
		x->conf = conf_get();
		clock_gettime(CLOCK_MONOTONIC, &x->t0);
		if (cl && strtoull(cl, NULL, 10) > x->conf->cfg.max_body)
			x->too_big = true;
		*con_cls = x;
		atomic_fetch_add(&inflight, 1);
		return MHD_YES;
	}
	if (*upload_size) {
		if (!x->too_big && x->len + *upload_size > x->conf->cfg.max_body)
			x->too_big = true;
		if (!x->too_big) {
			char *nb = realloc(x->body, x->len + *upload_size + 1);

			if (!nb)
				return MHD_NO;
			memcpy(nb + x->len, upload, *upload_size);
			x->body = nb;
			x->len += *upload_size;
			x->body[x->len] = 0;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	handle(x, c, url, method, &r);
	ret = send_resp(c, &r);
	json_object_put(r.json);
	free(r.text);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct reqctx *x = *con_cls;

	(void)cls; (void)c; (void)toe;
	if (!x)
		return;
	free(x->raw_url);
	if (x->started) {
		conf_put(x->conf);
		atomic_fetch_sub(&inflight, 1);
	}
	free(x->body);
	free(x);
	*con_cls = NULL;
}

/* A socket file that nobody answers on is stale; one that answers is
 * another famfsd, which we must not steal the socket from.
 */
static int socket_path_free(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r;

	if (lstat(path, &st))
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (!r) {
		snprintf(err, errlen, "%s: another famfsd is listening there",
			 path);
		return -EADDRINUSE;
	}
	unlink(path);
	return 0;
}

static int mkdir_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *s;

	snprintf(dir, sizeof(dir), "%s", path);
	s = strrchr(dir, '/');
	if (!s || s == dir)
		return 0;
	*s = 0;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * The socket is bound under a temporary name, given its mode and group,
 * and only then renamed to its path: bound in place it would be open to
 * everyone (umask permissions) until the chmod.
 */
/* The socket at @tmp could not be set up: say why (errno), remove it. */
static int listen_failed(const char *path, const char *tmp, char *err,
			 size_t errlen)
{
	int r = -errno;

	snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(-r));
	unlink(tmp);
	return r;
}

static int unix_listen(char *err, size_t errlen)
{
	const struct famfsd_config *cfg = famfsd_cfg();
	const char *path = cfg->socket_path;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(sa.sun_path)];
	struct group *g;
	_cleanup_close_ int fd = -1;
	int r;

	if (snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp)) {
		snprintf(err, errlen, "socket path %s is too long", path);
		return -ENAMETOOLONG;
	}
	r = socket_path_free(path, err, errlen);
	if (r)
		return r;
	if (mkdir_parent(path)) {
		snprintf(err, errlen, "cannot create the directory of %s: %m",
			 path);
		return -errno;
	}
	g = cfg->socket_group ? getgrnam(cfg->socket_group) : NULL;
	if (cfg->socket_group && !g)
		log_warn("socket group %s does not exist", cfg->socket_group);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", tmp);
	unlink(tmp);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return listen_failed(path, tmp, err, errlen);
	if (g && chown(tmp, (uid_t)-1, g->gr_gid))
		log_warn("cannot give %s to group %s: %m", path, g->gr_name);
	if (chmod(tmp, cfg->socket_mode) || listen(fd, 128) ||
	    rename(tmp, path))
		return listen_failed(path, tmp, err, errlen);
	listeners[nlisteners].own_socket = true;
	return TAKE_FD(fd);
}

static char *read_file(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	_cleanup_free_ char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n >= 0 ? calloc(1, (size_t)n + 1) : NULL;
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		return NULL;
	return TAKE_PTR(buf);
}

static struct MHD_Daemon *start_mhd(struct listener *l, unsigned extra_flags,
				    struct sockaddr *sa)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_USE_ERROR_LOG | MHD_USE_ITC | extra_flags;
	struct MHD_OptionItem opts[9];
	int n = 0;

	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE,
		famfsd_cfg()->threads, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
		30, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED,
		(intptr_t)on_completed, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK,
		(intptr_t)keep_raw_url, NULL };
	if (l->fd >= 0)
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET,
			l->fd, NULL };
	if (sa)
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0,
			sa };
	if (extra_flags & MHD_USE_TLS) {
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY,
			0, tls_key };
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT,
			0, tls_cert };
	}
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, l,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

static int tcp_start(char *err, size_t errlen)
{
	const struct famfsd_config *cfg = famfsd_cfg();
	struct listener *l = &listeners[nlisteners];
	static struct sockaddr_in sin = { .sin_family = AF_INET };
	char host[128];
	const char *colon = strrchr(cfg->tcp_listen, ':');
	unsigned flags = 0;

	if (!colon || (size_t)(colon - cfg->tcp_listen) >= sizeof(host)) {
		snprintf(err, errlen, "tcp.listen '%s' is not host:port",
			 cfg->tcp_listen);
		return -EINVAL;
	}
	memcpy(host, cfg->tcp_listen, (size_t)(colon - cfg->tcp_listen));
	host[colon - cfg->tcp_listen] = 0;
	sin.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, *host ? host : "0.0.0.0", &sin.sin_addr) != 1) {
		snprintf(err, errlen, "tcp.listen '%s': not an IPv4 address",
			 cfg->tcp_listen);
		return -EINVAL;
	}
	if (!cfg->tcp_insecure) {
		tls_cert = read_file(cfg->tls_cert);
		tls_key = read_file(cfg->tls_key);
		if (!tls_cert || !tls_key) {
			snprintf(err, errlen, "cannot read %s or %s",
				 cfg->tls_cert, cfg->tls_key);
			return -ENOENT;
		}
		flags = MHD_USE_TLS;
	}
	l->tcp = true;
	l->fd = -1;
	l->d = start_mhd(l, flags, (struct sockaddr *)&sin);
	if (!l->d) {
		snprintf(err, errlen, "cannot listen on TCP %s",
			 cfg->tcp_listen);
		return -EADDRINUSE;
	}
	nlisteners++;
	log_info("listening on tcp %s (%s)", cfg->tcp_listen,
		 flags ? "TLS" : "no TLS: insecure, tests only");
	return 0;
}

int server_start(char *err, size_t errlen)
{
	struct listener *l = &listeners[0];
	int n = sd_listen_fds(1);

	memset(listeners, 0, sizeof(listeners));
	if (n >= 1 && sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1,
					NULL, 0) > 0) {
		l->fd = SD_LISTEN_FDS_START;
		log_info("using the socket passed by systemd (fd %d)", l->fd);
	} else {
		l->fd = unix_listen(err, errlen);
		if (l->fd < 0)
			return l->fd;
		log_info("listening on %s (mode %04o)", famfsd_cfg()->socket_path,
			 famfsd_cfg()->socket_mode);
	}
	l->d = start_mhd(l, 0, NULL);
	if (!l->d) {
		snprintf(err, errlen, "libmicrohttpd could not start on %s",
			 famfsd_cfg()->socket_path);
		return -EIO;
	}
	nlisteners = 1;
	if (famfsd_cfg()->tcp_listen)
		return tcp_start(err, errlen);
	return 0;
}

int server_inflight(void)
{
	return atomic_load(&inflight);
}

void server_stop(int timeout_ms)
{
	for (int i = 0; i < nlisteners; i++)
		MHD_quiesce_daemon(listeners[i].d);
	/* A monotonic deadline, not a count of sleeps: on a loaded host each
	 * sleep overshoots and the drain would end early in wall time. */
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (server_inflight() == 0 || now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		usleep(10000);
	}
	if (server_inflight() > 0)
		log_warn("stopping with %d request(s) still in flight after %d ms",
			 server_inflight(), timeout_ms);
	for (int i = 0; i < nlisteners; i++) {
		MHD_stop_daemon(listeners[i].d);
		if (listeners[i].own_socket)
			unlink(famfsd_cfg()->socket_path);
		if (listeners[i].fd >= 0)
			close(listeners[i].fd);
	}
	nlisteners = 0;
	free(tls_cert);
	free(tls_key);
}
