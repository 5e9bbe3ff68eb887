// SPDX-License-Identifier: Apache-2.0
/* Superblock and device label: check, seal (CRC), write both copies. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "famfs/famfs_overflow.h"
#include "internal.h"

void famfs_sb_seal(struct famfs_superblock *sb)
{
	sb->crc = 0;
	sb->crc = famfs_crc32c(0, sb, sizeof(*sb));
}

int famfs_sb_check(const struct famfs_superblock *sb, const char *where,
		   struct famfs_err *e)
{
	struct famfs_superblock c;

	if (sb->magic != FAMFS_SB_MAGIC)
		return famfs_set_err(e, -EINVAL, "%s: no famfs superblock (bad magic)",
				     where);
	memcpy(&c, sb, sizeof(c));
	c.crc = 0;
	if (famfs_crc32c(0, &c, sizeof(c)) != sb->crc)
		return famfs_set_err(e, -EBADMSG, "%s: superblock CRC mismatch",
				     where);
	if (sb->format_major != FAMFS_FORMAT_MAJOR)
		return famfs_set_err(e, -EPROTONOSUPPORT,
			"%s: format %u.%u is not supported (this build reads %u.x)",
			where, sb->format_major, sb->format_minor,
			FAMFS_FORMAT_MAJOR);
	if (sb->ndevices == 0 || sb->ndevices > FAMFS_MAX_DEVICES ||
	    sb->unit_size != FAMFS_UNIT_SIZE || sb->log_offset != FAMFS_LOG_OFFSET ||
	    sb->log_size < FAMFS_LOG_MIN_SIZE || sb->log_size % FAMFS_UNIT_SIZE ||
	    sb->slots_offset != FAMFS_SLOTS_OFFSET ||
	    sb->nslots > FAMFS_MAX_SLOTS ||
	    !famfs_range_fits(sb->log_offset, sb->log_size,
			      sb->devices[0].dev_size))
		return famfs_set_err(e, -EBADMSG,
			"%s: superblock geometry is inconsistent", where);
	for (unsigned i = 0; i < sb->ndevices; i++)
		if (sb->devices[i].dev_size % FAMFS_UNIT_SIZE ||
		    sb->devices[i].dev_size < 2 * FAMFS_UNIT_SIZE)
			return famfs_set_err(e, -EBADMSG,
				"%s: superblock gives device %u a size of %llu "
				"bytes (not a multiple of 2 MiB of at least 4 MiB)",
				where, i,
				(unsigned long long)sb->devices[i].dev_size);
	return 0;
}

int famfs_label_check(const struct famfs_dev_label *l, const char *path,
		      struct famfs_err *e)
{
	struct famfs_dev_label c;

	if (l->magic != FAMFS_LABEL_MAGIC)
		return famfs_set_err(e, -ENODATA, "%s: no famfs device label",
				     path);
	memcpy(&c, l, sizeof(c));
	c.crc = 0;
	if (famfs_crc32c(0, &c, sizeof(c)) != l->crc)
		return famfs_set_err(e, -EBADMSG, "%s: device label CRC mismatch",
				     path);
	if (l->format_major != FAMFS_FORMAT_MAJOR)
		return famfs_set_err(e, -EPROTONOSUPPORT,
			"%s: label format %u is not supported", path,
			l->format_major);
	return 0;
}

/* Backup first, then the primary: a crash between leaves one good copy. */
int famfs_sb_write(struct famfs_fs *fs)
{
	struct famfs_dev *d0 = fs->dev[0];

	int r;

	famfs_sb_seal(&fs->sb);
	memcpy(d0->base + FAMFS_SB_BACKUP_OFFSET, &fs->sb, sizeof(fs->sb));
	r = famfs_dev_flush(d0, FAMFS_SB_BACKUP_OFFSET, sizeof(fs->sb));
	if (r)
		return r; /* the primary stays as it was */
	memcpy(d0->base + FAMFS_SB_OFFSET, &fs->sb, sizeof(fs->sb));
	return famfs_dev_flush(d0, FAMFS_SB_OFFSET, sizeof(fs->sb));
}

/* A filesystem of an older minor is raised before its first entry of a
 * newer one, so that the superblock tells what the log may hold.
 */
void famfs_sb_raise_minor(struct famfs_fs *fs, uint16_t minor)
{
	if (fs->sb.format_minor >= minor)
		return;
	fs->sb.format_minor = minor;
	famfs_sb_write(fs);
}
