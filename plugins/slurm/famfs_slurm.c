// SPDX-License-Identifier: Apache-2.0
/*
 * famfs_slurm.so, a SPANK plugin (docs/slurm.md): --famfs-dataset=NAME[,...]
 * for srun, sbatch and salloc. In slurmstepd, before the tasks start, each
 * dataset is held for the job through the node's famfsd and its pinned
 * path exported as FAMFS_DATASET_<NAME>; the job epilog releases the
 * job's holds on every node it ran on.
 *
 * Where each part runs, and why there:
 * - the holds are taken in slurm_spank_init_post_opt(): in slurmstepd, as
 *   root (famfsd gives write access to root), before the step's
 *   environment is copied into the tasks;
 * - a failure is reported from slurm_spank_task_init_privileged(), in the
 *   forked task before it execs: a step that fails inside slurmstepd
 *   itself (init_post_opt or user_init returning an error) makes
 *   slurmctld drain the node for a batch job ("batch job complete
 *   failure"), and slurmstepd adds lines of its own. Here the task writes
 *   the one line to the job's stderr and exits 1; the user's program
 *   never runs;
 * - the release is slurm_spank_job_epilog(), which slurmd runs when the
 *   job ends on the node, however it ended (docs/slurm.md, "Release").
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "famfsd_holds.h"
#include "options.h"

SPANK_PLUGIN(famfs_slurm, 1);

#define LOG_PREFIX "famfs-slurm"

/* What this process read: the plugin's arguments, the user's option. */
static struct fs_plugin_args plugin_args;
static struct fs_dataset_list datasets;
/* Set when the step's holds failed: the line its task 0 writes. */
static char step_failure[1024];

static int opt_famfs_dataset(int val, const char *optarg, int remote);

static struct spank_option famfs_dataset_option = {
	"famfs-dataset", "NAME[,NAME...]",
	"Hold famfs dataset NAME on each node for the job; its path is "
	"$FAMFS_DATASET_<NAME> ('.' and '-' as '_') (docs/slurm.md)",
	1, 0, opt_famfs_dataset,
};

static int opt_famfs_dataset(int val, const char *optarg, int remote)
{
	char why[256];

	(void)val;
	(void)remote;
	if (fs_dataset_list_parse(optarg, &datasets, why, sizeof(why)) < 0) {
		slurm_error("%s: %s", LOG_PREFIX, why);
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	char why[256];
	spank_err_t rc;

	if (fs_plugin_args_parse(ac, av, &plugin_args, why, sizeof(why)) < 0) {
		slurm_error("%s: %s", LOG_PREFIX, why);
		return -1;
	}
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR)
		return 0;
	rc = spank_option_register(sp, &famfs_dataset_option);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("%s: cannot register --famfs-dataset: %s",
			    LOG_PREFIX, spank_strerror(rc));
		return -1;
	}
	return 0;
}

/* The hold's note: which step on which node asked for it. */
static void step_note(uint32_t step, const char *host, char *note, size_t len)
{
	/* slurm.h's SLURM_BATCH_SCRIPT and SLURM_INTERACTIVE_STEP */
	if (step == 0xfffffffb)
		snprintf(note, len, "batch step on %s", host);
	else if (step == 0xfffffffa)
		snprintf(note, len, "interactive step on %s", host);
	else
		snprintf(note, len, "step %u on %s", step, host);
}

/* Gives back the holds that this step took (not those of earlier steps). */
static void release_taken(const struct fs_hold *holds, int n, const char *owner)
{
	char why[512];

	for (int i = 0; i < n; i++) {
		if (!holds[i].created)
			continue;
		if (fs_hold_release(plugin_args.socket, datasets.items[i].name,
				    owner, why, sizeof(why)) < 0)
			slurm_error("%s: %s: dataset '%s' stays held until the job epilog: %s",
				    LOG_PREFIX, owner, datasets.items[i].name, why);
	}
}

static int export_holds(spank_t sp, const struct fs_hold *holds)
{
	char gen[32];

	for (int i = 0; i < datasets.count; i++) {
		const struct fs_dataset *d = &datasets.items[i];

		snprintf(gen, sizeof(gen), "%lld", holds[i].generation);
		if (spank_setenv(sp, d->env_path, holds[i].path, 1) != ESPANK_SUCCESS ||
		    spank_setenv(sp, d->env_generation, gen, 1) != ESPANK_SUCCESS)
			return -1;
	}
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	struct fs_hold holds[FS_DATASETS_MAX];
	char owner[64], note[128], host[HOST_NAME_MAX + 1], why[768];
	uint32_t job = 0, step = 0;
	int i;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || datasets.count == 0)
		return 0;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
		snprintf(step_failure, sizeof(step_failure),
			 "%s: no job id in slurmstepd: datasets not held", LOG_PREFIX);
		return 0;
	}
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "this node");
	host[sizeof(host) - 1] = 0;
	snprintf(owner, sizeof(owner), "slurm:%u", job);
	step_note(step, host, note, sizeof(note));
	for (i = 0; i < datasets.count; i++) {
		const char *name = datasets.items[i].name;

		if (fs_hold_take(plugin_args.socket, name, owner, note,
				 plugin_args.timeout, &holds[i], why, sizeof(why)) < 0) {
			snprintf(step_failure, sizeof(step_failure),
				 "%s: dataset '%s' not held on %s: %s",
				 LOG_PREFIX, name, host, why);
			break;
		}
		slurm_verbose("%s: %s: dataset '%s' generation %lld at %s (%s)",
			      LOG_PREFIX, owner, name, holds[i].generation,
			      holds[i].path, holds[i].created ? "new hold" : "held by the job already");
	}
	if (i == datasets.count && export_holds(sp, holds) < 0)
		snprintf(step_failure, sizeof(step_failure),
			 "%s: cannot set the FAMFS_DATASET_ variables on %s",
			 LOG_PREFIX, host);
	if (step_failure[0]) {
		/* nothing of this step stays held */
		release_taken(holds, i, owner);
		slurm_info("%s", step_failure);
	}
	return 0;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	int task = -1;

	(void)ac;
	(void)av;
	if (!step_failure[0])
		return 0;
	/* one line for the step on this node, from its first task */
	if (spank_get_item(sp, S_TASK_ID, &task) == ESPANK_SUCCESS && task == 0)
		dprintf(STDERR_FILENO, "%s\n", step_failure);
	_exit(1);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	char owner[64], why[512];
	uint32_t job = 0;
	long released = 0;
	int r;

	/* slurm_spank_init() does not run before the job epilog */
	if (fs_plugin_args_parse(ac, av, &plugin_args, why, sizeof(why)) < 0) {
		slurm_error("%s: %s", LOG_PREFIX, why);
		return 0;
	}
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) {
		slurm_error("%s: job epilog without a job id: holds not released",
			    LOG_PREFIX);
		return 0;
	}
	snprintf(owner, sizeof(owner), "slurm:%u", job);
	r = fs_holds_release_owner(plugin_args.socket, owner, &released, why,
				   sizeof(why));
	/*
	 * Never an error to slurmd: a failed epilog drains the node. A hold
	 * left behind is famfsd's owner check's to reap (docs/slurm.md).
	 */
	if (r == -ENOENT)
		slurm_debug("%s: %s: no famfsd here: %s", LOG_PREFIX, owner, why);
	else if (r < 0)
		slurm_error("%s: %s: holds not released (the owner check reaps them): %s",
			    LOG_PREFIX, owner, why);
	else if (released)
		slurm_info("%s: %s: released %ld hold(s)", LOG_PREFIX, owner,
			   released);
	return 0;
}
