/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by famfs-cli's command files: exit codes and small helpers. */
#ifndef FAMFS_CLI_H
#define FAMFS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Every command of the product, weak so that the table in main.c may name
 * commands whose file is not linked in yet.
 */
#define CMD(name) int cmd_##name(int argc, char **argv) __attribute__((weak))
CMD(mkfs); CMD(fsck); CMD(log); CMD(getmap); CMD(create); CMD(mkdir);
CMD(rm); CMD(ls); CMD(cat); CMD(mkemul); CMD(clients); CMD(mount);
CMD(umount); CMD(validate); CMD(diff); CMD(apply); CMD(get); CMD(describe);
CMD(ingest); CMD(job); CMD(adddev); CMD(ln); CMD(rollout); CMD(release);
#undef CMD

/* Exit codes common to all commands (fsck and diff document their own). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* Output formats; a command accepts a set of them (CLI_OUT(JSON) | ...). */
enum cli_output {
	CLI_OUT_HUMAN = 0,	/* a command's own text (offline commands) */
	CLI_OUT_TABLE,
	CLI_OUT_WIDE,		/* the table with more columns */
	CLI_OUT_NAME,		/* one KIND/NAME a line */
	CLI_OUT_JSON,
	CLI_OUT_YAML,
	CLI_OUT_COUNT
};
#define CLI_OUT(f) (1u << CLI_OUT_##f)
/* what every read command offers */
#define CLI_OUTS_READ (CLI_OUT(TABLE) | CLI_OUT(WIDE) | CLI_OUT(NAME) | \
		       CLI_OUT(JSON) | CLI_OUT(YAML))

/* How a read command prints: -o and --no-headers. */
struct cli_view {
	enum cli_output out;
	bool no_headers;
};

/*
 * cli_parse_output() - the -o value @arg among the formats @valid (a mask
 * of CLI_OUT()). Returns 0 and *@out, or -1 after an error naming @arg and
 * the valid formats (the caller exits with its usage code).
 */
int cli_parse_output(const char *cmd, const char *arg, unsigned valid,
		     enum cli_output *out);

/* What a list looks like as a table (cli_output.c). */
struct cli_table {
	const char *kind;	/* -o name prints KIND/NAME; NULL: NAME only */
	const char *name_key;	/* the NAME of an item; NULL: "name" */
	const char *const *cols; /* "HEADER=key.path" (see famfs_print_table);
				  * "+HEADER=key" only with -o wide */
	int ncols;
};

/*
 * cli_print() - print a read command's answer as @v asks: @obj as JSON or
 * YAML, @items (an array of objects; NULL: @obj as the only row) as a
 * table, wide table or names, per @t. CLI_OUT_HUMAN prints the table (the
 * commands with their own human text handle it before).
 */
struct json_object;
void cli_print(const struct cli_view *v, struct json_object *obj,
	       struct json_object *items, const struct cli_table *t);

/*
 * cli_usage_error() - the short usage after a usage error: the synopsis
 * (the help text up to its first blank line) and "see 'famfs-cli CMD
 * --help'", on stderr. The caller exits with its usage code.
 */
void cli_usage_error(const char *cmd, void (*usage)(FILE *f));
void cli_usage_error_text(const char *cmd, const char *usage);

/*
 * cli_parse_uint() - the value of numeric option @opt ("--evict"): decimal
 * digits only, at most @max. Returns 0 and *@out, or -1 after an error
 * naming @cmd, @opt and @arg (the caller exits CLI_EXIT_USAGE).
 */
int cli_parse_uint(const char *cmd, const char *opt, const char *arg,
		   uint64_t max, uint64_t *out);
int cli_parse_u32(const char *cmd, const char *opt, const char *arg,
		  uint32_t max, uint32_t *out);

/* Print "famfs-cli <cmd>: <msg>" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));



/* ---- offline commands: devices given with -d/--device ------------------ */
#include "famfs.h"

struct cli_devices {
	const char *paths[FAMFS_MAX_DEVICES];
	unsigned n;
};

/* Add one -d argument; returns -1 (after printing) when there are too many. */
int cli_devices_add(const char *cmd, struct cli_devices *d, const char *path);

/*
 * Open the filesystem on @d: FAMFS_OPEN_MASTER for commands that change it.
 * The host identity comes from --host-name or $FAMFS_HOST_NAME (so that
 * tests can stand several hosts on one machine), else the hostname.
 * Prints the error and returns NULL on failure.
 */
struct famfs_fs *cli_open_fs(const char *cmd, const struct cli_devices *d,
			     unsigned flags, const char *host_name);

#include <json-c/json.h>
#include "famfs_cleanup.h"
/* A JSON object dropped (json_object_put()) when it goes out of scope. */
DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put)
#define _cleanup_json_put_ _cleanup_(json_object_putp)
/* A file map as getmap's JSON "map" object (device paths from @fs, or
 * "dev<N>" when @fs is NULL).
 */
struct json_object *cli_map_json(struct famfs_fs *fs, const struct famfs_fmap *m);
/* Parse an octal mode; -1 on a bad one. */
long cli_parse_mode(const char *s);

/* A famfs mount's xattr parsed as JSON, or NULL (cli_mount.c). */
struct json_object *cli_mount_xattr_json(const char *path, const char *name);
/* The devices behind mount @mnt; *keep owns the strings (json_object_put). */
int cli_mount_devices(const char *cmd, const char *mnt, struct cli_devices *d,
		      struct json_object **keep);

/* Follow famfsd job @id with a progress view until it ends (cmd_job.c);
 * returns the exit code its end state means.
 */
struct famfs_client;
int cli_job_wait(struct famfs_client *cl, int64_t id, const char *label);

/*
 * Parse the options of a command that takes only -d DEV, -H NAME and -h;
 * the operands start at optind. Returns 0, 1 after --help (exit 0), or -1
 * after a usage error was printed (exit CLI_EXIT_USAGE).
 */
int cli_parse_device_args(const char *cmd, int argc, char **argv,
			  struct cli_devices *d, const char **host,
			  void (*usage)(FILE *f));

/* getopt_long pieces shared by the offline commands */
#define CLI_DEVICE_OPTIONS \
	{ "device", required_argument, NULL, 'd' }, \
	{ "host-name", required_argument, NULL, 'H' }, \
	{ "help", no_argument, NULL, 'h' }
#endif
