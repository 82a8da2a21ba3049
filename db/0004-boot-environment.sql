-- kbisect schema, version 4: the environment each boot ran in, so that
-- results from different hosts, hypervisors or libvirt versions are never
-- compared silently.

ALTER TABLE boots ADD COLUMN environment TEXT;
    -- JSON object: {"uri", "hypervisor", "hypervisor_version",
    -- "libvirt_version", "host_kernel", "host_cpu"}; NULL for model runs

-- One row per boot with its environment spelled out (json1 functions).
CREATE VIEW v_boot_environment AS
SELECT b.id AS boot_id,
       v.experiment_id,
       v.idx AS variant_idx,
       b.boot_no,
       b.status,
       json_extract(b.environment, '$.uri') AS uri,
       json_extract(b.environment, '$.hypervisor') AS hypervisor,
       json_extract(b.environment, '$.hypervisor_version')
           AS hypervisor_version,
       json_extract(b.environment, '$.libvirt_version') AS libvirt_version,
       json_extract(b.environment, '$.host_kernel') AS host_kernel,
       json_extract(b.environment, '$.host_cpu') AS host_cpu
FROM boots b
JOIN variants v ON v.id = b.variant_id
WHERE b.environment IS NOT NULL;
