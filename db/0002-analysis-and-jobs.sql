-- kbisect schema, version 2: analyses and their verdicts, bisections and
-- their steps, and the daemon's job queue.

CREATE TABLE analyses (
    -- one comparison or effect estimate and its verdict
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL
        REFERENCES experiments(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,          -- 'compare', 'main-effect', 'interaction'
    metric TEXT NOT NULL,        -- the metric analysed
    a_variant_id INTEGER         -- side A (the baseline), if a variant
        REFERENCES variants(id) ON DELETE CASCADE,
    b_variant_id INTEGER         -- side B, if a variant
        REFERENCES variants(id) ON DELETE CASCADE,
    factor TEXT,                 -- the factor (or 'F1:F2') of an effect
    change_pct REAL,             -- change of B against A, in percent
    ci_low_pct REAL,             -- 95% confidence interval of the change
    ci_high_pct REAL,
    p_value REAL,                -- of the test below
    test TEXT,                   -- e.g. 'mann-whitney-u', 'bootstrap'
    verdict TEXT
        CHECK (verdict IN ('regression', 'improvement', 'no-change',
                           'inconclusive')),
    detail TEXT,                 -- how the verdict was reached
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX analyses_experiment ON analyses(experiment_id);
CREATE INDEX analyses_a_variant ON analyses(a_variant_id);
CREATE INDEX analyses_b_variant ON analyses(b_variant_id);

CREATE TABLE bisections (
    -- a search between a good and a bad config (options) or revision
    -- (commits)
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL
        REFERENCES experiments(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('options', 'commits')),
    good TEXT NOT NULL,          -- the good end: a variant or a revision
    bad TEXT NOT NULL,           -- the bad end
    state TEXT NOT NULL DEFAULT 'running'
        CHECK (state IN ('running', 'done', 'failed', 'cancelled')),
    result TEXT,                 -- the culprit options or commit, once done
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX bisections_experiment ON bisections(experiment_id);

CREATE TABLE bisection_steps (
    -- one probe of a bisection: what was tried and how it classified
    id INTEGER PRIMARY KEY,
    bisection_id INTEGER NOT NULL
        REFERENCES bisections(id) ON DELETE CASCADE,
    step_no INTEGER NOT NULL,    -- 1, 2, ... within the bisection
    probe TEXT NOT NULL,         -- the options changed, or the commit tried
    variant_id INTEGER           -- the variant measured for it, if any
        REFERENCES variants(id) ON DELETE SET NULL,
    classification TEXT NOT NULL
        CHECK (classification IN ('good', 'bad', 'skip', 'unknown')),
    change_pct REAL,             -- change against the good end, in percent
    ci_low_pct REAL,             -- 95% confidence interval of the change
    ci_high_pct REAL,
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    UNIQUE (bisection_id, step_no)
);
CREATE INDEX bisection_steps_variant ON bisection_steps(variant_id);

CREATE TABLE jobs (
    -- the daemon's queue: one build or boot to do, leased by a worker
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL
        REFERENCES experiments(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('build', 'boot')),
    variant_id INTEGER           -- the variant to build or boot
        REFERENCES variants(id) ON DELETE CASCADE,
    boot_no INTEGER,             -- which boot, for kind 'boot'
    state TEXT NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'leased', 'done', 'failed',
                         'cancelled')),
    lease_owner TEXT,            -- the worker holding it, while leased
    lease_expires_at TEXT,       -- when an unrenewed lease lapses
    attempts INTEGER NOT NULL DEFAULT 0, -- times it was leased
    error TEXT,                  -- why it failed, when state is 'failed'
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    updated_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX jobs_state ON jobs(state, lease_expires_at);
CREATE INDEX jobs_experiment ON jobs(experiment_id);
CREATE INDEX jobs_variant ON jobs(variant_id);

-- Every bisection step with readable names, in order.
CREATE VIEW v_bisection AS
SELECT bs.bisection_id AS bisection_id,
       b.experiment_id AS experiment_id,
       b.kind AS kind,
       b.good AS good,
       b.bad AS bad,
       bs.step_no AS step_no,
       bs.probe AS probe,
       v.label AS variant,
       bs.classification AS classification,
       bs.change_pct AS change_pct,
       bs.ci_low_pct AS ci_low_pct,
       bs.ci_high_pct AS ci_high_pct,
       bs.created_at AS created_at
FROM bisection_steps bs
JOIN bisections b ON b.id = bs.bisection_id
LEFT JOIN variants v ON v.id = bs.variant_id
ORDER BY bs.bisection_id, bs.step_no;
