/* SPDX-License-Identifier: Apache-2.0 */
/* Options shared by the client commands: -o, --no-headers, --host, --token. */
#ifndef FAMFS_CLIENT_CMDLINE_H
#define FAMFS_CLIENT_CMDLINE_H

#include "cli.h"
#include "client/client.h"

struct client_opts {
	struct cli_view view;
	const char *host;
	const char *token;
	int argc;            /* positional arguments left */
	char **argv;
};

/*
 * Parse -o/--output (one of @valid, a CLI_OUT() mask), --no-headers,
 * -H/--host, --token; @dflt is the default output. Returns 0, 1 if --help
 * was printed (exit 0), or -1 after a usage error was printed (the short
 * usage from @usage).
 */
int client_parse_opts(const char *cmd, int argc, char **argv,
		      enum cli_output dflt, unsigned valid, const char *usage,
		      struct client_opts *o);
/* Call @path and print the error (returns the exit code on failure). */
int client_get(const char *cmd, const struct client_opts *o, const char *path,
	       json_object **out);
/* `job list [ID...]`: get's listing of jobs (cmd_get.c); the exit code. */
int cli_job_list(const struct client_opts *o, char **ids, int n);

#endif
