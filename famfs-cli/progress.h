/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Progress of a copy: a bar on a terminal, periodic plain lines otherwise
 * (no \r). No percentage until the total is known (the plan is built),
 * and a last line with the average rate over the whole job.
 */
#ifndef FAMFS_CLI_PROGRESS_H
#define FAMFS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress_sample {
	uint64_t bytes_done, bytes_total;
	uint64_t files_done, files_total;
};

struct progress_view {
	bool tty;
	bool said_planning;      /* "planning…" printed */
	bool drawn;              /* a bar without its newline is on screen */
	double last_print;
	double base_time;        /* monotonic seconds of the first known sample */
	uint64_t base_bytes;     /* bytes already done then: no speed */
	bool have_base;
	const char *label;
};

void progress_init(struct progress_view *v, const char *label);
/*
 * progress_show() - draw @s (throttled: 5/s on a TTY, every 10 s
 * otherwise). While neither total is known, only "LABEL: planning…".
 */
void progress_show(struct progress_view *v, const struct progress_sample *s);
/*
 * progress_finish() - the last line: "LABEL: @how: F of T files, B in
 * E s, R/s average", R being the bytes done over @elapsed seconds of the
 * job. @resolution is the precision of @elapsed (1 for famfsd's whole
 * seconds, 0 for a measured time): a job shorter than that is reported
 * "in under 1 s" with a lower bound of its rate, never as 0 B/s.
 */
void progress_finish(struct progress_view *v, const struct progress_sample *s,
		     const char *how, double elapsed, double resolution);
double progress_now(void);
/* @b bytes for humans: "512 B", "1.5 MiB" */
void progress_human(double b, char *out, size_t len);

#endif
