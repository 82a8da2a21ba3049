-- kbisect schema, version 19: the guest's profiles (lib/profile.h,
-- docs/matrix.md "profile"): the stacks perf sampled around each workload
-- run, folded, kept apart from the samples as the monitors are.  A stack's
-- text is stored once (profile_stacks) and each run stores an id and a
-- count a stack, so that the long text of a kernel stack that every boot
-- samples takes its bytes once.

CREATE TABLE profile_stacks (
    id INTEGER PRIMARY KEY,
    stack TEXT NOT NULL UNIQUE   -- 'start_kernel;...;do_idle', outermost first
);

CREATE TABLE profiles (
    -- one stack of one workload run inside a boot
    boot_id INTEGER NOT NULL REFERENCES boots(id) ON DELETE CASCADE,
    run_no INTEGER NOT NULL,     -- 1, 2, ... within the boot
    stack_id INTEGER NOT NULL REFERENCES profile_stacks(id),
    samples INTEGER NOT NULL CHECK (samples > 0),
    PRIMARY KEY (boot_id, run_no, stack_id)
) WITHOUT ROWID;
