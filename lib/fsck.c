// SPDX-License-Identifier: Apache-2.0
/*
 * fsck: read-only checks of everything on the media. A torn entry at the
 * tail is what a crash mid-append leaves: a warning, the log is consistent.
 * Valid entries found after a bad one mean corruption: an error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct fsck_ctx {
	famfs_fsck_fn fn;
	void *arg;
	struct famfs_fsck_result *res;
};

__attribute__((format(printf, 4, 5)))
static void report(struct fsck_ctx *c, enum famfs_fsck_severity sev,
		   const char *check, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sev == FAMFS_FSCK_ERROR)
		c->res->errors++;
	else if (sev == FAMFS_FSCK_WARNING)
		c->res->warnings++;
	if (c->fn)
		c->fn(c->arg, sev, check, msg);
}

static void check_devices(struct fsck_ctx *c, const char *const *paths, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct famfs_dev *d;
		struct famfs_err e = { 0 };

		if (famfs_dev_open(paths[i], false, &d, &e)) {
			report(c, FAMFS_FSCK_ERROR, "device", "%s", e.msg);
			continue;
		}
		if (famfs_label_check((const void *)d->base, d->path, &e))
			report(c, FAMFS_FSCK_ERROR, "label", "%s", e.msg);
		if (famfs_sb_check((const void *)(d->base + FAMFS_SB_OFFSET), d->path, NULL) == 0) {
			const void *b = d->base + FAMFS_SB_BACKUP_OFFSET;

			if (famfs_sb_check(b, d->path, &e))
				report(c, FAMFS_FSCK_ERROR, "superblock",
				       "backup superblock: %s", e.msg);
			else if (memcmp(b, d->base + FAMFS_SB_OFFSET,
					sizeof(struct famfs_superblock)))
				report(c, FAMFS_FSCK_WARNING, "superblock",
				       "%s: backup superblock differs from the primary",
				       d->path);
		} else if (famfs_sb_check((const void *)(d->base + FAMFS_SB_BACKUP_OFFSET),
					  d->path, NULL) == 0) {
			famfs_sb_check((const void *)(d->base + FAMFS_SB_OFFSET), d->path, &e);
			report(c, FAMFS_FSCK_ERROR, "superblock",
			       "primary superblock: %s (the backup is valid and used)",
			       e.msg);
		}
		famfs_dev_close(d);
	}
}

/* The first offset from @off on, in steps of 8 from the tail, that holds
 * the entry magic; log_size if none. memchr() for the magic's first byte
 * rather than a test per 8 bytes: a torn tail near the start of a large
 * log (or of a fuzzed one) had fsck test every word of the rest (and
 * memmem() was no faster on a log of zeros).
 */
static uint64_t next_magic(const struct famfs_fs *fs, uint64_t off)
{
	const uint32_t magic = FAMFS_ENTRY_MAGIC;
	uint8_t first;

	memcpy(&first, &magic, 1);
	while (off + sizeof(struct famfs_entry_hdr) <= fs->log_size) {
		const uint8_t *p = memchr(fs->log + off, first, fs->log_size - off);
		uint64_t at, mis;

		if (!p)
			break;
		at = (uint64_t)(p - fs->log);
		mis = (at - fs->tail) % 8;
		if (mis == 0 && fs->log_size - at >= sizeof(magic) &&
		    !memcmp(p, &magic, sizeof(magic)))
			return at;
		off = at + 8 - mis; /* the next offset a step from the tail */
	}
	return fs->log_size;
}

/* Is there a valid entry of this filesystem anywhere after the tail? */
static void check_lost_entries(struct fsck_ctx *c, struct famfs_fs *fs)
{
	char why[200];

	for (uint64_t off = next_magic(fs, fs->tail + 8);
	     off + sizeof(struct famfs_entry_hdr) <= fs->log_size;
	     off = next_magic(fs, off + 8)) {
		const struct famfs_entry_hdr *h = (const void *)(fs->log + off);

		if (h->magic != FAMFS_ENTRY_MAGIC || h->fs_tag != fs->fs_tag ||
		    h->seq <= fs->last_seq)
			continue;
		if (famfs_entry_check(fs, off, h->seq, why, sizeof(why)) > 0) {
			report(c, FAMFS_FSCK_ERROR, "log",
			       "valid entry seq %llu at offset %llu lies beyond the "
			       "bad entry at %llu: %llu or more entries are lost",
			       (unsigned long long)h->seq, (unsigned long long)off,
			       (unsigned long long)fs->tail,
			       (unsigned long long)(h->seq - fs->last_seq - 1));
			return;
		}
	}
}

FAMFS_EXPORT int famfs_fsck(const char *const *paths, unsigned ndev,
			    famfs_fsck_fn fn, void *arg,
			    struct famfs_fsck_result *res, struct famfs_err *e)
{
	struct fsck_ctx c = { fn, arg, res };
	struct famfs_open_opts o = { .flags = FAMFS_OPEN_READ };
	struct famfs_fs *fs;
	int r;

	memset(res, 0, sizeof(*res));
	check_devices(&c, paths, ndev);
	r = famfs_open(paths, ndev, &o, &fs, e);
	if (r) {
		report(&c, FAMFS_FSCK_ERROR, "open", "%s", e->msg);
		return r == -ENOENT || r == -EACCES ? r : 0;
	}
	res->entries = fs->nentries;
	res->files = fs->nfiles;
	res->dirs = fs->ndirs;
	res->symlinks = fs->nsymlinks;
	report(&c, FAMFS_FSCK_INFO, "log",
	       "%llu entries, %llu of %llu log bytes used, %llu files, "
	       "%llu directories, %llu symlinks",
	       (unsigned long long)fs->nentries, (unsigned long long)fs->tail,
	       (unsigned long long)fs->log_size, (unsigned long long)fs->nfiles,
	       (unsigned long long)fs->ndirs, (unsigned long long)fs->nsymlinks);
	if (fs->tail_state == FAMFS_TAIL_TORN) {
		report(&c, FAMFS_FSCK_WARNING, "log",
		       "torn or corrupt entry %s; it is ignored (a crash during "
		       "an append leaves this)", fs->tail_reason);
		check_lost_entries(&c, fs);
	}
	for (uint64_t i = 0; i < fs->skipped; i++)
		report(&c, FAMFS_FSCK_ERROR, "entry", "%s",
		       i < ARRAY_SIZE(fs->skip_log) ? fs->skip_log[i] :
		       "more entries skipped");
	for (unsigned i = 0; i < fs->sb.nslots; i++) {
		const struct famfs_client_slot *s = (const void *)(fs->dev[0]->base +
			fs->sb.slots_offset + i * sizeof(*s));

		if (s->magic == FAMFS_SLOT_MAGIC && s->state > FAMFS_SLOT_EVICTED)
			report(&c, FAMFS_FSCK_ERROR, "slots",
			       "client slot %u has bad state %u", i, s->state);
		else if (s->magic == FAMFS_SLOT_MAGIC && s->state == FAMFS_SLOT_LIVE &&
			 s->replayed_seq > fs->last_seq)
			report(&c, FAMFS_FSCK_WARNING, "slots",
			       "client slot %u claims seq %llu, past the log's end",
			       i, (unsigned long long)s->replayed_seq);
	}
	famfs_close(fs);
	return 0;
}
