-- kbisect schema, version 9: views for people browsing the file (DB
-- Browser for SQLite, `sqlite3`), named one way.  No table changes.
--
-- The naming scheme (db/README.md): a view is v_<what one row is>_<what
-- it tells>, and names a variant by experiment_id, variant_idx (its place
-- in the plan, 0 = the baseline) and variant (its label), never by the
-- row id of the variants table; a boot by boot_id (its row) and boot_no
-- (1, 2, ... within the variant); a build by build_id and build_key.
-- v_boot_means (db/0001) names the variant by its row id, variant_id:
-- v_boot_summary is the same rows named by the scheme.  v_boot_means and
-- every other view stay as they were, so queries written for them still
-- run.

-- Per ok boot and metric: the mean over the boot's runs (the boots are
-- the replicates; runs within a boot are averaged).  v_boot_means by the
-- naming scheme.
CREATE VIEW v_boot_summary AS
SELECT v.experiment_id AS experiment_id,
       v.idx AS variant_idx,
       v.label AS variant,
       b.id AS boot_id,
       b.boot_no AS boot_no,
       s.metric AS metric,
       count(*) AS runs,
       avg(s.value) AS mean
FROM boots b
JOIN variants v ON v.id = b.variant_id
JOIN samples s ON s.boot_id = b.id
WHERE b.status = 'ok'
GROUP BY b.id, s.metric;

-- Per variant and metric: its boots against the baseline's (variant 0)
-- of the same experiment, as `kbisect compare` and `results` print
-- them.  n, mean and stddev are over the ok boots' means (stddev with
-- divisor n - 1, NULL for one boot); change_pct is (mean / base_mean -
-- 1) * 100, NULL against a mean of 0.  There is no verdict computed
-- here: kbisect's verdict rests on the exact Mann-Whitney test, the
-- Student-t interval of the log ratio and, for adaptive sampling,
-- Pocock's boundary (lib/compare.h), which SQL cannot compute.
-- compare_verdict and compare_p_value are what `kbisect compare` stored
-- in analyses for this variant against the baseline and this metric
-- (its latest run, at compare_at), NULL when it was not run on that
-- pair; boots stored after compare_at are not in them.
CREATE VIEW v_variant_change AS
SELECT s.experiment_id AS experiment_id,
       s.experiment AS experiment,
       s.variant_idx AS variant_idx,
       s.variant AS variant,
       s.metric AS metric,
       s.n AS n,
       s.mean AS mean,
       s.stddev AS stddev,
       base.n AS base_n,
       base.mean AS base_mean,
       base.stddev AS base_stddev,
       CASE WHEN base.mean <> 0 THEN (s.mean / base.mean - 1) * 100 END
           AS change_pct,
       a.verdict AS compare_verdict,
       a.p_value AS compare_p_value,
       a.created_at AS compare_at
FROM v_variant_summary s
LEFT JOIN v_variant_summary base
       ON base.experiment_id = s.experiment_id AND base.variant_idx = 0
      AND base.metric = s.metric
LEFT JOIN analyses a ON a.id = (
       SELECT an.id FROM analyses an
       JOIN variants va ON va.id = an.a_variant_id
       JOIN variants vb ON vb.id = an.b_variant_id
       WHERE an.experiment_id = s.experiment_id AND an.kind = 'compare'
         AND an.metric = s.metric AND va.idx = 0
         AND vb.idx = s.variant_idx
       ORDER BY an.id DESC LIMIT 1)
ORDER BY s.experiment_id, s.variant_idx, s.metric;

-- One row per kernel build: how it ended, how long it took, what it was
-- built from (tree, compiler, the resolved .config and where it was kept)
-- and what it made.  Model builds have no tree, config or image.
CREATE VIEW v_build_summary AS
SELECT bu.id AS build_id,
       bu.build_key AS build_key,
       bu.label AS built_for,
       bu.executor AS executor,
       bu.status AS status,
       bu.reason AS reason,
       bu.duration_s AS duration_s,
       bu.units_compiled AS units_compiled,
       bu.full_build AS full_build,
       bu.tree_id AS tree_id,
       bu.compiler AS compiler,
       bu.config_path AS config_path,
       bu.config_text AS config,
       bu.image_path AS image_path,
       bu.image_sha256 AS image_sha256,
       bu.log_path AS log_path,
       bu.created_at AS created_at
FROM builds bu
ORDER BY bu.id;

-- One row per variant: the build it boots (variants with equal build
-- keys share one), that build's status and duration, and the variant's
-- boots, all and ok.
CREATE VIEW v_variant_build AS
SELECT v.experiment_id AS experiment_id,
       e.name AS experiment,
       v.idx AS variant_idx,
       v.label AS variant,
       v.build_key AS build_key,
       bu.id AS build_id,
       bu.status AS build_status,
       bu.duration_s AS build_duration_s,
       (SELECT count(*) FROM boots b WHERE b.variant_id = v.id) AS boots,
       (SELECT count(*) FROM boots b
        WHERE b.variant_id = v.id AND b.status = 'ok') AS boots_ok
FROM variants v
JOIN experiments e ON e.id = v.experiment_id
LEFT JOIN builds bu ON bu.build_key = v.build_key
ORDER BY v.experiment_id, v.idx;
