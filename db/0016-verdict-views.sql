-- kbisect schema, version 16: the verdicts, effects and `why` answers
-- as people read them in a browser of the file (DB Browser for SQLite,
-- `sqlite3 -readonly`), named by labels and rounded as kbisect's own
-- tables print them.
--
-- `run`, `resume` and the daemon store, when an experiment ends, each
-- variant's verdict against the baseline on the experiment's metric
-- (an analyses row of kind 'compare', as `kbisect compare 0 N` stores
-- it); `report` stores the verdicts and effects it computes.  Storing
-- an analysis replaces the earlier one of the same kind, metric and
-- variants only (before, it replaced every row of its kind, so that
-- `compare` of one pair erased the verdicts of the others: the reason
-- v_variant_change.compare_verdict was NULL in nearly every row).

-- effects: the Holm-adjusted p of the family and the call at the
-- experiment's alpha (1 significant, 0 not); NULL for other kinds
ALTER TABLE analyses ADD COLUMN p_adjusted REAL;
ALTER TABLE analyses ADD COLUMN significant INTEGER
    CHECK (significant IN (0, 1));

CREATE INDEX analyses_kind ON analyses(experiment_id, kind, metric);

-- Per experiment and variant but the baseline: its latest verdict
-- against the baseline (variant 0) on the experiment's metric, as
-- `kbisect compare` prints it: change and interval in percent to one
-- decimal, p to three significant digits.  The change is that of the
-- means (the pairs' within rounds when paired: `test` says which); the
-- interval is the test's own (docs/analysis.md, "The rule").  A
-- variant whose boots all failed has no row until a comparison was
-- stored for it; `verdict` is 'inconclusive' when nothing could be
-- decided.
CREATE VIEW v_verdicts AS
SELECT e.id AS experiment_id,
       e.name AS experiment,
       vb.idx AS variant_idx,
       vb.label AS variant,
       va.label AS baseline,
       an.metric AS metric,
       round(an.change_pct, 1) AS change_pct,
       round(an.ci_low_pct, 1) AS ci_low_pct,
       round(an.ci_high_pct, 1) AS ci_high_pct,
       CASE WHEN an.p_value IS NOT NULL
           THEN CAST(printf('%.3g', an.p_value) AS REAL) END AS p,
       an.verdict AS verdict,
       an.test AS test,
       an.created_at AS decided_at
FROM analyses an
JOIN experiments e ON e.id = an.experiment_id
JOIN variants va ON va.id = an.a_variant_id
JOIN variants vb ON vb.id = an.b_variant_id
WHERE an.kind = 'compare' AND va.idx = 0 AND vb.idx <> 0
  AND an.metric = e.metric
  AND an.id = (SELECT max(an2.id) FROM analyses an2
               WHERE an2.experiment_id = an.experiment_id
                 AND an2.kind = 'compare' AND an2.metric = an.metric
                 AND an2.a_variant_id = an.a_variant_id
                 AND an2.b_variant_id = an.b_variant_id)
ORDER BY e.id, vb.idx;

-- Per experiment, metric and effect: the latest estimates `kbisect
-- effects` (or `report`) stored, rounded as `effects` prints them.
-- effect is the factor's name, 'F1:F2' for a two-way interaction, or
-- 'F at LEVEL' / 'F by LEVELS' within a condition (kind within-condition,
-- condition-dependence: docs/analysis.md "Conditions").
CREATE VIEW v_effects AS
SELECT e.id AS experiment_id,
       e.name AS experiment,
       an.metric AS metric,
       an.kind AS kind,
       an.factor AS effect,
       round(an.change_pct, 1) AS change_pct,
       round(an.ci_low_pct, 1) AS ci_low_pct,
       round(an.ci_high_pct, 1) AS ci_high_pct,
       CASE WHEN an.p_value IS NOT NULL
           THEN CAST(printf('%.3g', an.p_value) AS REAL) END AS p,
       CASE WHEN an.p_adjusted IS NOT NULL
           THEN CAST(printf('%.3g', an.p_adjusted) AS REAL) END AS p_holm,
       an.significant AS significant,
       an.detail AS detail,
       an.created_at AS estimated_at
FROM analyses an
JOIN experiments e ON e.id = an.experiment_id
WHERE an.kind IN ('main-effect', 'interaction', 'within-condition',
                  'condition-dependence')
ORDER BY e.id, an.metric, abs(an.change_pct) DESC;

-- Per experiment: `kbisect why`'s latest answer for each pair of good
-- and bad variants: the regression it explains (change, interval, p
-- and verdict of bad against good), the culprits (factors, space
-- separated) and what the answer is.
CREATE VIEW v_why AS
SELECT e.id AS experiment_id,
       e.name AS experiment,
       an.metric AS metric,
       va.idx AS good_idx,
       va.label AS good,
       vb.idx AS bad_idx,
       vb.label AS bad,
       round(an.change_pct, 1) AS change_pct,
       round(an.ci_low_pct, 1) AS ci_low_pct,
       round(an.ci_high_pct, 1) AS ci_high_pct,
       CASE WHEN an.p_value IS NOT NULL
           THEN CAST(printf('%.3g', an.p_value) AS REAL) END AS p,
       an.verdict AS verdict,
       an.factor AS culprits,
       an.detail AS answer,
       an.created_at AS answered_at
FROM analyses an
JOIN experiments e ON e.id = an.experiment_id
LEFT JOIN variants va ON va.id = an.a_variant_id
LEFT JOIN variants vb ON vb.id = an.b_variant_id
WHERE an.kind = 'why'
  AND an.id = (SELECT max(an2.id) FROM analyses an2
               WHERE an2.experiment_id = an.experiment_id
                 AND an2.kind = 'why' AND an2.metric = an.metric
                 AND an2.a_variant_id IS an.a_variant_id
                 AND an2.b_variant_id IS an.b_variant_id)
ORDER BY e.id, an.id;
