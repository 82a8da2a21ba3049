-- kbisect schema, version 3: kernel builds from source (lib/build.c,
-- docs/builds.md).  A build row now says what was built (tree, compiler,
-- resolved .config), where its artifacts and log are, and how much make
-- compiled; build_requests records what `kbisect build` did for each
-- variant of a matrix (built, reused or failed), for people and for
-- `make bench`.

ALTER TABLE builds ADD COLUMN tree_id TEXT;
    -- 'git:<tree oid>' or 'plain:<sha256 of paths, sizes, mtimes>'
ALTER TABLE builds ADD COLUMN compiler TEXT;
    -- first line of `CC --version`
ALTER TABLE builds ADD COLUMN config_path TEXT;
    -- the resolved .config kept with the artifacts
ALTER TABLE builds ADD COLUMN log_path TEXT;
    -- the whole make log
ALTER TABLE builds ADD COLUMN artifacts_dir TEXT;
    -- the cache folder named by the build key
ALTER TABLE builds ADD COLUMN units_compiled INTEGER;
    -- "  CC " lines in the log: the units make compiled
ALTER TABLE builds ADD COLUMN full_build INTEGER;
    -- 1 when the O= folder held no earlier build, else 0
ALTER TABLE builds ADD COLUMN label TEXT;
    -- the variant (or variants) the build was made for
CREATE INDEX builds_tree ON builds(tree_id);

CREATE TABLE build_requests (
    -- one variant of a matrix as `kbisect build` handled it
    id INTEGER PRIMARY KEY,
    matrix_name TEXT NOT NULL,   -- the matrix's name
    matrix_path TEXT,            -- the matrix file
    run_started_at TEXT NOT NULL, -- groups the rows of one invocation
    variant_idx INTEGER NOT NULL, -- position in the plan
    variant_label TEXT NOT NULL,
    build_key TEXT NOT NULL,
    build_id INTEGER REFERENCES builds(id),
    outcome TEXT NOT NULL
        CHECK (outcome IN ('built', 'reused', 'shared', 'failed')),
        -- built now; reused from the store or the cache; shared with an
        -- earlier variant of the same run; failed (now or before)
    build_order INTEGER,         -- position in this run's build order
    created_at TEXT NOT NULL
        DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX build_requests_build ON build_requests(build_id);
CREATE INDEX build_requests_matrix ON build_requests(matrix_name);
