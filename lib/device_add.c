// SPDX-License-Identifier: Apache-2.0
/*
 * Growing a filesystem by one device: its label is written first, then a
 * DEVICE_ADD entry makes it part of the filesystem for every reader that
 * replays past it. A failure before the entry leaves the device unlabeled.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static int check_new_device(struct famfs_fs *fs, struct famfs_dev *d,
			    struct famfs_err *e)
{
	struct stat a, b;

	if (d->raw_size % FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"%s: size %llu is not a multiple of 2 MiB", d->path,
			(unsigned long long)d->raw_size);
	if (famfs_label_check((const void *)d->base, d->path, NULL) == 0)
		return famfs_set_err(e, -EEXIST,
			"%s: already holds a famfs device label", d->path);
	fstat(d->fd, &a);
	for (unsigned i = 0; i < fs->ndev; i++) {
		fstat(fs->dev[i]->fd, &b);
		if (a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_rdev == b.st_rdev)
			return famfs_set_err(e, -EINVAL, "%s is device %u of this filesystem already",
					     d->path, i);
	}
	return 0;
}

FAMFS_EXPORT int famfs_device_add(struct famfs_fs *fs, const char *path,
				  struct famfs_err *e)
{
	struct famfs_entry_device_add body = { 0 };
	struct famfs_dev_label l = { 0 };
	struct famfs_dev *d;
	unsigned idx;
	int r;

	if (!(fs->flags & FAMFS_OPEN_MASTER))
		return famfs_set_err(e, -EROFS, "adding a device needs the master");
	r = famfs_dev_open(path, true, &d, e);
	if (r)
		return r;
	pthread_rwlock_wrlock(&fs->lock);
	idx = fs->ndev;
	if (idx >= FAMFS_MAX_DEVICES)
		r = famfs_set_err(e, -ENOSPC, "the filesystem has %d devices already",
				  FAMFS_MAX_DEVICES);
	if (!r)
		r = check_new_device(fs, d, e);
	if (r) {
		pthread_rwlock_unlock(&fs->lock);
		famfs_dev_close(d);
		return r;
	}
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
	r = famfs_log_append(fs, FAMFS_ENTRY_DEVICE_ADD, &body, sizeof(body), NULL, 0, e);
	if (r) {
		/* not part of the filesystem: leave no label behind */
		memset(d->base, 0, sizeof(l));
		famfs_dev_flush(d, 0, sizeof(l));
		fs->dev[idx] = NULL;
		famfs_dev_close(d);
	}
	pthread_rwlock_unlock(&fs->lock);
	return r;
}
