/* SPDX-License-Identifier: Apache-2.0 */
#ifndef FAMFSD_MIGRATIONS_H
#define FAMFSD_MIGRATIONS_H

struct store_migration {
	int version;          /* becomes PRAGMA user_version */
	const char *name;     /* file name in schemas/sql/ */
	const char *sql;
};

extern const struct store_migration store_migrations[];
extern const int store_nmigrations;

#endif
