/* SPDX-License-Identifier: Apache-2.0 */
/*
 * famfs-vmcheck's parts: vmcheck_io.c (the test pattern, read/write/mmap
 * checks), vmcheck_kmod.c (what the module must do: PMD faults, P1c bench,
 * map size, bad maps, read-only clients), vmcheck_lib.c (libfamfs on the
 * master: mkfs, creates, reuse, holds; famfsd over its socket),
 * vmcheck_replay.c (the kernel mount's replay of a large log, timed);
 * famfs_vmcheck.c has the command line.
 */
#ifndef FAMFS_VMCHECK_H
#define FAMFS_VMCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "famfs.h"

#define MiB ((uint64_t)1024 * 1024)
#define IO_CHUNK MiB
#define TRACE "/sys/kernel/tracing"

/* the test pattern (vmcheck_io.c) and the checks' shared helpers */
void pattern_fill(unsigned seed, uint64_t off, uint8_t *p, size_t len);
uint64_t pattern_check(unsigned seed, uint64_t off, const uint8_t *p,
		       size_t len);
int fail(const char *what, const char *path);
int open_size(const char *path, int flags, uint64_t *size);
int write_mmap(const char *path, unsigned seed);
int write_io(const char *path, unsigned seed);
int report_check(const char *path, const char *how, uint64_t bad,
		 uint64_t size, unsigned seed);
int verify_read(const char *path, unsigned seed);
int verify_mmap(const char *path, unsigned seed);
int cat_mmap(const char *path);
int rw_cross(const char *path, unsigned seed);
int pmd_fault(const char *path);
int bench(const char *path, const char *daxdev, unsigned rounds);
int mapinfo(const char *path);
int badmaps(const char *mnt);
int expect_rofs(const char *path);
int do_mkfs(char **devs, unsigned ndev);
int populate(char **devs, unsigned ndev);
int grow(const char *mnt, const char *path, unsigned seed,
		 unsigned strips, uint64_t size);
int rename_file(const char *mnt, const char *old, const char *new,
		unsigned flags);
int symlink_file(const char *mnt, const char *path, const char *target);
int live(const char *mnt, const char *path, unsigned seed);
int reuse(const char *mnt, const char *old, const char *new,
		  unsigned seed);
int hold(const char *path, unsigned seed, const char *flag,
		 unsigned seed2);
int http(const char *sock, const char *method, const char *path,
		 const char *json);
int chmod_file(const char *mnt, const char *path, unsigned mode);
/* vmcheck_slot.c */
int keep_mmap(const char *path, const char *flag);
int map_save(const char *mnt, const char *path, const char *out);
int map_overlap(const char *mnt, const char *saved, const char *path);
int master_unlocked(const char *dev);
int open_meta_read(const char *mnt, struct famfs_fs **fs);
int held(const char *mnt);
/* vmcheck_switch.c */
int switch_latency(const char *mnt, const char *file, const char *want,
		   const char *ready);
/* vmcheck_replay.c */
int replay_bench(const char *mnt, unsigned rounds, char **devs,
		 unsigned ndev);

#endif
