-- kbisect schema, version 13: the run order (lib/order.h).  An
-- experiment's boots run in randomised complete blocks by default, so
-- that a host's drift is spread over every variant alike: the order and
-- its seed are the experiment's, and each boot records its block, its
-- place in the run and when it started (finished_at alone, to the
-- second, could not tell the order).

-- 'blocks' or 'sequential' (repeat.order); NULL: an experiment from
-- before version 13, run variant after variant
ALTER TABLE experiments ADD COLUMN run_order TEXT;
-- the seed the order was drawn from, as 16 hex digits; NULL before 13
ALTER TABLE experiments ADD COLUMN order_seed TEXT;

-- the block (round) the boot ran in, from 1; NULL: none (sequential,
-- boots added by an analysis, before version 13)
ALTER TABLE boots ADD COLUMN round INTEGER;
-- its place among the experiment's boots in the order they started,
-- from 1; NULL before version 13
ALTER TABLE boots ADD COLUMN seq INTEGER;
-- when it started, ISO 8601 UTC to the millisecond; NULL before 13
ALTER TABLE boots ADD COLUMN started_at TEXT;

-- The boot means read each ok boot's round and place too (the round is
-- a block of the analysis: docs/analysis.md): the index of db/0010 gets
-- them, so that it still covers the boots side of that read.
DROP INDEX boots_variant_status;
CREATE INDEX boots_variant_status
    ON boots(variant_id, status, boot_no, host, round, seq);
