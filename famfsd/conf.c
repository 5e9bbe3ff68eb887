// SPDX-License-Identifier: Apache-2.0
/*
 * The current configuration snapshot (famfsd.h): swapped as one pointer
 * by SIGHUP, read through a reference by request threads. conf_lock
 * covers only the pointer load and the reference taken on it, so that a
 * swap cannot free a snapshot between the two.
 */
#include <stdlib.h>

#include "famfsd.h"

static struct famfsd_conf *current;
static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;

const struct famfsd_conf *famfsd_conf(void)
{
	return current;
}

struct famfsd_conf *conf_get(void)
{
	struct famfsd_conf *c;

	pthread_mutex_lock(&conf_lock);
	c = current;
	atomic_fetch_add(&c->refs, 1);
	pthread_mutex_unlock(&conf_lock);
	return c;
}

void conf_put(struct famfsd_conf *c)
{
	if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
		config_free(&c->cfg);
		free(c);
	}
}

void conf_publish(struct famfsd_conf *c)
{
	struct famfsd_conf *old;

	pthread_mutex_lock(&conf_lock);
	old = current;
	current = c;
	pthread_mutex_unlock(&conf_lock);
	conf_put(old);
}
