// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-cli mount: mount a famfs filesystem through the kernel module and
 * replay its log into the mount.
 *
 * The module presents an empty tree plus .meta/devN, DAX files over each
 * whole device. We open them with libfamfs (as file-backed devices, so
 * the log is read through the same DAX mapping the files use), walk
 * the replayed tree and add every directory and file to the mount with
 * the module's ioctls; the kernel validates each map.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "famfs.h"
#include "../kmod/uapi/famfs_ioctl.h"

_Static_assert(sizeof(struct famfs_ioc_item) == sizeof(struct famfs_map_item),
	       "uapi item and format item differ");
_Static_assert(FAMFS_IOC_NAME_MAX == FAMFS_NAME_MAX, "name limits differ");

static const char usage[] =
"usage: famfs-cli mount --kernel [--client] DEVICE... MOUNTPOINT\n"
"       famfs-cli mount --replay MOUNTPOINT\n"
"\n"
"  --kernel   mount the filesystem on DEVICE... (fsdax /dev/pmemN, all of\n"
"             its devices, in any order) with the famfs kernel module and\n"
"             replay the log into it (master: read-write)\n"
"  --client   mount read-only, as a client host\n"
"  --replay   add what was logged since MOUNTPOINT was mounted (deletes\n"
"             take effect at the next mount)\n"
"\n"
"Exit status: 0 mounted or replayed, 1 failed, 2 usage error.\n";

struct replay_count {
	unsigned dirs;
	unsigned files;
	unsigned existing;
};

struct replay_ctx {
	struct famfs_fs *fs;
	const char *mnt;
	struct replay_count n;
	char path[FAMFS_PATH_MAX + 1];
};

static int replay_file(struct replay_ctx *c, int dirfd, struct famfs_node *n,
		       const struct famfs_attr *a)
{
	const struct famfs_fmap *m = famfs_node_map(n);
	struct famfs_ioc_create req;

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", famfs_node_name(n));
	req.size = a->size;
	req.mtime_ns = a->mtime_ns;
	req.ctime_ns = a->ctime_ns;
	req.mode = a->mode & 07777;
	req.uid = a->uid;
	req.gid = a->gid;
	if (m) {
		req.map.map_type = m->type;
		req.map.nitems = m->nitems;
		req.map.chunk = m->chunk;
		req.map.items = (uint64_t)(uintptr_t)m->items;
	}
	if (ioctl(dirfd, FAMFS_IOC_CREATE, &req) == 0) {
		c->n.files++;
		return 0;
	}
	return -errno;
}

static int replay_dir(struct replay_ctx *c, int dirfd, struct famfs_node *dir);

static int replay_subdir(struct replay_ctx *c, int dirfd, struct famfs_node *n,
			 const struct famfs_attr *a)
{
	struct famfs_ioc_mkdir req;
	int fd, r;

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", famfs_node_name(n));
	req.mtime_ns = a->mtime_ns;
	req.mode = a->mode & 07777;
	req.uid = a->uid;
	req.gid = a->gid;
	if (ioctl(dirfd, FAMFS_IOC_MKDIR, &req) == 0)
		c->n.dirs++;
	else if (errno == EEXIST)
		c->n.existing++;
	else
		return -errno;
	fd = openat(dirfd, req.name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = replay_dir(c, fd, n);
	close(fd);
	return r;
}

/* Add the children of @dir (open as @dirfd in the mount), depth first. */
static int replay_dir(struct replay_ctx *c, int dirfd, struct famfs_node *dir)
{
	struct famfs_node *n;
	struct famfs_attr a;
	int r;

	for (n = famfs_node_first_child(dir); n; n = famfs_node_next_sibling(n)) {
		famfs_node_attr(n, &a);
		if (famfs_node_is_dir(n))
			r = replay_subdir(c, dirfd, n, &a);
		else
			r = replay_file(c, dirfd, n, &a);
		if (r == -EEXIST && !famfs_node_is_dir(n)) {
			c->n.existing++;
			r = 0;
		}
		if (r) {
			famfs_node_path(n, c->path, sizeof(c->path));
			cli_error("mount", "%s%s: %s%s", c->mnt, c->path,
				  strerror(-r), r == -EINVAL ?
				  " (the kernel refused its map; see dmesg)" :
				  "");
			return r;
		}
	}
	return 0;
}

/*
 * replay_into_mount() - replay the log read through MNT/.meta/dev0 and add
 * every directory and file not yet in the mount. Returns 0 or a negative
 * errno after printing what failed.
 */
static int replay_into_mount(const char *mnt, struct replay_count *out)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct replay_ctx c = { .mnt = mnt };
	struct famfs_err e = { 0 };
	static char meta[FAMFS_MAX_DEVICES][4096];
	const char *paths[FAMFS_MAX_DEVICES];
	unsigned ndev;
	struct stat st;
	int rootfd, r;

	/* One meta file per device of the mount: dev0, dev1, ... */
	for (ndev = 0; ndev < FAMFS_MAX_DEVICES; ndev++) {
		snprintf(meta[ndev], sizeof(meta[ndev]), "%s/%s/%s%u", mnt,
			 FAMFS_KMOD_META_DIR, FAMFS_KMOD_META_DEV_PREFIX, ndev);
		if (stat(meta[ndev], &st) != 0)
			break;
		paths[ndev] = meta[ndev];
	}
	if (ndev == 0) {
		cli_error("mount", "%s is not a famfs kernel mount (no %s/%s0)",
			  mnt, FAMFS_KMOD_META_DIR, FAMFS_KMOD_META_DEV_PREFIX);
		return -ENOENT;
	}
	r = famfs_open(paths, ndev, &o, &c.fs, &e);
	if (r) {
		cli_error("mount", "%s", e.msg);
		return r;
	}
	rootfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		cli_error("mount", "cannot open %s: %s", mnt, strerror(-r));
	} else {
		famfs_fs_rdlock(c.fs);
		r = replay_dir(&c, rootfd, famfs_root(c.fs));
		famfs_fs_unlock(c.fs);
		close(rootfd);
	}
	famfs_close(c.fs);
	*out = c.n;
	return r;
}

/*
 * mount_options() - "dev=P1,dev=P2,..." for devices 1.. of the filesystem
 * on @devs (any order): their labels say which is which, so libfamfs
 * opens them once, before the mount, to tell. Device 0's path goes to
 * *@dev0. Returns 0 or -1 after printing why.
 */
static int mount_options(char *const *devs, unsigned ndev, const char **dev0,
			 char *opts, size_t optlen)
{
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_err e = { 0 };
	static char first[4096];
	struct famfs_fs *fs;
	size_t used = 0;
	int r;

	opts[0] = '\0';
	*dev0 = devs[0];
	if (ndev == 1)
		return 0;
	r = famfs_open((const char *const *)devs, ndev, &o, &fs, &e);
	if (r) {
		cli_error("mount", "%s", e.msg);
		return -1;
	}
	for (unsigned i = 0; i < famfs_fs_ndevices(fs) && r == 0; i++) {
		const char *p = famfs_dev_path(famfs_fs_dev(fs, i));

		if (i == 0) {
			snprintf(first, sizeof(first), "%s", p);
			continue;
		}
		if (strchr(p, ',')) {
			cli_error("mount", "%s: a device path with ',' cannot be "
				  "passed to mount(2)", p);
			r = -1;
		} else if ((size_t)snprintf(opts + used, optlen - used,
					    "%s%s=%s", used ? "," : "",
					    FAMFS_KMOD_MOUNT_OPT_DEV, p) >=
			   optlen - used) {
			cli_error("mount", "too many device paths");
			r = -1;
		} else {
			used += strlen(opts + used);
		}
	}
	famfs_close(fs);
	*dev0 = first;
	return r;
}

static void explain_mount_error(const char *dev, const char *mnt, int err)
{
	if (err == ENODEV)
		cli_error("mount", "filesystem type '%s' is unknown: load the "
			  "kernel module (modprobe famfs)", FAMFS_KMOD_FSTYPE);
	else if (err == EINVAL)
		cli_error("mount", "%s refused: not an fsdax (DAX) device, no "
			  "valid famfs superblock, or a device of the filesystem "
			  "missing (see dmesg)", dev);
	else
		cli_error("mount", "cannot mount %s on %s: %s", dev, mnt,
			  strerror(err));
}

static int mount_kernel(char *const *devs, unsigned ndev, const char *mnt,
			bool client)
{
	struct replay_count n;
	char opts[8192];
	const char *dev;
	struct stat st;
	int r;

	if (stat(mnt, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_error("mount", "%s is not a directory", mnt);
		return CLI_EXIT_FAIL;
	}
	if (mount_options(devs, ndev, &dev, opts, sizeof(opts)))
		return CLI_EXIT_FAIL;
	if (mount(dev, mnt, FAMFS_KMOD_FSTYPE, client ? MS_RDONLY : 0,
		  opts[0] ? opts : NULL) != 0) {
		explain_mount_error(dev, mnt, errno);
		return CLI_EXIT_FAIL;
	}
	r = replay_into_mount(mnt, &n);
	if (r) {
		/* Never leave a half-replayed mount behind. */
		if (umount2(mnt, 0) != 0)
			cli_error("mount", "cannot unmount %s again: %s", mnt,
				  strerror(errno));
		return CLI_EXIT_FAIL;
	}
	printf("mounted %s%s%s on %s (%s): %u directories, %u files\n", dev,
	       opts[0] ? " " : "", opts, mnt,
	       client ? "client, read-only" : "master, read-write", n.dirs,
	       n.files);
	return CLI_EXIT_OK;
}

static int replay_mounted(const char *mnt)
{
	struct replay_count n;

	if (replay_into_mount(mnt, &n))
		return CLI_EXIT_FAIL;
	printf("replayed into %s: %u new directories, %u new files, "
	       "%u already there\n", mnt, n.dirs, n.files, n.existing);
	return CLI_EXIT_OK;
}

int cmd_mount(int argc, char **argv);
int cmd_mount(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", no_argument, NULL, 'k' },
		{ "client", no_argument, NULL, 'c' },
		{ "replay", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool kernel = false, client = false, replay = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernel = true; break;
		case 'c': client = true; break;
		case 'r': replay = true; break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: cli_usage_error_text("mount", usage); return CLI_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (replay && !kernel && !client && argc == 1)
		return replay_mounted(argv[0]);
	if (kernel && !replay && argc >= 2 && argc <= FAMFS_MAX_DEVICES + 1)
		return mount_kernel(argv, (unsigned)argc - 1, argv[argc - 1],
				    client);
	if (!kernel && !replay)
		cli_error("mount", "only --kernel mounts are made here; FUSE "
			  "mounts are famfs-fused's");
	cli_usage_error_text("mount", usage);
	return CLI_EXIT_USAGE;
}
