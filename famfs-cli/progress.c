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
	*v = (struct progress_view){ .tty = isatty(2), .label = label };
	/* what the caller printed on stdout comes first, even on a pipe */
	fflush(stdout);
}

void progress_human(double b, char *out, size_t len)
{
	/* a double at or past 2^64 has no uint64_t value */
	uint64_t v = b <= 0 ? 0 : b >= 0x1p64 ? UINT64_MAX : (uint64_t)b;

	famfs_format_size(v, FAMFS_SIZE_ROUND, out, len);
}

static bool total_known(const struct progress_sample *s)
{
	return s->bytes_total || s->files_total;
}

static void say_planning(struct progress_view *v)
{
	if (v->said_planning)
		return;
	v->said_planning = true;
	if (v->tty) {
		fprintf(stderr, "\r%s: planning…", v->label);
		v->drawn = true;
	} else {
		fprintf(stderr, "%s: planning…\n", v->label);
	}
	fflush(stderr);
}

void progress_show(struct progress_view *v, const struct progress_sample *s)
{
	double now = progress_now(), frac, rate, el;
	char done[32], total[32], r[32], eta[32] = "--:--";

	if (!total_known(s)) {
		say_planning(v);
		return;
	}
	/* what was already there (a resumed job, skipped files) is no speed */
	if (!v->have_base) {
		v->have_base = true;
		v->base_bytes = s->bytes_done;
		v->base_time = now;
		v->last_print = 0;
	}
	if (now - v->last_print < (v->tty ? 0.2 : 10))
		return;
	v->last_print = now;
	el = now - v->base_time;
	rate = el > 0 ? (double)(s->bytes_done - v->base_bytes) / el : 0;
	frac = s->bytes_total ? (double)s->bytes_done / (double)s->bytes_total :
	       (double)s->files_done / (double)s->files_total;
	progress_human((double)s->bytes_done, done, sizeof(done));
	progress_human((double)s->bytes_total, total, sizeof(total));
	/* no time has passed since the first sample: no rate yet */
	if (el > 0)
		progress_human(rate, r, sizeof(r));
	else
		snprintf(r, sizeof(r), "-- B");
	if (rate > 0 && s->bytes_total > s->bytes_done) {
		unsigned t = (unsigned)((double)(s->bytes_total - s->bytes_done) / rate);

		snprintf(eta, sizeof(eta), "%u:%02u:%02u", t / 3600, t / 60 % 60,
			 t % 60);
	}
	if (v->tty) {
		char bar[31];
		int fill = (int)(frac * 30);

		for (int i = 0; i < 30; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[30] = '\0';
		fprintf(stderr, "\r%s [%s] %3.0f%%  %s / %s  %llu/%llu files  %s/s  ETA %s ",
			v->label, bar, frac * 100, done, total,
			(unsigned long long)s->files_done,
			(unsigned long long)s->files_total, r, eta);
		v->drawn = true;
	} else {
		fprintf(stderr, "%s: %3.0f%% %s of %s, %llu of %llu files, %s/s, ETA %s\n",
			v->label, frac * 100, done, total,
			(unsigned long long)s->files_done,
			(unsigned long long)s->files_total, r, eta);
	}
	fflush(stderr);
}

void progress_finish(struct progress_view *v, const struct progress_sample *s,
		     const char *how, double elapsed, double resolution)
{
	char done[32], r[32], took[48];
	bool short_job = elapsed < resolution || elapsed <= 0;
	/* shorter than the clock shows: the rate is at least this */
	double rate = (double)s->bytes_done /
		      (short_job ? (resolution > 0 ? resolution : 1e-3) : elapsed);

	if (v->drawn)
		fputc('\n', stderr);
	v->drawn = false;
	progress_human((double)s->bytes_done, done, sizeof(done));
	progress_human(rate, r, sizeof(r));
	if (short_job)
		snprintf(took, sizeof(took), "under %g s", resolution > 0 ? resolution : 0.001);
	else
		snprintf(took, sizeof(took), "%.*f s", resolution >= 1 ? 0 : 2, elapsed);
	fprintf(stderr, "%s: %s: %llu of %llu files, %s in %s",
		v->label, how, (unsigned long long)s->files_done,
		(unsigned long long)s->files_total, done, took);
	if (s->bytes_done)
		fprintf(stderr, ", %s%s/s average", short_job ? "over " : "", r);
	fputc('\n', stderr);
	fflush(stderr);
}
