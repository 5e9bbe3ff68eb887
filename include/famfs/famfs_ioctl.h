/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * famfs kernel module: the user-space interface (mount name, meta files,
 * ioctls), shared by kmod/ and user space (lib, famfsd, famfs-cli,
 * tests); the on-media format is in format.h beside it.
 *
 * A famfs mount starts with an empty root plus the meta directory. User
 * space replays the log and adds each directory and file with the ioctls
 * below, issued on an fd of the parent directory inside the mount. The
 * kernel validates every map against the device before it accepts it.
 */
#ifndef _UAPI_LINUX_FAMFS_IOCTL_H
#define _UAPI_LINUX_FAMFS_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define FAMFS_KMOD_FSTYPE	"famfs"
#define FAMFS_KMOD_SUPER_MAGIC	0x46414d53	/* "FAMS", statfs f_type */
#define FAMFS_KMOD_ROOT_INO	1	/* the log's root inode number */

/*
 * The meta directory in the root of every mount. File devN maps the whole
 * device N (dev0 holds the superblock, slot table and log), so user space
 * reads (client) or appends to (master) them through DAX, coherently with
 * the files' own mappings. libfamfs opens them as file-backed devices.
 * Devices 1.. are given to mount(2) as dev=PATH options, in index order.
 */
#define FAMFS_KMOD_META_DIR	".meta"
#define FAMFS_KMOD_META_DEV_PREFIX	"dev"
#define FAMFS_KMOD_MOUNT_OPT_DEV	"dev"

#define FAMFS_IOC_NAME_MAX	255
#define FAMFS_IOC_MAX_ITEMS	64	/* FAMFS_MAX_EXTENTS, FAMFS_MAX_STRIPS */

/* Same layout as struct famfs_map_item in include/famfs/format.h. */
struct famfs_ioc_item {
	__u32 dev_index;	/* a device of the mount */
	__u32 reserved;		/* must be 0 */
	__u64 offset;		/* device offset, 4 KiB aligned */
	__u64 length;		/* bytes, 4 KiB aligned, > 0 */
};

/* map_type: FAMFS_MAP_EXTENTS (1) or FAMFS_MAP_INTERLEAVE (2). */
struct famfs_ioc_map {
	__u16 map_type;
	__u16 nitems;		/* extents or strips, 0 only for an empty file */
	__u32 reserved;		/* must be 0 */
	__u64 chunk;		/* interleave: multiple of 2 MiB; extents: 0 */
	__u64 items;		/* user pointer to nitems struct famfs_ioc_item */
};

/*
 * ino: the log's inode number (1 + the seq of the creating entry), which
 * stat() and readdir() then report, so that an agent following the log
 * can tell a file from a newer one of the same name; 0 picks a number.
 */
struct famfs_ioc_create {
	__u64 ino;
	__u64 size;		/* file size; must fit in the map */
	__u64 mtime_ns;
	__u64 ctime_ns;
	__u32 mode;		/* permission bits only */
	__u32 uid;
	__u32 gid;
	__u32 reserved;		/* must be 0 */
	struct famfs_ioc_map map;
	char name[FAMFS_IOC_NAME_MAX + 1];	/* one component, NUL-ended */
};

struct famfs_ioc_mkdir {
	__u64 ino;		/* as in famfs_ioc_create */
	__u64 mtime_ns;
	__u32 mode;		/* permission bits only */
	__u32 uid;
	__u32 gid;
	__u32 reserved;		/* must be 0 */
	char name[FAMFS_IOC_NAME_MAX + 1];
};

/* What the kernel holds for one file: map_bytes does not grow with size. */
struct famfs_ioc_mapinfo {
	__u64 size;
	__u64 chunk;
	__u64 map_bytes;	/* bytes of kernel memory holding the map */
	__u16 map_type;
	__u16 nitems;
	__u32 reserved;
};

/*
 * Remove entry @name of the directory if it is inode @ino. @seq: the log
 * seq of the entry that frees the file's memory (its DELETE, or a RENAME
 * over it), or a lower bound of it (for a file that moved to another
 * name, the seq after the log's last: a later delete comes after it); 0
 * when the memory is not freed. FAMFS_IOC_HELD reports it while the
 * removed file is still open or mapped.
 */
struct famfs_ioc_remove {
	__u64 ino;
	__u64 seq;
	char name[FAMFS_IOC_NAME_MAX + 1];
};

/* Open @path as device @dev_index (the next one) of the mount. */
struct famfs_ioc_device_add {
	__u32 dev_index;
	__u32 reserved;		/* must be 0 */
	char path[4096];	/* NUL-ended */
};

/*
 * What the mount holds that the log no longer has, for the agent that
 * publishes the mount's replay position in a client slot: removed files
 * (with a REMOVE seq) still open or mapped, and the slot it claimed.
 */
struct famfs_ioc_held {
	__u64 count;		/* removed files still open or mapped */
	__u64 min_seq;		/* lowest REMOVE seq among them; 0: none */
	__s32 slot;		/* slot last made live by SLOT_WRITE; -1 */
	__u32 reserved;
	__u8 slot_uuid[16];	/* the host_uuid written into it */
};

/*
 * A SETATTR of the log for entry @name of the directory, if it is inode
 * @ino: permission bits, owner and times as the log now has them.
 */
struct famfs_ioc_setattr {
	__u64 ino;
	__u64 mtime_ns;
	__u64 ctime_ns;
	__u64 atime_ns;
	__u32 mode;		/* permission bits only */
	__u32 uid;
	__u32 gid;
	__u32 reserved;		/* must be 0 */
	char name[FAMFS_IOC_NAME_MAX + 1];
};

/*
 * A SYMLINK of the log (format 1.3): add entry @name of the directory as
 * a symbolic link to the @target_len bytes at user pointer @target (no
 * NUL, 1..FAMFS_IOC_SYMLINK_MAX), stored as given and never resolved by
 * famfs; the VFS follows it on lookup. Mode 0777, like every symlink.
 */
#define FAMFS_IOC_SYMLINK_MAX	4095
struct famfs_ioc_symlink {
	__u64 ino;		/* as in famfs_ioc_create */
	__u64 mtime_ns;
	__u64 target;		/* user pointer to target_len bytes */
	__u32 target_len;
	__u32 uid;
	__u32 gid;
	__u32 reserved;		/* must be 0 */
	char name[FAMFS_IOC_NAME_MAX + 1];
};

/*
 * An EXCHANGE of the log (format 1.5): entry @name_a of the directory the
 * ioctl is issued on (inode @ino_a) and entry @name_b of the directory
 * open as @dirfd_b (inode @ino_b) swap places in one step, as
 * renameat2(RENAME_EXCHANGE): a path walk finds the one or the other,
 * and an open directory or file keeps its inode.
 */
struct famfs_ioc_exchange {
	__u64 ino_a;
	__u64 ino_b;
	__s32 dirfd_b;		/* a directory of the same mount */
	__u32 reserved;		/* must be 0 */
	char name_a[FAMFS_IOC_NAME_MAX + 1];
	char name_b[FAMFS_IOC_NAME_MAX + 1];
};

/* The log seq the replaying agent has brought the mount to. */
struct famfs_ioc_synced {
	__u64 seq;
};

#define FAMFS_IOC_SLOT_BYTES	64	/* struct famfs_client_slot */

/*
 * One client slot of the table on device 0 (docs/format.md), written as
 * a whole cache line through DAX and flushed: the agent's one write to
 * the filesystem, possible on a read-only mount too.
 */
struct famfs_ioc_slot {
	__u32 index;		/* < the superblock's nslots */
	__u32 reserved;		/* must be 0 */
	__u8 slot[FAMFS_IOC_SLOT_BYTES];
};

#define FAMFS_IOC_MAGIC		0xFA
/* On a directory fd: add a regular file with its map. */
#define FAMFS_IOC_CREATE	_IOW(FAMFS_IOC_MAGIC, 1, struct famfs_ioc_create)
/* On a directory fd: add a subdirectory. */
#define FAMFS_IOC_MKDIR		_IOW(FAMFS_IOC_MAGIC, 2, struct famfs_ioc_mkdir)
/* On a regular file fd: report the map the kernel holds. */
#define FAMFS_IOC_MAPINFO	_IOR(FAMFS_IOC_MAGIC, 3, struct famfs_ioc_mapinfo)
/*
 * On a directory fd: remove a file or an empty directory (a DELETE in the
 * log). New lookups fail at once; a process that has the file open or
 * mapped keeps it, and its memory stays claimed (a CREATE over it is
 * -EBUSY) until the last such user is gone.
 */
#define FAMFS_IOC_REMOVE	_IOW(FAMFS_IOC_MAGIC, 4, struct famfs_ioc_remove)
/*
 * On the root fd: add a device (a DEVICE_ADD in the log). Its label must
 * name this filesystem and this index; .meta/dev<index> appears.
 */
#define FAMFS_IOC_DEVICE_ADD	_IOW(FAMFS_IOC_MAGIC, 5, \
				     struct famfs_ioc_device_add)

/* On a directory fd: set an entry's attributes (a SETATTR in the log). */
#define FAMFS_IOC_SETATTR	_IOW(FAMFS_IOC_MAGIC, 8, \
				     struct famfs_ioc_setattr)
/* On a directory fd: add a symbolic link (a SYMLINK in the log). */
#define FAMFS_IOC_SYMLINK	_IOW(FAMFS_IOC_MAGIC, 9, \
				     struct famfs_ioc_symlink)
/*
 * On a directory fd: swap two entries (an EXCHANGE in the log). -ESTALE
 * when a name holds another inode, -ENOENT when it holds none, -EINVAL
 * when one is an ancestor of the other, -EXDEV for another mount.
 */
#define FAMFS_IOC_EXCHANGE	_IOW(FAMFS_IOC_MAGIC, 10, \
				     struct famfs_ioc_exchange)
/* On a directory fd: record (CAP_SYS_ADMIN) or read the agent's seq. */
#define FAMFS_IOC_SYNCED_SET	_IOW(FAMFS_IOC_MAGIC, 11, \
				     struct famfs_ioc_synced)
#define FAMFS_IOC_SYNCED_GET	_IOR(FAMFS_IOC_MAGIC, 12, \
				     struct famfs_ioc_synced)
/* On a directory fd: report removed files still in use (no capability). */
#define FAMFS_IOC_HELD		_IOR(FAMFS_IOC_MAGIC, 6, struct famfs_ioc_held)
/* On the root fd: write client slot @index (CAP_SYS_ADMIN). */
#define FAMFS_IOC_SLOT_WRITE	_IOW(FAMFS_IOC_MAGIC, 7, struct famfs_ioc_slot)

#endif /* _UAPI_LINUX_FAMFS_IOCTL_H */
