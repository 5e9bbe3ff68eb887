// SPDX-License-Identifier: Apache-2.0
/*
 * lib's own mmaps kept across inputs, for the replay and fsck fuzzers.
 *
 * After dev_pool.c, the biggest cost of an input that was not the input
 * was the address space famfs_open() builds and famfs_close() tears
 * down: the name and ino tables (lib/ns.c, anonymous maps sized from the
 * log, 384 KiB for the image's 2 MiB log) and a client's writable map of
 * the slot table (lib/slots.c). Each munmap freed the pages the input
 * touched and flushed the TLB on both CPUs; the next input faulted them
 * in again. The executable is linked with --wrap=mmap64,munmap
 * (CMakeLists.txt), so lib's calls come here:
 * - an anonymous private read-write map, or a shared map of a file,
 *   asked for at no fixed address, is remembered; a later identical
 *   request (same length, protection, flags, and for a file the same
 *   file and offset) gets the kept map back instead of a new one;
 * - munmap of a whole kept map keeps it: an anonymous one is zeroed then
 *   (so it is what a fresh map is) and, like a file one, poisoned until
 *   it is handed out again, so a use after munmap is still reported
 *   (as use-after-poison, where the kernel would have said SIGSEGV);
 * - anything else, and a munmap of part of a kept map (which then stops
 *   being kept), is the real call.
 */
#include <sanitizer/asan_interface.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "fuzz.h"

#define POOL_MAX 32

/* lib is built with _FILE_OFFSET_BITS=64: its mmap() calls are mmap64 */
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);

static struct kept {
	void *p;
	size_t len;
	int prot, flags;
	dev_t dev; /* a file map's file, else 0 */
	ino_t ino;
	off_t off;
	bool used;
} pool[POOL_MAX];

static bool anon_rw(int prot, int flags, int fd)
{
	return fd < 0 && prot == (PROT_READ | PROT_WRITE) &&
	       (flags & (MAP_ANONYMOUS | MAP_PRIVATE | MAP_SHARED)) ==
	       (MAP_ANONYMOUS | MAP_PRIVATE);
}

void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct stat st = { 0 };
	void *p;

	if (addr || (flags & MAP_FIXED))
		return __real_mmap64(addr, len, prot, flags, fd, off);
	if (!anon_rw(prot, flags, fd) &&
	    (fd < 0 || !(flags & MAP_SHARED) || fstat(fd, &st) ||
	     !S_ISREG(st.st_mode)))
		return __real_mmap64(addr, len, prot, flags, fd, off);
	for (unsigned i = 0; i < POOL_MAX; i++) {
		struct kept *k = &pool[i];

		if (k->p && !k->used && k->len == len && k->prot == prot &&
		    k->flags == flags && k->dev == st.st_dev &&
		    k->ino == st.st_ino && k->off == off) {
			k->used = true;
			ASAN_UNPOISON_MEMORY_REGION(k->p, len);
			return k->p;
		}
	}
	p = __real_mmap64(addr, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		return p;
	for (unsigned i = 0; i < POOL_MAX; i++)
		if (!pool[i].p) {
			pool[i] = (struct kept){ p, len, prot, flags, st.st_dev,
						 st.st_ino, off, true };
			break;
		}
	return p;
}

int __wrap_munmap(void *addr, size_t len)
{
	for (unsigned i = 0; i < POOL_MAX; i++) {
		struct kept *k = &pool[i];
		char *a = addr, *p = k->p;

		if (!p || a + len <= p || a >= p + k->len)
			continue;
		if (a == p && len == k->len) {
			FUZZ_ASSERT(k->used, "map %p unmapped twice", addr);
			if (!k->dev)
				memset(p, 0, len);
			k->used = false;
			ASAN_POISON_MEMORY_REGION(p, len);
			return 0;
		}
		FUZZ_ASSERT(k->used, "munmap of %p inside an unmapped map", addr);
		k->p = NULL; /* a part of it goes: no longer kept */
	}
	return __real_munmap(addr, len);
}
