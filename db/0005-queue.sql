-- kbisect schema: the daemon's queue (kbisectd, docs/daemon.md).  The jobs
-- table of 0002 holds one build job per distinct build key and one boot
-- job per variant and boot number of a submitted experiment; this adds
-- what the daemon needs to schedule them, to say where each runs and to
-- estimate how long the rest will take.

ALTER TABLE jobs ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    -- order within the experiment: builds in build order, boots round
    -- by round (every variant's boot 1, then boot 2, ...)
ALTER TABLE jobs ADD COLUMN host TEXT;
    -- the libvirt URI a boot job runs on while leased or once done
ALTER TABLE jobs ADD COLUMN started_at TEXT;
    -- when the current (or last) lease was taken
ALTER TABLE jobs ADD COLUMN duration_s REAL;
    -- wall-clock seconds the step took, once done: the ETA is made of
    -- these

ALTER TABLE experiments ADD COLUMN cancel_requested INTEGER NOT NULL
    DEFAULT 0;
    -- 1 once `kbisect cancel` asked: no new step starts, and the state
    -- becomes 'cancelled' when the steps running then have ended

CREATE INDEX jobs_queue ON jobs(experiment_id, kind, state, seq);

-- The queue with readable names: one row per job.
CREATE VIEW v_jobs AS
SELECT j.id AS job_id,
       j.experiment_id AS experiment_id,
       j.kind AS kind,
       v.idx AS variant_idx,
       v.label AS variant,
       j.boot_no AS boot_no,
       j.state AS state,
       j.host AS host,
       j.lease_owner AS lease_owner,
       j.lease_expires_at AS lease_expires_at,
       j.attempts AS attempts,
       j.duration_s AS duration_s,
       j.error AS error
FROM jobs j
LEFT JOIN variants v ON v.id = j.variant_id
ORDER BY j.experiment_id, j.kind DESC, j.seq;
