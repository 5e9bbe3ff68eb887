// SPDX-License-Identifier: Apache-2.0
/*
 * api-bench: famfsd API latency at a bounded, open-loop load over the Unix
 * socket. T threads each send rate/T requests per second on a fixed
 * schedule (request i of a thread is due at start + i * T / rate) over one
 * keep-alive connection; latency is measured from the *scheduled* time, so
 * a stall shows up in the tail instead of silently lowering the load
 * (no coordinated omission). Prints p50/p90/p99/p99.9/max and errors.
 *
 * usage: api-bench SOCKET RATE SECONDS THREADS PATH[,PATH...]
 * A path "POST:/v1/files" sends a create of a new small file; the next
 * request of the same thread deletes it again (fs name from $BENCH_FS).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

struct worker {
	int id;
	const char *sock;
	double period;          /* seconds between this thread's requests */
	double seconds;
	char **paths;
	int npaths;
	double *lat;            /* ms */
	long n, errors, late;
	pthread_t th;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static size_t sink(char *p, size_t s, size_t n, void *a)
{
	(void)p; (void)a;
	return s * n;
}

static void sleep_until(double t)
{
	double d = t - now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	CURL *c = curl_easy_init();
	long max = (long)(w->seconds / w->period) + 1, i;
	const char *fs = getenv("BENCH_FS") ? getenv("BENCH_FS") : "fs0";
	char url[512], body[512];
	double start = now() + 0.01 * w->id;
	int created = 0;

	w->lat = calloc((size_t)max, sizeof(double));
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, w->sock);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	for (i = 0; i < max; i++) {
		double due = start + (double)i * w->period, t1;
		const char *p = w->paths[i % w->npaths];
		struct curl_slist *h = NULL;
		long code = 0;

		sleep_until(due);
		if (now() - due > w->period)
			w->late++;
		if (created) {
			snprintf(url, sizeof(url), "http://famfsd/v1/files/%s/b%d-%ld",
				 fs, w->id, i - 1);
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
			curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
			created = 0;
		} else if (!strncmp(p, "POST:", 5)) {
			snprintf(url, sizeof(url), "http://famfsd%s", p + 5);
			snprintf(body, sizeof(body), "{\"filesystem\":\"%s\",\"path\":"
				 "\"/b%d-%ld\",\"size\":4096}", fs, w->id, i);
			h = curl_slist_append(h, "Content-Type: application/json");
			curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
			curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
			created = 1;
		} else {
			snprintf(url, sizeof(url), "http://famfsd%s", p);
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
			curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
		}
		curl_easy_setopt(c, CURLOPT_URL, url);
		if (curl_easy_perform(c) != CURLE_OK)
			w->errors++;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 400 || code == 0)
			w->errors++;
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
		curl_slist_free_all(h);
		t1 = now();
		w->lat[w->n++] = (t1 - due) * 1000.0;
	}
	curl_easy_cleanup(c);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct worker *w;
	double rate, secs, t0, el, *all;
	long total = 0, errors = 0, late = 0, k = 0;
	int threads, np = 0;
	char *paths[64], *s;

	if (argc != 6) {
		fprintf(stderr, "usage: api-bench SOCKET RATE SECONDS THREADS "
			"PATH[,PATH...]\n");
		return 2;
	}
	rate = atof(argv[2]);
	secs = atof(argv[3]);
	threads = atoi(argv[4]);
	for (s = strtok(argv[5], ","); s && np < 64; s = strtok(NULL, ","))
		paths[np++] = s;
	if (rate <= 0 || secs <= 0 || threads < 1 || !np)
		return 2;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	w = calloc((size_t)threads, sizeof(*w));
	t0 = now();
	for (int i = 0; i < threads; i++) {
		w[i] = (struct worker){ .id = i, .sock = argv[1],
			.period = threads / rate, .seconds = secs, .paths = paths,
			.npaths = np };
		pthread_create(&w[i].th, NULL, run, &w[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].th, NULL);
		total += w[i].n;
		errors += w[i].errors;
		late += w[i].late;
	}
	el = now() - t0;
	all = malloc(sizeof(double) * (size_t)(total ? total : 1));
	for (int i = 0; i < threads; i++)
		for (long j = 0; j < w[i].n; j++)
			all[k++] = w[i].lat[j];
	qsort(all, (size_t)total, sizeof(double), cmp);
#define P(q) (total ? all[(long)((double)(total - 1) * (q))] : 0)
	printf("requests %ld in %.1f s (%.0f/s, target %.0f/s), errors %ld, "
	       "started late %ld\n", total, el, (double)total / el, rate, errors,
	       late);
	printf("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n",
	       P(0.50), P(0.90), P(0.99), P(0.999), total ? all[total - 1] : 0);
	return errors ? 1 : 0;
}
