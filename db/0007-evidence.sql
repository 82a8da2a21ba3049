-- kbisect schema, version 7: the evidence behind every answer.  A build
-- row keeps the resolved .config it was built from and the SHA-256 of the
-- kernel image it made; a boot row keeps the domain XML the guest was
-- created with and the workload it ran (the fio job file as the guest
-- read it, or the command).  `kbisect repro` (docs/kbisect.1) writes them
-- out as a bundle that boots the variant once by hand.  Rows stored
-- before this version have NULL here.

ALTER TABLE builds ADD COLUMN config_text TEXT;
    -- the resolved .config the kernel was built from; NULL for a
    -- prebuilt image whose config is not known, and for model builds
ALTER TABLE builds ADD COLUMN image_sha256 TEXT;
    -- SHA-256 of the kernel image at image_path (64 lower-case hex
    -- digits), when ok; NULL for model builds

ALTER TABLE boots ADD COLUMN domain_xml TEXT;
    -- the libvirt domain XML the guest was created with, exactly; its
    -- kernel, initramfs, console log and scratch disk paths name a boot
    -- folder that was removed after the boot.  NULL for model runs
ALTER TABLE boots ADD COLUMN workload_text TEXT;
    -- what the guest ran: the fio job file (/kbisect/job.fio) or the
    -- command (/kbisect/command, run with sh).  NULL for model runs

-- One row per boot with its evidence: what was booted and run, and the
-- build it booted.  The long texts are left in the tables; this says
-- which boots have them.
CREATE VIEW v_boot_evidence AS
SELECT b.id AS boot_id,
       v.experiment_id AS experiment_id,
       v.idx AS variant_idx,
       v.label AS variant,
       b.boot_no AS boot_no,
       b.status AS status,
       b.host AS host,
       bu.build_key AS build_key,
       bu.image_path AS image_path,
       bu.image_sha256 AS image_sha256,
       bu.config_text IS NOT NULL AS has_config,
       b.domain_xml IS NOT NULL AS has_domain_xml,
       b.workload_text IS NOT NULL AS has_workload
FROM boots b
JOIN variants v ON v.id = b.variant_id
LEFT JOIN builds bu ON bu.id = b.build_id
ORDER BY v.experiment_id, v.idx, b.boot_no;
