-- kbisect schema, version 12: the database's own identity.  Guests are
-- named after it (docs/guests.md, "Guest names"): two databases that
-- boot on one libvirtd each number their experiments from 1, and
-- kbisect-EXPERIMENT-VARIANT-BOOT alone made the second one's guests
-- collide with the first one's.

CREATE TABLE meta (
    -- facts about the database itself, one row each, written once
    key TEXT PRIMARY KEY,        -- 'database_id'
    value TEXT NOT NULL
);

-- 32 random hex digits, made when the database reaches version 12 and
-- never changed; a copy of the file shares it.  Guest names carry its
-- first 6 (kb_store_tag()).
INSERT INTO meta (key, value) VALUES ('database_id', lower(hex(randomblob(16))));
