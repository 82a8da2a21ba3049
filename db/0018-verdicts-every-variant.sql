-- kbisect schema, version 18: v_verdicts holds every variant of an
-- experiment, the baseline included, so that a browser of the file sees
-- the whole design in one table (issue 29: "a verdict for every
-- variant").  No table changes.
--
-- Rows as in version 16 for the variants compared with the baseline;
-- besides them, the baseline itself (verdict 'baseline', no change) and
-- each variant with no comparison stored (verdict 'not compared': its
-- boots all failed, or no verb stored one yet; `kbisect compare 0 N`
-- stores it).
DROP VIEW v_verdicts;

CREATE VIEW v_verdicts AS
SELECT * FROM (
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
UNION ALL
-- the baseline, the reference of the others
SELECT e.id, e.name, v.idx, v.label, v.label, e.metric,
       NULL, NULL, NULL, NULL, 'baseline', NULL, NULL
FROM variants v
JOIN experiments e ON e.id = v.experiment_id
WHERE v.idx = 0
UNION ALL
-- a variant no comparison with the baseline was stored for
SELECT e.id, e.name, v.idx, v.label, v0.label, e.metric,
       NULL, NULL, NULL, NULL, 'not compared', NULL, NULL
FROM variants v
JOIN experiments e ON e.id = v.experiment_id
JOIN variants v0 ON v0.experiment_id = v.experiment_id AND v0.idx = 0
WHERE v.idx <> 0
  AND NOT EXISTS (SELECT 1 FROM analyses an
                  WHERE an.experiment_id = v.experiment_id
                    AND an.kind = 'compare' AND an.metric = e.metric
                    AND an.a_variant_id = v0.id
                    AND an.b_variant_id = v.id)
)
ORDER BY experiment_id, variant_idx;
