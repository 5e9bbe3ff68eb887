-- famfsd state, schema version 2: the CXL regions famfsd created
-- (POST /v1/regions). The device famfs uses on a region (its fsdax
-- namespace) is the devices row of the same name; a device that is a
-- region's cannot be deleted on its own (ON DELETE RESTRICT).

CREATE TABLE regions (
	name        TEXT PRIMARY KEY REFERENCES devices(name) ON DELETE RESTRICT,
	provider    TEXT NOT NULL,
	kernel_name TEXT NOT NULL UNIQUE,    -- regionN, as `cxl list -R` names it
	memdevs     TEXT NOT NULL,           -- JSON array, as requested
	ways        INTEGER NOT NULL CHECK (ways >= 1),
	granularity INTEGER NOT NULL CHECK (granularity >= 0),  -- 0: root's
	created     INTEGER NOT NULL
) STRICT;
