// SPDX-License-Identifier: Apache-2.0
/*
 * Growing a filesystem by devices. The master checks every new device
 * before it writes anything (so a bad device N leaves devices 0..N-1
 * untouched), then, per device, writes its label and appends a DEVICE_ADD
 * entry that makes it part of the filesystem for every reader that
 * replays past it. A failure before the entry leaves the device unlabeled.
 *
 * A client (or a read-only open) learns of a device from the log but not
 * where it is on this host: famfs_device_attach() gives it the path, and
 * replay, which waits at a DEVICE_ADD whose device it was not given,
 * goes on from there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static bool same_file(const struct famfs_dev *x, const struct famfs_dev *y)
{
	struct stat a, b;

	if (fstat(x->fd, &a) || fstat(y->fd, &b))
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
	       a.st_rdev == b.st_rdev;
}

/* Device @n of the new ones: usable, unlabeled, not given twice. */
static int check_new_device(struct famfs_fs *fs, struct famfs_dev **d,
			    unsigned n, struct famfs_err *e)
{
	if (d[n]->raw_size % FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"%s: size %llu is not a multiple of 2 MiB", d[n]->path,
			(unsigned long long)d[n]->raw_size);
	if (d[n]->size < 2 * FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"%s: %llu bytes is too small (the first 2 MiB hold the "
			"label; at least 4 MiB)", d[n]->path,
			(unsigned long long)d[n]->size);
	if (famfs_label_check((const void *)d[n]->base, d[n]->path, NULL) == 0)
		return famfs_set_err(e, -EEXIST,
			"%s: already holds a famfs device label", d[n]->path);
	for (unsigned i = 0; i < fs->ndev; i++)
		if (same_file(d[n], fs->dev[i]))
			return famfs_set_err(e, -EINVAL,
				"%s is device %u of this filesystem already",
				d[n]->path, i);
	for (unsigned i = 0; i < n; i++)
		if (same_file(d[n], d[i]))
			return famfs_set_err(e, -EINVAL, "%s and %s are the same "
					     "device", d[i]->path, d[n]->path);
	return 0;
}

/* Label @d as device @idx, append its DEVICE_ADD; undo the label on error. */
static int add_one(struct famfs_fs *fs, struct famfs_dev *d, unsigned idx,
		   struct famfs_err *e)
{
	struct famfs_entry_device_add body = { 0 };
	struct famfs_dev_label l = { 0 };
	int r;

	l.magic = FAMFS_LABEL_MAGIC;
	l.format_major = FAMFS_FORMAT_MAJOR;
	l.format_minor = FAMFS_FORMAT_MINOR;
	l.fs_uuid = fs->sb.fs_uuid;
	famfs_uuid_generate(&l.dev_uuid);
	l.dev_size = d->size;
	l.dev_index = idx;
	l.crc = famfs_crc32c(0, &l, sizeof(l));
	memcpy(d->base, &l, sizeof(l));
	famfs_dev_flush(d, 0, sizeof(l));
	fs->dev[idx] = d;
	body.dev_uuid = l.dev_uuid;
	body.dev_size = d->size;
	body.dev_index = idx;
	r = famfs_log_append(fs, FAMFS_ENTRY_DEVICE_ADD, &body, sizeof(body),
			     NULL, 0, e);
	if (r) {
		/* not part of the filesystem: leave no label behind */
		memset(d->base, 0, sizeof(l));
		famfs_dev_flush(d, 0, sizeof(l));
		fs->dev[idx] = NULL;
	}
	return r;
}

static int check_all(struct famfs_fs *fs, struct famfs_dev **d, unsigned n,
		     struct famfs_err *e)
{
	uint64_t entry = ROUND_UP(sizeof(struct famfs_entry_hdr) +
				  sizeof(struct famfs_entry_device_add), 8);
	int r = 0;

	if (fs->ndev + n > FAMFS_MAX_DEVICES)
		return famfs_set_err(e, -ENOSPC, "the filesystem has %u devices; "
				     "%u more would pass the limit of %d",
				     fs->ndev, n, FAMFS_MAX_DEVICES);
	if (fs->tail + n * entry > fs->log_size)
		return famfs_set_err(e, -ENOSPC, "metadata log is full: no room "
				     "for %u DEVICE_ADD entries", n);
	for (unsigned i = 0; i < n && !r; i++)
		r = check_new_device(fs, d, i, e);
	return r;
}

FAMFS_EXPORT int famfs_devices_add(struct famfs_fs *fs, const char *const *paths,
				   unsigned n, struct famfs_err *e)
{
	struct famfs_dev *d[FAMFS_MAX_DEVICES] = { 0 };
	unsigned done = 0;
	int r = 0;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS, "adding a device needs the master");
	if (n == 0 || n > FAMFS_MAX_DEVICES)
		return famfs_set_err(e, -EINVAL, "need 1 to %d devices to add, "
				     "got %u", FAMFS_MAX_DEVICES, n);
	for (unsigned i = 0; i < n && !r; i++)
		r = famfs_dev_open(paths[i], true, &d[i], e);
	pthread_rwlock_wrlock(&fs->lock);
	if (!r)
		r = check_all(fs, d, n, e);
	for (; !r && done < n; done++) {
		r = add_one(fs, d[done], fs->ndev, e);
		if (!r)
			d[done] = NULL; /* the filesystem's now */
	}
	pthread_rwlock_unlock(&fs->lock);
	if (r && done) {
		char why[sizeof(e->msg)];

		snprintf(why, sizeof(why), "%s", e->msg);
		famfs_set_err(e, r, "%.500s (%u of the %u devices were added)",
			      why, done, n);
	}
	for (unsigned i = 0; i < n; i++)
		famfs_dev_close(d[i]);
	return r;
}

FAMFS_EXPORT int famfs_device_add(struct famfs_fs *fs, const char *path,
				  struct famfs_err *e)
{
	return famfs_devices_add(fs, &path, 1, e);
}

static int place_attached(struct famfs_fs *fs, struct famfs_dev *d,
			  struct famfs_err *e)
{
	const struct famfs_dev_label *l = (const void *)d->base;
	unsigned idx = l->dev_index;

	if (idx >= FAMFS_MAX_DEVICES)
		return famfs_set_err(e, -EBADMSG, "%s: bad device index %u",
				     d->path, idx);
	if (memcmp(&l->fs_uuid, &fs->sb.fs_uuid, sizeof(l->fs_uuid)))
		return famfs_set_err(e, -EINVAL, "%s belongs to another "
				     "filesystem", d->path);
	if (idx < fs->ndev || fs->dev[idx]) {
		const struct famfs_dev *o = fs->dev[idx];

		if (o && !memcmp(&((const struct famfs_dev_label *)o->base)->dev_uuid,
				 &l->dev_uuid, sizeof(l->dev_uuid)))
			return 1; /* the same device again: nothing to do */
		return famfs_set_err(e, -EINVAL, "%s claims device index %u, "
				     "which %s holds", d->path, idx,
				     o ? o->path : "another device");
	}
	if (l->dev_size > d->size)
		return famfs_set_err(e, -EINVAL, "%s: device is %llu bytes, its "
				     "label says %llu", d->path,
				     (unsigned long long)d->size,
				     (unsigned long long)l->dev_size);
	d->size = l->dev_size;
	fs->dev[idx] = d;
	return 0;
}

FAMFS_EXPORT int famfs_device_attach(struct famfs_fs *fs, const char *path,
				     struct famfs_err *e)
{
	struct famfs_dev *d;
	int r;

	r = famfs_dev_open(path, fs->flags & FAMFS_OPEN_MASTER, &d, e);
	if (r)
		return r;
	famfs_dev_invalidate(d, 0, sizeof(struct famfs_dev_label));
	r = famfs_label_check((const void *)d->base, d->path, e);
	if (r == -ENODATA || r == -EBADMSG)
		r = famfs_set_err(e, r, "%s: no famfs device label: the master "
				  "has not added it yet", path);
	if (!r) {
		pthread_rwlock_wrlock(&fs->lock);
		r = place_attached(fs, d, e);
		pthread_rwlock_unlock(&fs->lock);
	}
	if (r)
		famfs_dev_close(d);
	return r < 0 ? r : 0;
}
