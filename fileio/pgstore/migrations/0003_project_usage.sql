-- Bytes held by the active files of each project, kept up to date by every mutation in the same
-- transaction, so that the quota check of a write reads one row instead of summing the project.
CREATE TABLE IF NOT EXISTS mcp_file_project_usage (
    apikey_hash   VARCHAR(64)   NOT NULL,
    project       VARCHAR(128)  NOT NULL,
    size_bytes    BIGINT        NOT NULL DEFAULT 0,
    file_count    BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (apikey_hash, project)
);

-- Databases that held files before this table existed start from the real totals.
INSERT INTO mcp_file_project_usage (apikey_hash, project, size_bytes, file_count)
SELECT apikey_hash, project, sum(size), count(*)
FROM mcp_files
WHERE deleted = FALSE
GROUP BY apikey_hash, project
ON CONFLICT (apikey_hash, project) DO NOTHING;
