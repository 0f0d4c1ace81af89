-- Each soft-deleted row carries the time from which Purge may remove it: its deleted_at plus the
-- retention the deleting transaction was given (fileio.UpdateOptions.DeleteRetention, which the
-- Service takes from settings.mcp.files.delete_retention_days). The retention thus reaches the
-- store with every delete instead of being configured on it. Rows deleted before this
-- migration get the default retention of seven days.
ALTER TABLE mcp_files ADD COLUMN IF NOT EXISTS purge_after TIMESTAMPTZ;

UPDATE mcp_files SET purge_after = deleted_at + interval '7 days'
WHERE deleted = TRUE AND purge_after IS NULL;

DROP INDEX IF EXISTS idx_mcp_files_deleted_at;

CREATE INDEX IF NOT EXISTS idx_mcp_files_purge_after
ON mcp_files (purge_after)
WHERE deleted = TRUE;
