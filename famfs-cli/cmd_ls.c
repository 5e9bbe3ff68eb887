// SPDX-License-Identifier: Apache-2.0
/* famfs-cli ls: list a directory offline. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static void ls_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli ls -d DEV... [-R] [-o FORMAT] [--no-headers] [PATH]\n\n"
		"List PATH (default /) of the filesystem on DEV...: mode, owner,\n"
		"size, allocated bytes, mtime and name.\n"
		"  -R, --recursive      list subdirectories too\n"
		"  -o, --output FORMAT  human (default, ls -l like), table, wide,\n"
		"                       name (the paths), json / yaml (PATH with\n"
		"                       all it holds, as a tree)\n"
		"  --no-headers         no header line in table and wide output\n\n"
		"Exit status: 0 listed, 1 no such path or the devices cannot be\n"
		"opened, 2 usage error.\n");
}

/* ls -l's type letter. */
static char type_char(const struct famfs_node *n)
{
	return famfs_node_is_dir(n) ? 'd' : famfs_node_is_symlink(n) ? 'l' : '-';
}

static const char *type_name(const struct famfs_node *n)
{
	return famfs_node_is_dir(n) ? "directory" :
	       famfs_node_is_symlink(n) ? "symlink" : "file";
}

static void print_node(struct famfs_node *n, const char *prefix)
{
	struct famfs_attr a;
	char when[32];
	time_t t;
	struct tm tm;

	famfs_node_attr(n, &a);
	t = (time_t)(a.mtime_ns / 1000000000ULL);
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("%c%04o %5u %5u %12" PRIu64 " %12" PRIu64 " %s %s%s%s%s%s\n",
	       type_char(n), a.mode & 07777, a.uid, a.gid,
	       a.size, a.alloc_bytes, when, prefix, famfs_node_name(n),
	       famfs_node_is_dir(n) ? "/" : "",
	       famfs_node_is_symlink(n) ? " -> " : "",
	       famfs_node_is_symlink(n) ? famfs_node_target(n) : "");
}

static struct json_object *node_json(struct famfs_node *n, bool recursive)
{
	struct json_object *o = json_object_new_object();
	struct famfs_attr a;

	famfs_node_attr(n, &a);
	json_object_object_add(o, "name", json_object_new_string(famfs_node_name(n)));
	json_object_object_add(o, "type", json_object_new_string(type_name(n)));
	json_object_object_add(o, "mode", json_object_new_int((int)(a.mode & 07777)));
	json_object_object_add(o, "uid", json_object_new_int64(a.uid));
	json_object_object_add(o, "gid", json_object_new_int64(a.gid));
	json_object_object_add(o, "size", json_object_new_uint64(a.size));
	json_object_object_add(o, "alloc_bytes", json_object_new_uint64(a.alloc_bytes));
	json_object_object_add(o, "mtime_ns", json_object_new_uint64(a.mtime_ns));
	if (famfs_node_is_symlink(n))
		json_object_object_add(o, "target",
				       json_object_new_string(famfs_node_target(n)));
	if (famfs_node_is_dir(n) && recursive) {
		struct json_object *ch = json_object_new_array();

		for (struct famfs_node *c = famfs_node_first_child(n); c;
		     c = famfs_node_next_sibling(c))
			json_object_array_add(ch, node_json(c, true));
		json_object_object_add(o, "children", ch);
	}
	return o;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(famfs_node_name(*(struct famfs_node *const *)a),
		      famfs_node_name(*(struct famfs_node *const *)b));
}

/* @n as a row of -o table/wide/name: its attributes and path. */
static void add_row(struct json_object *rows, struct famfs_node *n,
		    const char *prefix)
{
	struct json_object *o = node_json(n, false);
	char path[FAMFS_PATH_MAX + 2];

	snprintf(path, sizeof(path), "%s%s%s", prefix, famfs_node_name(n),
		 famfs_node_is_dir(n) ? "/" : "");
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_array_add(rows, o);
}

/* Print @dir's entries sorted by name, or add them to @rows. */
static void list_dir(struct famfs_node *dir, const char *prefix, bool recursive,
		     struct json_object *rows)
{
	char sub[FAMFS_PATH_MAX + 2];
	struct famfs_node **kids = NULL;
	size_t n = 0, cap = 0;

	for (struct famfs_node *c = famfs_node_first_child(dir); c;
	     c = famfs_node_next_sibling(c)) {
		if (n == cap) {
			struct famfs_node **k = realloc(kids, (cap = cap ? cap * 2 : 64) * sizeof(*k));

			if (!k)
				break;
			kids = k;
		}
		kids[n++] = c;
	}
	if (n)
		qsort(kids, n, sizeof(*kids), by_name);
	for (size_t i = 0; i < n; i++) {
		struct famfs_node *c = kids[i];

		if (rows)
			add_row(rows, c, prefix);
		else
			print_node(c, prefix);
		if (recursive && famfs_node_is_dir(c)) {
			snprintf(sub, sizeof(sub), "%s%s/", prefix, famfs_node_name(c));
			list_dir(c, sub, true, rows);
		}
	}
	free(kids);
}

int cmd_ls(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "recursive", no_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-headers", no_argument, NULL, 'N' }, CLI_DEVICE_OPTIONS, { 0 }
	};
	const struct cli_table table = { NULL, "path",
		(const char *const[]){ "TYPE=type", "MODE=%mode", "UID=uid",
			"GID=gid", "SIZE=~size", "PATH=path", "+ALLOC=~alloc_bytes",
			"+MTIME_NS=mtime_ns" }, 8 };
	struct cli_devices devs = { 0 };
	struct cli_view view = { 0 };
	const char *host = NULL, *path = "/";
	bool recursive = false;
	int c;

	while ((c = getopt_long(argc, argv, "Ro:d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'R': recursive = true; break;
		case 'o':
			if (cli_parse_output("ls", optarg, CLI_OUT(HUMAN) |
					     CLI_OUTS_READ, &view.out)) {
				cli_usage_error("ls", ls_usage);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'N': view.no_headers = true; break;
		case 'd': if (cli_devices_add("ls", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': ls_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("ls", ls_usage); return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc - 1) {
		cli_error("ls", "one PATH at most");
		cli_usage_error("ls", ls_usage);
		return CLI_EXIT_USAGE;
	}
	if (optind < argc)
		path = argv[optind];
	struct famfs_fs *fs = cli_open_fs("ls", &devs, FAMFS_OPEN_READ, host);
	struct famfs_node *n;

	if (!fs)
		return CLI_EXIT_FAIL;
	n = famfs_lookup(fs, path);
	if (!n) {
		cli_error("ls", "%s: no such file or directory", path);
		famfs_close(fs);
		return CLI_EXIT_FAIL;
	}
	if (view.out == CLI_OUT_JSON || view.out == CLI_OUT_YAML) {
		struct json_object *tree = node_json(n, true);

		cli_print(&view, tree, NULL, &table);
		json_object_put(tree);
	} else if (view.out != CLI_OUT_HUMAN) {
		struct json_object *rows = json_object_new_array();

		if (famfs_node_is_dir(n))
			list_dir(n, "", recursive, rows);
		else
			add_row(rows, n, "");
		cli_print(&view, rows, rows, &table);
		json_object_put(rows);
	} else if (famfs_node_is_dir(n)) {
		list_dir(n, "", recursive, NULL);
	} else {
		print_node(n, "");
	}
	famfs_close(fs);
	return CLI_EXIT_OK;
}
