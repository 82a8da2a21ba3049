-- kbisect schema, version 6: who runs an experiment, and the state
-- 'interrupted'.  An experiment `kbisect run` (or `bisect`, `test`,
-- `resume`) runs in its own process records that process: host, pid, its
-- start time and the machine's boot id, so that a later kbisect can tell
-- a process that was killed from one that still runs, whatever pid it
-- had.  A run stopped by a signal, or found with its process gone, is
-- 'interrupted' and `kbisect resume` carries it on.  The daemon's
-- experiments have jobs and no owner: kbisectd resumes them itself.
--
-- A CHECK constraint cannot be changed in place: the table is rebuilt
-- (foreign keys are off while migrations run, so nothing cascades), and
-- the two views that name it are dropped first and made again after.

DROP VIEW v_variant_summary;
DROP VIEW v_history;

CREATE TABLE experiments_new (
    -- one submitted matrix and everything measured for it
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,          -- the matrix's name
    matrix_path TEXT,            -- where the matrix file was read from
    matrix_yaml TEXT NOT NULL,   -- the matrix YAML exactly as submitted
    model_yaml TEXT,             -- performance model YAML, NULL for real runs
    executor TEXT,               -- what ran it: 'model' or 'libvirt'
    design TEXT,                 -- 'full', 'one-at-a-time', 'fractional'
    generators TEXT,             -- generators of a fractional design
    metric TEXT,                 -- the metric verdicts are about
    boots INTEGER NOT NULL DEFAULT 1,         -- boots planned per variant
    runs_per_boot INTEGER NOT NULL DEFAULT 1, -- workload runs per boot
    state TEXT NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'running', 'done', 'failed',
                         'cancelled', 'interrupted')),
    error TEXT,                  -- why it failed or was interrupted
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    finished_at TEXT,            -- when it stopped; NULL until then
    cancel_requested INTEGER NOT NULL DEFAULT 0,
        -- 1 once `kbisect cancel` asked (db/0005)
    owner_host TEXT,             -- the host of the process running it;
                                 -- NULL for the daemon's experiments
    owner_pid INTEGER,           -- that process's pid
    owner_start INTEGER,         -- its start time, field 22 of
                                 -- /proc/PID/stat (clock ticks after boot)
    owner_boot TEXT              -- the host's boot id then
                                 -- (/proc/sys/kernel/random/boot_id)
);

INSERT INTO experiments_new (id, name, matrix_path, matrix_yaml, model_yaml,
    executor, design, generators, metric, boots, runs_per_boot, state,
    error, created_at, finished_at, cancel_requested)
SELECT id, name, matrix_path, matrix_yaml, model_yaml, executor, design,
    generators, metric, boots, runs_per_boot, state, error, created_at,
    finished_at, cancel_requested
FROM experiments;

DROP TABLE experiments;
ALTER TABLE experiments_new RENAME TO experiments;

-- A `kbisect run` still 'running' from before owners were recorded cannot
-- be checked: the process that ran it is taken to be gone.
UPDATE experiments SET state = 'interrupted',
    error = 'left running by a kbisect that recorded no owner',
    finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
WHERE state = 'running'
  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.experiment_id = experiments.id);

-- The views of db/0001, as they were.
CREATE VIEW v_variant_summary AS
WITH m AS (
    SELECT variant_id, metric, avg(value) AS mean, count(*) AS n
    FROM v_boot_means
    GROUP BY variant_id, metric
)
SELECT e.id AS experiment_id,
       e.name AS experiment,
       v.idx AS variant_idx,
       v.label AS variant,
       m.metric AS metric,
       m.n AS n,
       m.mean AS mean,
       CASE WHEN m.n > 1 THEN
           sqrt(sum((bm.value - m.mean) * (bm.value - m.mean)) / (m.n - 1))
       END AS stddev,
       min(bm.value) AS min,
       max(bm.value) AS max
FROM m
JOIN variants v ON v.id = m.variant_id
JOIN experiments e ON e.id = v.experiment_id
JOIN v_boot_means bm ON bm.variant_id = m.variant_id AND bm.metric = m.metric
GROUP BY m.variant_id, m.metric
ORDER BY e.id, v.idx, m.metric;

CREATE VIEW v_history AS
SELECT e.id AS experiment_id,
       e.name AS name,
       e.created_at AS created_at,
       e.state AS state,
       e.design AS design,
       e.metric AS metric,
       (SELECT count(*) FROM variants v
        WHERE v.experiment_id = e.id) AS variants,
       (SELECT count(*) FROM boots b
        JOIN variants v ON v.id = b.variant_id
        WHERE v.experiment_id = e.id) AS boots_done,
       (SELECT count(*) FROM samples s
        JOIN boots b ON b.id = s.boot_id
        JOIN variants v ON v.id = b.variant_id
        WHERE v.experiment_id = e.id AND s.metric = e.metric) AS samples,
       e.finished_at AS finished_at
FROM experiments e
ORDER BY e.id DESC;
