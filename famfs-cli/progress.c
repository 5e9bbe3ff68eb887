// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "famfs.h"
#include "progress.h"

double progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress_view *v, const char *label)
{
	v->tty = isatty(2);
	v->started = progress_now();
	v->last_print = 0;
	v->label = label;
	v->have_base = false;
	v->base_bytes = 0;
}

static void human(double b, char *out, size_t len)
{
	/* a double at or past 2^64 has no uint64_t value */
	uint64_t v = b <= 0 ? 0 : b >= 0x1p64 ? UINT64_MAX : (uint64_t)b;

	famfs_format_size(v, FAMFS_SIZE_ROUND, out, len);
}

void progress_show(struct progress_view *v, uint64_t bytes_done,
		   uint64_t bytes_total, uint64_t files_done, uint64_t files_total,
		   bool final)
{
	double now = progress_now(), el = now - v->started;
	double rate;

	/* what was already there (a resumed job, skipped files) is no speed */
	if (!v->have_base) {
		v->have_base = true;
		v->base_bytes = bytes_done;
	}
	rate = el > 0 ? (double)(bytes_done - v->base_bytes) / el : 0;
	double frac = bytes_total ? (double)bytes_done / (double)bytes_total : 1;
	char done[32], total[32], r[32], eta[32] = "--:--";

	if (!final && now - v->last_print < (v->tty ? 0.2 : 10))
		return;
	v->last_print = now;
	human((double)bytes_done, done, sizeof(done));
	human((double)bytes_total, total, sizeof(total));
	human(rate, r, sizeof(r));
	if (rate > 0 && bytes_total > bytes_done) {
		unsigned s = (unsigned)((double)(bytes_total - bytes_done) / rate);

		snprintf(eta, sizeof(eta), "%u:%02u:%02u", s / 3600, s / 60 % 60, s % 60);
	} else if (bytes_done >= bytes_total) {
		snprintf(eta, sizeof(eta), "0:00:00");
	}
	if (v->tty) {
		char bar[31];
		int fill = (int)(frac * 30);

		for (int i = 0; i < 30; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[30] = '\0';
		fprintf(stderr, "\r%s [%s] %3.0f%%  %s / %s  %llu/%llu files  %s/s  ETA %s ",
			v->label, bar, frac * 100, done, total,
			(unsigned long long)files_done, (unsigned long long)files_total,
			r, eta);
		if (final)
			fputc('\n', stderr);
	} else {
		fprintf(stderr, "%s: %3.0f%% %s of %s, %llu of %llu files, %s/s, ETA %s\n",
			v->label, frac * 100, done, total,
			(unsigned long long)files_done, (unsigned long long)files_total,
			r, eta);
	}
	fflush(stderr);
}
