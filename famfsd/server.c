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
#include "famfsd.h"
#include "jobs/jobs.h"
#include "log.h"
#include "metrics.h"
#include "server.h"
#include "store/store.h"

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

static bool is_mutating(const char *m)
{
	return !strcmp(m, "POST") || !strcmp(m, "PUT") ||
	       !strcmp(m, "PATCH") || !strcmp(m, "DELETE");
}

static void who_of(struct MHD_Connection *c, struct listener *l, char *buf,
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
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci) {
		struct ucred cr;
		socklen_t sl = sizeof(cr);

		if (!getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr,
				&sl))
			snprintf(buf, len, "uid:%u pid:%d", cr.uid, cr.pid);
	}
}

static bool token_ok(struct MHD_Connection *c, const char *token)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Authorization");
	size_t n = strlen(token), hl;
	unsigned diff = 0;

	if (!n || !h || strncmp(h, "Bearer ", 7))
		return false;
	h += 7;
	hl = strlen(h);
	if (hl != n)
		return false;
	for (size_t i = 0; i < n; i++)      /* constant time */
		diff |= (unsigned)(h[i] ^ token[i]);
	return diff == 0;
}

/*
 * Split "/a/b/c" in place. An empty segment ("//", or a trailing "/") is
 * refused rather than skipped: q->rest points into the raw URL, so the
 * segments and the rest must count the same slashes (DELETE
 * /v1//files/fs/x used to delete /x of "fs" through rest = "/fs/x").
 */
static int split_url(struct api_req *q, char *copy)
{
	char *s = copy;
	int n = 0;

	if (*s != '/')
		return -1;
	while (*s == '/') {
		*s++ = '\0';
		if (!*s || *s == '/' || n == API_MAX_SEGS)
			return -1;
		q->seg[n++] = s;
		s += strcspn(s, "/");
	}
	q->nseg = n;
	return 0;
}

/* Parse a whole body as one JSON object; -1 with a 400 otherwise. */
static int parse_body(struct api_req *q, const char *b, size_t len,
		      struct api_resp *r)
{
	struct json_tokener *tok;
	json_object *o;
	size_t off;

	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, b, (int)len);
	off = json_tokener_get_parse_end(tok);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		json_tokener_free(tok);
		json_object_put(o);
		return api_error(r, 400, "malformed_json",
				 "the body is not valid JSON: %s at byte %zu",
				 e == json_tokener_continue ? "unexpected end"
				 : json_tokener_error_desc(e), off);
	}
	json_tokener_free(tok);
	for (; off < len; off++)
		if (!strchr(" \t\r\n", b[off])) {
			json_object_put(o);
			return api_error(r, 400, "malformed_json",
					 "the body has bytes after the JSON "
					 "value (at byte %zu)", off);
		}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return api_error(r, 400, "malformed_json",
				 "the body must be a JSON object");
	}
	q->body = o;
	return 0;
}

static int dispatch(struct api_req *q, struct api_resp *r)
{
	static const struct { const char *name; int (*fn)(struct api_req *,
						struct api_resp *); } res[] = {
		{ "host", api_host }, { "devices", api_devices },
		{ "interleave-sets", api_sets },
		{ "filesystems", api_filesystems }, { "mounts", api_mounts },
		{ "files", api_files }, { "jobs", api_jobs },
		{ "events", api_events },
	};

	if (q->nseg >= 2 && !strcmp(q->seg[0], "v1"))
		for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++)
			if (!strcmp(q->seg[1], res[i].name))
				return res[i].fn(q, r);
	q->route = "unmatched";
	return api_not_found(q, r);
}

static void handle(struct reqctx *x, struct MHD_Connection *c,
		   const char *url, const char *method, struct api_resp *r)
{
	struct api_req q = { .method = method, .url = url, .conn = c };
	bool mut = is_mutating(method);
	char who[96], *copy = NULL;
	const char *ct;

	who_of(c, x->l, who, sizeof(who));
	q.who = who;
	if (!strcmp(url, "/healthz")) {
		/* no lock: it reads only what is fixed once the API serves */
		q.route = "/healthz";
		api_healthz(&q, r);
		goto out;
	}
	if (x->l->tcp && !token_ok(c, x->conf->token)) {
		q.route = "unauthorized";
		api_error(r, 401, "unauthorized", "a valid 'Authorization: "
			  "Bearer <token>' header is required on TCP");
		goto out;
	}
	if (atomic_load(&famfsd.stopping)) {
		q.route = "stopping";
		api_error(r, 503, "shutting_down", "famfsd is stopping");
		goto out;
	}
	if (x->too_big) {
		q.route = "too_large";
		api_error(r, 413, "body_too_large", "the request body is "
			  "larger than %llu bytes",
			  (unsigned long long)x->conf->cfg.max_body);
		goto audit_only;
	}
	ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	if (x->len && ct && strncmp(ct, "application/json", 16)) {
		q.route = "bad_media";
		api_error(r, 415, "unsupported_media_type", "Content-Type is "
			  "'%s'; send 'Content-Type: application/json'", ct);
		goto audit_only;
	}
	if (x->len && parse_body(&q, x->body, x->len, r)) {
		q.route = "malformed";
		goto audit_only;
	}
	if (!strcmp(url, "/metrics")) {
		/* only reads: scrapes run side by side, and wait for a
		 * mutation only while it holds the lock
		 */
		q.route = "/metrics";
		famfsd_rdlock();
		api_metrics(&q, r);
		famfsd_unlock();
		goto out;
	}
	copy = strdup(url);
	if (!copy || split_url(&q, copy)) {
		q.route = "unmatched";
		api_not_found(&q, r);
		goto out;
	}
	q.rest = q.nseg > 3 ? strstr(url + 1, "/") : NULL;
	for (int i = 0; q.rest && i < 2; i++)
		q.rest = strchr(q.rest + 1, '/');
	famfsd_lock();
	if (mut && store_begin(famfsd.db)) {
		api_error(r, 500, "internal", "cannot start a transaction");
	} else {
		dispatch(&q, r);
		/* A success is audited in its own transaction; a failure after
		 * the rollback, so that the refusal is recorded too.
		 */
		if (mut && r->status < 400)
			store_audit(famfsd.db, who, method, url, x->body,
				    r->status, r->code);
		if (mut && r->status < 400 && store_commit(famfsd.db)) {
			store_rollback(famfsd.db);
			api_error(r, 500, "internal", "cannot commit: %s",
				  sqlite3_errmsg(famfsd.db));
		} else if (mut && r->status >= 400) {
			store_rollback(famfsd.db);
		}
	}
	if (mut && r->status >= 400)
		store_audit(famfsd.db, who, method, url, x->body, r->status,
			    r->code);
	famfsd_unlock();
	if (mut && r->status < 400)
		jobs_kick();
	goto out;
audit_only:
	if (mut) {
		famfsd_lock();
		store_audit(famfsd.db, who, method, url,
			    x->too_big ? "" : x->body, r->status, r->code);
		famfsd_unlock();
	}
out:
	if (!r->status)
		api_error(r, 500, "internal", "handler set no response");
	metrics_observe(q.route ? q.route : "unmatched", method, r->status,
			elapsed(&x->t0));
	json_object_put(q.body);
	free(copy);
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
	if (!x) {
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						"Content-Length");
		x = calloc(1, sizeof(*x));
		if (!x)
			return MHD_NO;
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
	conf_put(x->conf);
	free(x->body);
	free(x);
	*con_cls = NULL;
	atomic_fetch_sub(&inflight, 1);
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
static int unix_listen(char *err, size_t errlen)
{
	const struct famfsd_config *cfg = famfsd_cfg();
	const char *path = cfg->socket_path;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(sa.sun_path)];
	struct group *g;
	int fd, r;

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
		goto fail;
	if (g && chown(tmp, (uid_t)-1, g->gr_gid))
		log_warn("cannot give %s to group %s: %m", path, g->gr_name);
	if (chmod(tmp, cfg->socket_mode) || listen(fd, 128) ||
	    rename(tmp, path))
		goto fail;
	listeners[nlisteners].own_socket = true;
	return fd;
fail:
	r = -errno;
	snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return r;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n >= 0 ? calloc(1, (size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static struct MHD_Daemon *start_mhd(struct listener *l, unsigned extra_flags,
				    struct sockaddr *sa)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_USE_ERROR_LOG | MHD_USE_ITC | extra_flags;
	struct MHD_OptionItem opts[8];
	int n = 0;

	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE,
		famfsd_cfg()->threads, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
		30, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED,
		(intptr_t)on_completed, NULL };
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
	for (int t = 0; t < timeout_ms && server_inflight() > 0; t += 10)
		usleep(10000);
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
