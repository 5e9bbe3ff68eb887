/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the user and the operator wrote: the value of --famfs-dataset and
 * the plugin's arguments in plugstack.conf. No Slurm and no famfsd here,
 * so the unit test (tests/slurm/test_options.c) runs without either.
 */
#ifndef FAMFS_SLURM_OPTIONS_H
#define FAMFS_SLURM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* famfsd's dataset names: [A-Za-z0-9][A-Za-z0-9._-]{0,62} */
#define FS_DATASET_NAME_MAX 63
/* a job asks for at most this many datasets */
#define FS_DATASETS_MAX 16
/* "FAMFS_DATASET_" + name + NUL, and with "_GENERATION" */
#define FS_ENV_PATH_MAX (14 + FS_DATASET_NAME_MAX + 1)
#define FS_ENV_GENERATION_MAX (FS_ENV_PATH_MAX + 11)

#define FS_DEFAULT_SOCKET "/run/famfsd/famfsd.sock"
#define FS_DEFAULT_TIMEOUT 60
/* famfsd's limit of a hold's timeout_seconds (docs/api.md, "Holds") */
#define FS_TIMEOUT_MAX 3600

struct fs_dataset {
	char name[FS_DATASET_NAME_MAX + 1];
	/* FAMFS_DATASET_<name with '.' and '-' as '_'> */
	char env_path[FS_ENV_PATH_MAX];
	/* env_path + "_GENERATION" */
	char env_generation[FS_ENV_GENERATION_MAX];
};

struct fs_dataset_list {
	int count;
	struct fs_dataset items[FS_DATASETS_MAX];
};

struct fs_plugin_args {
	char socket[108];	/* sun_path's size */
	int timeout;		/* seconds */
};

/*
 * fs_dataset_list_parse() - parse "NAME[,NAME...]" into @list. A name
 * given twice counts once. Returns 0, or -EINVAL with @why (of @why_len
 * bytes) saying what is wrong and naming the offending name: an empty
 * name, a bad character, too long, too many, or two names that map to
 * the same variable ("a-b" and "a_b"). @list is unchanged on error.
 */
int fs_dataset_list_parse(const char *value, struct fs_dataset_list *list,
			  char *why, size_t why_len);

/*
 * fs_plugin_args_parse() - the plugstack.conf arguments socket=PATH and
 * timeout=SECONDS; absent ones keep their defaults (FS_DEFAULT_*).
 * Returns 0, or -EINVAL with @why naming the argument.
 */
int fs_plugin_args_parse(int argc, char **argv, struct fs_plugin_args *args,
			 char *why, size_t why_len);

/* fs_dataset_name_valid() - whether @name is a famfsd dataset name. */
bool fs_dataset_name_valid(const char *name);

#endif
