/* SPDX-License-Identifier: Apache-2.0 */
#ifndef FAMFS_INGEST_SINK_MOUNT_H
#define FAMFS_INGEST_SINK_MOUNT_H

#include "ingest.h"

/* Ingest through a famfs-fused master mount at @mountpoint (@ndev devices). */
int ingest_sink_mount_open(struct ingest_sink *k, const char *mountpoint,
			   unsigned ndev);
void ingest_sink_mount_close(struct ingest_sink *k);

#endif
