// SPDX-License-Identifier: Apache-2.0
/* The image the replay and fsck fuzzers mutate: see image.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "famfs.h"
#include "fuzz.h"
#include "image.h"

#define DEV_SIZE (8 * FAMFS_MiB)
#define LOG_SIZE (2 * FAMFS_MiB)
#define LABEL_LEN sizeof(struct famfs_dev_label)
#define BLOCK 4096U
#define ENTRIES_OFF (FAMFS_LOG_OFFSET + FAMFS_LOG_HEADER_SIZE)
#define ENTRIES_MAX (LOG_SIZE - FAMFS_LOG_HEADER_SIZE)

static char dir[128], path[2][160];
static const char *paths[2] = { path[0], path[1] };
static int fd0 = -1;
/* Device 0 up to the end of the log, shared with lib's mapping of it: an
 * input is written with memcpy (no syscall per block).
 */
static uint8_t *dev0;

/* The pristine metadata of device 0. */
static struct {
	uint8_t label[LABEL_LEN];
	uint8_t sb[BLOCK], slots[BLOCK], backup[BLOCK], loghdr[BLOCK];
	uint8_t tailrec[2 * sizeof(struct famfs_tail_record)];
	uint8_t *entries;
	size_t entries_len;
} pristine;
static size_t written_hw; /* entry bytes written by the last input */

/*
 * mkfs takes its UUIDs from getrandom(); this one (the executable's
 * definition wins over libc's) makes them the same in every run, so that
 * the committed seeds, which carry device 0's UUIDs, match device 1.
 */
ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint8_t *p = buf;

	(void)flags;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
	return (ssize_t)len;
}

static void die(const char *what, const struct famfs_err *e)
{
	fprintf(stderr, "fuzz image: %s: %s\n", what, e ? e->msg : "");
	abort();
}

static void read_at(void *buf, size_t len, uint64_t off)
{
	if (pread(fd0, buf, len, (off_t)off) != (ssize_t)len)
		die("pread", NULL);
}

static void write_at(const void *buf, size_t len, uint64_t off)
{
	memcpy(dev0 + off, buf, len);
}

/* Every kind of entry replay knows, through the real master code. */
static void fill(void)
{
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_MASTER,
				      .host_name = "fuzzhost" };
	struct famfs_file_attr a = { .mode = 0644, .size = 5000 };
	struct famfs_alloc_policy striped = { .nstrips = 2 };
	struct famfs_setattr sa = { .valid = FAMFS_SETATTR_SIZE |
				    FAMFS_SETATTR_MODE, .size = 100, .mode = 0600 };
	struct famfs_commit_req reqs[2] = { { .path = "/d/b1" },
					    { .path = "/d/b2" } };
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	struct famfs_node *n;
	struct famfs_attr at;

	if (famfs_open(paths, 2, &oo, &fs, &e))
		die("open", &e);
	if (famfs_mkdir(fs, "/d", 0755, 1, 2, &e) ||
	    famfs_create_file(fs, "/d/small", &a, NULL, NULL, &e))
		die("mkdir/create", &e);
	a.size = 5 * FAMFS_MiB;
	if (famfs_create_file(fs, "/striped", &a, &striped, NULL, &e))
		die("create striped", &e);
	a.size = 1;
	if (famfs_create_file(fs, "/gone", &a, NULL, NULL, &e) ||
	    famfs_unlink(fs, "/gone", &e))
		die("create/unlink", &e);
	n = famfs_lookup(fs, "/d/small");
	famfs_node_attr(n, &at);
	if (famfs_setattr(fs, at.ino, &sa, &e))
		die("setattr", &e);
	for (unsigned i = 0; i < 2; i++) {
		reqs[i].attr.size = 4096;
		reqs[i].attr.mode = 0644;
		if (famfs_alloc(fs, 4096, NULL, (struct famfs_fmap **)&reqs[i].map, &e))
			die("alloc", &e);
	}
	if (famfs_commit_files(fs, reqs, 2, &e) != 2)
		die("commit batch", &e);
	/* format 1.3: a symlink, moved, and its owner changed */
	if (famfs_symlink(fs, "/d/link", "../striped", 3, 4, 0, &e) ||
	    famfs_rename(fs, "/d/link", "/link", 0, &e))
		die("symlink/rename", &e);
	famfs_node_attr(famfs_lookup(fs, "/link"), &at);
	sa.valid = FAMFS_SETATTR_UID;
	sa.uid = 5;
	if (famfs_setattr(fs, at.ino, &sa, &e))
		die("setattr symlink", &e);
	/* format 1.5: a generation switch (EXCHANGE), the old one removed
	 * (a BATCH of deletes)
	 */
	a.size = 1;
	if (famfs_mkdir(fs, "/gen", 0755, 0, 0, &e) ||
	    famfs_create_file(fs, "/gen/f", &a, NULL, NULL, &e) ||
	    famfs_mkdir(fs, "/next", 0755, 0, 0, &e) ||
	    famfs_create_file(fs, "/next/f2", &a, NULL, NULL, &e) ||
	    famfs_rename(fs, "/next", "/gen", FAMFS_RENAME_EXCHANGE, &e) ||
	    famfs_remove_tree(fs, "/next", &e) != 2)
		die("exchange/remove tree", &e);
	for (unsigned i = 0; i < 2; i++)
		free((void *)reqs[i].map);
	famfs_close(fs);
}

static void remove_devices(void)
{
	unlink(path[0]);
	unlink(path[1]);
	rmdir(dir);
}

void fuzz_image_init(void)
{
	struct famfs_mkfs_opts mo = { .log_size = LOG_SIZE,
				      .master_name = "fuzzhost" };
	struct famfs_log_status st;
	struct famfs_open_opts oo = { .flags = FAMFS_OPEN_READ };
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
			  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;

	snprintf(dir, sizeof(dir), "%s/famfs-fuzz-XXXXXX", tmp);
	if (!mkdtemp(dir))
		die("mkdtemp", NULL);
	for (unsigned i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/dev%u", dir, i);
		if (famfs_emul_create(path[i], DEV_SIZE, &e))
			die("emul", &e);
	}
	if (famfs_mkfs(paths, 2, &mo, NULL, &e))
		die("mkfs", &e);
	fill();
	if (famfs_open(paths, 2, &oo, &fs, &e))
		die("reopen", &e);
	famfs_log_status(fs, &st);
	famfs_close(fs);
	fd0 = open(path[0], O_RDWR | O_CLOEXEC);
	if (fd0 < 0)
		die("open dev0", NULL);
	read_at(pristine.label, LABEL_LEN, 0);
	read_at(pristine.sb, BLOCK, FAMFS_SB_OFFSET);
	read_at(pristine.slots, BLOCK, FAMFS_SLOTS_OFFSET);
	read_at(pristine.backup, BLOCK, FAMFS_SB_BACKUP_OFFSET);
	read_at(pristine.loghdr, BLOCK, FAMFS_LOG_OFFSET);
	read_at(pristine.tailrec, sizeof(pristine.tailrec), FAMFS_TAILREC_OFFSET);
	pristine.entries_len = st.used_bytes - FAMFS_LOG_HEADER_SIZE;
	pristine.entries = malloc(pristine.entries_len);
	if (!pristine.entries)
		die("malloc", NULL);
	read_at(pristine.entries, pristine.entries_len, ENTRIES_OFF);
	dev0 = mmap(NULL, ENTRIES_OFF + ENTRIES_MAX, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd0, 0);
	if (dev0 == MAP_FAILED)
		die("mmap dev0", NULL);
	written_hw = pristine.entries_len;
	atexit(remove_devices);
}

const char *const *fuzz_image_paths(void)
{
	return paths;
}

/* CRC32C of @len bytes with the 4-byte crc field at @crc_off zeroed. */
static void reseal(uint8_t *p, size_t len, size_t crc_off)
{
	uint32_t crc = 0;

	memcpy(p + crc_off, &crc, 4);
	crc = famfs_crc32c(0, p, len);
	memcpy(p + crc_off, &crc, 4);
}

/* Follow the length chain and reseal every entry it reaches. */
static void reseal_entries(uint8_t *p, size_t len)
{
	size_t off = 0;

	while (off + sizeof(struct famfs_entry_hdr) <= len) {
		struct famfs_entry_hdr h;

		memcpy(&h, p + off, sizeof(h));
		if (h.magic != FAMFS_ENTRY_MAGIC || h.len < sizeof(h) ||
		    h.len % 8 || h.len > len - off)
			return;
		reseal(p + off, h.len, offsetof(struct famfs_entry_hdr, crc));
		off += h.len;
	}
}

/* The committed-tail record: the pristine one (the image's master wrote
 * it: it names the last entry, so a shortened log is corrupt), or with
 * FUZZ_TAILREC the last two slots of the input's slot table block,
 * resealed with FUZZ_FIX_ENTRIES.
 */
static void write_tailrec(const uint8_t slots[BLOCK], uint8_t flags)
{
	uint8_t rec[sizeof(pristine.tailrec)];
	const size_t one = sizeof(struct famfs_tail_record);

	if (!(flags & FUZZ_TAILREC)) {
		write_at(pristine.tailrec, sizeof(rec), FAMFS_TAILREC_OFFSET);
		return;
	}
	memcpy(rec, slots + BLOCK - sizeof(rec), sizeof(rec));
	if (flags & FUZZ_FIX_ENTRIES)
		for (size_t i = 0; i < sizeof(rec); i += one)
			reseal(rec + i, one, offsetof(struct famfs_tail_record, crc));
	write_at(rec, sizeof(rec), FAMFS_TAILREC_OFFSET);
}

/* Copy up to @len bytes of the input at *@pos over @dst. */
static void take(uint8_t *dst, size_t len, const uint8_t *data, size_t size,
		 size_t *pos)
{
	size_t n = *pos < size ? size - *pos : 0;

	memcpy(dst, data + (n ? *pos : 0), n < len ? n : len);
	*pos += len;
}

unsigned fuzz_image_load(const uint8_t *data, size_t size, uint8_t *flags)
{
	uint8_t label[LABEL_LEN], sb[BLOCK], slots[BLOCK], loghdr[BLOCK];
	size_t pos = 1, elen;
	uint8_t *entries;

	*flags = size ? data[0] : 0;
	memcpy(label, pristine.label, sizeof(label));
	memcpy(sb, pristine.sb, sizeof(sb));
	memcpy(slots, pristine.slots, sizeof(slots));
	memcpy(loghdr, pristine.loghdr, sizeof(loghdr));
	take(label, sizeof(label), data, size, &pos);
	take(sb, sizeof(sb), data, size, &pos);
	take(slots, sizeof(slots), data, size, &pos);
	take(loghdr, sizeof(loghdr), data, size, &pos);
	if (pos < size) {
		elen = size - pos < ENTRIES_MAX ? size - pos : ENTRIES_MAX;
		entries = malloc(elen);
		if (!entries)
			die("malloc", NULL);
		memcpy(entries, data + pos, elen);
	} else {
		elen = pristine.entries_len;
		entries = malloc(elen);
		if (!entries)
			die("malloc", NULL);
		memcpy(entries, pristine.entries, elen);
	}
	if (*flags & FUZZ_FIX_LABEL)
		reseal(label, sizeof(label), offsetof(struct famfs_dev_label, crc));
	if (*flags & FUZZ_FIX_SB)
		reseal(sb, sizeof(sb), offsetof(struct famfs_superblock, crc));
	if (*flags & FUZZ_FIX_LOGHDR)
		reseal(loghdr, sizeof(loghdr),
		       offsetof(struct famfs_log_header, crc));
	if (*flags & FUZZ_FIX_ENTRIES)
		reseal_entries(entries, elen);
	write_tailrec(slots, *flags);
	write_at(label, sizeof(label), 0);
	write_at(sb, sizeof(sb), FAMFS_SB_OFFSET);
	write_at(slots, sizeof(slots), FAMFS_SLOTS_OFFSET);
	write_at(*flags & FUZZ_SB_BACKUP ? sb : pristine.backup, BLOCK,
		 FAMFS_SB_BACKUP_OFFSET);
	write_at(loghdr, sizeof(loghdr), FAMFS_LOG_OFFSET);
	write_at(entries, elen, ENTRIES_OFF);
	if (written_hw > elen)
		memset(dev0 + ENTRIES_OFF + elen, 0, written_hw - elen);
	written_hw = elen;
	free(entries);
	return *flags & FUZZ_DROP_DEV1 ? 1 : 2;
}

uint8_t *fuzz_image_seed(uint8_t flags, size_t *len)
{
	size_t n = 1 + LABEL_LEN + 3 * BLOCK + pristine.entries_len;
	uint8_t *p = malloc(n), *q = p;

	if (!p)
		die("malloc", NULL);
	*q++ = flags;
	memcpy(q, pristine.label, LABEL_LEN);
	q += LABEL_LEN;
	memcpy(q, pristine.sb, BLOCK);
	memcpy(q + BLOCK, pristine.slots, BLOCK);
	memcpy(q + 2 * BLOCK, pristine.loghdr, BLOCK);
	memcpy(q + 3 * BLOCK, pristine.entries, pristine.entries_len);
	*len = n;
	return p;
}

void fuzz_image_maybe_write_seeds(void)
{
	static const uint8_t seeds[] = {
		0x00, FUZZ_FIX_LABEL | FUZZ_FIX_SB | FUZZ_FIX_LOGHDR | FUZZ_FIX_ENTRIES,
		0x1f, 0x2f, 0x4f, 0x88,
	};
	const char *out = getenv("FAMFS_FUZZ_WRITE_SEED");

	if (!out)
		return;
	for (size_t i = 0; i < sizeof(seeds); i++) {
		char name[512];
		size_t len;
		uint8_t *p = fuzz_image_seed(seeds[i], &len);
		FILE *f;

		snprintf(name, sizeof(name), "%s/seed-%02x", out, seeds[i]);
		f = fopen(name, "we");
		if (!f || fwrite(p, 1, len, f) != len || fclose(f))
			die(name, NULL);
		free(p);
	}
	exit(0);
}
