-- kbisect schema, version 15: a finished bisection answers a rerun
-- (docs/bisect.md, "Running it again").  The same bisection into the
-- same database, whose inputs match one done before, prints that one's
-- answer and builds and boots nothing; --fresh bisects again.

-- the SHA-256 (hex) of what decides the bisection: both ends by
-- content, the matrix or model text, the build salt, the options of the
-- search and the order seed (lib/bisect_probe.c); NULL for every
-- bisection stored before version 15, which answers no rerun
ALTER TABLE bisections ADD COLUMN inputs TEXT;

-- the answer as the bisection returned it, written when it is done
-- (a text of kbisect's own, lib/bisect_answer.c); NULL until then
ALTER TABLE bisections ADD COLUMN answer TEXT;

CREATE INDEX bisections_inputs ON bisections(inputs);
