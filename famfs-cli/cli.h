/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by famfs-cli's command files: exit codes and small helpers. */
#ifndef FAMFS_CLI_H
#define FAMFS_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes common to all commands (fsck and diff document their own). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

enum cli_output { CLI_OUT_HUMAN = 0, CLI_OUT_JSON, CLI_OUT_YAML, CLI_OUT_TABLE };

/* Parse "-o" values; returns 0 or -1 after printing what was wrong. */
int cli_parse_output(const char *cmd, const char *arg, enum cli_output *out);

/* Print "famfs-cli <cmd>: <msg>" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
