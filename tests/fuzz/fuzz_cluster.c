// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_cluster: bytes as a cluster file through the YAML loader and the
 * validator (famfs-cli/cluster: ydoc, schema, references), both in full
 * and schema-only mode. The file is a memfd, so the real path-based
 * loader runs, with no file system under it.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "cluster/diag.h"
#include "cluster/model.h"
#include "fuzz.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("cluster.yaml", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static void load(unsigned flags)
{
	struct diag d = { .file = path };
	struct cluster *c = NULL;
	int r = cluster_load_flags(path, flags, &c, &d);

	/* the loader's contract: a model, or at least one finding */
	FUZZ_ASSERT(r == 0 ? c != NULL : c == NULL && d.n + d.dropped > 0,
		    "r %d, %zu findings", r, d.n);
	if (c && !(flags & CLUSTER_LOAD_SCHEMA_ONLY)) {
		for (size_t i = 0; i < c->nhosts; i++)
			FUZZ_ASSERT(cluster_host(c, c->hosts[i].name),
				    "host %zu not found by its name", i);
	}
	cluster_free(c);
	diag_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	load(0);
	load(CLUSTER_LOAD_SCHEMA_ONLY);
	return 0;
}
