// SPDX-License-Identifier: Apache-2.0
/*
 * The steps of the differential test, run the same way on either side, and
 * the snapshot of a side's tree that is compared after every step.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "difftest.h"

const char *const dt_paths[NPATH] = { "a", "b", "c", "d", "e", "d/a", "d/b", "e/a" };

static const char *const names[OP_COUNT] = {
	"open", "write", "pwrite", "writev", "read", "ftruncate", "truncate",
	"close", "fsync", "rename", "unlink", "mkdir", "rmdir", "chmod",
	"utimensat", "redirect", "cp",
};

const char *dt_op_name(enum op op)
{
	return names[op];
}

/* A shell redirect and cp fail in their open(), the rest in their call. */
const char *dt_op_call(enum op op)
{
	return op == OP_REDIRECT || op == OP_CP ? "open" : names[op];
}

static void flags_str(int f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s",
		 (f & O_ACCMODE) == O_RDONLY ? "O_RDONLY" :
		 (f & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDWR",
		 f & O_CREAT ? "|O_CREAT" : "", f & O_EXCL ? "|O_EXCL" : "",
		 f & O_TRUNC ? "|O_TRUNC" : "", f & O_APPEND ? "|O_APPEND" : "");
}

void dt_step_str(const struct step *st, char *buf, size_t len)
{
	static const char *const where[] = { "inside", "at end", "past end" };
	const char *p = dt_paths[st->path], *q = dt_paths[st->path2];
	char fl[96];

	switch (st->op) {
	case OP_OPEN:
		flags_str(st->flags, fl, sizeof(fl));
		snprintf(buf, len, "fd%d = open(%s, %s, 0%o)", st->slot, p, fl, st->mode);
		break;
	case OP_WRITE: case OP_READ:
		snprintf(buf, len, "%s(fd%d, %u bytes)", names[st->op], st->slot, st->len);
		break;
	case OP_PWRITE: case OP_WRITEV:
		snprintf(buf, len, "%s(fd%d, %u bytes, %s)", names[st->op], st->slot,
			 st->len, st->op == OP_WRITEV ? "current offset" : where[st->where]);
		break;
	case OP_FTRUNCATE:
		snprintf(buf, len, "ftruncate(fd%d, %s by %u)", st->slot,
			 st->where ? "up" : "down", st->len);
		break;
	case OP_TRUNCATE:
		snprintf(buf, len, "truncate(%s, %s by %u)", p, st->where ? "up" : "down",
			 st->len);
		break;
	case OP_CLOSE: case OP_FSYNC:
		snprintf(buf, len, "%s(fd%d)", names[st->op], st->slot);
		break;
	case OP_RENAME: case OP_CP:
		snprintf(buf, len, "%s %s %s", names[st->op], p, q);
		break;
	case OP_CHMOD: case OP_MKDIR:
		snprintf(buf, len, "%s(%s, 0%o)", names[st->op], p, st->mode);
		break;
	case OP_REDIRECT:
		snprintf(buf, len, "sh -c 'printf %%s <%u bytes> > %s'", st->len, p);
		break;
	default:
		snprintf(buf, len, "%s(%s)", names[st->op], p);
	}
}

uint64_t dt_hash(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static void fill(char *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (char)('a' + (seed >> 16) % 26);
	}
}

static void full_path(const struct side *s, int path, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", s->root, dt_paths[path]);
}

off_t dt_size(const char *root, const char *path)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", root, path);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
}

/* The errno a tool printed ("...: Text file busy"), in the C locale. */
static int errno_in(const char *msg)
{
	size_t best = 0;
	int e = EIO;

	for (int i = 1; i < 134; i++) {
		const char *s = strerror(i);

		if (strstr(msg, s) && strlen(s) > best) {
			best = strlen(s);
			e = i;
		}
	}
	return e;
}

/* Tools run from a process forked before the test opened anything: a
 * child that inherits the test's descriptors closes them when it exits,
 * and famfs-fused commits a file at such a close (its FLUSH) as at the
 * writer's own.
 */
static int spawn_req = -1, spawn_ans = -1;

struct spawn_msg {
	char argv[4][6000];
	struct result r;
};

/* Pipes move a message this size in pieces. */
static bool xfer(int fd, struct spawn_msg *m, bool out)
{
	char *p = (char *)m;
	size_t done = 0;

	while (done < sizeof(*m)) {
		ssize_t n = out ? write(fd, p + done, sizeof(*m) - done) :
				  read(fd, p + done, sizeof(*m) - done);

		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

static struct result run_tool(char *const argv[])
{
	struct result r = { 0 };
	char msg[1024] = "";
	int pipefd[2], status = 0;
	ssize_t n = 0, got;
	pid_t pid;

	if (pipe(pipefd))
		return (struct result){ -1, errno, 0 };
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (n < (ssize_t)sizeof(msg) - 1 &&
	       (got = read(pipefd[0], msg + n, sizeof(msg) - 1 - (size_t)n)) > 0)
		n += got;
	msg[n] = '\0';
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		r.ret = -1;
		r.err = errno_in(msg);
	}
	return r;
}

void dt_spawner_start(void)
{
	int req[2], ans[2];

	if (pipe(req) || pipe(ans)) {
		perror("difftest: pipe");
		exit(2);
	}
	if (fork() == 0) {
		static struct spawn_msg m;

		close(req[1]);
		close(ans[0]);
		while (xfer(req[0], &m, false)) {
			char *argv[5] = { m.argv[0], m.argv[1], m.argv[2], m.argv[3], NULL };

			for (int i = 0; i < 4; i++)
				if (!m.argv[i][0])
					argv[i] = NULL;
			m.r = run_tool(argv);
			if (!xfer(ans[1], &m, true))
				_exit(1);
		}
		_exit(0);
	}
	close(req[0]);
	close(ans[1]);
	spawn_req = req[1];
	spawn_ans = ans[0];
}

/* Run a tool (up to 4 arguments); its exit status, and the errno it
 * named on failure.
 */
static struct result tool(const char *const argv[])
{
	static struct spawn_msg m;

	memset(&m, 0, sizeof(m));
	for (int i = 0; i < 4 && argv[i]; i++)
		snprintf(m.argv[i], sizeof(m.argv[i]), "%s", argv[i]);
	if (!xfer(spawn_req, &m, true) || !xfer(spawn_ans, &m, false)) {
		fprintf(stderr, "difftest: the tool runner died\n");
		exit(2);
	}
	return m.r;
}

static struct result sys(long ret)
{
	return (struct result){ ret, ret < 0 ? errno : 0, 0 };
}

static off_t write_offset(const struct step *st, off_t size)
{
	if (st->where == 0)
		return size ? (off_t)(st->seed % (unsigned)size) : 0;
	return st->where == 1 ? size : size + 1 + (off_t)(st->seed % 5000);
}

static struct result run_fd(struct side *s, const struct step *st, off_t size)
{
	int fd = s->fd[st->slot];
	char *buf = malloc(st->len + 1);
	struct result r = { 0 };

	if (!buf)
		return (struct result){ -1, ENOMEM, 0 };
	fill(buf, st->len, st->seed);
	switch (st->op) {
	case OP_WRITE:
		r = sys(write(fd, buf, st->len));
		break;
	case OP_PWRITE:
		r = sys(pwrite(fd, buf, st->len, write_offset(st, size)));
		break;
	case OP_WRITEV: {
		struct iovec iov[3] = {
			{ buf, st->len / 3 }, { buf + st->len / 3, st->len / 3 },
			{ buf + 2 * (st->len / 3), st->len - 2 * (st->len / 3) },
		};

		r = sys(writev(fd, iov, 3));
		break;
	}
	case OP_READ:
		r = sys(read(fd, buf, st->len));
		if (r.ret > 0)
			r.hash = dt_hash(buf, (size_t)r.ret, 14695981039346656037ULL);
		break;
	case OP_FTRUNCATE:
		r = sys(ftruncate(fd, st->where ? size + st->len :
				  size - (off_t)(st->len % ((unsigned)size + 1))));
		break;
	case OP_FSYNC:
		r = sys(fsync(fd));
		break;
	case OP_CLOSE:
		r = sys(close(fd));
		s->fd[st->slot] = -1;
		break;
	default:
		break;
	}
	free(buf);
	return r;
}

struct result dt_run(struct side *s, const struct step *st, off_t size)
{
	char p[4200], q[4200], data[1001];
	struct result r = { 0 };

	full_path(s, st->path, p, sizeof(p));
	full_path(s, st->path2, q, sizeof(q));
	switch (st->op) {
	case OP_OPEN:
		if (s->fd[st->slot] >= 0)
			close(s->fd[st->slot]);
		s->fd[st->slot] = open(p, st->flags, st->mode);
		return sys(s->fd[st->slot] < 0 ? -1 : 0);
	case OP_WRITE: case OP_PWRITE: case OP_WRITEV: case OP_READ:
	case OP_FTRUNCATE: case OP_FSYNC: case OP_CLOSE:
		if (s->fd[st->slot] < 0)
			return r; /* nothing open in that slot: a no-op both sides */
		return run_fd(s, st, size);
	case OP_TRUNCATE:
		return sys(truncate(p, st->where ? size + st->len :
				    size - (off_t)(st->len % ((unsigned)size + 1))));
	case OP_RENAME:
		return sys(rename(p, q));
	case OP_UNLINK:
		return sys(unlink(p));
	case OP_MKDIR:
		return sys(mkdir(p, st->mode));
	case OP_RMDIR:
		return sys(rmdir(p));
	case OP_CHMOD:
		return sys(chmod(p, st->mode));
	case OP_UTIMENS: {
		struct timespec ts[2] = { { st->seed, 0 }, { st->seed / 2, 1234 } };

		return sys(utimensat(AT_FDCWD, p, ts, 0));
	}
	case OP_REDIRECT: {
		unsigned n = st->len < sizeof(data) - 1 ? st->len : sizeof(data) - 1;
		char cmd[6000];
		const char *argv[] = { "sh", "-c", cmd, NULL };

		fill(data, n, st->seed);
		data[n] = '\0';
		snprintf(cmd, sizeof(cmd), "printf %%s %s > '%s'", data, p);
		return tool(argv);
	}
	case OP_CP: {
		const char *argv[] = { "cp", p, q, NULL };

		return tool(argv);
	}
	default:
		return r;
	}
}

/* ---- snapshots ---------------------------------------------------------- */

struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, const char *s)
{
	size_t l = strlen(s);

	if (b->n + l + 1 > b->cap) {
		b->cap = (b->n + l + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, s, l + 1);
	b->n += l;
}

static uint64_t file_hash(const char *path, int *err)
{
	uint64_t h = 14695981039346656037ULL;
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	*err = 0;
	if (fd < 0) {
		*err = errno;
		return 0;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		h = dt_hash(chunk, (size_t)n, h);
	if (n < 0)
		*err = errno;
	close(fd);
	return h;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *root, const char *rel, struct buf *out, bool modes)
{
	char dir[4200], p[8400], r[4200], line[4400];
	char *ents[256];
	size_t n = 0;
	struct dirent *d;
	DIR *dh;

	snprintf(dir, sizeof(dir), "%s%s%s", root, *rel ? "/" : "", rel);
	if (!(dh = opendir(dir)))
		return;
	while ((d = readdir(dh)) && n < 256)
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			ents[n++] = strdup(d->d_name);
	closedir(dh);
	qsort(ents, n, sizeof(ents[0]), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int err = 0;

		snprintf(r, sizeof(r), "%s%s%s", rel, *rel ? "/" : "", ents[i]);
		snprintf(p, sizeof(p), "%s/%s", root, r);
		free(ents[i]);
		if (lstat(p, &st)) {
			snprintf(line, sizeof(line), "%s lstat:%s\n", r, strerror(errno));
			put(out, line);
		} else if (S_ISDIR(st.st_mode)) {
			snprintf(line, sizeof(line), "%s dir %o\n", r,
				 modes ? (unsigned)st.st_mode : 0);
			put(out, line);
			walk(root, r, out, modes);
		} else {
			uint64_t h = file_hash(p, &err);

			snprintf(line, sizeof(line), "%s file %o size %lld %s%016llx\n", r,
				 modes ? (unsigned)st.st_mode : 0, (long long)st.st_size,
				 err ? strerror(err) : "", (unsigned long long)h);
			put(out, line);
		}
	}
}

char *dt_snapshot(const char *root, bool modes)
{
	struct buf b = { 0 };

	put(&b, "");
	walk(root, "", &b, modes);
	return b.p;
}

/* Copy famfs's bytes, size and mode of each file onto tmpfs's (in place:
 * tmpfs descriptors keep pointing at the same file).
 */
void dt_resync(struct side *tmp, struct side *fam)
{
	for (int i = 0; i < NSLOT; i++) {
		if (tmp->fd[i] >= 0 && fam->fd[i] >= 0)
			lseek(tmp->fd[i], lseek(fam->fd[i], 0, SEEK_CUR), SEEK_SET);
		if (tmp->fd[i] >= 0 && fam->fd[i] < 0) {
			close(tmp->fd[i]);
			tmp->fd[i] = -1;
		} else if (fam->fd[i] >= 0 && tmp->fd[i] < 0) {
			close(fam->fd[i]);
			fam->fd[i] = -1;
		}
	}
	for (int i = 0; i < NPATH; i++) {
		char fp[4200], tp[4200], *data;
		struct stat fs, ts;
		ssize_t n;
		int ffd, tfd;

		full_path(fam, i, fp, sizeof(fp));
		full_path(tmp, i, tp, sizeof(tp));
		if (stat(fp, &fs) || stat(tp, &ts) || !S_ISREG(fs.st_mode) ||
		    !S_ISREG(ts.st_mode))
			continue;
		chmod(tp, fs.st_mode & 07777);
		ffd = open(fp, O_RDONLY);
		tfd = open(tp, O_WRONLY);
		data = malloc((size_t)fs.st_size + 1);
		if (ffd >= 0 && tfd >= 0 && data) {
			n = pread(ffd, data, (size_t)fs.st_size, 0);
			if (n >= 0 && ftruncate(tfd, n) == 0 &&
			    pwrite(tfd, data, (size_t)n, 0) != n)
				perror("difftest: resync");
		}
		free(data);
		if (ffd >= 0)
			close(ffd);
		if (tfd >= 0)
			close(tfd);
	}
}
