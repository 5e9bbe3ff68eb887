/* SPDX-License-Identifier: Apache-2.0 */
/* API request counters and the duration histogram (own lock), and the
 * /metrics text rendering (under the state lock). docs/metrics.md lists
 * every metric.
 */
#ifndef FAMFSD_METRICS_H
#define FAMFSD_METRICS_H

#include <stdint.h>

void metrics_observe(const char *route, const char *method, int status,
		     double seconds);
/* Count what an ingest job copied into filesystem @fs: the
 * famfs_ingest_*_total counters. Any thread; takes the metrics lock.
 */
void metrics_ingest_add(const char *fs, uint64_t bytes, uint64_t files);
/* The whole exposition; caller frees. NULL on out of memory. */
char *metrics_render(void);

#endif
