/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP listeners: the Unix socket (own or from socket activation)
 * and the optional TCP+TLS one, both served by libmicrohttpd.
 */
#ifndef FAMFSD_SERVER_H
#define FAMFSD_SERVER_H

int server_start(char *err, size_t errlen);
/* Stop accepting; wait (up to @timeout_ms) for in-flight requests; stop. */
void server_stop(int timeout_ms);
int server_inflight(void);

#endif
