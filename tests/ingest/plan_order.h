/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's layout against a one-thread depth-first walk (plan_order.c). */
#ifndef FAMFS_TEST_PLAN_ORDER_H
#define FAMFS_TEST_PLAN_ORDER_H

/* cmocka test; its prestate points at the source tree's path (a const char *). */
void ingest_plan_is_the_depth_first_walk(void **state);

#endif
