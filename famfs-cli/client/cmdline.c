// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmdline.h"

int client_parse_opts(const char *cmd, int argc, char **argv,
		      enum cli_output dflt, unsigned valid, const char *usage,
		      struct client_opts *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-headers", no_argument, NULL, 'N' },
		{ "host", required_argument, NULL, 'H' },
		{ "token", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->view.out = dflt;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (cli_parse_output(cmd, optarg, valid, &o->view.out)) {
				cli_usage_error_text(cmd, usage);
				return -1;
			}
			break;
		case 'N': o->view.no_headers = true; break;
		case 'H': o->host = optarg; break;
		case 'T': o->token = optarg; break;
		case 'h': fputs(usage, stdout); return 1;
		default: cli_usage_error_text(cmd, usage); return -1;
		}
	}
	o->argc = argc - optind;
	o->argv = argv + optind;
	return 0;
}

int client_get(const char *cmd, const struct client_opts *o, const char *path,
	       json_object **out)
{
	struct famfs_client *c = famfs_client_open(o->host, o->token);
	char *err = NULL;
	long status;
	int r;

	if (!c && errno != EINVAL) {
		cli_error(cmd, "cannot set up a client: %s", strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (!c) {
		cli_error(cmd, "bad endpoint '%s' (a socket path or https://host:port)",
			  o->host ? o->host : getenv("FAMFS_HOST"));
		return CLI_EXIT_USAGE;
	}
	r = famfs_client_request(c, "GET", path, NULL, &status, out, &err);
	famfs_client_close(c);
	if (r) {
		cli_error(cmd, "%s", err ? err : "request failed");
		free(err);
		json_object_put(*out);
		*out = NULL;
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}
