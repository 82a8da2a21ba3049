-- kbisect schema, version 11: the exact kind of each variant option.
-- Until now workload.*, cmdline.* and sysctl.* factors were stored as
-- kind 'guest' (0001's CHECK knew only kconfig, kernel and guest).  The
-- table is rebuilt with every kind the matrix has, and the rows stored
-- before get theirs from the option's name, which always says it
-- ('workload.copies', 'cmdline.mitigations', 'sysctl.vm.swappiness'; a
-- guest factor is 'guest.NAME').

CREATE TABLE variant_options_new (
    -- one row per variant and factor: the level each factor has in it
    variant_id INTEGER NOT NULL
        REFERENCES variants(id) ON DELETE CASCADE,
    factor TEXT NOT NULL,        -- 'PARAVIRT_SPINLOCKS', 'guest.vcpus', ...
    kind TEXT NOT NULL
        CHECK (kind IN ('kconfig', 'kernel', 'guest', 'workload',
                        'cmdline', 'sysctl')),
        -- kconfig: a Kconfig option (no CONFIG_); kernel: kernel.rev or
        -- kernel.image; guest: guest.NAME (the guest's shape); workload:
        -- workload.copies or workload.NAME (a {{NAME}} of the job);
        -- cmdline: cmdline.NAME (kernel command line); sysctl:
        -- sysctl.NAME (written to /proc/sys before the workload)
    level TEXT NOT NULL,         -- the level asked for: 'y', 'n', '4', ...
    resolved TEXT,               -- what the resolved .config holds, once known
    PRIMARY KEY (variant_id, factor)
);

-- rowid kept: an experiment's factors are read in the order their first
-- rows were stored in (lib/store/store_export.c)
INSERT INTO variant_options_new (rowid, variant_id, factor, kind, level,
                                 resolved)
SELECT rowid, variant_id, factor,
       CASE
           WHEN kind = 'guest' AND substr(factor, 1, 9) = 'workload.'
               THEN 'workload'
           WHEN kind = 'guest' AND substr(factor, 1, 8) = 'cmdline.'
               THEN 'cmdline'
           WHEN kind = 'guest' AND substr(factor, 1, 7) = 'sysctl.'
               THEN 'sysctl'
           ELSE kind
       END,
       level, resolved
FROM variant_options;

DROP TABLE variant_options;
ALTER TABLE variant_options_new RENAME TO variant_options;
