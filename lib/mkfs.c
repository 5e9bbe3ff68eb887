// SPDX-License-Identifier: Apache-2.0
/*
 * mkfs: every check runs before the first byte is written, so a refused
 * mkfs leaves all devices exactly as they were. The primary superblock is
 * written last: until then the devices hold no valid filesystem.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "famfs/famfs_overflow.h"
#include "internal.h"
#include "killpoint.h"

static int check_existing(struct famfs_dev *d, unsigned idx, bool force,
			  struct famfs_err *e)
{
	const struct famfs_dev_label *l = (const void *)(d->base + FAMFS_LABEL_OFFSET);
	const struct famfs_superblock *sb = (const void *)(d->base + FAMFS_SB_OFFSET);
	char u[37];

	if (force)
		return 0;
	if (famfs_label_check(l, d->path, NULL) == 0) {
		famfs_uuid_unparse(&l->fs_uuid, u);
		return famfs_set_err(e, -EEXIST,
			"%s: already holds famfs filesystem %s (device %u); "
			"use --force to overwrite it", d->path, u, l->dev_index);
	}
	if (idx == 0 && famfs_sb_check(sb, d->path, NULL) == 0) {
		famfs_uuid_unparse(&sb->fs_uuid, u);
		return famfs_set_err(e, -EEXIST,
			"%s: already holds famfs filesystem %s (master %.64s); "
			"use --force to overwrite it", d->path, u, sb->master_name);
	}
	return 0;
}

static int check_geometry(struct famfs_dev **devs, unsigned ndev,
			  uint64_t log_size, struct famfs_err *e)
{
	for (unsigned i = 0; i < ndev; i++) {
		struct stat a, b;

		if (!devs[i]->writable)
			return famfs_set_err(e, -EROFS, "%s: not writable",
					     devs[i]->path);
		fstat(devs[i]->fd, &a);
		for (unsigned j = 0; j < i; j++) {
			fstat(devs[j]->fd, &b);
			if (a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
			    a.st_rdev == b.st_rdev)
				return famfs_set_err(e, -EINVAL,
					"%s and %s are the same device",
					devs[j]->path, devs[i]->path);
		}
		if (devs[i]->raw_size % FAMFS_UNIT_SIZE)
			return famfs_set_err(e, -EINVAL,
				"%s: size %llu is not a multiple of 2 MiB (the "
				"allocation unit)", devs[i]->path,
				(unsigned long long)devs[i]->raw_size);
		if (devs[i]->size < 2 * FAMFS_UNIT_SIZE)
			return famfs_set_err(e, -ENOSPC,
				"%s: %llu bytes is too small (minimum 4 MiB)",
				devs[i]->path,
				(unsigned long long)devs[i]->size);
	}
	/* log_size comes from a user: its end must not wrap to a small one */
	if (log_size > devs[0]->size ||
	    !famfs_range_fits(FAMFS_LOG_OFFSET, log_size + FAMFS_UNIT_SIZE,
			      devs[0]->size))
		return famfs_set_err(e, -ENOSPC,
			"%s: %llu bytes cannot hold the 2 MiB header, a %llu-byte "
			"log and one data unit; use a larger device or --log-size",
			devs[0]->path, (unsigned long long)devs[0]->size,
			(unsigned long long)log_size);
	return 0;
}

static void write_labels(struct famfs_dev **devs, unsigned ndev,
			 const struct famfs_superblock *sb)
{
	for (unsigned i = 0; i < ndev; i++) {
		struct famfs_dev_label l;

		memset(&l, 0, sizeof(l));
		l.magic = FAMFS_LABEL_MAGIC;
		l.format_major = FAMFS_FORMAT_MAJOR;
		l.format_minor = FAMFS_FORMAT_MINOR;
		l.fs_uuid = sb->fs_uuid;
		l.dev_uuid = sb->devices[i].dev_uuid;
		l.dev_size = sb->devices[i].dev_size;
		l.dev_index = i;
		l.crc = famfs_crc32c(0, &l, sizeof(l));
		/* Clear what an older filesystem left in the header unit. */
		if (i != 0)
			memset(devs[i]->base, 0, FAMFS_SB_BACKUP_OFFSET +
			       sizeof(struct famfs_superblock));
		memcpy(devs[i]->base + FAMFS_LABEL_OFFSET, &l, sizeof(l));
		famfs_dev_flush(devs[i], 0, FAMFS_SB_BACKUP_OFFSET +
				sizeof(struct famfs_superblock));
		FAMFS_KILL_POINT("mkfs.label_written");
	}
}

static void write_log(struct famfs_dev *d0, const struct famfs_superblock *sb)
{
	struct famfs_log_header h;
	uint8_t *log = d0->base + sb->log_offset;

	memset(&h, 0, sizeof(h));
	h.magic = FAMFS_LOGHDR_MAGIC;
	h.header_size = FAMFS_LOG_HEADER_SIZE;
	h.fs_uuid = sb->fs_uuid;
	h.log_size = sb->log_size;
	h.first_seq = 1;
	h.crc = famfs_crc32c(0, &h, sizeof(h));
	memcpy(log, &h, sizeof(h));
	/* Entries of an older filesystem fail the fs_tag check; zeroing the
	 * first page just makes a fresh log read as cleanly empty.
	 */
	memset(log + FAMFS_LOG_HEADER_SIZE, 0, 4096);
	famfs_dev_flush(d0, sb->log_offset, FAMFS_LOG_HEADER_SIZE + 4096);
}

/* Format the open, checked @devs; *@fs_uuid (if any) gets the new uuid. */
static void write_fs(struct famfs_dev **devs, unsigned ndev,
		     const struct famfs_mkfs_opts *o, uint64_t log_size,
		     struct famfs_uuid *fs_uuid)
{
	struct famfs_superblock sb;

	memset(&sb, 0, sizeof(sb));
	sb.magic = FAMFS_SB_MAGIC;
	sb.format_major = FAMFS_FORMAT_MAJOR;
	sb.format_minor = FAMFS_FORMAT_MINOR;
	famfs_uuid_generate(&sb.fs_uuid);
	sb.created_ns = famfs_now_ns();
	sb.log_offset = FAMFS_LOG_OFFSET;
	sb.log_size = log_size;
	sb.slots_offset = FAMFS_SLOTS_OFFSET;
	sb.nslots = o->nslots ? o->nslots : 64;
	sb.ndevices = ndev;
	sb.unit_size = FAMFS_UNIT_SIZE;
	sb.pack_threshold = o->pack_threshold ? o->pack_threshold :
			    (uint32_t)FAMFS_MiB;
	famfs_uuid_generate(&sb.master_uuid);
	if (o->master_name)
		snprintf(sb.master_name, sizeof(sb.master_name), "%s",
			 o->master_name);
	else
		famfs_host_default_name(sb.master_name, sizeof(sb.master_name));
	for (unsigned i = 0; i < ndev; i++) {
		famfs_uuid_generate(&sb.devices[i].dev_uuid);
		sb.devices[i].dev_size = devs[i]->size;
	}

	/* The old superblock goes first, so a crash mid-mkfs leaves none. */
	memset(devs[0]->base + FAMFS_SB_OFFSET, 0, sizeof(sb));
	famfs_dev_flush(devs[0], FAMFS_SB_OFFSET, sizeof(sb));
	FAMFS_KILL_POINT("mkfs.old_sb_cleared");
	write_labels(devs, ndev, &sb);
	memset(devs[0]->base + FAMFS_SLOTS_OFFSET, 0,
	       FAMFS_MAX_SLOTS * sizeof(struct famfs_client_slot));
	famfs_dev_flush(devs[0], FAMFS_SLOTS_OFFSET,
			FAMFS_MAX_SLOTS * sizeof(struct famfs_client_slot));
	/* no committed tail yet: the first append records one */
	memset(devs[0]->base + FAMFS_TAILREC_OFFSET, 0,
	       2 * sizeof(struct famfs_tail_record));
	famfs_dev_flush(devs[0], FAMFS_TAILREC_OFFSET,
			2 * sizeof(struct famfs_tail_record));
	FAMFS_KILL_POINT("mkfs.slots_cleared");
	write_log(devs[0], &sb);
	FAMFS_KILL_POINT("mkfs.log_written");
	famfs_sb_seal(&sb);
	memcpy(devs[0]->base + FAMFS_SB_BACKUP_OFFSET, &sb, sizeof(sb));
	famfs_dev_flush(devs[0], FAMFS_SB_BACKUP_OFFSET, sizeof(sb));
	FAMFS_KILL_POINT("mkfs.backup_sb_written");
	memcpy(devs[0]->base + FAMFS_SB_OFFSET, &sb, sizeof(sb));
	famfs_dev_flush(devs[0], FAMFS_SB_OFFSET, sizeof(sb));
	FAMFS_KILL_POINT("mkfs.sb_written");
	if (fs_uuid)
		*fs_uuid = sb.fs_uuid;
}

FAMFS_EXPORT int famfs_mkfs(const char *const *paths, unsigned ndev,
			    const struct famfs_mkfs_opts *o,
			    struct famfs_uuid *fs_uuid, struct famfs_err *e)
{
	struct famfs_dev *devs[FAMFS_MAX_DEVICES] = { 0 };
	struct famfs_mkfs_opts def = { 0 };
	uint64_t log_size;
	int r = 0;

	if (!o)
		o = &def;
	if (ndev == 0 || ndev > FAMFS_MAX_DEVICES)
		return famfs_set_err(e, -EINVAL, "mkfs needs 1 to %d devices, got %u",
				     FAMFS_MAX_DEVICES, ndev);
	log_size = o->log_size ? o->log_size : FAMFS_LOG_DEFAULT_SIZE;
	if (log_size < FAMFS_LOG_MIN_SIZE || log_size % FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"log size %llu is not a multiple of 2 MiB of at least 2 MiB",
			(unsigned long long)log_size);
	if (o->nslots > FAMFS_MAX_SLOTS)
		return famfs_set_err(e, -EINVAL, "at most %d client slots",
				     FAMFS_MAX_SLOTS);
	if (o->pack_threshold > FAMFS_UNIT_SIZE / 2 ||
	    o->pack_threshold % FAMFS_BLOCK_SIZE)
		return famfs_set_err(e, -EINVAL,
			"pack threshold must be a multiple of 4 KiB up to 1 MiB");

	for (unsigned i = 0; i < ndev && !r; i++)
		r = famfs_dev_open(paths[i], true, &devs[i], e);
	for (unsigned i = 0; i < ndev && !r; i++)
		r = check_existing(devs[i], i, o->force, e);
	if (!r)
		r = check_geometry(devs, ndev, log_size, e);
	if (!r)
		write_fs(devs, ndev, o, log_size, fs_uuid);
	for (unsigned i = 0; i < ndev; i++)
		famfs_dev_close(devs[i]);
	return r;
}
