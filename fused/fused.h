/* SPDX-License-Identifier: Apache-2.0 */
/*
 * famfs-fused internals. One process serves one mount, so the state is one
 * global (struct fused fused), shared by the request handlers
 * (ops_read.c, ops_write.c), the master's uncommitted files (pending*.c)
 * and the client's log follower (follow.c). docs/fuse.md has the design.
 */
#ifndef FAMFS_FUSED_H
#define FAMFS_FUSED_H

/* 312: fuse_session_loop_mt() takes the fuse_loop_cfg_*() config; at 34
 * it is read as the old public struct (max_idle_threads 0: a new thread,
 * a cloned /dev/fuse fd and a fresh buffer for every request)
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "famfs.h"

/* Provisional inode numbers of files the master has created but not yet
 * committed; lib inode numbers (1 + seq) never reach this bit.
 */
#define FUSED_PENDING_INO (1ULL << 62)

struct pfile;

struct fused_opts {
	bool client;
	bool allow_other;
	bool direct_io;           /* client reads bypass the page cache */
	bool debug;
	bool force;               /* master: take over from another host */
	unsigned poll_ms;         /* client: log poll interval */
	unsigned read_ahead_kb;   /* 0: leave the mount's bdi alone */
	int ready_fd;             /* -1, or where to write READY=1 */
	unsigned max_threads;     /* session loop workers */
	const char *host_name;
	const char *devs[FAMFS_MAX_DEVICES]; /* absolute paths, as given */
	unsigned ndev;
	const char *mountpoint;
};

struct notice;

struct fused {
	struct fused_opts o;
	struct famfs_fs *fs;
	struct fuse_session *se;
	double entry_timeout;

	/* the master's uncommitted files (pending.c) */
	pthread_mutex_t pend_mu;
	struct pfile *pend_live;         /* uncommitted, reachable by name */
	struct pfile *pend_ino[1024];    /* every record, by provisional ino */
	uint64_t pend_next;
	struct pfile *pend_alias;        /* replacements by O_TRUNC (replaced_ino) */

	/* kernel notices, sent by the notifier thread (follow.c) */
	pthread_mutex_t q_mu;
	pthread_cond_t q_cv;
	struct notice *q_head, *q_tail;
	pthread_t notify_thr, follow_thr;
	bool threads_started;
	atomic_bool stopping;            /* read by the follower unlocked */
	char last_tail_reason[256];      /* the bad tail reported last */
	uint64_t last_skipped;
};

extern struct fused fused;

/* An open file (fi->fh): a held committed node, or an uncommitted file. */
struct ofile {
	struct famfs_node *node;
	struct pfile *pf;
	uint64_t ino;
	struct ofile *prev, *next;   /* every open handle, for shutdown */
};

/* attr.c: open handles are tracked so that those the kernel never
 * released (unmounted while open) are freed at shutdown.
 */
struct ofile *fused_ofile_new(void);
void fused_ofile_free(struct ofile *of);
void fused_ofiles_free_all(void);
/* attr.c: how many handles the master has open on committed @ino */
unsigned fused_ofiles_count(uint64_t ino);
/* attr.c: a master's write-only open skips the page cache, and so does a
 * read-write open where the kernel keeps mmap of it coherent (docs/fuse.md)
 */
void fused_master_open_mode(struct fuse_file_info *fi);
/* dio_mmap.c: ask for FUSE_DIRECT_IO_ALLOW_MMAP; setup after the mount,
 * want from the init op; granted once the kernel has the INIT reply
 */
int fused_dio_mmap_setup(struct fuse_session *se);
void fused_dio_mmap_want(struct fuse_conn_info *conn);
bool fused_dio_mmap_granted(void);
/* ops_read.c: directory snapshots whose RELEASEDIR never came (shutdown) */
void fused_dirs_free_all(void);

/* put.c: @len bytes of @src into @m at @off; bytes written or -errno */
int64_t fused_put(const struct famfs_fmap *m, uint64_t off,
		  struct fuse_bufvec *src, size_t len);

/* main.c */
void fused_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* attr.c: committed nodes, each under the fs read lock. st_ino and
 * e->ino are the kernel's numbers (fused_inomap_kernel); _raw: the node's
 * own (1 + seq), for libfamfs calls.
 */
void fused_attr_to_stat(const struct famfs_attr *a, struct stat *st);
int fused_node_stat(uint64_t ino, struct stat *st);
int fused_lookup_committed(uint64_t parent, const char *name,
			   struct fuse_entry_param *e);
int fused_lookup_committed_raw(uint64_t parent, const char *name,
			       struct fuse_entry_param *e);
/* "/dir/path/name" of @name in directory @parent. */
int fused_child_path(uint64_t parent, const char *name, char *buf, size_t len);
/* Find committed file @ino and hold it (NULL: gone, or a directory). */
struct famfs_node *fused_hold_node(uint64_t ino);
void fused_release_node(struct famfs_node *n);

/* inomap.c (master): a committed file keeps the kernel inode number it
 * had while pending (or that an O_TRUNC open replaced) for the mount's
 * life. set: pair @kino with committed @cino (-1: out of memory, the file
 * then shows its committed number); kernel: the number the kernel knows
 * committed @cino by (@cino itself if none); committed: the node behind
 * kernel number @kino, 0 if none; deleted: @cino is gone, drop its pair.
 */
int fused_inomap_set(uint64_t kino, uint64_t cino);
uint64_t fused_inomap_kernel(uint64_t cino);
uint64_t fused_inomap_committed(uint64_t kino);
void fused_inomap_deleted(uint64_t cino);
void fused_inomap_free_all(void);

/* mapjson.c: the JSON behind the user.famfs.* xattrs (malloc'ed) */
char *fused_map_json(const char *path, uint64_t size, uint64_t alloc_bytes,
		     const struct famfs_fmap *m, bool committed);
char *fused_devices_json(void);

/* ops_read.c, ops_write.c: fill the handler table */
void fused_ops_read(struct fuse_lowlevel_ops *ops);
void fused_ops_write(struct fuse_lowlevel_ops *ops);
/* Serve a read of committed node @n from the device mapping. */
void fused_read_committed(fuse_req_t req, struct famfs_node *n, size_t len,
			  uint64_t off);

/* symlink.c: symlink (master) and readlink (both mounts) */
void fused_ops_symlink(struct fuse_lowlevel_ops *ops);

/* grow.c: devices added while mounted (the FAMFS_IOC_* ioctls) */
void fused_ops_grow(struct fuse_lowlevel_ops *ops);

/* follow.c: the notifier (both mounts) and the follower (clients) */
int fused_threads_start(void);
void fused_threads_stop(void);
/* Queue a kernel notice; the notifier sends it outside every lock. */
void fused_notify_entry(uint64_t parent, const char *name);
void fused_notify_delete(uint64_t parent, uint64_t child, const char *name);
void fused_notify_inode(uint64_t ino);

#endif /* FAMFS_FUSED_H */
