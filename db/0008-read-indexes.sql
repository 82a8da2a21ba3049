-- kbisect schema, version 8: indexes for the reads that grow with the
-- data.  results, compare, effects and why read an experiment's boot
-- means and failures with one query each over all its variants
-- (lib/store_exp.c); these indexes let those queries find the boots
-- of each variant without reading the boot rows.  The samples keep
-- the one index of db/0001 (boot_id, run_no, metric): a sample costs
-- about 60 bytes, and the reads find a boot's samples through it.

-- The ok boots of a variant in boot order, for the boot means: covers
-- the boots side of the query (no boot row is read).
CREATE INDEX boots_variant_status ON boots(variant_id, status, boot_no);

-- The boots of a variant that did not end ok, for its failures: only
-- those are visited (a partial index: the ok boots are not in it).
CREATE INDEX boots_failed ON boots(variant_id) WHERE status <> 'ok';
