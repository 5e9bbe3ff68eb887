-- famfsd state, schema version 1. Applied by famfsd at start inside one
-- transaction, after which PRAGMA user_version = 1. Never edit a released
-- migration: add 0002_*.sql instead.

CREATE TABLE kv (                -- host identity and policy defaults
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE devices (
	name      TEXT PRIMARY KEY,
	uuid      TEXT NOT NULL UNIQUE,
	provider  TEXT NOT NULL,
	path      TEXT NOT NULL UNIQUE,
	size      INTEGER NOT NULL CHECK (size >= 0),
	state     TEXT NOT NULL CHECK (state IN ('online', 'missing', 'unusable')),
	reason    TEXT NOT NULL DEFAULT '',
	details   TEXT NOT NULL DEFAULT '{}',   -- provider JSON
	created   INTEGER NOT NULL,             -- unix seconds
	seen      INTEGER NOT NULL
) STRICT;

CREATE TABLE interleave_sets (
	name    TEXT PRIMARY KEY,
	chunk   INTEGER NOT NULL CHECK (chunk > 0 AND chunk % 2097152 = 0),
	strips  INTEGER NOT NULL CHECK (strips >= 1 AND strips <= 64),
	created INTEGER NOT NULL
) STRICT;

CREATE TABLE set_devices (
	set_name TEXT NOT NULL REFERENCES interleave_sets(name) ON DELETE CASCADE,
	device   TEXT NOT NULL UNIQUE REFERENCES devices(name) ON DELETE RESTRICT,
	idx      INTEGER NOT NULL,
	PRIMARY KEY (set_name, idx)
) STRICT;

CREATE TABLE filesystems (
	name     TEXT PRIMARY KEY,
	set_name TEXT NOT NULL UNIQUE REFERENCES interleave_sets(name) ON DELETE RESTRICT,
	uuid     TEXT NOT NULL,
	log_size INTEGER NOT NULL,
	master   TEXT NOT NULL,
	state    TEXT NOT NULL CHECK (state IN ('formatted', 'adopted')),
	created  INTEGER NOT NULL
) STRICT;

CREATE TABLE mounts (
	name       TEXT PRIMARY KEY,
	filesystem TEXT NOT NULL REFERENCES filesystems(name) ON DELETE RESTRICT,
	path       TEXT NOT NULL UNIQUE,
	role       TEXT NOT NULL CHECK (role IN ('master', 'client')),
	backend    TEXT NOT NULL DEFAULT 'fuse',
	options    TEXT NOT NULL DEFAULT '',
	desired    TEXT NOT NULL CHECK (desired IN ('mounted', 'unmounted')),
	state      TEXT NOT NULL,
	pid        INTEGER NOT NULL DEFAULT 0,
	restarts   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT NOT NULL DEFAULT '',
	since      INTEGER NOT NULL,
	created    INTEGER NOT NULL
) STRICT;
-- At most one master mount per filesystem on this host.
CREATE UNIQUE INDEX mounts_one_master ON mounts(filesystem) WHERE role = 'master';

CREATE TABLE jobs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	kind        TEXT NOT NULL,
	state       TEXT NOT NULL CHECK (state IN
	            ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
	params      TEXT NOT NULL DEFAULT '{}',
	bytes_done  INTEGER NOT NULL DEFAULT 0,
	bytes_total INTEGER NOT NULL DEFAULT 0,
	files_done  INTEGER NOT NULL DEFAULT 0,
	files_total INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT '',
	created     INTEGER NOT NULL,
	started     INTEGER,
	finished    INTEGER
) STRICT;
CREATE INDEX jobs_state ON jobs(state);

CREATE TABLE events (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	time     INTEGER NOT NULL,
	level    TEXT NOT NULL,
	resource TEXT NOT NULL,
	message  TEXT NOT NULL
) STRICT;

CREATE TABLE audit (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	time       INTEGER NOT NULL,
	who        TEXT NOT NULL,
	method     TEXT NOT NULL,
	path       TEXT NOT NULL,
	body       TEXT NOT NULL DEFAULT '',   -- request body, cut at 4 KiB
	status     INTEGER NOT NULL,
	error_code TEXT NOT NULL DEFAULT ''
) STRICT;
