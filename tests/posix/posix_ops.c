// SPDX-License-Identifier: Apache-2.0
/*
 * The same list of POSIX operations, run in one directory, one line per
 * step: "STEP<TAB>CALL<TAB>RESULT", RESULT being "ok" (with what the step
 * then sees: a size, a mode, a link target) or the errno's name. Run on
 * tmpfs and on a famfs mount, the two outputs are compared by compare.py
 * against the list in docs/fuse.md ("What famfs does not do, and the
 * errno it returns").
 *
 *	posix_ops setup DIR   make the fixtures the steps use
 *	posix_ops run DIR     run the steps (DIR as setup left it)
 *
 * The fixtures are made first and separately so that a read-only client
 * can run the steps over fixtures its master made.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int dfd;

/* The symbolic name of @e ("EPERM"); strerrorname_np is glibc >= 2.32. */
static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static void report(const char *step, const char *call, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* One line: ok and what the step sees, or the errno of the failed call. */
static void report(const char *step, const char *call, int r, const char *fmt, ...)
{
	printf("%s\t%s\t", step, call);
	if (r < 0) {
		printf("%s\n", errname(-r));
		return;
	}
	printf("ok");
	if (fmt) {
		va_list ap;

		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
}

static int rc(int r)
{
	return r < 0 ? -errno : r;
}

static int write_file(const char *name, int flags, const char *data)
{
	int fd = openat(dfd, name, flags | O_WRONLY | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, strlen(data));
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return close(fd) ? -errno : 0;
}

static long long size_of(const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ? -1 : (long long)st.st_size;
}

static int setup(void)
{
	static const char *const dirs[] = { "full", "empty1", "empty2", "other", "src" };
	static const char *const files[] = { "f", "g", "h", "r1", "r2", "full/x", "src/m" };
	int r = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		r = r ? r : rc(mkdirat(dfd, dirs[i], 0755));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		r = r ? r : write_file(files[i], O_CREAT | O_EXCL, "hello");
	if (r) {
		fprintf(stderr, "posix_ops: setup: %s\n", strerror(-r));
		return 1;
	}
	/* a fixture link only where symlinks exist: a missing one shows up
	 * as the readlink step's errno, the difference to report */
	if (symlinkat("f", dfd, "sl") && errno != ENOSYS && errno != EPERM)
		fprintf(stderr, "posix_ops: setup: symlink: %s\n", strerror(errno));
	return 0;
}

static void steps_create(void)
{
	int r = write_file("new", O_CREAT, "abc");

	report("create", "open", r, "size=%lld", size_of("new"));
	r = rc(openat(dfd, "f", O_CREAT | O_EXCL | O_WRONLY, 0644));
	report("create-excl-existing", "open", r < 0 ? r : (close(r), 0), NULL);
	r = write_file("g", O_TRUNC, "zz");
	report("open-trunc", "open", r, "size=%lld", size_of("g"));
	r = write_file("f", O_APPEND, "!");
	report("open-append", "write", r, "size=%lld", size_of("f"));
}

static void steps_dirs(void)
{
	int r;

	report("mkdir", "mkdir", rc(mkdirat(dfd, "nd", 0750)), NULL);
	report("mkdir-existing", "mkdir", rc(mkdirat(dfd, "full", 0755)), NULL);
	report("rmdir-nonempty", "rmdir", rc(unlinkat(dfd, "full", AT_REMOVEDIR)), NULL);
	report("rmdir-file", "rmdir", rc(unlinkat(dfd, "f", AT_REMOVEDIR)), NULL);
	r = rc(unlinkat(dfd, "new", 0));
	report("unlink", "unlink", r, "gone=%d", size_of("new") < 0);
	report("unlink-dir", "unlink", rc(unlinkat(dfd, "empty1", 0)), NULL);
}

static void steps_rename(void)
{
	int r = rc(renameat(dfd, "r1", dfd, "r2"));

	report("rename-over-file", "rename", r, "size=%lld r1=%lld", size_of("r2"),
	       size_of("r1"));
	r = rc(renameat(dfd, "empty1", dfd, "empty2"));
	report("rename-dir-over-empty-dir", "rename", r, NULL);
	report("rename-dir-over-nonempty-dir", "rename",
	       rc(renameat(dfd, "other", dfd, "full")), NULL);
	report("rename-file-over-dir", "rename", rc(renameat(dfd, "h", dfd, "full")), NULL);
	r = rc(renameat(dfd, "src/m", dfd, "other/m"));
	report("rename-across-dirs", "rename", r, "size=%lld", size_of("other/m"));
	report("rename-dir-across-dirs", "rename",
	       rc(renameat(dfd, "src", dfd, "other/src")), NULL);
}

/* renameat2(RENAME_EXCHANGE): a file and a directory swap, and back. */
static void steps_exchange(void)
{
	struct stat st = { 0 };
	int r = rc(renameat2(dfd, "r2", dfd, "other", RENAME_EXCHANGE));

	fstatat(dfd, "r2", &st, AT_SYMLINK_NOFOLLOW);
	report("exchange-file-dir", "rename", r, "r2-dir=%d other=%lld",
	       S_ISDIR(st.st_mode), size_of("other"));
	r = rc(renameat2(dfd, "r2", dfd, "other", RENAME_EXCHANGE));
	report("exchange-back", "rename", r, "other/m=%lld r2=%lld",
	       size_of("other/m"), size_of("r2"));
	report("exchange-missing", "rename",
	       rc(renameat2(dfd, "r2", dfd, "nope", RENAME_EXCHANGE)), NULL);
	report("exchange-dir-descendant", "rename",
	       rc(renameat2(dfd, "other", dfd, "other/src", RENAME_EXCHANGE)),
	       NULL);
}

static void steps_links(void)
{
	char buf[256];
	ssize_t n;
	int r;

	r = rc(symlinkat("target/of/link", dfd, "sl2"));
	n = readlinkat(dfd, "sl2", buf, sizeof(buf) - 1);
	report("symlink", "symlink", r, "reads=%.*s", (int)(n < 0 ? 0 : n), buf);
	n = readlinkat(dfd, "sl", buf, sizeof(buf) - 1);
	report("readlink", "readlink", n < 0 ? -errno : 0, "%.*s", (int)(n < 0 ? 0 : n), buf);
	n = readlinkat(dfd, "f", buf, sizeof(buf) - 1);
	report("readlink-file", "readlink", n < 0 ? -errno : 0, NULL);
	report("link", "link", rc(linkat(dfd, "f", dfd, "hl", 0)), NULL);
	report("mknod", "mknod", rc(mknodat(dfd, "nod", S_IFCHR | 0600, makedev(1, 3))), NULL);
	report("mkfifo", "mkfifo", rc(mkfifoat(dfd, "fifo", 0600)), NULL);
}

static void steps_attrs(void)
{
	const struct timespec ts[2] = { { 1000000000, 123456789 },
					{ 1100000000, 987654321 } };
	struct stat st = { 0 };
	int r;

	r = rc(fchmodat(dfd, "f", 0600, 0));
	fstatat(dfd, "f", &st, 0);
	report("chmod", "chmod", r, "mode=%o", st.st_mode & 07777);
	r = rc(fchownat(dfd, "f", 1234, 5678, 0));
	fstatat(dfd, "f", &st, 0);
	report("chown", "chown", r, "uid=%u gid=%u", st.st_uid, st.st_gid);
	r = rc(utimensat(dfd, "f", ts, 0));
	fstatat(dfd, "f", &st, 0);
	report("utimensat", "utimensat", r, "mtime=%lld.%09ld",
	       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	r = rc(truncate("h", 2));
	report("truncate", "truncate", r, "size=%lld", size_of("h"));
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "setup") && strcmp(argv[1], "run"))) {
		fprintf(stderr, "usage: posix_ops setup|run DIR\n");
		return 2;
	}
	dfd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fchdir(dfd)) {
		fprintf(stderr, "posix_ops: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "setup"))
		return setup();
	steps_create();
	steps_dirs();
	steps_rename();
	steps_exchange();
	steps_links();
	steps_attrs();
	return 0;
}
