-- famfsd state, schema version 5: holds (docs/api.md, "Holds"). A hold
-- pins one generation of a dataset on this host for an owner (a Slurm job
-- "slurm:<jobid>", or any caller's string) until the owner releases it or
-- the reaper finds the owner gone; its pin is a read-only bind mount of
-- the generation's tree at `path`, made from the mount `mount`. A held
-- generation is never removed. Rows survive a famfsd restart: the pins
-- are made again from them.

CREATE TABLE holds (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	dataset     TEXT NOT NULL REFERENCES datasets(name) ON DELETE CASCADE,
	generation  INTEGER NOT NULL CHECK (generation >= 1),
	owner       TEXT NOT NULL,
	note        TEXT NOT NULL DEFAULT '',
	path        TEXT NOT NULL,                -- the pin: <holds.pin_dir>/<dataset>/<generation>
	mount       TEXT NOT NULL,                -- the mount the pin was made from
	created     INTEGER NOT NULL,             -- unix seconds
	UNIQUE (dataset, owner)                   -- an owner holds a dataset once
) STRICT;
CREATE INDEX holds_owner ON holds(owner);

-- When a generation stopped serving (a counter per famfsd, larger is
-- later): the newest `keep` of them stay. Ordered by this, not by
-- generation number, so that after a `rollout undo` the generation that
-- just stopped serving is kept and an older-serving one expires first.
ALTER TABLE dataset_generations ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
UPDATE dataset_generations SET retired = generation WHERE state = 'kept';
