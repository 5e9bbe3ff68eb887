/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kill points: numbered steps of a multi-step write (mkfs, create, log
 * append, batch commit, ingest) at which a test can SIGKILL the process
 * to prove that a crash there loses nothing committed and leaves a
 * filesystem fsck accepts. Compiled in only with -DFAMFS_KILL_POINTS
 * (the *-kp test binaries, tests/killmatrix); otherwise a point is
 * nothing at all.
 *
 * FAMFS_KILL_AT=NAME[:N] makes the N-th hit (default 1) of point NAME
 * write "famfs kill point NAME" to stderr and SIGKILL the process. With
 * FAMFS_KILL_SIGNAL=STOP the process stops itself there instead (SIGSTOP,
 * the whole process), and goes on when continued: a test then kills
 * something else at that step (famfsd's FUSE server under a refresh).
 * Every point is a string literal FAMFS_KILL_POINT("area.step"): the
 * matrix finds them all in the sources and fails for any it cannot hit.
 */
#ifndef FAMFS_KILLPOINT_H
#define FAMFS_KILLPOINT_H

#ifdef FAMFS_KILL_POINTS
void famfs_kill_point(const char *name);
#define FAMFS_KILL_POINT(name) famfs_kill_point(name)
#else
#define FAMFS_KILL_POINT(name) do { } while (0)
#endif

#endif
