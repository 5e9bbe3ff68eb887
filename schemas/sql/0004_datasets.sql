-- famfsd state, schema version 4: datasets (GET /v1/datasets). An ingest
-- job given params.dataset records here what it ingested: the source
-- summary (the sorted list of (path, type, size, mtime, mode, link
-- target), packed as ingest/source_summary.h says, with its counts and
-- digest), so that a changed source is seen (docs/cluster-yaml.md), and
-- one row per generation it made. A dataset goes with its filesystem.

CREATE TABLE datasets (
	name        TEXT PRIMARY KEY,
	filesystem  TEXT NOT NULL REFERENCES filesystems(name) ON DELETE CASCADE,
	source      TEXT NOT NULL,
	dest        TEXT NOT NULL,
	generation  INTEGER NOT NULL DEFAULT 0 CHECK (generation >= 0), -- serving; 0: none yet
	state       TEXT NOT NULL CHECK (state IN
	            ('ingesting', 'refreshing', 'ready', 'failed')),
	job         INTEGER NOT NULL DEFAULT 0,   -- the job that made the serving generation
	keep        INTEGER NOT NULL DEFAULT 1 CHECK (keep >= 0),
	chunk       INTEGER NOT NULL DEFAULT 0,   -- 0: policy default
	strips      INTEGER NOT NULL DEFAULT 0,
	files       INTEGER NOT NULL DEFAULT 0,   -- regular files of the summary
	dirs        INTEGER NOT NULL DEFAULT 0,
	symlinks    INTEGER NOT NULL DEFAULT 0,
	bytes       INTEGER NOT NULL DEFAULT 0,
	digest      TEXT NOT NULL DEFAULT '',
	entries     BLOB,                         -- the packed list; NULL: none yet
	refreshed   INTEGER,                      -- unix seconds: the last success
	duration_ms INTEGER NOT NULL DEFAULT 0,   -- of that ingest
	failures    INTEGER NOT NULL DEFAULT 0,   -- ingests that failed, ever
	last_error  TEXT NOT NULL DEFAULT '',     -- of the last one, '' after a success
	created     INTEGER NOT NULL
) STRICT;

CREATE TABLE dataset_generations (
	dataset     TEXT NOT NULL REFERENCES datasets(name) ON DELETE CASCADE,
	generation  INTEGER NOT NULL CHECK (generation >= 1),
	path        TEXT NOT NULL,                -- its tree in the filesystem
	state       TEXT NOT NULL CHECK (state IN ('serving', 'kept', 'removed')),
	job         INTEGER NOT NULL,
	files       INTEGER NOT NULL,
	bytes       INTEGER NOT NULL,
	digest      TEXT NOT NULL,
	created     INTEGER NOT NULL,
	PRIMARY KEY (dataset, generation)
) STRICT;
