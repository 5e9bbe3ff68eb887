/* SPDX-License-Identifier: Apache-2.0 */
/* Options shared by the client commands: -o, --host, --token-file. */
#ifndef FAMFS_CLIENT_CMDLINE_H
#define FAMFS_CLIENT_CMDLINE_H

#include "cli.h"
#include "client/client.h"

struct client_opts {
	enum cli_output out;
	const char *host;
	const char *token;
	int argc;            /* positional arguments left */
	char **argv;
};

/*
 * Parse -o/--output, -H/--host, --token; @dflt is the default output.
 * Returns 0, 1 if --help was printed (exit 0), or -1 on a usage error.
 */
int client_parse_opts(const char *cmd, int argc, char **argv,
		      enum cli_output dflt, const char *usage,
		      struct client_opts *o);
/* Call @path and print the error (returns the exit code on failure). */
int client_get(const char *cmd, const struct client_opts *o, const char *path,
	       json_object **out);
/* Print @obj in the chosen format (table via @cols, for a list @items). */
void client_print(const struct client_opts *o, json_object *obj,
		  json_object *items, const char *const *cols, int ncols);

#endif
