-- kbisect schema, version 14: the sentinel (repeat.sentinel,
-- docs/analysis.md "A/A: the sentinel").  A matrix may ask for a
-- duplicate of the baseline in every round: the baseline's kernel (its
-- build key) under another label, whose comparison with the baseline is
-- the experiment's own A/A.  It is a variant like any, marked so that a
-- reader of the variants table does not take it for a level of a
-- factor.

-- 1: the sentinel (its options are the baseline's); 0: a variant of the
-- design, and every variant stored before version 14
ALTER TABLE variants ADD COLUMN sentinel INTEGER NOT NULL DEFAULT 0
    CHECK (sentinel IN (0, 1));
