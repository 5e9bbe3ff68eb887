// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmcheck's switch latency (vm2): how long after a dataset's
 * EXCHANGE is in the shared log a client's kernel mount shows the new
 * generation. One clock, the client's: the two guests' clocks differ by
 * up to a second (each set from the RTC at boot), so the master's
 * logged_ns cannot be compared with this host's time. A reader of the
 * log through the mount's meta files (no slot) notices the EXCHANGE; the
 * mount shows the generation once famfsd's follower replayed it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "famfs.h"
#include "vmcheck.h"

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

struct seen {
	uint64_t seq;   /* the first EXCHANGE replayed, 0: none yet */
};

static void on_change(void *arg, const struct famfs_entry_hdr *h,
		      struct famfs_node *node, struct famfs_node *parent,
		      const char *name)
{
	struct seen *s = arg;

	(void)node;
	(void)parent;
	(void)name;
	if (h->type == FAMFS_ENTRY_EXCHANGE && !s->seq)
		s->seq = h->seq;
}

/* @path's first line is @want. */
static bool shows(const char *path, const char *want)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return !strcmp(buf, want);
}

/*
 * Create READY, then poll every millisecond, for up to 300 s: the log
 * (replayed through MNT's meta files) for the next EXCHANGE, and FILE on
 * MNT for the first line WANT. Prints the switch latency; 1 when either
 * never came.
 */
int switch_latency(const char *mnt, const char *file, const char *want,
		   const char *ready)
{
	struct seen s = { 0 };
	struct famfs_err e = { 0 };
	uint64_t t0, tx = 0, tv = 0;
	struct famfs_fs *fs;
	int fd;

	if (open_meta_read(mnt, &fs))
		return 1;
	famfs_set_change_cb(fs, on_change, &s);
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("create", ready);
	close(fd);
	t0 = now_us();
	while (now_us() - t0 < 300000000ULL && !(tx && tv)) {
		if (!tx) {
			if (famfs_replay(fs, &e) < 0)
				fprintf(stderr, "replay: %s\n", e.msg);
			if (s.seq)
				tx = now_us();
		}
		if (!tv && shows(file, want))
			tv = now_us();
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	famfs_close(fs);
	if (!tx || !tv) {
		printf("%s: exchange %s, \"%s\" %s after 300 s\n", file,
		       tx ? "seen" : "not seen", want, tv ? "shown" : "not shown");
		return 1;
	}
	/* the mount first: the reader polled the log a little late */
	printf("exchange seq %" PRIu64 " in the log at +%.3f s, %s shows \"%s\" "
	       "at +%.3f s: switch_latency_ms=%.1f\n", s.seq, (tx - t0) / 1e6,
	       file, want, (tv - t0) / 1e6,
	       tv > tx ? (tv - tx) / 1e3 : 0.0);
	return 0;
}
