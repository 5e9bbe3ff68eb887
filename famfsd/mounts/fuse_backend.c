// SPDX-License-Identifier: Apache-2.0
/* The "fuse" mount backend: famfs-fused [--client] [options] DEV... MNT,
 * one process per mount, in the foreground so that famfsd supervises it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "famfs.h"
#include "famfsd.h"
#include "log.h"
#include "mounts/backend.h"
#include "mounts/spawn.h"

/* Undo mountinfo's octal escapes (\040 for a space, ...). */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

bool mountinfo_has(const char *path)
{
	char line[8192], real[4096];
	bool found = false;
	FILE *f;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);

		for (int i = 0; tok && i < 4; i++)
			tok = strtok_r(NULL, " ", &save);
		if (!tok)
			continue;
		unescape(tok);
		found = !strcmp(tok, real) || !strcmp(tok, path);
	}
	fclose(f);
	return found;
}

bool mountinfo_dev(const char *path, char *dev, size_t len)
{
	char line[8192], real[4096];
	bool found = false;
	FILE *f;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	/* the last entry of @path is the one on top */
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " ", &save), *d = NULL;

		for (int i = 0; tok && i < 4; i++) {
			if (i == 2)
				d = tok;
			tok = strtok_r(NULL, " ", &save);
		}
		if (!tok || !d)
			continue;
		unescape(tok);
		if (!strcmp(tok, real) || !strcmp(tok, path)) {
			snprintf(dev, len, "%s", d);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static int run_wait(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open("/dev/null", O_RDWR);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -EINTR;
}

static void fuse_clean_stale(const char *path)
{
	char *lazy[] = { "fusermount3", "-u", "-z", (char *)path, NULL };

	run_wait(lazy);
	if (mountinfo_has(path)) {
		char *um[] = { "umount", "-l", (char *)path, NULL };

		run_wait(um);
	}
}

static int fuse_start(const struct mount_spec *m, pid_t *out, char *err,
		      size_t errlen)
{
	char *argv[FAMFS_MAX_DEVICES + 32], *opts = NULL, *save = NULL, *tok;
	int pfd[2], n = 0, e = 0, logfd;
	pid_t pid;
	ssize_t got;

	argv[n++] = famfsd_cfg()->fused_path;
	if (m->client)
		argv[n++] = "--client";
	if (m->options && *m->options) {
		opts = strdup(m->options);
		for (tok = strtok_r(opts, " ", &save); tok && n < 24;
		     tok = strtok_r(NULL, " ", &save))
			argv[n++] = tok;
	}
	for (unsigned i = 0; i < m->ndev; i++)
		argv[n++] = m->devs[i];
	argv[n++] = (char *)m->path;
	argv[n] = NULL;

	if (pipe2(pfd, O_CLOEXEC)) {
		free(opts);
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	logfd = open(m->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		     0640);
	pid = fork();
	if (pid < 0) {
		e = -errno;
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto out;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		close(pfd[0]);
		spawn_reset_signals();
		setsid();
		dup2(nul, 0);
		if (logfd >= 0) {
			dup2(logfd, 1);
			dup2(logfd, 2);
		}
		setenv("FAMFS_HOST_NAME", m->host_name, 1);
		execvp(argv[0], argv);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	pfd[1] = -1;
	got = read(pfd[0], &e, sizeof(e));
	if (got == sizeof(e)) {
		waitpid(pid, NULL, 0);
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
		e = -e;
	} else {
		char serr[256];

		e = 0;
		*out = pid;
		log_info("mounts/%s: started %s (pid %d) for %s", m->name,
			 argv[0], (int)pid, m->path);
		/* still famfsd's child (it reaps it), in a cgroup of its own */
		if (spawn_own_scope(pid, m->name, serr, sizeof(serr)) < 0)
			log_debug("mounts/%s: no scope of its own: %s",
				  m->name, serr);
	}
out:
	close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (logfd >= 0)
		close(logfd);
	free(opts);
	return e;
}

static bool pid_alive(pid_t pid, bool our_child)
{
	if (our_child)
		return waitpid(pid, NULL, WNOHANG) == 0;
	return kill(pid, 0) == 0;
}

static int fuse_stop(const char *path, pid_t pid, bool our_child)
{
	int i;

	if (pid > 0 && pid_alive(pid, our_child)) {
		kill(pid, SIGTERM);
		for (i = 0; i < 100 && pid_alive(pid, our_child); i++)
			usleep(50000);
		if (pid_alive(pid, our_child)) {
			char *um[] = { "fusermount3", "-u", (char *)path, NULL };

			run_wait(um);
			for (i = 0; i < 40 && pid_alive(pid, our_child); i++)
				usleep(50000);
		}
		if (pid_alive(pid, our_child)) {
			kill(pid, SIGKILL);
			if (our_child)
				waitpid(pid, NULL, 0);
		}
	}
	if (mountinfo_has(path))
		fuse_clean_stale(path);
	return mountinfo_has(path) ? -EBUSY : 0;
}

static bool fuse_owns_pid(pid_t pid)
{
	char p[64], cmd[4096] = "";
	const char *base = strrchr(famfsd_cfg()->fused_path, '/');
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return false;
	cmd[n] = 0;
	base = base ? base + 1 : famfsd_cfg()->fused_path;
	return strstr(cmd, base) != NULL;
}

static const struct mount_backend fuse_backend = {
	.name = "fuse",
	.start = fuse_start,
	.stop = fuse_stop,
	.is_mounted = mountinfo_has,
	.owns_pid = fuse_owns_pid,
	.clean_stale = fuse_clean_stale,
};

const struct mount_backend *mount_backend_find(const char *name)
{
	if (!strcmp(name, "fuse"))
		return &fuse_backend;
	if (!strcmp(name, "kernel"))
		return &kernel_backend;
	return NULL;
}
