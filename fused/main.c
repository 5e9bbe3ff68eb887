// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-fused [--client] [options] DEV... MOUNTPOINT
 *
 * Opens the filesystem (as master, or as a client that claims a slot),
 * mounts it, serves it with libfuse's multi-threaded loop in the
 * foreground, and unmounts cleanly on SIGTERM/SIGINT or `fusermount3 -u`.
 * Every refusal happens before the mount, with the reason on stderr and
 * exit status 1.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pending.h"

struct fused fused = {
	.pend_mu = PTHREAD_MUTEX_INITIALIZER,
	.q_mu = PTHREAD_MUTEX_INITIALIZER,
	.q_cv = PTHREAD_COND_INITIALIZER,
};

void fused_log(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "famfs-fused: %s\n", buf);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: famfs-fused [--client] [options] DEV... MOUNTPOINT\n\n"
"Mount a famfs filesystem through FUSE, in the foreground. The master mount\n"
"is read-write; a --client mount is read-only and follows the master's log.\n\n"
"  --client            read-only client: replay and follow the log\n"
"  --host-name NAME    this host's name (default $FAMFS_HOST_NAME, hostname);\n"
"                      the master must be the superblock's master host\n"
"  --force             master: take over from another master host; any:\n"
"                      mount a filesystem whose log is corrupt (serving\n"
"                      the entries before the bad one)\n"
"  --allow-other       let other users see the mount (-o allow_other)\n"
"  -o OPT[,OPT...]     mount options: allow_other; others go to libfuse\n"
"  --direct-io         client: no page cache for read() (MAP_SHARED mmap\n"
"                      then fails with ENODEV on libfuse 3.14)\n"
"  --read-ahead-kb N   readahead of the mount (default 4096 on a client)\n"
"  --poll-ms N         client: log poll interval (default 2)\n"
"  --ready-fd FD       write READY=1 to FD once the mount answers\n"
"  --max-threads N     worker threads of the session loop (default one\n"
"                      per CPU, 2 to 16, on the master; 16 on a client)\n"
"  -f, --foreground    accepted; famfs-fused always runs in the foreground\n"
"  -d, --debug         libfuse request trace\n"
"  -h, --help, --version\n\n"
"It prints 'famfs-fused: ready: ...' on stdout when the mount is up.\n"
"Files' maps are xattrs: user.famfs.map (JSON, as famfs-cli getmap -o json)\n"
"and user.famfs.devices (JSON list of device paths, index order).\n");
}

static char extra_opts[1024];

/* -o LIST: allow_other is ours; default_permissions is always on. */
static int parse_o(const char *list)
{
	char *dup = strdup(list), *save = NULL, *tok;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "allow_other"))
			fused.o.allow_other = true;
		else if (!strcmp(tok, "default_permissions") || !strcmp(tok, "rw"))
			continue;
		else if (!strcmp(tok, "ro") && !fused.o.client)
			fused_log("-o ro ignored: use --client for a read-only mount");
		else if (strlen(extra_opts) + strlen(tok) + 2 < sizeof(extra_opts)) {
			strcat(extra_opts, ",");
			strcat(extra_opts, tok);
		}
	}
	free(dup);
	return 0;
}

static int parse_uint(const char *s, const char *what, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > UINT_MAX) {
		fused_log("%s: '%s' is not a number", what, s);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

/* The master's default worker count: one per online CPU, 2 to 16. */
static unsigned master_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2 ? 2 : n > 16 ? 16 : (unsigned)n;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "client", no_argument, NULL, 'c' },
		{ "host-name", required_argument, NULL, 'H' },
		{ "force", no_argument, NULL, 'F' },
		{ "allow-other", no_argument, NULL, 'A' },
		{ "direct-io", no_argument, NULL, 'D' },
		{ "read-ahead-kb", required_argument, NULL, 'R' },
		{ "poll-ms", required_argument, NULL, 'P' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "max-threads", required_argument, NULL, 'T' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct fused_opts *o = &fused.o;
	unsigned u, ra = UINT_MAX;
	int c;

	o->poll_ms = 2;
	o->max_threads = 0; /* --max-threads, $FAMFS_FUSED_THREADS or by role */
	o->ready_fd = -1;
	o->host_name = getenv("FAMFS_HOST_NAME");
	while ((c = getopt_long(argc, argv, "+o:fdh", opts, NULL)) != -1) {
		switch (c) {
		case 'c': o->client = true; break;
		case 'H': o->host_name = optarg; break;
		case 'F': o->force = true; break;
		case 'A': o->allow_other = true; break;
		case 'D': o->direct_io = true; break;
		case 'f': break;
		case 'V': printf("famfs-fused %s\n", FAMFS_VERSION); exit(0);
		case 'd': o->debug = true; break;
		case 'o':
			if (parse_o(optarg))
				return -ENOMEM;
			break;
		case 'R':
			if (parse_uint(optarg, "--read-ahead-kb", &ra))
				return -EINVAL;
			break;
		case 'P':
			if (parse_uint(optarg, "--poll-ms", &o->poll_ms) || !o->poll_ms) {
				fused_log("--poll-ms must be at least 1");
				return -EINVAL;
			}
			break;
		case 'T':
			if (parse_uint(optarg, "--max-threads", &o->max_threads) ||
			    !o->max_threads) {
				fused_log("--max-threads must be at least 1");
				return -EINVAL;
			}
			break;
		case 'r':
			if (parse_uint(optarg, "--ready-fd", &u) || u > INT_MAX)
				return -EINVAL;
			o->ready_fd = (int)u;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	}
	if (argc - optind < 2) {
		fused_log("need at least one device and a mount point");
		usage(stderr);
		return -EINVAL;
	}
	if (argc - optind - 1 > FAMFS_MAX_DEVICES) {
		fused_log("at most %d devices", FAMFS_MAX_DEVICES);
		return -EINVAL;
	}
	o->read_ahead_kb = ra != UINT_MAX ? ra : o->client ? 4096 : 0;
	if (!o->max_threads && getenv("FAMFS_FUSED_THREADS"))
		o->max_threads = (unsigned)atoi(getenv("FAMFS_FUSED_THREADS"));
	/* The master: 2. Idle workers wait on /dev/fuse in turn, so with more
	 * of them each request of a copy wakes one that has slept longest (on
	 * a VM a halted vCPU) instead of finding the one that just answered
	 * already back at the queue: `cp -a` into the master took up to 38 %
	 * longer and up to 40 % more famfs-fused CPU with 16 than with 1 or 2
	 * (bench/results/fuse.md, 2026-12-05). Two keep a WRITE's store
	 * (after its answer) beside the next request's copy. One per online
	 * CPU (2 to 16) so that a larger master still serves as many requests
	 * at once as it has cores. A client serves readahead and many
	 * readers: 16, no measured reason to change.
	 */
	if (!o->max_threads)
		o->max_threads = o->client ? 16 : master_default_threads();
	for (; optind < argc - 1; optind++) {
		/* absolute paths: user.famfs.devices must work from any cwd */
		char *real = realpath(argv[optind], NULL);

		o->devs[o->ndev++] = real ? real : argv[optind];
	}
	o->mountpoint = argv[optind];
	return 0;
}

static int check_mountpoint(const char *p)
{
	struct stat st;

	if (stat(p, &st) != 0) {
		fused_log("mount point %s: %m", p);
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		fused_log("mount point %s is not a directory", p);
		return -ENOTDIR;
	}
	return 0;
}

static int open_fs(void)
{
	struct famfs_open_opts oo = {
		.flags = fused.o.client ? FAMFS_OPEN_CLIENT :
			 FAMFS_OPEN_MASTER | (fused.o.force ? FAMFS_OPEN_FORCE : 0),
		.host_name = fused.o.host_name,
	};
	struct famfs_err e = { 0 };
	int r;

	r = famfs_open(fused.o.devs, fused.o.ndev, &oo, &fused.fs, &e);
	if (r) {
		fused_log("cannot open the filesystem as %s: %s",
			  fused.o.client ? "client" : "master",
			  e.msg[0] ? e.msg : strerror(-r));
		return r;
	}
	r = famfs_mount_check(fused.fs, &e);
	if (r && !fused.o.force) {
		fused_log("error: refusing to mount: %s", e.msg);
		famfs_close(fused.fs);
		fused.fs = NULL;
		return r;
	}
	if (r)
		fused_log("error: mounting anyway (--force): %s", e.msg);
	return 0;
}

static struct fuse_session *new_session(const char *argv0)
{
	struct fuse_lowlevel_ops ops = { 0 };
	char opts[2048];
	const char *dev0 = fused.o.devs[0];
	char *args_v[] = { (char *)argv0, "-o", opts, NULL, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, args_v);

	if (fused.o.debug)
		args_v[args.argc++] = "-d";
	snprintf(opts, sizeof(opts), "fsname=famfs:%s,subtype=famfs,"
		 "default_permissions%s%s%s", strchr(dev0, ',') ? "dev" : dev0,
		 fused.o.allow_other ? ",allow_other" : "",
		 fused.o.client ? ",ro" : "", extra_opts);
	struct fuse_session *se;

	fused_ops_read(&ops);
	fused_ops_write(&ops);
	fused_ops_grow(&ops);
	fused_ops_symlink(&ops);
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	fuse_opt_free_args(&args); /* the session keeps what it needs */
	return se;
}

static int serve(void)
{
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	int r;

	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_max_threads(cfg, fused.o.max_threads);
	fuse_loop_cfg_set_idle_threads(cfg, fused.o.max_threads);
	r = fuse_session_loop_mt(fused.se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return r;
}

int main(int argc, char **argv)
{
	int r;

	if (parse_args(argc, argv) || check_mountpoint(fused.o.mountpoint))
		return 1;
	fused.entry_timeout = fused.o.client ? 5.0 : 1.0;
	if (open_fs())
		return 1;
	fused.se = new_session(argv[0]);
	if (!fused.se) {
		fused_log("cannot start a FUSE session (bad -o option?)");
		famfs_close(fused.fs);
		return 1;
	}
	if (fuse_set_signal_handlers(fused.se) ||
	    fuse_session_mount(fused.se, fused.o.mountpoint)) {
		fused_log("cannot mount on %s", fused.o.mountpoint);
		fuse_session_destroy(fused.se);
		famfs_close(fused.fs);
		return 1;
	}
	r = fused_dio_mmap_setup(fused.se);
	if (r)
		fused_log("no direct_io for read-write opens: custom I/O: %s",
			  strerror(-r));
	r = fused_threads_start();
	if (r) {
		fused_log("cannot start threads: %s", strerror(-r));
	} else {
		r = serve();
		if (r == SIGTERM || r == SIGINT || r == SIGHUP || r == -SIGTERM ||
		    r == -SIGINT || r == -SIGHUP) {
			fused_log("stopped by signal %d", r < 0 ? -r : r);
			r = 0;
		} else if (r) {
			fused_log("session ended with error %d", r);
		}
	}
	if (!fused.o.client)
		pend_commit_all();
	/* the notifier writes to the session's fd: stop it before the
	 * unmount closes that fd
	 */
	fused_threads_stop();
	fuse_session_unmount(fused.se);
	fused_ofiles_free_all();
	fused_dirs_free_all();
	fused_inomap_free_all();
	fuse_remove_signal_handlers(fused.se);
	fuse_session_destroy(fused.se);
	famfs_close(fused.fs);
	fused_log("unmounted %s", fused.o.mountpoint);
	return r ? 1 : 0;
}
