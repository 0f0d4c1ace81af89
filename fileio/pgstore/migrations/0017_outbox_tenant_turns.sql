-- Index jobs are claimed tenant by tenant, in turns (pgstore's ClaimJobs, issue 41): a tenant
-- that queued two million jobs no longer holds back another tenant's one job for hours, and a
-- claim reads each tenant's oldest jobs from this index instead of the global queue order of
-- idx_mcp_file_index_jobs_pending, which no statement uses any more. The claim finds the
-- tenants with jobs through uq_mcp_file_index_jobs_path (apikey_hash first).
CREATE INDEX IF NOT EXISTS idx_mcp_file_index_jobs_tenant
ON mcp_file_index_jobs (apikey_hash, enqueued_at, id);

DROP INDEX IF EXISTS idx_mcp_file_index_jobs_pending;
