// SPDX-License-Identifier: Apache-2.0
/*
 * Opening a filesystem: match the given devices by label, pick a valid
 * superblock (primary, else backup), take the writer lock for a master,
 * rebuild tree and allocator by replaying the log, claim a client slot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#include "internal.h"

static int read_superblock(struct famfs_fs *fs, struct famfs_dev *d,
			   struct famfs_err *e)
{
	const void *p = d->base + FAMFS_SB_OFFSET;
	const void *b = d->base + FAMFS_SB_BACKUP_OFFSET;
	struct famfs_err e2;
	int r;

	famfs_dev_invalidate(d, FAMFS_SB_OFFSET, sizeof(fs->sb));
	r = famfs_sb_check(p, d->path, e);
	if (r) {
		/* a damaged primary: the backup copy is what it is there for */
		famfs_dev_invalidate(d, FAMFS_SB_BACKUP_OFFSET, sizeof(fs->sb));
		if (famfs_sb_check(b, d->path, &e2) != 0)
			return r;
		p = b;
	}
	memcpy(&fs->sb, p, sizeof(fs->sb));
	return 0;
}

static int place_devices(struct famfs_fs *fs, struct famfs_dev **opened,
			 unsigned n, struct famfs_err *e)
{
	struct famfs_dev_label *l0 = NULL;
	const char *path0 = NULL;
	int r;

	for (unsigned i = 0; i < n; i++) {
		struct famfs_dev_label *l = (void *)opened[i]->base;

		famfs_dev_invalidate(opened[i], 0, sizeof(*l));
		r = famfs_label_check(l, opened[i]->path, e);
		if (r)
			return r;
		if (l->dev_index >= FAMFS_MAX_DEVICES)
			return famfs_set_err(e, -EBADMSG, "%s: bad device index %u",
					     opened[i]->path, l->dev_index);
		/* opened[0] is placed (NULL) by now: name it by its path */
		if (l0 && memcmp(&l->fs_uuid, &l0->fs_uuid, sizeof(l->fs_uuid)))
			return famfs_set_err(e, -EINVAL,
				"%s belongs to another filesystem than %s",
				opened[i]->path, path0);
		if (!l0) {
			l0 = l;
			path0 = opened[i]->path;
		}
		if (fs->dev[l->dev_index])
			return famfs_set_err(e, -EINVAL,
				"%s and %s both claim device index %u",
				fs->dev[l->dev_index]->path, opened[i]->path,
				l->dev_index);
		fs->dev[l->dev_index] = opened[i];
		opened[i] = NULL;
	}
	if (!fs->dev[0])
		return famfs_set_err(e, -ENODEV,
			"device 0 of the filesystem (the one with the superblock "
			"and log) is not among the devices given");
	r = read_superblock(fs, fs->dev[0], e);
	if (r)
		return r;
	if (memcmp(&fs->sb.fs_uuid, &l0->fs_uuid, sizeof(l0->fs_uuid)))
		return famfs_set_err(e, -EINVAL,
			"%s: labels and superblock name different filesystems",
			fs->dev[0]->path);
	for (unsigned i = 0; i < fs->sb.ndevices; i++) {
		char u[37];

		famfs_uuid_unparse(&fs->sb.devices[i].dev_uuid, u);
		if (!fs->dev[i])
			return famfs_set_err(e, -ENODEV,
				"device %u of %u (uuid %s) is missing", i,
				fs->sb.ndevices, u);
		if (memcmp(&((struct famfs_dev_label *)fs->dev[i]->base)->dev_uuid,
			   &fs->sb.devices[i].dev_uuid, 16))
			return famfs_set_err(e, -EINVAL,
				"%s: label uuid differs from the superblock's device %u (%s)",
				fs->dev[i]->path, i, u);
		if (fs->dev[i]->size < fs->sb.devices[i].dev_size)
			return famfs_set_err(e, -EINVAL,
				"%s: device is %llu bytes, the filesystem expects %llu",
				fs->dev[i]->path,
				(unsigned long long)fs->dev[i]->size,
				(unsigned long long)fs->sb.devices[i].dev_size);
		fs->dev[i]->size = fs->sb.devices[i].dev_size;
	}
	/* devices added later by the log: their label says their size */
	for (unsigned i = fs->sb.ndevices; i < FAMFS_MAX_DEVICES; i++)
		if (fs->dev[i] && ((struct famfs_dev_label *)fs->dev[i]->base)->dev_size <
				  fs->dev[i]->size)
			fs->dev[i]->size = ((struct famfs_dev_label *)fs->dev[i]->base)->dev_size;
	fs->ndev = fs->sb.ndevices;
	return 0;
}

static int check_log_header(struct famfs_fs *fs, struct famfs_err *e)
{
	struct famfs_log_header h;

	fs->log = fs->dev[0]->base + fs->sb.log_offset;
	fs->log_size = fs->sb.log_size;
	fs->fs_tag = famfs_fs_tag(&fs->sb.fs_uuid);
	famfs_dev_invalidate(fs->dev[0], fs->sb.log_offset, sizeof(h));
	memcpy(&h, fs->log, sizeof(h));
	if (h.magic != FAMFS_LOGHDR_MAGIC)
		return famfs_set_err(e, -EBADMSG, "%s: no log header at offset %llu",
				     fs->dev[0]->path,
				     (unsigned long long)fs->sb.log_offset);
	uint32_t crc = h.crc;

	h.crc = 0;
	if (famfs_crc32c(0, &h, sizeof(h)) != crc ||
	    memcmp(&h.fs_uuid, &fs->sb.fs_uuid, 16) || h.log_size != fs->log_size ||
	    h.header_size != FAMFS_LOG_HEADER_SIZE || h.first_seq != 1)
		return famfs_set_err(e, -EBADMSG, "%s: log header is corrupt",
				     fs->dev[0]->path);
	fs->tail = FAMFS_LOG_HEADER_SIZE;
	return 0;
}

/* One writer: a lock on device 0 here, the master's name on the media. */
static int become_master(struct famfs_fs *fs, struct famfs_err *e)
{
	if (flock(fs->dev[0]->fd, LOCK_EX | LOCK_NB) != 0)
		return famfs_set_err(e, -EBUSY,
			"%s: the filesystem is already open for writing by "
			"another master on this host", fs->dev[0]->path);
	if (strncmp(fs->sb.master_name, fs->host_name, sizeof(fs->sb.master_name))) {
		if (!(fs->flags & FAMFS_OPEN_FORCE))
			return famfs_set_err(e, -EPERM,
				"%s: the master of this filesystem is host '%.64s', "
				"this is '%s'; use --force to take over",
				fs->dev[0]->path, fs->sb.master_name, fs->host_name);
		snprintf(fs->sb.master_name, sizeof(fs->sb.master_name), "%s",
			 fs->host_name);
		famfs_uuid_generate(&fs->sb.master_uuid);
		famfs_sb_write(fs);
	}
	return 0;
}

FAMFS_EXPORT int famfs_open(const char *const *paths, unsigned ndev,
			    const struct famfs_open_opts *o, struct famfs_fs **out,
			    struct famfs_err *e)
{
	struct famfs_dev *opened[FAMFS_MAX_DEVICES] = { 0 };
	struct famfs_fs *fs;
	unsigned flags = o ? o->flags : 0;
	int r = 0;

	if (ndev == 0 || ndev > FAMFS_MAX_DEVICES)
		return famfs_set_err(e, -EINVAL, "need 1 to %d devices, got %u",
				     FAMFS_MAX_DEVICES, ndev);
	if ((flags & FAMFS_OPEN_MASTER) && (flags & FAMFS_OPEN_CLIENT))
		return famfs_set_err(e, -EINVAL, "master and client at once");
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return famfs_set_err(e, -ENOMEM, "out of memory");
	fs->flags = flags;
	fs->scan_exchange_alone = flags & FAMFS_OPEN_EXCHANGE_STEPS;
	fs->steps_after = o ? o->steps_after : 0;
	fs->slot = -1;
	fs->publish_cap = UINT64_MAX;
	pthread_rwlock_init(&fs->lock, NULL);
	if (o && o->host_name)
		snprintf(fs->host_name, sizeof(fs->host_name), "%s", o->host_name);
	else
		famfs_host_default_name(fs->host_name, sizeof(fs->host_name));

	for (unsigned i = 0; i < ndev && !r; i++)
		r = famfs_dev_open(paths[i], flags & FAMFS_OPEN_MASTER, &opened[i], e);
	if (!r)
		r = place_devices(fs, opened, ndev, e);
	for (unsigned i = 0; i < ndev; i++)
		famfs_dev_close(opened[i]); /* those not placed */
	if (!r)
		r = check_log_header(fs, e);
	if (!r && (flags & FAMFS_OPEN_MASTER))
		r = become_master(fs, e);
	if (!r && famfs_ns_init(fs))
		r = famfs_set_err(e, -ENOMEM, "out of memory");
	if (!r && (r = famfs_alloc_init(fs)))
		r = famfs_set_err(e, r, r == -ENOMEM ? "out of memory" :
				  "%s: a device is smaller than its metadata",
				  fs->dev[0]->path);
	if (!r)
		famfs_log_scan(fs, e);
	if (!r && fs->missing_dev[0])
		r = famfs_set_err(e, -ENODEV, "%s", fs->missing_dev);
	if (!r && (flags & FAMFS_OPEN_CLIENT))
		r = famfs_slot_claim(fs, e);
	if (r) {
		famfs_close(fs);
		return r;
	}
	if (flags & FAMFS_OPEN_MASTER)
		famfs_reclaim(fs);
	*out = fs;
	return 0;
}

FAMFS_EXPORT void famfs_close(struct famfs_fs *fs)
{
	if (!fs)
		return;
	famfs_slot_release(fs);
	if (fs->root)
		famfs_ns_free(fs);
	famfs_alloc_free_state(fs);
	for (unsigned i = 0; i < FAMFS_MAX_DEVICES; i++)
		famfs_dev_close(fs->dev[i]);
	pthread_rwlock_destroy(&fs->lock);
	free(fs);
}

FAMFS_EXPORT void famfs_set_change_cb(struct famfs_fs *fs, famfs_change_fn fn,
				      void *arg)
{
	fs->change_fn = fn;
	fs->change_arg = arg;
}

FAMFS_EXPORT void famfs_fs_rdlock(struct famfs_fs *fs) { pthread_rwlock_rdlock(&fs->lock); }
FAMFS_EXPORT void famfs_fs_unlock(struct famfs_fs *fs) { pthread_rwlock_unlock(&fs->lock); }
FAMFS_EXPORT const struct famfs_superblock *famfs_fs_sb(const struct famfs_fs *fs) { return &fs->sb; }
FAMFS_EXPORT bool famfs_fs_is_master(const struct famfs_fs *fs) { return fs->flags & FAMFS_OPEN_MASTER; }
FAMFS_EXPORT unsigned famfs_fs_ndevices(const struct famfs_fs *fs) { return fs->ndev; }

FAMFS_EXPORT struct famfs_dev *famfs_fs_dev(struct famfs_fs *fs, uint32_t i)
{
	return i < FAMFS_MAX_DEVICES ? fs->dev[i] : NULL;
}
