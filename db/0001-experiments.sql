-- kbisect schema, version 1: experiments, their variants and options,
-- builds, boots and samples, with views for people browsing the file.
-- Times are UTC, ISO 8601 text ("2024-05-01T12:34:56Z").

-- Marks the file as a kbisect database ("kbis"), so that kbisect refuses
-- to add its tables to some other program's database.
PRAGMA application_id = 1801611635;

CREATE TABLE experiments (
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
                         'cancelled')),
    error TEXT,                  -- why it failed, when state is 'failed'
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    finished_at TEXT             -- when it stopped; NULL until then
);

CREATE TABLE variants (
    -- one combination of factor levels of an experiment
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL
        REFERENCES experiments(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,        -- 0-based place in the plan; 0 = baseline
    label TEXT NOT NULL,         -- e.g. 'PARAVIRT_SPINLOCKS=n DEBUG_KMEMLEAK=y'
    build_key TEXT,              -- variants with equal keys share a build
    UNIQUE (experiment_id, idx)
);

CREATE TABLE variant_options (
    -- one row per variant and factor: the level each factor has in it
    variant_id INTEGER NOT NULL
        REFERENCES variants(id) ON DELETE CASCADE,
    factor TEXT NOT NULL,        -- 'PARAVIRT_SPINLOCKS', 'guest.vcpus', ...
    kind TEXT NOT NULL
        CHECK (kind IN ('kconfig', 'kernel', 'guest')),
    level TEXT NOT NULL,         -- the level asked for: 'y', 'n', '4', ...
    resolved TEXT,               -- what the resolved .config holds, once known
    PRIMARY KEY (variant_id, factor)
);

CREATE TABLE builds (
    -- one kernel build; variants with equal build keys share it
    id INTEGER PRIMARY KEY,
    build_key TEXT NOT NULL UNIQUE, -- hash of tree, .config and compiler
    executor TEXT,               -- 'model' or 'libvirt'
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    reason TEXT,                 -- why it failed, else NULL
    log_tail TEXT,               -- last lines of the build log
    image_path TEXT,             -- the kernel image, when ok
    duration_s REAL,             -- wall-clock seconds the build took
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE boots (
    -- one guest started for a variant: the unit of replication
    id INTEGER PRIMARY KEY,
    variant_id INTEGER NOT NULL
        REFERENCES variants(id) ON DELETE CASCADE,
    boot_no INTEGER NOT NULL,    -- 1, 2, ... within the variant
    build_id INTEGER REFERENCES builds(id), -- the kernel booted, if any
    status TEXT NOT NULL
        CHECK (status IN ('ok', 'build-failed', 'boot-failed',
                          'boot-timeout', 'workload-timeout', 'panic',
                          'bad-output', 'libvirt-error')),
    reason TEXT,                 -- why it failed, else NULL
    console_tail TEXT,           -- last lines of the guest console
    host TEXT,                   -- where it ran: libvirt URI or 'model'
    duration_s REAL,             -- wall-clock seconds, boot and workload
    finished_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    UNIQUE (variant_id, boot_no)
);
CREATE INDEX boots_build ON boots(build_id);

CREATE TABLE samples (
    -- one metric of one workload run inside a boot
    id INTEGER PRIMARY KEY,
    boot_id INTEGER NOT NULL REFERENCES boots(id) ON DELETE CASCADE,
    run_no INTEGER NOT NULL,     -- 1, 2, ... within the boot
    metric TEXT NOT NULL,        -- 'read_iops', 'lat_p99_us', 'real_s', ...
    value REAL NOT NULL,
    UNIQUE (boot_id, run_no, metric)
);

-- Per boot that ended ok: the mean of each metric over the boot's runs.
-- Boots are the replicates; runs within a boot are averaged.
CREATE VIEW v_boot_means AS
SELECT v.experiment_id AS experiment_id,
       b.variant_id AS variant_id,
       b.id AS boot_id,
       b.boot_no AS boot_no,
       s.metric AS metric,
       count(*) AS runs,
       avg(s.value) AS value
FROM boots b
JOIN variants v ON v.id = b.variant_id
JOIN samples s ON s.boot_id = b.id
WHERE b.status = 'ok'
GROUP BY b.id, s.metric;

-- Per variant and metric: n boots, mean, sample standard deviation (over
-- the boot means; NULL for a single boot), min and max.
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

-- Every experiment, newest first, with how far it got: variants planned,
-- boots stored (ok or not), samples of the experiment's metric.
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
