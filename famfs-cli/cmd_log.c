// SPDX-License-Identifier: Apache-2.0
/* famfs-cli log: dump the metadata log entry by entry. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"

static void log_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli log [-o FORMAT] [--no-headers] DEV...\n\n"
		"Print every valid log entry (seq, type, offset, time, path, map),\n"
		"then where the valid log ends and why.\n"
		"  -o, --output FORMAT  human (default), table / wide / name (the\n"
		"                       entries; name: their seq), json / yaml\n"
		"                       (the entries, used bytes, tail state)\n"
		"  --no-headers         no header line in table and wide output\n\n"
		"Exit status: 0 printed (a torn tail is reported, not an error),\n"
		"1 the devices cannot be opened, 2 usage error.\n");
}

struct log_out {
	enum cli_output out;
	struct json_object *arr;
};

static const char *type_name(uint16_t t)
{
	switch (t) {
	case FAMFS_ENTRY_FILE: return "file";
	case FAMFS_ENTRY_MKDIR: return "mkdir";
	case FAMFS_ENTRY_DELETE: return "delete";
	case FAMFS_ENTRY_DEVICE_ADD: return "device_add";
	case FAMFS_ENTRY_SETATTR: return "setattr";
	case FAMFS_ENTRY_BATCH: return "batch";
	case FAMFS_ENTRY_RENAME: return "rename";
	case FAMFS_ENTRY_SYMLINK: return "symlink";
	case FAMFS_ENTRY_EXCHANGE: return "exchange";
	default: return "unknown";
	}
}

/* Decode the path and (for files) the map of an entry. */
static struct json_object *entry_json(uint64_t off, const struct famfs_entry_hdr *h)
{
	struct json_object *o = json_object_new_object();
	const char *path = NULL;
	unsigned plen = 0;

	json_object_object_add(o, "seq", json_object_new_uint64(h->seq));
	json_object_object_add(o, "type", json_object_new_string(type_name(h->type)));
	json_object_object_add(o, "offset", json_object_new_uint64(off));
	json_object_object_add(o, "length", json_object_new_int((int)h->len));
	json_object_object_add(o, "logged_ns", json_object_new_uint64(h->logged_ns));
	if (h->type == FAMFS_ENTRY_FILE) {
		const struct famfs_entry_file *f = (const void *)(h + 1);
		const struct famfs_map_item *it = (const void *)(f + 1);
		struct famfs_fmap *m = calloc(1, famfs_fmap_sizeof(f->nitems));

		path = (const char *)(it + f->nitems);
		plen = f->path_len;
		json_object_object_add(o, "size", json_object_new_uint64(f->size));
		json_object_object_add(o, "mode", json_object_new_int((int)f->mode));
		json_object_object_add(o, "uid", json_object_new_int64(f->uid));
		json_object_object_add(o, "gid", json_object_new_int64(f->gid));
		json_object_object_add(o, "mtime_ns", json_object_new_uint64(f->mtime_ns));
		if (m) {
			m->type = f->map_type;
			m->nitems = f->nitems;
			m->chunk = f->chunk;
			memcpy(m->items, it, f->nitems * sizeof(*it));
			json_object_object_add(o, "map", cli_map_json(NULL, m));
			free(m);
		}
	} else if (h->type == FAMFS_ENTRY_MKDIR) {
		const struct famfs_entry_mkdir *d = (const void *)(h + 1);

		path = (const char *)(d + 1);
		plen = d->path_len;
		json_object_object_add(o, "mode", json_object_new_int((int)d->mode));
	} else if (h->type == FAMFS_ENTRY_DELETE) {
		const struct famfs_entry_delete *d = (const void *)(h + 1);

		path = (const char *)(d + 1);
		plen = d->path_len;
		json_object_object_add(o, "target_seq", json_object_new_uint64(d->target_seq));
	} else if (h->type == FAMFS_ENTRY_BATCH) {
		const struct famfs_entry_batch *b = (const void *)(h + 1);

		json_object_object_add(o, "count", json_object_new_int64(b->count));
	} else if (h->type == FAMFS_ENTRY_RENAME) {
		const struct famfs_entry_rename *r = (const void *)(h + 1);

		path = (const char *)(r + 1);
		plen = r->old_len;
		json_object_object_add(o, "target_seq", json_object_new_uint64(r->target_seq));
		json_object_object_add(o, "replaced_seq", json_object_new_uint64(r->replaced_seq));
		json_object_object_add(o, "new_path",
				       json_object_new_string_len(path + plen, (int)r->new_len));
	} else if (h->type == FAMFS_ENTRY_EXCHANGE) {
		const struct famfs_entry_exchange *x = (const void *)(h + 1);

		path = (const char *)(x + 1);
		plen = x->a_len;
		json_object_object_add(o, "target_seq", json_object_new_uint64(x->a_seq));
		json_object_object_add(o, "other_seq", json_object_new_uint64(x->b_seq));
		json_object_object_add(o, "other_path",
				       json_object_new_string_len(path + plen, (int)x->b_len));
	} else if (h->type == FAMFS_ENTRY_SYMLINK) {
		const struct famfs_entry_symlink *l = (const void *)(h + 1);

		path = (const char *)(l + 1);
		plen = l->path_len;
		json_object_object_add(o, "uid", json_object_new_int64(l->uid));
		json_object_object_add(o, "gid", json_object_new_int64(l->gid));
		json_object_object_add(o, "mtime_ns", json_object_new_uint64(l->mtime_ns));
		json_object_object_add(o, "target",
				       json_object_new_string_len(path + plen, (int)l->target_len));
	} else if (h->type == FAMFS_ENTRY_SETATTR) {
		const struct famfs_entry_setattr *a = (const void *)(h + 1);

		path = (const char *)(a + 1);
		plen = a->path_len;
		json_object_object_add(o, "target_seq", json_object_new_uint64(a->target_seq));
		json_object_object_add(o, "valid", json_object_new_int((int)a->valid));
		if (a->valid & FAMFS_SETATTR_MODE)
			json_object_object_add(o, "mode", json_object_new_int((int)a->mode));
		if (a->valid & FAMFS_SETATTR_UID)
			json_object_object_add(o, "uid", json_object_new_int64(a->uid));
		if (a->valid & FAMFS_SETATTR_GID)
			json_object_object_add(o, "gid", json_object_new_int64(a->gid));
		if (a->valid & FAMFS_SETATTR_SIZE)
			json_object_object_add(o, "size", json_object_new_uint64(a->size));
		if (a->valid & FAMFS_SETATTR_ATIME)
			json_object_object_add(o, "atime_ns", json_object_new_uint64(a->atime_ns));
		if (a->valid & FAMFS_SETATTR_MTIME)
			json_object_object_add(o, "mtime_ns", json_object_new_uint64(a->mtime_ns));
	}
	if (path)
		json_object_object_add(o, "path", json_object_new_string_len(path, (int)plen));
	return o;
}

static int on_entry(void *arg, uint64_t off, const struct famfs_entry_hdr *h)
{
	struct log_out *lo = arg;
	struct json_object *o = entry_json(off, h);

	if (lo->out != CLI_OUT_HUMAN) {
		json_object_array_add(lo->arr, o);
		return 0;
	}
	struct json_object *p, *sz;

	printf("%8" PRIu64 " %-10s @%-10" PRIu64, h->seq, type_name(h->type), off);
	if (json_object_object_get_ex(o, "path", &p))
		printf(" %s", json_object_get_string(p));
	if (json_object_object_get_ex(o, "new_path", &p) ||
	    json_object_object_get_ex(o, "target", &p))
		printf(" -> %s", json_object_get_string(p));
	if (json_object_object_get_ex(o, "other_path", &p))
		printf(" <-> %s", json_object_get_string(p));
	if (json_object_object_get_ex(o, "size", &sz))
		printf(" (%" PRIu64 " bytes)", json_object_get_uint64(sz));
	printf("\n");
	json_object_put(o);
	return 0;
}

int cmd_log(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-headers", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct cli_table table = { NULL, "seq",
		(const char *const[]){ "SEQ=seq", "TYPE=type", "OFFSET=offset",
			"PATH=path", "SIZE=~size", "+LENGTH=length",
			"+LOGGED_NS=logged_ns", "+MAP=map.type" }, 8 };
	struct cli_view view = { 0 };
	struct log_out lo = { 0 };
	struct cli_devices devs = { 0 };
	struct famfs_log_status st;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (cli_parse_output("log", optarg, CLI_OUT(HUMAN) |
					     CLI_OUTS_READ, &lo.out)) {
				cli_usage_error("log", log_usage);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'N': view.no_headers = true; break;
		case 'h': log_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("log", log_usage); return CLI_EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++)
		if (cli_devices_add("log", &devs, argv[i]))
			return CLI_EXIT_USAGE;
	if (!devs.n) {
		cli_error("log", "no device given");
		cli_usage_error("log", log_usage);
		return CLI_EXIT_USAGE;
	}
	struct famfs_fs *fs = cli_open_fs("log", &devs, FAMFS_OPEN_READ, NULL);

	if (!fs)
		return CLI_EXIT_FAIL;
	lo.arr = json_object_new_array();
	famfs_log_walk(fs, on_entry, &lo);
	famfs_log_status(fs, &st);
	if (lo.out != CLI_OUT_HUMAN) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "entries", lo.arr);
		json_object_object_add(o, "used_bytes", json_object_new_uint64(st.used_bytes));
		json_object_object_add(o, "size_bytes", json_object_new_uint64(st.size_bytes));
		json_object_object_add(o, "tail", json_object_new_string(
			st.tail_state == FAMFS_TAIL_CLEAN ? "clean" :
		       st.tail_state == FAMFS_TAIL_CORRUPT ? "corrupt" : "torn"));
		if (st.tail_state != FAMFS_TAIL_CLEAN)
			json_object_object_add(o, "tail_reason",
					       json_object_new_string(st.tail_reason));
		view.out = lo.out;
		cli_print(&view, o, lo.arr, &table);
		json_object_put(o);
	} else {
		json_object_put(lo.arr);
		printf("-- %" PRIu64 " entries, %" PRIu64 " of %" PRIu64 " bytes; tail %s%s%s\n",
		       st.entries, st.used_bytes, st.size_bytes,
		       st.tail_state == FAMFS_TAIL_CLEAN ? "clean" :
		       st.tail_state == FAMFS_TAIL_CORRUPT ? "corrupt" : "torn",
		       st.tail_state == FAMFS_TAIL_CLEAN ? "" : ": ", st.tail_reason);
	}
	famfs_close(fs);
	return CLI_EXIT_OK;
}
