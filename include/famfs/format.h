/* SPDX-License-Identifier: Apache-2.0 */
/*
 * famfs on-media format: the single home of every structure that lives in
 * the shared memory. docs/format.md describes the same layout in prose;
 * change both in one commit.
 *
 * Rules: every field is little-endian and fixed-width; no long, size_t,
 * time_t, bitfields or compiler-dependent padding (every struct is padded
 * by hand and its size is checked at compile time). This header is also
 * included by the kernel module (kmod/), so it only uses the fixed-width
 * integer names that both worlds define.
 */
#ifndef FAMFS_FORMAT_H
#define FAMFS_FORMAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#define FAMFS_STATIC_ASSERT(c, m) _Static_assert(c, m)
#else
#include <stdint.h>
#define FAMFS_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
/* The structs below are read in place; a big-endian port needs accessors. */
#error "famfs: on-media structs are little-endian; add byte-swapping accessors"
#endif

#define FAMFS_KiB (1024ULL)
#define FAMFS_MiB (1024ULL * 1024ULL)
#define FAMFS_GiB (1024ULL * FAMFS_MiB)

/* Allocation unit on every device, and the alignment of every device size. */
#define FAMFS_UNIT_SIZE (2 * FAMFS_MiB)
/* Granularity of packed small files inside a shared unit. */
#define FAMFS_BLOCK_SIZE (4 * FAMFS_KiB)
#define FAMFS_BLOCKS_PER_UNIT (FAMFS_UNIT_SIZE / FAMFS_BLOCK_SIZE)

#define FAMFS_FORMAT_MAJOR 1
/* 1.1: SETATTR, BATCH; 1.2: RENAME; 1.3: SYMLINK; 1.4: committed-tail
 * record; 1.5: EXCHANGE; 1.0 is still read
 */
#define FAMFS_FORMAT_MINOR 5

#define FAMFS_MAX_DEVICES 64
#define FAMFS_MAX_STRIPS 64
#define FAMFS_MAX_EXTENTS 64
/* Sanity limits on what a map may say (checked by famfs_map_check()). */
#define FAMFS_MAX_CHUNK (1ULL << 40)      /* 1 TiB interleave chunk */
#define FAMFS_MAX_FILE_SIZE (1ULL << 56)  /* 64 PiB */
#define FAMFS_PATH_MAX 4095 /* bytes, without a terminating NUL */
#define FAMFS_NAME_MAX 255
#define FAMFS_MAX_SLOTS 256
#define FAMFS_HOSTNAME_LEN 64

/* ---- device layout --------------------------------------------------------
 * Every device (offset 0): a device label.
 * Device 0 also holds:
 *   FAMFS_SB_OFFSET         the superblock
 *   FAMFS_TAILREC_OFFSET    the committed-tail record (two slots)
 *   FAMFS_SLOTS_OFFSET      the client slot table
 *   FAMFS_SB_BACKUP_OFFSET  the backup superblock
 *   FAMFS_LOG_OFFSET        the log (header + entries), log_size bytes
 * The first unit of every device, and the log on device 0, are never
 * allocated to files.
 */
#define FAMFS_LABEL_OFFSET 0ULL
#define FAMFS_SB_OFFSET (4 * FAMFS_KiB)
#define FAMFS_TAILREC_OFFSET (32 * FAMFS_KiB)
#define FAMFS_SLOTS_OFFSET (64 * FAMFS_KiB)
#define FAMFS_SB_BACKUP_OFFSET (1 * FAMFS_MiB)
#define FAMFS_LOG_OFFSET (2 * FAMFS_MiB)
#define FAMFS_LOG_MIN_SIZE (2 * FAMFS_MiB)
#define FAMFS_LOG_DEFAULT_SIZE (64 * FAMFS_MiB)
#define FAMFS_LOG_HEADER_SIZE 4096ULL

#define FAMFS_LABEL_MAGIC 0x314c424c53464d46ULL  /* "FMFSLBL1" */
#define FAMFS_SB_MAGIC 0x3142535346534d46ULL     /* "FMSFSSB1" */
#define FAMFS_LOGHDR_MAGIC 0x31474f4c53464d46ULL /* "FMFSLOG1" */
#define FAMFS_SLOT_MAGIC 0x544f4c53U             /* "SLOT" */
#define FAMFS_ENTRY_MAGIC 0x31454c46U            /* "FLE1" */
#define FAMFS_TAILREC_MAGIC 0x4c494154U          /* "TAIL" */

struct famfs_uuid {
	uint8_t b[16];
};

/* 256 bytes at offset 0 of every device. */
struct famfs_dev_label {
	uint64_t magic;            /* FAMFS_LABEL_MAGIC */
	uint32_t crc;              /* CRC32C of the label with crc = 0 */
	uint16_t format_major;
	uint16_t format_minor;
	struct famfs_uuid fs_uuid;
	struct famfs_uuid dev_uuid;
	uint64_t dev_size;         /* bytes, multiple of FAMFS_UNIT_SIZE */
	uint32_t dev_index;        /* 0 .. ndevices-1 */
	uint32_t reserved0;
	uint8_t reserved[192];
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_dev_label) == 256, "label size");

struct famfs_sb_device {
	struct famfs_uuid dev_uuid;
	uint64_t dev_size;
	uint64_t reserved;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_sb_device) == 32, "sb device size");

/* 4096 bytes at FAMFS_SB_OFFSET (and FAMFS_SB_BACKUP_OFFSET) of device 0. */
struct famfs_superblock {
	uint64_t magic;            /* FAMFS_SB_MAGIC */
	uint32_t crc;              /* CRC32C of all 4096 bytes with crc = 0 */
	uint16_t format_major;
	uint16_t format_minor;
	struct famfs_uuid fs_uuid;
	uint64_t created_ns;       /* CLOCK_REALTIME at mkfs */
	uint64_t log_offset;       /* on device 0 */
	uint64_t log_size;         /* bytes incl. the log header */
	uint64_t slots_offset;     /* on device 0 */
	uint32_t nslots;
	uint32_t ndevices;         /* devices at mkfs; more come by log entry */
	uint32_t unit_size;        /* FAMFS_UNIT_SIZE */
	uint32_t pack_threshold;   /* files <= this are packed at 4 KiB */
	struct famfs_uuid master_uuid;          /* the one writer's identity */
	char master_name[FAMFS_HOSTNAME_LEN];   /* NUL-padded */
	uint8_t reserved0[1792 - 160];
	struct famfs_sb_device devices[FAMFS_MAX_DEVICES]; /* at byte 1792 */
	uint8_t reserved1[256];
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_superblock) == 4096, "sb size");

/* 64 bytes per slot, one cache line, written only by its owner (or evict). */
enum famfs_slot_state {
	FAMFS_SLOT_FREE = 0,
	FAMFS_SLOT_LIVE = 1,
	FAMFS_SLOT_EVICTED = 2,
};

struct famfs_client_slot {
	uint32_t magic;            /* FAMFS_SLOT_MAGIC when ever used */
	uint32_t state;            /* enum famfs_slot_state */
	struct famfs_uuid host_uuid;
	uint64_t replayed_seq;     /* last log seq this client has applied */
	uint64_t heartbeat_ns;     /* CLOCK_REALTIME of the last update */
	char host_name[24];        /* for humans, NUL-padded, may be cut */
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_client_slot) == 64, "slot size");

/* Committed-tail record (format 1.4): two 64-byte slots at
 * FAMFS_TAILREC_OFFSET and FAMFS_TAILREC_OFFSET + 64 of device 0. After
 * each append is flushed the master writes the next generation into slot
 * (gen % 2) and flushes it; the valid slot with the higher gen wins, so a
 * torn write of one slot leaves the other. Every entry up to @end_seq was
 * committed: one that fails its checks is corruption, never a torn append.
 */
struct famfs_tail_record {
	uint32_t magic;            /* FAMFS_TAILREC_MAGIC */
	uint32_t crc;              /* CRC32C of the 64 bytes with crc = 0 */
	uint64_t fs_tag;           /* first 8 bytes of fs_uuid, as entries */
	uint64_t gen;              /* 1, 2, 3, ...: the higher valid one wins */
	uint64_t entry_seq;        /* seq in the header of the last entry */
	uint64_t entry_offset;     /* its log offset */
	uint32_t entry_len;        /* its length */
	uint32_t entry_crc;        /* its header's crc */
	uint64_t end_seq;          /* last seq it covers (a BATCH: its last) */
	uint64_t written_ns;       /* CLOCK_REALTIME of the record */
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_tail_record) == 64, "tailrec size");

/* 4096 bytes at the start of the log. Written once by mkfs, never again:
 * the tail is found by scanning; the committed-tail record (above) only
 * tells how far the scan must get.
 */
struct famfs_log_header {
	uint64_t magic;            /* FAMFS_LOGHDR_MAGIC */
	uint32_t crc;              /* CRC32C of all 4096 bytes with crc = 0 */
	uint32_t header_size;      /* FAMFS_LOG_HEADER_SIZE */
	struct famfs_uuid fs_uuid;
	uint64_t log_size;         /* equals the superblock's */
	uint64_t first_seq;        /* seq of the first entry: 1 */
	uint8_t reserved[4096 - 48];
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_log_header) == 4096, "loghdr size");

/* ---- log entries ---------------------------------------------------------
 * Entries follow the log header back to back, each a multiple of 8 bytes.
 * An entry counts only if magic, fs_tag, len, seq (== previous + 1) and the
 * CRC32C over all len bytes (crc field = 0) are right; the first entry that
 * fails ends the valid log.
 */
enum famfs_entry_type {
	FAMFS_ENTRY_FILE = 1,       /* create a file with its map */
	FAMFS_ENTRY_MKDIR = 2,
	FAMFS_ENTRY_DELETE = 3,     /* tombstone for a file or empty dir */
	FAMFS_ENTRY_DEVICE_ADD = 4,
	FAMFS_ENTRY_SETATTR = 5,    /* 1.1: mode, owner, times, size */
	FAMFS_ENTRY_BATCH = 6,      /* 1.1: entries committed all or nothing */
	FAMFS_ENTRY_RENAME = 7,     /* 1.2: move a file or directory */
	FAMFS_ENTRY_SYMLINK = 8,    /* 1.3: a symbolic link and its target */
	FAMFS_ENTRY_EXCHANGE = 9,   /* 1.5: swap the names of two nodes */
};

#define FAMFS_ENTRY_F_OPTIONAL 0x0001 /* a reader may skip an unknown type */

struct famfs_entry_hdr {
	uint32_t magic;            /* FAMFS_ENTRY_MAGIC */
	uint32_t crc;
	uint64_t seq;              /* 1, 2, 3, ... without gaps */
	uint64_t fs_tag;           /* first 8 bytes of fs_uuid, little-endian */
	uint32_t len;              /* whole entry, multiple of 8 */
	uint16_t type;             /* enum famfs_entry_type */
	uint16_t flags;
	uint64_t logged_ns;        /* CLOCK_REALTIME of the append */
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_hdr) == 40, "entry hdr size");

enum famfs_map_type {
	FAMFS_MAP_EXTENTS = 1,
	FAMFS_MAP_INTERLEAVE = 2,
};

/* An extent, or one strip of an interleave descriptor. */
struct famfs_map_item {
	uint32_t dev_index;
	uint32_t reserved;
	uint64_t offset;           /* device offset */
	uint64_t length;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_map_item) == 24, "map item size");

/* FILE: hdr, this, nitems * famfs_map_item, path bytes, zero pad to 8. */
struct famfs_entry_file {
	uint64_t size;             /* file size in bytes */
	uint64_t mtime_ns;
	uint64_t ctime_ns;
	uint32_t mode;             /* S_IFREG | permission bits */
	uint32_t uid;
	uint32_t gid;
	uint16_t map_type;         /* enum famfs_map_type */
	uint16_t nitems;           /* extents, or strips */
	uint64_t chunk;            /* interleave chunk in bytes, 0 for extents */
	uint16_t path_len;         /* bytes, no NUL, <= FAMFS_PATH_MAX */
	uint16_t reserved0;
	uint32_t reserved1;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_file) == 56, "file entry size");

/* MKDIR: hdr, this, path bytes, pad. */
struct famfs_entry_mkdir {
	uint64_t mtime_ns;
	uint32_t mode;             /* S_IFDIR | permission bits */
	uint32_t uid;
	uint32_t gid;
	uint16_t path_len;
	uint16_t reserved0;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_mkdir) == 24, "mkdir size");

/* DELETE: hdr, this, path bytes, pad. target_seq names the entry that
 * created what is deleted, so readers need no path lookup to free space.
 */
struct famfs_entry_delete {
	uint64_t target_seq;
	uint16_t path_len;
	uint16_t reserved0;
	uint32_t reserved1;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_delete) == 16, "delete size");

/* DEVICE_ADD: hdr, this. The device's label is written before the entry. */
struct famfs_entry_device_add {
	struct famfs_uuid dev_uuid;
	uint64_t dev_size;
	uint32_t dev_index;
	uint32_t reserved;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_device_add) == 32, "devadd size");

/* SETATTR (format 1.1): hdr, this, path bytes, pad. Changes the fields
 * named in @valid of the live file or directory that entry @target_seq
 * created (0: the root). A size change stays within the file's map.
 */
enum famfs_setattr_valid {
	FAMFS_SETATTR_MODE = 0x01,
	FAMFS_SETATTR_UID = 0x02,
	FAMFS_SETATTR_GID = 0x04,
	FAMFS_SETATTR_ATIME = 0x08,
	FAMFS_SETATTR_MTIME = 0x10,
	FAMFS_SETATTR_SIZE = 0x20,  /* regular files only */
};
#define FAMFS_SETATTR_ALL 0x3fU

struct famfs_entry_setattr {
	uint64_t target_seq;       /* entry that created the node; 0 = root */
	uint32_t valid;            /* enum famfs_setattr_valid bits */
	uint32_t mode;             /* permission bits (type bits are kept) */
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint64_t atime_ns;
	uint64_t mtime_ns;
	uint64_t ctime_ns;         /* always applied: the change time */
	uint16_t path_len;         /* the node's path, for fsck and humans */
	uint16_t reserved0;
	uint32_t reserved1;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_setattr) == 64, "setattr size");

/* BATCH (format 1.1): hdr (seq S), this, then @count whole inner entries
 * (FILE, MKDIR, SETATTR or DELETE) with seqs S+1 .. S+count, each with
 * crc 0: the batch's one CRC covers them all, so a torn batch is ignored
 * as a whole. The next entry after the batch has seq S+count+1.
 */
struct famfs_entry_batch {
	uint32_t count;
	uint32_t reserved;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_batch) == 8, "batch size");

/* RENAME (format 1.2): hdr, this, old path bytes, new path bytes, pad.
 * Moves the live node entry @target_seq created to the new path; the node
 * keeps its inode number and map. A node that held the new name (entry
 * @replaced_seq, 0: the name was free) is deleted by this entry as by a
 * DELETE with this entry's seq (its space waits for the clients).
 */
struct famfs_entry_rename {
	uint64_t target_seq;       /* entry that created the node that moves */
	uint64_t replaced_seq;     /* entry that created the node replaced; 0 */
	uint16_t old_len;          /* old path bytes (checked against the tree) */
	uint16_t new_len;          /* new path bytes */
	uint32_t reserved;
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_rename) == 24, "rename size");

/* SYMLINK (format 1.3): hdr, this, path bytes, target bytes, pad.
 * Creates a symbolic link at the path (its parent a directory, its name
 * free) whose target is stored verbatim: 1..FAMFS_SYMLINK_MAX bytes, no
 * NUL, never resolved by famfs (it may be relative, absolute, dangling
 * or point outside the filesystem). The link's permission bits are 0777.
 */
#define FAMFS_SYMLINK_MAX 4095
struct famfs_entry_symlink {
	uint64_t mtime_ns;
	uint32_t uid;
	uint32_t gid;
	uint16_t path_len;         /* bytes, no NUL, <= FAMFS_PATH_MAX */
	uint16_t target_len;       /* bytes, no NUL, 1..FAMFS_SYMLINK_MAX */
	uint32_t reserved;         /* zero */
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_symlink) == 24, "symlink size");

/* EXCHANGE (format 1.5): hdr, this, path a bytes, path b bytes, pad.
 * In one step the live node entry @a_seq created (at path a) takes path b
 * and the node @b_seq created (at path b) takes path a, as rename(2) with
 * RENAME_EXCHANGE: files, symlinks and directories alike, whole subtrees
 * with them. Nothing is deleted or freed; both keep inode and map. Not
 * OPTIONAL: a reader that skipped it would serve the other tree.
 */
struct famfs_entry_exchange {
	uint64_t a_seq;            /* entry that created the node at path a */
	uint64_t b_seq;            /* entry that created the node at path b */
	uint16_t a_len;            /* path a bytes (checked against the tree) */
	uint16_t b_len;            /* path b bytes (checked against the tree) */
	uint32_t reserved;         /* zero */
};
FAMFS_STATIC_ASSERT(sizeof(struct famfs_entry_exchange) == 24, "exchange size");

#endif /* FAMFS_FORMAT_H */
