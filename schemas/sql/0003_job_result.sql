-- famfsd state, schema version 3: what a finished job reports beyond its
-- progress (a JSON object, e.g. an ingest's counts and the paths it
-- skipped); GET /v1/jobs shows it as "result".

ALTER TABLE jobs ADD COLUMN result TEXT NOT NULL DEFAULT '{}';
