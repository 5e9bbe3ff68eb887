// SPDX-License-Identifier: Apache-2.0
/* famfs-cli getmap: print where a file's bytes live. */
#include <getopt.h>
#include <inttypes.h>

#include "cli.h"

static void getmap_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli getmap [-o human|json] -d DEV [-d DEV...] PATH\n\n"
		"Print the map of PATH (a path inside the filesystem on DEV...):\n"
		"an extent list or one interleave descriptor. With -o json:\n"
		"{\"path\",\"size\",\"map\":{\"type\":\"interleave\",\"chunk\",\"strips\":[\n"
		"{\"device\",\"offset\",\"length\"}]}} or {\"type\":\"extents\",\"extents\":[...]}.\n");
}

int cmd_getmap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, CLI_DEVICE_OPTIONS, { 0 }
	};
	struct cli_devices devs = { 0 };
	enum cli_output out = CLI_OUT_HUMAN;
	const char *host = NULL;
	struct famfs_fs *fs;
	struct famfs_node *n;
	int c, rc = CLI_EXIT_OK;

	while ((c = getopt_long(argc, argv, "o:d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': if (cli_parse_output("getmap", optarg, &out)) return CLI_EXIT_USAGE; break;
		case 'd': if (cli_devices_add("getmap", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': getmap_usage(stdout); return CLI_EXIT_OK;
		default: getmap_usage(stderr); return CLI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		getmap_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	fs = cli_open_fs("getmap", &devs, FAMFS_OPEN_READ, host);
	if (!fs)
		return CLI_EXIT_FAIL;
	n = famfs_lookup(fs, argv[optind]);
	if (!n || famfs_node_is_dir(n)) {
		cli_error("getmap", "%s: %s", argv[optind],
			  n ? "is a directory" : "no such file");
		famfs_close(fs);
		return CLI_EXIT_FAIL;
	}
	struct famfs_attr a;
	const struct famfs_fmap *m = famfs_node_map(n);
	char path[FAMFS_PATH_MAX + 2];

	famfs_node_attr(n, &a);
	famfs_node_path(n, path, sizeof(path));
	if (out == CLI_OUT_JSON) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "size", json_object_new_uint64(a.size));
		json_object_object_add(o, "alloc_bytes", json_object_new_uint64(a.alloc_bytes));
		json_object_object_add(o, "map", cli_map_json(fs, m));
		cli_print_json(o);
	} else {
		printf("%s: %" PRIu64 " bytes, %s", path, a.size,
		       m->type == FAMFS_MAP_INTERLEAVE ? "interleaved" : "extents");
		if (m->type == FAMFS_MAP_INTERLEAVE)
			printf(" over %u strips, chunk %" PRIu64, m->nitems, m->chunk);
		printf("\n");
		for (unsigned i = 0; i < m->nitems; i++) {
			struct famfs_dev *d = famfs_fs_dev(fs, m->items[i].dev_index);

			printf("  %s %u: %s offset %" PRIu64 " length %" PRIu64 "\n",
			       m->type == FAMFS_MAP_INTERLEAVE ? "strip" : "extent", i,
			       d ? famfs_dev_path(d) : "?", m->items[i].offset,
			       m->items[i].length);
		}
	}
	famfs_close(fs);
	return rc;
}
