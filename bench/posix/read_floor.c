// SPDX-License-Identifier: Apache-2.0
/*
 * The read floor of an ingest: list every regular file of a tree, then N
 * threads doing only open + pread + close of each file into huge-page
 * memory (2 MiB pages, MAP_HUGETLB where the kernel has them reserved,
 * else madvise(MADV_HUGEPAGE)). No hash, no stat, no metadata written:
 * whatever ingest does beyond this is its overhead. Prints "FILES BYTES
 * SECONDS" on stdout, the walk included (ingest walks the tree too).
 *
 *	read_floor THREADS DIR
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (2u << 20)

struct list {
	char **paths;
	size_t n, cap;
};

static atomic_size_t next_file;
static atomic_uint_fast64_t bytes_read;
static struct list files;

static int list_add(struct list *l, char *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		char **v = realloc(l->paths, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->paths = v;
		l->cap = cap;
	}
	l->paths[l->n++] = p;
	return 0;
}

/* Regular files under @dir by d_type (no stat): what ingest's walk finds. */
static int walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int r = 0;

	if (!d) {
		fprintf(stderr, "read_floor: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	while (!r && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
			r = -ENOMEM;
		else if (de->d_type == DT_DIR) {
			r = walk(p);
			free(p);
		} else if (de->d_type == DT_REG)
			r = list_add(&files, p);
		else
			free(p);
	}
	closedir(d);
	return r;
}

static void *huge_buffer(void)
{
	void *b = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (b != MAP_FAILED)
		return b;
	if (posix_memalign(&b, CHUNK, CHUNK))
		return NULL;
	madvise(b, CHUNK, MADV_HUGEPAGE);
	return b;
}

static void *reader(void *arg)
{
	char *buf = huge_buffer();
	size_t i;

	(void)arg;
	if (!buf)
		return (void *)-1;
	memset(buf, 0, CHUNK);
	while ((i = atomic_fetch_add(&next_file, 1)) < files.n) {
		int fd = open(files.paths[i], O_RDONLY | O_CLOEXEC);
		uint64_t off = 0;
		ssize_t n;

		if (fd < 0) {
			fprintf(stderr, "read_floor: %s: %s\n", files.paths[i], strerror(errno));
			return (void *)-1;
		}
		while ((n = pread(fd, buf, CHUNK, (off_t)off)) > 0)
			off += (uint64_t)n;
		close(fd);
		atomic_fetch_add(&bytes_read, off);
	}
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int nthreads = argc == 3 ? atoi(argv[1]) : 0;
	pthread_t t[256];
	double start;
	int failed = 0;

	if (nthreads < 1 || nthreads > 256) {
		fprintf(stderr, "usage: read_floor THREADS(1-256) DIR\n");
		return 2;
	}
	start = now();
	if (walk(argv[2]))
		return 1;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, reader, NULL)) {
			fprintf(stderr, "read_floor: cannot start thread %d\n", i);
			return 1;
		}
	for (int i = 0; i < nthreads; i++) {
		void *r;

		pthread_join(t[i], &r);
		failed |= r != NULL;
	}
	printf("%zu %llu %.6f\n", files.n, (unsigned long long)atomic_load(&bytes_read),
	       now() - start);
	return failed;
}
