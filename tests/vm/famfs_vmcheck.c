// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck: the in-guest half of the kmod VM tests. Each subcommand
 * proves one behaviour of a famfs kernel mount and exits 0 only if it
 * holds; guest/kmod.sh strings them together.
 *
 *   mkfs DEV...                   format DEV... as one filesystem
 *   populate DEV...               master: /dir, /plain, /dir/il, /small
 *   live MOUNTPOINT PATH SEED     master through the mount's meta files:
 *                                 create PATH (4 MiB) holding pattern SEED
 *   write-mmap|write-io FILE SEED fill FILE with pattern SEED
 *   verify-read|verify-mmap FILE SEED
 *   rw-cross FILE SEED            odd-sized I/O across chunk boundaries
 *   pmd FILE                      a 2 MiB (PMD) DAX fault really happens
 *   bench FILE DAXDEV ROUNDS      P1c: mmap read of FILE vs the same bytes
 *                                 in a devdax device (bench/results/kmod.md)
 *   mapinfo FILE                  the kernel's map size does not grow
 *   badmaps MOUNTPOINT            bad maps from user space get -EINVAL
 *   expect-rofs FILE              a client mount refuses writes
 *   grow MOUNTPOINT PATH SEED STRIPS MIB
 *                                 like live, MIB MiB in STRIPS strips
 *                                 (SEED 0: no data written)
 *   rename MOUNTPOINT OLD NEW     master via meta: one RENAME entry
 *   exchange MOUNTPOINT A B       master via meta: one EXCHANGE entry
 *   symlink MOUNTPOINT PATH TARGET
 *                                 master via meta: missing parents, then
 *                                 one SYMLINK entry
 *   reuse MOUNTPOINT OLD NEW SEED master via meta: delete OLD, create NEW
 *                                 (same size, pattern SEED) on OLD's memory
 *   http SOCKET METHOD PATH [JSON] one request to famfsd; prints the
 *                                 status line and body, exit 0 on 2xx
 *   hold FILE SEED FLAG SEED2     mmap FILE, check SEED, touch FLAG.ready,
 *                                 wait for FLAG, check SEED2 (the mapping
 *                                 still reaches the same memory)
 *   cat-mmap FILE                 FILE's bytes, read through a shared
 *                                 mapping, to stdout (checksums of
 *                                 another host's files through mmap)
 *   chmod MOUNTPOINT PATH MODE    master via meta: one SETATTR (MODE,
 *                                 uid 1234, mtime 1e18 ns)
 *   keep-mmap FILE FLAG           mmap FILE, touch FLAG.ready, wait for
 *                                 FLAG: the bytes must not have changed
 *                                 (also checked, one line each, whenever
 *                                 FLAG.check appears; it is removed)
 *   map-save MOUNTPOINT PATH OUT  PATH's map items to OUT
 *   map-overlap MOUNTPOINT SAVED PATH
 *                                 exit 0 if PATH's map overlaps SAVED's
 *   switch-latency MOUNTPOINT FILE WANT READY
 *                                 create READY, then time from the next
 *                                 EXCHANGE in the log to FILE's first
 *                                 line being WANT on the mount
 *   held MOUNTPOINT               the module's FAMFS_IOC_HELD: removed
 *                                 files still open or mapped, lowest seq
 *   unlocked DEV                  exit 0 if no master holds DEV's lock
 *   replay-bench MOUNTPOINT ROUNDS DEV...
 *                                 client kernel mounts of DEV... (the
 *                                 module's replay) against a CRC pass of
 *                                 the log (bench/kmod/replay.sh)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "famfs.h"
#include "vmcheck.h"

static unsigned seed_arg(const char *s)
{
	return (unsigned)strtoul(s, NULL, 0);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (argc >= 3 && argc < FAMFS_MAX_DEVICES + 2 && !strcmp(cmd, "mkfs"))
		return do_mkfs(argv + 2, (unsigned)argc - 2);
	if (argc >= 3 && argc < FAMFS_MAX_DEVICES + 2 &&
	    !strcmp(cmd, "populate"))
		return populate(argv + 2, (unsigned)argc - 2);
	if (argc == 5 && !strcmp(cmd, "live"))
		return live(argv[2], argv[3], seed_arg(argv[4]));
	if (argc == 7 && !strcmp(cmd, "grow"))
		return grow(argv[2], argv[3], seed_arg(argv[4]),
			    seed_arg(argv[5]), seed_arg(argv[6]) * MiB);
	if ((argc == 5 || argc == 6) && !strcmp(cmd, "http"))
		return http(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : NULL);
	if (argc == 5 && !strcmp(cmd, "rename"))
		return rename_file(argv[2], argv[3], argv[4], 0);
	if (argc == 5 && !strcmp(cmd, "exchange"))
		return rename_file(argv[2], argv[3], argv[4],
				   FAMFS_RENAME_EXCHANGE);
	if (argc == 5 && !strcmp(cmd, "symlink"))
		return symlink_file(argv[2], argv[3], argv[4]);
	if (argc == 6 && !strcmp(cmd, "reuse"))
		return reuse(argv[2], argv[3], argv[4], seed_arg(argv[5]));
	if (argc == 6 && !strcmp(cmd, "hold"))
		return hold(argv[2], seed_arg(argv[3]), argv[4],
			    seed_arg(argv[5]));
	if (argc == 4 && !strcmp(cmd, "write-mmap"))
		return write_mmap(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "write-io"))
		return write_io(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "verify-read"))
		return verify_read(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "verify-mmap"))
		return verify_mmap(argv[2], seed_arg(argv[3]));
	if (argc == 4 && !strcmp(cmd, "rw-cross"))
		return rw_cross(argv[2], seed_arg(argv[3]));
	if (argc == 3 && !strcmp(cmd, "pmd"))
		return pmd_fault(argv[2]);
	if (argc == 5 && !strcmp(cmd, "bench"))
		return bench(argv[2], argv[3], (unsigned)atoi(argv[4]));
	if (argc == 3 && !strcmp(cmd, "mapinfo"))
		return mapinfo(argv[2]);
	if (argc == 3 && !strcmp(cmd, "badmaps"))
		return badmaps(argv[2]);
	if (argc == 5 && !strcmp(cmd, "chmod"))
		return chmod_file(argv[2], argv[3],
				  (unsigned)strtoul(argv[4], NULL, 8));
	if (argc == 4 && !strcmp(cmd, "keep-mmap"))
		return keep_mmap(argv[2], argv[3]);
	if (argc == 5 && !strcmp(cmd, "map-save"))
		return map_save(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(cmd, "map-overlap"))
		return map_overlap(argv[2], argv[3], argv[4]);
	if (argc >= 5 && argc < FAMFS_MAX_DEVICES + 4 &&
	    !strcmp(cmd, "replay-bench"))
		return replay_bench(argv[2], seed_arg(argv[3]), argv + 4,
				    (unsigned)argc - 4);
	if (argc == 6 && !strcmp(cmd, "switch-latency"))
		return switch_latency(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 3 && !strcmp(cmd, "held"))
		return held(argv[2]);
	if (argc == 3 && !strcmp(cmd, "unlocked"))
		return master_unlocked(argv[2]);
	if (argc == 3 && !strcmp(cmd, "cat-mmap"))
		return cat_mmap(argv[2]);
	if (argc == 3 && !strcmp(cmd, "expect-rofs"))
		return expect_rofs(argv[2]);
	fprintf(stderr, "usage: famfs-vmcheck mkfs|populate|live|write-mmap|"
		"write-io|verify-read|verify-mmap|rw-cross|pmd|bench|replay-bench|mapinfo|"
		"badmaps|expect-rofs|grow|rename|exchange|symlink|reuse|hold|http|cat-mmap|"
		"chmod|keep-mmap|map-save|map-overlap|switch-latency|held|unlocked ARGS (see the "
		"source)\n");
	return 2;
}
