// SPDX-License-Identifier: Apache-2.0
/* famfs-cli create: make a pre-allocated file offline, optionally filled. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "famfs_cleanup.h"

static void create_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli create -d DEV... [options] PATH\n\n"
		"Create PATH in the filesystem on DEV... (as its master) with its\n"
		"space allocated now. Without --from the file is zero-filled.\n\n"
		"  -s, --size SIZE     file size (default: the size of --from)\n"
		"  -f, --from FILE     fill from FILE ('-' reads stdin)\n"
		"  -n, --strips N      interleave over N strips (default: all devices)\n"
		"  -c, --chunk SIZE    interleave chunk, a multiple of 2MiB (default 2MiB)\n"
		"  -m, --mode MODE     octal permissions (default 0644)\n"
		"  -u, --uid UID  -g, --gid GID   owner (default 0:0)\n"
		"  -H, --host-name NAME  this host's identity (default $FAMFS_HOST_NAME\n"
		"                        or the hostname; must be the fs's master)\n\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n");
}

/* Read all of @fd into memory (stdin has no size to allocate by). */
static int slurp(int fd, uint8_t **buf, uint64_t *len)
{
	size_t cap = 1 << 20, n = 0;
	_cleanup_free_ uint8_t *b = malloc(cap);

	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			/* a failed realloc() leaves b as it was (still ours) */
			uint8_t *grown = realloc(b, cap * 2);

			if (!grown)
				return -ENOMEM;
			b = grown;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0)
			return -errno;
		if (r == 0) {
			*buf = TAKE_PTR(b);
			*len = n;
			return 0;
		}
		n += (size_t)r;
	}
}

/* Copy @fd into the reserved map; the source must hold exactly @size. */
static int fill_from_fd(struct famfs_fs *fs, const struct famfs_fmap *m, int fd,
			uint64_t size, const char *src)
{
	size_t bs = 4 << 20;
	_cleanup_free_ uint8_t *buf = malloc(bs);
	uint64_t off = 0;

	if (!buf)
		return -ENOMEM;
	while (off < size) {
		ssize_t r = read(fd, buf, bs);

		if (r <= 0) {
			cli_error("create", "%s: %s after %llu of %llu bytes", src,
				  r < 0 ? strerror(errno) : "ended",
				  (unsigned long long)off, (unsigned long long)size);
			return -EIO;
		}
		if (off + (uint64_t)r > size)
			r = (ssize_t)(size - off);
		famfs_write_map(fs, m, off, buf, (uint64_t)r);
		off += (uint64_t)r;
	}
	return 0;
}

static int create_failed(const struct famfs_err *e)
{
	cli_error("create", "%s", e->msg);
	return CLI_EXIT_FAIL;
}

/*
 * Create @path in @fs: empty (no @from), else filled from @data (stdin,
 * read already) or @fd. Returns the exit status.
 */
static int create_in(struct famfs_fs *fs, const char *path,
		     const struct famfs_file_attr *a,
		     const struct famfs_alloc_policy *pol, const uint8_t *data,
		     int fd, const char *from)
{
	_cleanup_free_ struct famfs_fmap *m = NULL;
	struct famfs_err e = { 0 };

	if (!from)
		return famfs_create_file(fs, path, a, pol, NULL, &e) ?
		       create_failed(&e) : CLI_EXIT_OK;
	if (famfs_lookup(fs, path)) {
		cli_error("create", "%s: already exists", path);
		return CLI_EXIT_FAIL;
	}
	if (famfs_alloc(fs, a->size, pol, &m, &e))
		return create_failed(&e);
	if (data)
		famfs_write_map(fs, m, 0, data, a->size);
	else if (fill_from_fd(fs, m, fd, a->size, from)) {
		famfs_alloc_release(fs, m);
		return CLI_EXIT_FAIL;
	}
	if (famfs_commit_file(fs, path, a, m, &e)) {
		famfs_alloc_release(fs, m);
		return create_failed(&e);
	}
	return CLI_EXIT_OK;
}

int cmd_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "from", required_argument, NULL, 'f' },
		{ "strips", required_argument, NULL, 'n' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		CLI_DEVICE_OPTIONS, { 0 }
	};
	struct cli_devices devs = { 0 };
	struct famfs_alloc_policy pol = { 0 };
	struct famfs_file_attr a = { .mode = 0644 };
	const char *from = NULL, *host = NULL;
	bool have_size = false;
	uint8_t *data = NULL;
	int c, fd = -1, rc;
	long mode;

	while ((c = getopt_long(argc, argv, "s:f:n:c:m:u:g:d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (famfs_parse_size(optarg, &a.size)) {
				cli_error("create", "bad size '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			have_size = true;
			break;
		case 'f': from = optarg; break;
		case 'n':
			if (cli_parse_u32("create", "--strips", optarg,
					  FAMFS_MAX_STRIPS, &pol.nstrips))
				return CLI_EXIT_USAGE;
			break;
		case 'c':
			if (famfs_parse_size(optarg, &pol.chunk)) {
				cli_error("create", "bad chunk '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'm':
			if ((mode = cli_parse_mode(optarg)) < 0) {
				cli_error("create", "bad mode '%s' (octal, e.g. 0644)", optarg);
				return CLI_EXIT_USAGE;
			}
			a.mode = (uint32_t)mode;
			break;
		case 'u':
			if (cli_parse_u32("create", "--uid", optarg, UINT32_MAX, &a.uid))
				return CLI_EXIT_USAGE;
			break;
		case 'g':
			if (cli_parse_u32("create", "--gid", optarg, UINT32_MAX, &a.gid))
				return CLI_EXIT_USAGE;
			break;
		case 'd': if (cli_devices_add("create", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': create_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("create", create_usage); return CLI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc || (!have_size && !from)) {
		cli_usage_error("create", create_usage);
		return CLI_EXIT_USAGE;
	}
	/* Check the source before the filesystem is touched. */
	if (from && !strcmp(from, "-") && !have_size) {
		if (slurp(0, &data, &a.size)) {
			cli_error("create", "cannot read stdin");
			return CLI_EXIT_FAIL;
		}
	} else if (from) {
		struct stat st;

		fd = strcmp(from, "-") ? open(from, O_RDONLY | O_CLOEXEC) : 0;
		if (fd < 0 || fstat(fd, &st)) {
			cli_error("create", "%s: %s", from, strerror(errno));
			return CLI_EXIT_FAIL;
		}
		if (!have_size)
			a.size = (uint64_t)st.st_size;
	}

	struct famfs_fs *fs = cli_open_fs("create", &devs, FAMFS_OPEN_MASTER, host);

	rc = fs ? create_in(fs, argv[optind], &a, &pol, data, fd, from) :
	     CLI_EXIT_FAIL;
	free(data);
	if (fd > 0)
		close(fd);
	famfs_close(fs);
	return rc;
}
