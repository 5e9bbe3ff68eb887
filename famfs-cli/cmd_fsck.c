// SPDX-License-Identifier: Apache-2.0
/* famfs-cli fsck: check a filesystem; with --repair, end a corrupt log. */
#include <getopt.h>
#include <sys/stat.h>

#include "cli.h"

/* Exit codes, modelled on e2fsck's so operators' scripts read them alike. */
#define FSCK_EXIT_CLEAN 0
#define FSCK_EXIT_ERRORS 4
#define FSCK_EXIT_FAILED 8
#define FSCK_EXIT_USAGE 16

static void fsck_usage(FILE *f)
{
	fprintf(f,
		"usage: famfs-cli fsck [-o FORMAT] [--no-headers] [-q] DEV...\n"
		"       famfs-cli fsck [-o FORMAT] [--no-headers] [-q] MOUNTPOINT\n"
		"       famfs-cli fsck --repair [-H HOST] DEV...\n\n"
		"Check the device labels, both superblocks, the log header, every\n"
		"log entry (CRC, sequence), the committed-tail record and that no\n"
		"file maps overlap or leave the data area. Read-only: safe on a\n"
		"mounted filesystem. A bad entry the log proves committed is\n"
		"corruption: the error names the seqs and the paths lost.\n\n"
		"  --repair             offline, on the master's devices (nothing\n"
		"                       mounted anywhere): list what is dropped, end\n"
		"                       the log at the last good entry and record\n"
		"                       the new tail; re-run the apply or ingest to\n"
		"                       copy the dropped files again\n"
		"  -H, --host-name HOST the master's name (default $FAMFS_HOST_NAME,\n"
		"                       else this host's)\n"
		"  -o, --output FORMAT  human (default), table / wide / name (the\n"
		"                       findings), json / yaml (summary and findings)\n"
		"  --no-headers         no header line in table and wide output\n"
		"  -q, --quiet          human output without the info findings\n\n"
		"exit status: 0 no errors (warnings, e.g. a torn last entry after a\n"
		"crash, may be printed), 4 errors found (after --repair: errors\n"
		"left), 8 the check or the repair could not run, 16 usage error.\n");
}

struct fsck_out {
	enum cli_output out;
	bool quiet;
	struct json_object *findings;
};

static void on_finding(void *arg, enum famfs_fsck_severity sev, const char *check,
		       const char *msg)
{
	static const char *const names[] = { "info", "warning", "error" };
	struct fsck_out *o = arg;

	if (o->out != CLI_OUT_HUMAN) {
		struct json_object *f = json_object_new_object();

		json_object_object_add(f, "severity", json_object_new_string(names[sev]));
		json_object_object_add(f, "check", json_object_new_string(check));
		json_object_object_add(f, "message", json_object_new_string(msg));
		json_object_array_add(o->findings, f);
	} else if (!o->quiet || sev != FAMFS_FSCK_INFO) {
		printf("%s: %s: %s\n", names[sev], check, msg);
	}
}

static void print_dropped(void *arg, uint64_t seq, const char *path,
			  uint16_t len)
{
	(void)arg;
	printf("repair: drops seq %llu: %.*s\n", (unsigned long long)seq,
	       (int)len, path);
}

/* End a corrupt log at its last good entry; 0 or FSCK_EXIT_FAILED. */
static int repair(const struct cli_devices *devs, const char *host)
{
	struct famfs_log_status before, after;
	struct famfs_err e = { 0 };
	struct famfs_fs *fs = cli_open_fs("fsck", devs, FAMFS_OPEN_MASTER, host);

	if (!fs)
		return FSCK_EXIT_FAILED;
	famfs_log_status(fs, &before);
	if (before.tail_state == FAMFS_TAIL_CORRUPT)
		printf("repair: drops committed seq %llu..%llu (%s)\n",
		       (unsigned long long)before.corrupt_first,
		       (unsigned long long)before.corrupt_last,
		       before.tail_reason);
	else if (before.tail_state == FAMFS_TAIL_TORN)
		printf("repair: clears a torn append (%s)\n", before.tail_reason);
	if (famfs_log_repair(fs, print_dropped, NULL, &before, &e)) {
		cli_error("fsck", "repair: %s", e.msg);
		famfs_close(fs);
		return FSCK_EXIT_FAILED;
	}
	famfs_log_status(fs, &after);
	printf("repair: the log ends at seq %llu (%llu entries); re-run the "
	       "dataset's apply or ingest to copy dropped files again\n",
	       (unsigned long long)after.last_seq,
	       (unsigned long long)after.entries);
	famfs_close(fs);
	return 0;
}

int cmd_fsck(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-headers", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "repair", no_argument, NULL, 'R' },
		{ "host-name", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct cli_table table = { "finding", "check",
		(const char *const[]){ "SEVERITY=severity", "CHECK=check",
				       "MESSAGE=message" }, 3 };
	struct fsck_out o = { 0 };
	struct cli_view view = { 0 };
	struct famfs_fsck_result res;
	struct famfs_err e = { 0 };
	const char *host = NULL;
	bool do_repair = false;
	int c, r, rc;

	while ((c = getopt_long(argc, argv, "o:qH:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (cli_parse_output("fsck", optarg, CLI_OUT(HUMAN) |
					     CLI_OUTS_READ, &o.out)) {
				cli_usage_error("fsck", fsck_usage);
				return FSCK_EXIT_USAGE;
			}
			break;
		case 'N': view.no_headers = true; break;
		case 'q': o.quiet = true; break;
		case 'R': do_repair = true; break;
		case 'H': host = optarg; break;
		case 'h': fsck_usage(stdout); return FSCK_EXIT_CLEAN;
		default: cli_usage_error("fsck", fsck_usage); return FSCK_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_error("fsck", "no device or mountpoint given");
		cli_usage_error("fsck", fsck_usage);
		return FSCK_EXIT_USAGE;
	}
	struct cli_devices devs = { 0 };
	struct json_object *keep = NULL;
	struct stat st;

	/* a mountpoint: check the devices the FUSE server has open */
	if (argc - optind == 1 && stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode)) {
		if (do_repair) {
			cli_error("fsck", "--repair works offline on the master's "
				  "devices, not on mountpoint %s: unmount it "
				  "everywhere and name the devices", argv[optind]);
			return FSCK_EXIT_USAGE;
		}
		if (cli_mount_devices("fsck", argv[optind], &devs, &keep))
			return FSCK_EXIT_FAILED;
	} else {
		for (int i = optind; i < argc; i++)
			if (cli_devices_add("fsck", &devs, argv[i]))
				return FSCK_EXIT_USAGE;
	}
	if (do_repair && (rc = repair(&devs, host)))
		return rc;
	o.findings = json_object_new_array();
	r = famfs_fsck(devs.paths, devs.n, on_finding, &o, &res, &e);
	json_object_put(keep);
	rc = r ? FSCK_EXIT_FAILED : res.errors ? FSCK_EXIT_ERRORS : FSCK_EXIT_CLEAN;
	if (o.out != CLI_OUT_HUMAN) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "clean", json_object_new_boolean(rc == 0));
		json_object_object_add(j, "errors", json_object_new_int((int)res.errors));
		json_object_object_add(j, "warnings", json_object_new_int((int)res.warnings));
		json_object_object_add(j, "entries", json_object_new_uint64(res.entries));
		json_object_object_add(j, "files", json_object_new_uint64(res.files));
		json_object_object_add(j, "directories", json_object_new_uint64(res.dirs));
		json_object_object_add(j, "findings", o.findings);
		view.out = o.out;
		cli_print(&view, j, o.findings, &table);
		json_object_put(j);
	} else {
		json_object_put(o.findings);
		printf("%s: %u error(s), %u warning(s)\n",
		       rc == FSCK_EXIT_CLEAN ? "clean" : "NOT CLEAN", res.errors,
		       res.warnings);
	}
	return rc;
}
