// SPDX-License-Identifier: Apache-2.0
/* famfs-cli getmap: print where a file's bytes live. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "map_json.h"

static void print_human(const char *path, uint64_t size, const struct famfs_fmap *m,
			struct famfs_fs *fs, const char *const *names);

static const struct cli_table table = { NULL, "device",
	(const char *const[]){ "DEVICE=device", "OFFSET=offset", "LENGTH=length",
		"+INDEX=device_index" }, 4 };

/* Anything but -o human: @o (json, yaml) or its strips or extents. */
static void print_view(const struct cli_view *v, struct json_object *o)
{
	struct json_object *map, *items = NULL;

	if (json_object_object_get_ex(o, "map", &map) &&
	    !json_object_object_get_ex(map, "strips", &items))
		json_object_object_get_ex(map, "extents", &items);
	if (!items)
		items = json_object_new_array();
	else
		json_object_get(items);
	cli_print(v, o, items, &table);
	json_object_put(items);
}

/* getmap of a path in a mount: the server's user.famfs.map. */
static int getmap_mounted(const char *path, const struct cli_view *view)
{
	_cleanup_json_put_ struct json_object *o =
		cli_mount_xattr_json(path, "user.famfs.map");
	struct json_object *map, *v;
	const char *names[FAMFS_MAX_EXTENTS];

	if (!o || !json_object_object_get_ex(o, "map", &map)) {
		cli_error("getmap", "%s: not a file in a famfs mount (no user.famfs.map "
			  "xattr); for a filesystem on devices give them with -d", path);
		return CLI_EXIT_FAIL;
	}
	if (view->out != CLI_OUT_HUMAN) {
		print_view(view, o);
		return CLI_EXIT_OK;
	}
	struct famfs_map_dev devs[FAMFS_MAX_DEVICES];
	_cleanup_free_ struct famfs_fmap *m = NULL;
	uint64_t size = 0;
	char why[300];

	/* no device geometry here: check the map's own consistency */
	for (unsigned d = 0; d < FAMFS_MAX_DEVICES; d++)
		devs[d] = (struct famfs_map_dev){ UINT64_MAX, 0 };
	if (json_object_object_get_ex(o, "size", &v))
		size = (uint64_t)json_object_get_int64(v);
	if (map_json_parse(map, &m, why, sizeof(why)) ||
	    famfs_fmap_check(m, size, devs, FAMFS_MAX_DEVICES, why, sizeof(why))) {
		cli_error("getmap", "%s: the server's map is not usable: %s", path,
			  why);
		return CLI_EXIT_FAIL;
	}
	for (unsigned i = 0; i < m->nitems; i++)
		names[i] = map_json_device(map, i);
	print_human(path, size, m, NULL, names);
	return CLI_EXIT_OK;
}

/* Human form of a map; device names from @fs, or @names[i] per item. */
static void print_human(const char *path, uint64_t size, const struct famfs_fmap *m,
			struct famfs_fs *fs, const char *const *names)
{
	printf("%s: %" PRIu64 " bytes, %s", path, size,
	       m->type == FAMFS_MAP_INTERLEAVE ? "interleaved" : "extents");
	if (m->type == FAMFS_MAP_INTERLEAVE)
		printf(" over %u strips, chunk %" PRIu64, m->nitems, m->chunk);
	printf("\n");
	for (unsigned i = 0; i < m->nitems; i++) {
		struct famfs_dev *d = fs ? famfs_fs_dev(fs, m->items[i].dev_index) : NULL;

		printf("  %s %u: %s offset %" PRIu64 " length %" PRIu64 "\n",
		       m->type == FAMFS_MAP_INTERLEAVE ? "strip" : "extent", i,
		       d ? famfs_dev_path(d) : names ? names[i] : "?",
		       m->items[i].offset, m->items[i].length);
	}
}

static void getmap_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli getmap [-o FORMAT] -d DEV [-d DEV...] PATH\n"
		"       famfs-cli getmap [-o FORMAT] MOUNTED-PATH\n\n"
		"Print the map of PATH (a path inside the filesystem on DEV...), or of\n"
		"a file in a famfs mount (asked of the FUSE server, no devices needed):\n"
		"an extent list or one interleave descriptor. With -o json:\n"
		"{\"path\",\"size\",\"map\":{\"type\":\"interleave\",\"chunk\",\"strips\":[\n"
		"{\"device\",\"offset\",\"length\"}]}} or {\"type\":\"extents\",\"extents\":[...]}.\n\n"
		"  -o, --output FORMAT  human (default), table / wide / name (the\n"
		"                       strips or extents), json, yaml\n"
		"  --no-headers         no header line in table and wide output\n\n"
		"Exit status: 0 printed, 1 no such file or no map, 2 usage error.\n");
}

int cmd_getmap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-headers", no_argument, NULL, 'N' }, CLI_DEVICE_OPTIONS, { 0 }
	};
	struct cli_devices devs = { 0 };
	struct cli_view view = { 0 };
	const char *host = NULL;
	_cleanup_famfs_close_ struct famfs_fs *fs = NULL;
	struct famfs_node *n;
	int c;

	while ((c = getopt_long(argc, argv, "o:d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (cli_parse_output("getmap", optarg, CLI_OUT(HUMAN) |
					     CLI_OUTS_READ, &view.out)) {
				cli_usage_error("getmap", getmap_usage);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'N': view.no_headers = true; break;
		case 'd': if (cli_devices_add("getmap", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': getmap_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("getmap", getmap_usage); return CLI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		cli_error("getmap", "give one PATH");
		cli_usage_error("getmap", getmap_usage);
		return CLI_EXIT_USAGE;
	}
	if (!devs.n)
		return getmap_mounted(argv[optind], &view);
	fs = cli_open_fs("getmap", &devs, FAMFS_OPEN_READ, host);
	if (!fs)
		return CLI_EXIT_FAIL;
	n = famfs_lookup(fs, argv[optind]);
	if (n && famfs_node_is_symlink(n)) {
		cli_error("getmap", "%s: is a symbolic link to '%s' (it has no data; "
			  "famfs-cli does not follow links: give the target's "
			  "path)", argv[optind], famfs_node_target(n));
		return CLI_EXIT_FAIL;
	}
	if (!n || famfs_node_is_dir(n)) {
		cli_error("getmap", "%s: %s", argv[optind],
			  n ? "is a directory" : "no such file");
		return CLI_EXIT_FAIL;
	}
	struct famfs_attr a;
	const struct famfs_fmap *m = famfs_node_map(n);
	char path[FAMFS_PATH_MAX + 2];

	famfs_node_attr(n, &a);
	famfs_node_path(n, path, sizeof(path));
	if (view.out != CLI_OUT_HUMAN) {
		_cleanup_json_put_ struct json_object *o = json_object_new_object();

		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "size", json_object_new_uint64(a.size));
		json_object_object_add(o, "alloc_bytes", json_object_new_uint64(a.alloc_bytes));
		json_object_object_add(o, "map", cli_map_json(fs, m));
		print_view(&view, o);
	} else {
		print_human(path, a.size, m, fs, NULL);
	}
	return CLI_EXIT_OK;
}
