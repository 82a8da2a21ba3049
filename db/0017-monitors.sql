-- kbisect schema, version 17: the guest's monitors (lib/monitor.h,
-- docs/matrix.md "monitors"): counters of the guest kernel taken around
-- each workload run, secondary metrics kept apart from the samples, so
-- that nothing that reads the samples (verdicts, effects, summaries)
-- sees them.

CREATE TABLE monitors (
    -- one monitor of one workload run inside a boot; values of 0 are
    -- not stored, so a boot that has monitors lacks what did not move
    boot_id INTEGER NOT NULL REFERENCES boots(id) ON DELETE CASCADE,
    run_no INTEGER NOT NULL,     -- 1, 2, ... within the boot
    name TEXT NOT NULL,          -- 'vmstat.pgfault', 'irq.virtio0-requests'
    value REAL NOT NULL,         -- the change over the run (gauges: after)
    PRIMARY KEY (boot_id, run_no, name)
) WITHOUT ROWID;
