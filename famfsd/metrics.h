/* SPDX-License-Identifier: Apache-2.0 */
/* API request counters and the duration histogram (own lock), and the
 * /metrics text rendering (under the state lock). docs/metrics.md lists
 * every metric.
 */
#ifndef FAMFSD_METRICS_H
#define FAMFSD_METRICS_H

void metrics_observe(const char *route, const char *method, int status,
		     double seconds);
/* The whole exposition; caller frees. NULL on out of memory. */
char *metrics_render(void);

#endif
