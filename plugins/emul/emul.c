// SPDX-License-Identifier: Apache-2.0
/*
 * emul: file-backed devices standing in for shared DAX memory. A device is
 * a regular file (under /dev/shm for memory speed, anywhere for tests)
 * made by libfamfs's famfs_emul_create(). Its identity is a UUID kept next
 * to it in "<path>.uuid", written once with link() so that several famfsd
 * instances (standing for several hosts) adopting the same file at the same
 * time all read the same UUID.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "famfs.h"
#include "provider.h"

#define EMUL_MIN_SIZE (8 * FAMFS_MiB)

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 0;
}

static bool uuid_text_valid(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

static int uuid_read(const char *sidecar, char out[37])
{
	char buf[64] = "";
	FILE *f = fopen(sidecar, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	if (!uuid_text_valid(buf))
		return -EBADMSG;
	memcpy(out, buf, 37);
	return 0;
}

/* Read the sidecar, or publish a fresh UUID atomically if there is none. */
static int uuid_get_or_make(const char *path, char out[37], char *why,
			    size_t whylen)
{
	char sidecar[FAMFS_PROVIDER_PATH_LEN + 8], tmp[FAMFS_PROVIDER_PATH_LEN + 32];
	struct famfs_uuid u;
	char text[37];
	int r, fd;

	snprintf(sidecar, sizeof(sidecar), "%s.uuid", path);
	r = uuid_read(sidecar, out);
	if (r != -ENOENT) {
		if (r < 0)
			fail(why, whylen, "%s: %s", sidecar, strerror(-r));
		return r;
	}
	famfs_uuid_generate(&u);
	famfs_uuid_unparse(&u, text);
	snprintf(tmp, sizeof(tmp), "%s.uuid.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		fail(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
		return r;
	}
	r = dprintf(fd, "%s\n", text) < 0 || fsync(fd) ? -EIO : 0;
	close(fd);
	if (!r && link(tmp, sidecar) && errno != EEXIST)
		r = -errno;
	unlink(tmp);
	if (r) {
		fail(why, whylen, "cannot publish %s: %s", sidecar, strerror(-r));
		return r;
	}
	/* Whoever linked first won; everybody reads the winner's UUID. */
	r = uuid_read(sidecar, out);
	if (r)
		fail(why, whylen, "%s: %s", sidecar, strerror(-r));
	return r;
}

static int emul_init(const struct famfs_provider_env *env, void **ctx,
		     char *why, size_t whylen)
{
	(void)env; (void)why; (void)whylen;
	*ctx = NULL;
	return 0;
}

static void emul_fini(void *ctx)
{
	(void)ctx;
}

/* emul devices exist only once created or adopted through the API. */
static int emul_discover(void *ctx, famfs_provider_found_fn fn, void *arg,
			 char **topology, char *why, size_t whylen)
{
	(void)ctx; (void)fn; (void)arg; (void)why; (void)whylen;
	*topology = NULL;
	return 0;
}

static int emul_open(void *ctx, const char *path,
		     struct famfs_provider_dev *dev, char *why, size_t whylen)
{
	struct stat st;
	const char *base;
	int r;

	(void)ctx;
	memset(dev, 0, sizeof(*dev));
	if (stat(path, &st)) {
		r = -errno;
		fail(why, whylen, "%s: %s", path, strerror(errno));
		return r;
	}
	base = strrchr(path, '/');
	snprintf(dev->name, sizeof(dev->name), "%s", base ? base + 1 : path);
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	dev->size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode)) {
		snprintf(dev->reason, sizeof(dev->reason),
			 "%s is not a regular file; emul devices are files "
			 "made by 'POST /v1/devices' with a size", path);
		return 0;
	}
	if (st.st_size < (off_t)EMUL_MIN_SIZE ||
	    st.st_size % FAMFS_UNIT_SIZE) {
		snprintf(dev->reason, sizeof(dev->reason),
			 "%s is %lld bytes; an emul device is a multiple of "
			 "2 MiB and at least 8 MiB", path,
			 (long long)st.st_size);
		return 0;
	}
	r = uuid_get_or_make(path, dev->uuid, why, whylen);
	if (r)
		return r;
	dev->usable = true;
	return 0;
}

static int emul_create(void *ctx, const char *path, uint64_t size,
		       struct famfs_provider_dev *dev, char *why, size_t whylen)
{
	struct famfs_err e = { 0 };
	int r;

	if (size < EMUL_MIN_SIZE || size % FAMFS_UNIT_SIZE) {
		fail(why, whylen, "size %llu is not a multiple of 2 MiB of "
		     "at least 8 MiB", (unsigned long long)size);
		return -EINVAL;
	}
	r = famfs_emul_create(path, size, &e);
	if (r) {
		fail(why, whylen, "%s", e.msg[0] ? e.msg : strerror(-r));
		return r;
	}
	r = emul_open(ctx, path, dev, why, whylen);
	if (r)
		unlink(path);
	return r;
}

static int emul_destroy(void *ctx, const char *path, char *why, size_t whylen)
{
	char sidecar[FAMFS_PROVIDER_PATH_LEN + 8];
	int r = 0;

	(void)ctx;
	snprintf(sidecar, sizeof(sidecar), "%s.uuid", path);
	if (unlink(path) && errno != ENOENT) {
		r = -errno;
		fail(why, whylen, "cannot remove %s: %s", path, strerror(errno));
	}
	unlink(sidecar);
	return r;
}

static const struct famfs_provider_ops emul_ops = {
	.abi = FAMFS_PROVIDER_ABI,
	.name = "emul",
	.caps = FAMFS_PROVIDER_CAN_CREATE,
	.init = emul_init,
	.fini = emul_fini,
	.discover = emul_discover,
	.open = emul_open,
	.create = emul_create,
	.destroy = emul_destroy,
};

__attribute__((visibility("default")))
const struct famfs_provider_ops *famfs_provider_entry(void);
const struct famfs_provider_ops *famfs_provider_entry(void)
{
	return &emul_ops;
}
