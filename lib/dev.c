// SPDX-License-Identifier: Apache-2.0
/*
 * Device access: emulated devices (regular files mapped MAP_SHARED, which
 * several processes can map at once the way several hosts share a memory
 * device), devdax character devices and fsdax pmem block devices. Every
 * kind ends up as one mapping of the whole device.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * tmpfs allocates at fallocate() but zeroes each page on its first touch;
 * touch them all now, once, so that the first copy into the device does
 * not pay for it (shared/PERF-NOTES.md: fresh pages cost a host fault).
 */
static int populate_file(int fd, uint64_t size)
{
	const uint64_t step = 256 * FAMFS_MiB;

	for (uint64_t off = 0; off < size; off += step) {
		uint64_t len = size - off < step ? size - off : step;
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			       (off_t)off);

		if (p == MAP_FAILED)
			return errno;
		if (madvise(p, len, MADV_POPULATE_WRITE) != 0)
			memset(p, 0, len); /* older kernels: the slow way */
		munmap(p, len);
	}
	return 0;
}

FAMFS_EXPORT int famfs_emul_create(const char *path, uint64_t size,
				   struct famfs_err *e)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (size == 0 || size % FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"%s: size %llu is not a positive multiple of 2 MiB",
			path, (unsigned long long)size);
	if (size < 2 * FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"%s: size %llu is below the 4 MiB minimum", path,
			(unsigned long long)size);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0660);
	if (fd < 0)
		return famfs_set_err(e, -errno, "%s: cannot create: %s", path,
				     strerror(errno));
	/* Allocate now: real DAX memory is always present. */
	r = posix_fallocate(fd, 0, (off_t)size);
	if (r == EOPNOTSUPP || r == EINVAL)
		r = ftruncate(fd, (off_t)size) ? errno : 0;
	if (!r)
		r = populate_file(fd, size);
	if (r) {
		unlink(path);
		return famfs_set_err(e, -r, "%s: cannot allocate %llu bytes: %s",
				     path, (unsigned long long)size,
				     strerror(r));
	}
	return 0;
}

/* Read one unsigned number from a sysfs file. */
static int sysfs_read_u64(const char *file, uint64_t *v)
{
	char buf[64];
	_cleanup_fclose_ FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		return -EIO;
	*v = strtoull(buf, NULL, 0);
	return 0;
}

/* A devdax device must be bound to device_dax, not kmem (system-ram). */
static int dax_check(const char *path, const struct stat *st, uint64_t *size,
		     struct famfs_err *e)
{
	char sys[PATH_MAX], link[PATH_MAX], file[PATH_MAX + 16];
	ssize_t n;
	const char *drv;

	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u", major(st->st_rdev),
		 minor(st->st_rdev));
	snprintf(file, sizeof(file), "%s/driver", sys);
	n = readlink(file, link, sizeof(link) - 1);
	if (n < 0)
		return famfs_set_err(e, -ENODEV,
			"%s: DAX device has no driver bound; bind it with "
			"'daxctl reconfigure-device --mode=devdax'", path);
	link[n] = '\0';
	drv = strrchr(link, '/');
	drv = drv ? drv + 1 : link;
	if (strcmp(drv, "device_dax") != 0)
		return famfs_set_err(e, -EINVAL,
			"%s: DAX device is in '%s' mode (driver %s), not devdax; "
			"run 'daxctl reconfigure-device --mode=devdax %s' first",
			path, !strcmp(drv, "kmem") ? "system-ram" : drv, drv,
			path);
	snprintf(file, sizeof(file), "%s/size", sys);
	if (sysfs_read_u64(file, size) != 0 || *size == 0)
		return famfs_set_err(e, -EIO, "%s: cannot read its size from %s",
				     path, file);
	/* devdax maps only at its alignment; famfs maps 2 MiB units */
	uint64_t align = 0;

	snprintf(file, sizeof(file), "%s/align", sys);
	if (sysfs_read_u64(file, &align) == 0 && align &&
	    (align > FAMFS_UNIT_SIZE || FAMFS_UNIT_SIZE % align))
		return famfs_set_err(e, -EINVAL,
			"%s: DAX alignment %llu is not a divisor of 2 MiB; "
			"recreate it with 'daxctl reconfigure-device --align 2M %s'",
			path, (unsigned long long)align, path);
	return 0;
}

/*
 * Map a whole device at a 2 MiB-aligned address, so that the kernel can
 * map it with 2 MiB (PMD) entries wherever the backing has 2 MiB pages
 * (devdax at 2 MiB alignment, hugetlbfs, a huge= tmpfs): one TLB entry
 * and one populate step per 2 MiB instead of 512. Some backings align by
 * themselves; a regular file's mapping would not, so reserve 2 MiB more
 * and place the mapping inside. Returns MAP_FAILED with errno on failure.
 */
static void *map_2mib_aligned(int fd, uint64_t size, int prot)
{
	uint64_t span = size + FAMFS_UNIT_SIZE;
	uint8_t *res, *base;
	uintptr_t a;

	res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (res == MAP_FAILED)
		return MAP_FAILED;
	a = ((uintptr_t)res + FAMFS_UNIT_SIZE - 1) & ~(uintptr_t)(FAMFS_UNIT_SIZE - 1);
	base = mmap((void *)a, size, prot, MAP_SHARED | MAP_FIXED, fd, 0);
	if (base == MAP_FAILED) {
		/* a backing with a larger alignment of its own (1 GiB
		 * hugetlbfs): let the kernel place it
		 */
		munmap(res, span);
		return mmap(NULL, size, prot, MAP_SHARED, fd, 0);
	}
	/* give back the unused head and tail of the reservation */
	if (base > res)
		munmap(res, (uint64_t)(base - res));
	if (base + size < res + span)
		munmap(base + size, (uint64_t)(res + span - (base + size)));
	return base;
}

/* hugetlbfs files have no write(): they are written through the map only */
static bool on_hugetlbfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) != 0 || sf.f_type == HUGETLBFS_MAGIC;
}

FAMFS_EXPORT int famfs_dev_open(const char *path, bool writable,
				struct famfs_dev **out, struct famfs_err *e)
{
	struct famfs_dev *d;
	struct stat st;
	uint64_t size = 0;
	enum famfs_dev_kind kind;
	_cleanup_close_ int fd = -1;
	int r;
	void *base;

	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return famfs_set_err(e, -errno, "%s: cannot open: %s", path,
				     strerror(errno));
	if (fstat(fd, &st) != 0)
		return famfs_set_err(e, -errno, "%s: cannot stat", path);
	if (S_ISREG(st.st_mode)) {
		kind = FAMFS_DEV_FILE;
		size = (uint64_t)st.st_size;
	} else if (S_ISCHR(st.st_mode)) {
		kind = FAMFS_DEV_DAX;
		r = dax_check(path, &st, &size, e);
		if (r)
			return r;
	} else if (S_ISBLK(st.st_mode)) {
		kind = FAMFS_DEV_BLOCK;
		if (ioctl(fd, BLKGETSIZE64, &size) != 0)
			return famfs_set_err(e, -errno, "%s: cannot get its size",
					     path);
	} else {
		return famfs_set_err(e, -EINVAL,
			"%s: not a file, DAX device or pmem block device", path);
	}
	if (size < 2 * FAMFS_UNIT_SIZE)
		return famfs_set_err(e, -EINVAL,
			"%s: device of %llu bytes is too small (minimum 4 MiB)",
			path, (unsigned long long)size);
	uint64_t raw_size = size;

	size -= size % FAMFS_UNIT_SIZE; /* a trailing partial unit is unused */
	base = map_2mib_aligned(fd, size, PROT_READ | (writable ? PROT_WRITE : 0));
	if (base == MAP_FAILED) {
		r = -errno;
		return famfs_set_err(e, r, "%s: cannot map %llu bytes: %s", path,
				     (unsigned long long)size, strerror(-r));
	}
	/*
	 * A tmpfs mounted huge=advise (and shmem_enabled=advise) wants asking.
	 * Not a block device: its pages come through the page cache, and
	 * there MADV_HUGEPAGE makes every read fault read 4 MiB (two PMD
	 * folios) around it, whatever the device's readahead says; a mount
	 * read a few KiB of label, superblock and log but ~4-8 MiB of each
	 * pmem device (~2 s a device in the TCG guest, docs/testing.md).
	 */
	if (kind != FAMFS_DEV_BLOCK)
		madvise(base, size, MADV_HUGEPAGE);
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		free(d);
		munmap(base, size);
		return famfs_set_err(e, -ENOMEM, "out of memory");
	}
	d->fd = TAKE_FD(fd);
	d->base = base;
	d->size = size;
	d->raw_size = raw_size;
	d->kind = kind;
	d->writable = writable;
	d->store_by_pwrite = writable && kind == FAMFS_DEV_FILE &&
			     !on_hugetlbfs(d->fd);
	*out = d;
	return 0;
}

FAMFS_EXPORT void famfs_dev_close(struct famfs_dev *d)
{
	if (!d)
		return;
	munmap(d->base, d->size);
	close(d->fd);
	free(d->path);
	free(d);
}

FAMFS_EXPORT uint8_t *famfs_dev_base(const struct famfs_dev *d) { return d->base; }
FAMFS_EXPORT uint64_t famfs_dev_size(const struct famfs_dev *d) { return d->size; }
FAMFS_EXPORT const char *famfs_dev_path(const struct famfs_dev *d) { return d->path; }
FAMFS_EXPORT enum famfs_dev_kind famfs_dev_kind(const struct famfs_dev *d) { return d->kind; }
FAMFS_EXPORT int famfs_dev_fd(const struct famfs_dev *d) { return d->fd; }

FAMFS_EXPORT int famfs_dev_write_fd(const struct famfs_dev *d)
{
	return d->store_by_pwrite ? d->fd : -1;
}

#define CACHELINE 64ULL

#if defined(__x86_64__)
/* 0 clflush, 1 clflushopt, 2 clwb: probed once, by the first flush. */
static int cpu_flush_kind;
static pthread_once_t cpu_flush_once = PTHREAD_ONCE_INIT;

static void cpu_flush_detect(void)
{
	__builtin_cpu_init();
	unsigned int a, b, c, d;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(7), "c"(0));
	cpu_flush_kind = (b & (1u << 24)) ? 2 : (b & (1u << 23)) ? 1 : 0;
}

/* Write back (and, for invalidate, drop) every cache line of [p, p+len). */
static void cpu_cache_lines(const void *p, uint64_t len, bool invalidate)
{
	uintptr_t a = (uintptr_t)p & ~(CACHELINE - 1);
	uintptr_t end = (uintptr_t)p + len;
	int kind;

	pthread_once(&cpu_flush_once, cpu_flush_detect);
	/* clwb keeps the line: right after writes, wrong before reads */
	kind = invalidate && cpu_flush_kind == 2 ? 1 : cpu_flush_kind;
	for (; a < end; a += CACHELINE) {
		if (kind == 2)
			__asm__ volatile(".byte 0x66, 0x0f, 0xae, 0x30" /* clwb (%rax) */
					 :: "a"(a) : "memory");
		else if (kind == 1)
			__asm__ volatile(".byte 0x66, 0x0f, 0xae, 0x38" /* clflushopt (%rax) */
					 :: "a"(a) : "memory");
		else
			__asm__ volatile("clflush (%0)" :: "r"(a) : "memory");
	}
	__asm__ volatile("sfence" ::: "memory");
}
#else
static void cpu_cache_lines(const void *p, uint64_t len, bool invalidate)
{
	(void)p; (void)len; (void)invalidate;
	__sync_synchronize();
}
#endif

int famfs_dev_flush_range(struct famfs_dev *d, const void *p, uint64_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a, end;

	if (len == 0)
		return 0;
	if (d->kind == FAMFS_DEV_DAX) {
		cpu_cache_lines(p, len, false);
		return 0;
	}
	/* Files and block devices: the page cache is coherent on this host.
	 * A block device must reach the media before the kernel module mounts
	 * it through DAX: MS_SYNC. For a file, MS_ASYNC is all the old code
	 * asked, and Linux has made MS_ASYNC a no-op since 2.6.19 (the kernel
	 * tracks the dirty pages): skip the system call, one per file (5 % of
	 * a small-file ingest, bench/results/ingest.md).
	 */
	if (d->kind == FAMFS_DEV_FILE) {
		__sync_synchronize();
		return 0;
	}
	a = (uintptr_t)p & ~(page - 1);
	end = (uintptr_t)p + len;
	if (msync((void *)a, end - a, MS_SYNC))
		return -errno;
	return 0;
}

/* An emulated device takes writes through its file: the kernel copies
 * through its own (huge-page) map of the same page-cache pages that every
 * MAP_SHARED mapping shows. A store through our mapping costs a fault the
 * first time this process touches each 4 KiB page, which under a
 * shadow-paging hypervisor is a host exit per page (memcpy into a fresh
 * mapping 0.25-0.7 GB/s, pwrite ~10x that; bench/results/fuse.md).
 */
int famfs_dev_store(struct famfs_dev *d, uint64_t off, const void *src,
		    uint64_t len)
{
	const uint8_t *p = src;

	if (!d->store_by_pwrite) {
		memcpy(d->base + off, src, len);
		return 0;
	}
	while (len) {
		ssize_t w = pwrite(d->fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		off += (uint64_t)w;
		len -= (uint64_t)w;
	}
	return 0;
}

FAMFS_EXPORT int famfs_dev_flush(struct famfs_dev *d, uint64_t off,
				 uint64_t len)
{
	if (off >= d->size)
		return len ? -ERANGE : 0;
	if (len > d->size - off)
		len = d->size - off;
	return famfs_dev_flush_range(d, d->base + off, len);
}

FAMFS_EXPORT void famfs_dev_invalidate(struct famfs_dev *d, uint64_t off,
				       uint64_t len)
{
	if (d->kind != FAMFS_DEV_DAX || off >= d->size)
		return;
	if (len > d->size - off)
		len = d->size - off;
	cpu_cache_lines(d->base + off, len, true);
}
