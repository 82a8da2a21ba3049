-- kbisect schema, version 10: several hosts (docs/guests.md, "Several
-- hosts").  The boots of an experiment are spread over its matrix's
-- hosts; a host that fails boots for reasons of its own (libvirt lost,
-- a domain refused) is drained, and those failures are kept here, apart
-- from the boots: they are never a variant's boot, which runs again on
-- a host that works.  Also the time builds and boots ran at once.

CREATE TABLE host_events (
    -- what happened to a host during an experiment, beside its boots
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL
        REFERENCES experiments(id) ON DELETE CASCADE,
    host TEXT NOT NULL,          -- the libvirt URI, as the matrix names it
    kind TEXT NOT NULL
        CHECK (kind IN ('failure', 'drained')),
        -- failure: a boot that failed for the host's reasons (not
        -- stored as a boot, run again); drained: the host was taken
        -- out after failures in a row, its boots moved to the others
    variant_idx INTEGER,         -- failure: the boot's variant, else NULL
    boot_no INTEGER,             -- failure: its number, else NULL
    reason TEXT,                 -- the failure, or the last one of a drain
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX host_events_experiment ON host_events(experiment_id, host);

ALTER TABLE experiments ADD COLUMN overlap_s REAL;
    -- seconds during which a kernel build and a boot ran at once, summed
    -- over the runs of the experiment (run, resume, the daemon); NULL
    -- when never measured

ALTER TABLE jobs ADD COLUMN assigned_host TEXT;
    -- boots: the host the experiment's spread gives the job (NULL: any
    -- host of its matrix); moved when that host is drained

-- The boot means read each ok boot's host too (the host is a block of
-- the analysis: docs/analysis.md): the index of db/0008 gets it, so
-- that it still covers the boots side of that read.
DROP INDEX boots_variant_status;
CREATE INDEX boots_variant_status ON boots(variant_id, status, boot_no, host);
