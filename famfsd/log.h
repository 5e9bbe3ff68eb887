/* SPDX-License-Identifier: Apache-2.0 */
/* famfsd logging: one line per message on stderr, with a "<N>" syslog
 * priority prefix that the journal understands when stderr is not a
 * terminal (or JOURNAL_STREAM is set).
 */
#ifndef FAMFSD_LOG_H
#define FAMFSD_LOG_H

#include <syslog.h>

void log_init(int max_prio);
void log_set_level(int max_prio);
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For providers: an already formatted message. */
void log_plain(int prio, const char *msg);

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
