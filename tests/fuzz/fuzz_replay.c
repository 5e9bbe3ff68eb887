// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_replay: open (and so replay) a filesystem whose metadata the input
 * replaced (image.h), then use everything replay built: walk the tree,
 * read every file through its map, walk the log, replay again.
 *
 * Invariants checked: a map replay accepted reads back in full (its
 * items lie inside the devices: famfs_read() never says -EIO or -EFBIG
 * inside the file size), every node has a path, and a second replay of
 * an unchanged log applies nothing.
 */
#include <errno.h>
#include <string.h>

#include "famfs.h"
#include "fuzz.h"
#include "image.h"

static uint8_t buf[8192];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_image_init();
	fuzz_image_maybe_write_seeds();
	return 0;
}

static void read_file(struct famfs_fs *fs, struct famfs_node *n,
		      const struct famfs_attr *a)
{
	const struct famfs_fmap *m = famfs_node_map(n);
	uint64_t offs[3] = { 0, a->size / 2, a->size ? a->size - 1 : 0 };

	FUZZ_ASSERT(m, "file ino %llu without a map", (unsigned long long)a->ino);
	for (unsigned i = 0; i < 3; i++) {
		uint64_t want = a->size - offs[i] < sizeof(buf) ?
				a->size - offs[i] : sizeof(buf);
		int64_t r = famfs_read(fs, m, a->size, offs[i], buf, sizeof(buf));

		FUZZ_ASSERT(r == (int64_t)want,
			    "read of ino %llu at %llu: %lld, want %llu",
			    (unsigned long long)a->ino,
			    (unsigned long long)offs[i], (long long)r,
			    (unsigned long long)want);
	}
}

/* A symlink: its target is what readlink gives, 1..4095 bytes, no NUL. */
static void check_link(struct famfs_node *n, const struct famfs_attr *a)
{
	const char *t = famfs_node_target(n);
	char got[FAMFS_SYMLINK_MAX + 1];

	FUZZ_ASSERT(t && !famfs_node_map(n), "symlink ino %llu",
		    (unsigned long long)a->ino);
	FUZZ_ASSERT(a->size >= 1 && a->size <= FAMFS_SYMLINK_MAX &&
		    strlen(t) == a->size, "symlink ino %llu: size %llu",
		    (unsigned long long)a->ino, (unsigned long long)a->size);
	FUZZ_ASSERT(famfs_node_readlink(n, got, sizeof(got)) == (int)a->size &&
		    !strcmp(got, t), "readlink of ino %llu",
		    (unsigned long long)a->ino);
}

static unsigned walk(struct famfs_fs *fs, struct famfs_node *dir, unsigned depth)
{
	unsigned count = 0;

	FUZZ_ASSERT(depth <= FAMFS_PATH_MAX / 2, "tree deeper than a path");
	for (struct famfs_node *n = famfs_node_first_child(dir); n;
	     n = famfs_node_next_sibling(n)) {
		char p[FAMFS_PATH_MAX + 2];
		struct famfs_attr a;

		famfs_node_attr(n, &a);
		FUZZ_ASSERT(famfs_node_path(n, p, sizeof(p)) > 0, "no path");
		FUZZ_ASSERT(famfs_lookup(fs, p) == n, "lookup of %s", p);
		FUZZ_ASSERT(famfs_node_by_ino(fs, a.ino) == n, "ino of %s", p);
		if (famfs_node_is_dir(n))
			count += walk(fs, n, depth + 1);
		else if (famfs_node_is_symlink(n))
			check_link(n, &a);
		else
			read_file(fs, n, &a);
		count++;
	}
	return count;
}

static int count_entry(void *arg, uint64_t off, const struct famfs_entry_hdr *h)
{
	(void)off;
	(void)h;
	++*(uint64_t *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct famfs_open_opts o = { .host_name = "fuzzclient" };
	struct famfs_slot_info slots[8];
	struct famfs_log_status st;
	struct famfs_space sp;
	struct famfs_err e = { 0 };
	struct famfs_fs *fs;
	uint64_t walked = 0;
	uint8_t flags;
	unsigned ndev = fuzz_image_load(data, size, &flags);

	o.flags = flags & FUZZ_CLIENT ? FAMFS_OPEN_CLIENT : FAMFS_OPEN_READ;
	if (famfs_open(fuzz_image_paths(), ndev, &o, &fs, &e)) {
		FUZZ_ASSERT(e.code < 0 && e.msg[0], "failure without a reason");
		return 0;
	}
	famfs_fs_rdlock(fs);
	walk(fs, famfs_root(fs), 0);
	famfs_fs_unlock(fs);
	famfs_log_status(fs, &st);
	famfs_statfs(fs, &sp);
	FUZZ_ASSERT(sp.free_bytes <= sp.total_bytes, "more free than total");
	famfs_slots(fs, slots, 8);
	famfs_log_walk(fs, count_entry, &walked);
	FUZZ_ASSERT(famfs_replay(fs, &e) == 0, "second replay applied entries");
	famfs_close(fs);
	return 0;
}
