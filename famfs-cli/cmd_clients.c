// SPDX-License-Identifier: Apache-2.0
/* famfs-cli clients: list client slots, evict a client gone for good. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"

static void clients_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli clients -d DEV... [--evict SLOT] [-o FORMAT] [--no-headers]\n\n"
		"List the client slots: who replays the log and how far. Deleted\n"
		"files' space is reused only once every live client is past the\n"
		"delete; --evict SLOT stops waiting for a client that is gone.\n"
		"  -o, --output FORMAT  table (default; human is the same), wide,\n"
		"                       name (slot/N), json, yaml\n"
		"  --no-headers         no header line in table and wide output\n\n"
		"Exit status: 0 listed (and evicted), 1 the devices cannot be\n"
		"opened or the eviction failed, 2 usage error.\n");
}

int cmd_clients(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "evict", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-headers", no_argument, NULL, 'N' }, CLI_DEVICE_OPTIONS, { 0 }
	};
	const struct cli_table table = { "slot", "slot",
		(const char *const[]){ "SLOT=slot", "STATE=state", "HOST=host",
			"REPLAYED=replayed_seq", "+HEARTBEAT_NS=heartbeat_ns" }, 5 };
	struct cli_devices devs = { 0 };
	struct cli_view view = { .out = CLI_OUT_TABLE };
	const char *host = NULL;
	long evict = -1;
	uint32_t slot;
	int c, rc = CLI_EXIT_OK;

	while ((c = getopt_long(argc, argv, "e:o:d:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (cli_parse_u32("clients", "--evict", optarg,
					  FAMFS_MAX_SLOTS - 1, &slot))
				return CLI_EXIT_USAGE;
			evict = slot;
			break;
		case 'o':
			if (cli_parse_output("clients", optarg, CLI_OUT(HUMAN) |
					     CLI_OUTS_READ, &view.out)) {
				cli_usage_error("clients", clients_usage);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'N': view.no_headers = true; break;
		case 'd': if (cli_devices_add("clients", &devs, optarg)) return CLI_EXIT_USAGE; break;
		case 'H': host = optarg; break;
		case 'h': clients_usage(stdout); return CLI_EXIT_OK;
		default: cli_usage_error("clients", clients_usage); return CLI_EXIT_USAGE;
		}
	}
	/* evicting writes the slot table: open as master (the writer) */
	struct famfs_fs *fs = cli_open_fs("clients", &devs,
					  evict >= 0 ? FAMFS_OPEN_MASTER : FAMFS_OPEN_READ,
					  host);
	struct famfs_slot_info s[FAMFS_MAX_SLOTS];
	int n;

	if (!fs)
		return CLI_EXIT_FAIL;
	if (evict >= 0) {
		struct famfs_err e = { 0 };

		if (famfs_slot_evict(fs, (uint32_t)evict, &e)) {
			cli_error("clients", "%s", e.msg);
			rc = CLI_EXIT_FAIL;
		} else {
			famfs_reclaim(fs);
		}
	}
	n = famfs_slots(fs, s, FAMFS_MAX_SLOTS);
	struct json_object *arr = json_object_new_array();

	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "slot", json_object_new_int((int)s[i].index));
		json_object_object_add(o, "state", json_object_new_string(
			s[i].state == FAMFS_SLOT_LIVE ? "live" : "evicted"));
		json_object_object_add(o, "host", json_object_new_string(s[i].host_name));
		json_object_object_add(o, "replayed_seq", json_object_new_uint64(s[i].replayed_seq));
		json_object_object_add(o, "heartbeat_ns", json_object_new_uint64(s[i].heartbeat_ns));
		json_object_array_add(arr, o);
	}
	cli_print(&view, arr, arr, &table);
	json_object_put(arr);
	famfs_close(fs);
	return rc;
}
