/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scope cleanup, systemd's way: a variable declared with one of these is
 * released when it goes out of scope, on every return path, so an early
 * return cannot leak it. TAKE_PTR()/TAKE_FD() hand the value out (to the
 * caller, a struct) and leave NULL/-1 behind, so the cleanup does nothing.
 *
 *	_cleanup_free_ char *buf = malloc(n);
 *	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
 *	...
 *	*out = TAKE_PTR(buf);
 *
 * Header-only, no symbols: lib/, famfsd/ and famfs-cli/ share it through
 * lib/'s directory on their include path (as killpoint.h); never
 * installed, so not part of libfamfs's API. A part that uses another
 * library's handles names their cleanups next to its include of that
 * library with DEFINE_TRIVIAL_CLEANUP_FUNC().
 *
 * Use them for what a function owns and gives back on every path
 * (buffers, descriptors, handles); keep a goto (or an explicit tail) where
 * the exit undoes ordered side effects -- a lock, a half-written
 * allocation, a file to unlink -- or where a message must be taken (errno,
 * sqlite3_errmsg()) before the release.
 */
#ifndef FAMFS_CLEANUP_H
#define FAMFS_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "famfs.h"

#define _cleanup_(f) __attribute__((cleanup(f)))

/*
 * funcp(&x) calls func(x) unless x is NULL: the cleanup of a "type x".
 * The cleanups keep errno: one runs after the return value (often
 * -errno) is computed, but a caller may still read errno after it.
 */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)		\
	static inline void func##p(type *p)		\
	{						\
		if (*p) {				\
			int saved_errno_ = errno;	\
						\
			(void)func(*p);			\
			errno = saved_errno_;		\
		}					\
	}

static inline void freep(void *p) { free(*(void **)p); }

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)
DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct famfs_fs *, famfs_close)

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)
#define _cleanup_famfs_close_ _cleanup_(famfs_closep)

/* The value of @p, leaving NULL in it (ownership goes with the value). */
#define TAKE_PTR(p)					\
	({						\
		__typeof__(p) *_pp_ = &(p);		\
		__typeof__(p) _p_ = *_pp_;		\
		*_pp_ = NULL;				\
		_p_;					\
	})

/* The descriptor in @fd, leaving -1 in it. */
#define TAKE_FD(fd)					\
	({						\
		int *_fdp_ = &(fd);			\
		int _fd_ = *_fdp_;			\
		*_fdp_ = -1;				\
		_fd_;					\
	})

#endif
