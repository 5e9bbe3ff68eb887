/* SPDX-License-Identifier: Apache-2.0 */
/* Progress of a copy: a bar on a terminal, periodic plain lines otherwise. */
#ifndef FAMFS_CLI_PROGRESS_H
#define FAMFS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress_view {
	bool tty;
	double started;         /* monotonic seconds */
	double last_print;
	const char *label;
	bool have_base;
	uint64_t base_bytes;     /* bytes already done at the first call */
};

void progress_init(struct progress_view *v, const char *label);
/* Draw (throttled: 5/s on a TTY, every 10 s otherwise; @final always). */
void progress_show(struct progress_view *v, uint64_t bytes_done,
		   uint64_t bytes_total, uint64_t files_done, uint64_t files_total,
		   bool final);
double progress_now(void);

#endif
