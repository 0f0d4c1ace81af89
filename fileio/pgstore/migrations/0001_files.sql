-- Files of every tenant and project (seed 003 §10.1). One active row per path; soft-deleted
-- rows stay until Purge removes them after the retention period.
--
-- Differences from the seed, on purpose:
--   * apikey_hash is VARCHAR(64), not CHAR(64): same 64-hex-digit values, no blank padding
--     when read back.
--   * path uses the "C" collation so that ORDER BY path and range scans are bytewise whatever
--     the database's default collation is (the Store contract sorts bytewise).
CREATE TABLE IF NOT EXISTS mcp_files (
    id            BIGSERIAL PRIMARY KEY,
    apikey_hash   VARCHAR(64)   NOT NULL,
    project       VARCHAR(128)  NOT NULL,
    path          VARCHAR(1024) COLLATE "C" NOT NULL,
    content       BYTEA         NOT NULL,
    size          BIGINT        NOT NULL DEFAULT 0,
    created_at    TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ   NOT NULL DEFAULT now(),
    deleted       BOOLEAN       NOT NULL DEFAULT FALSE,
    deleted_at    TIMESTAMPTZ
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_mcp_files_active
ON mcp_files (apikey_hash, project, path)
WHERE deleted = FALSE;

CREATE INDEX IF NOT EXISTS idx_mcp_files_prefix
ON mcp_files (apikey_hash, project, path text_pattern_ops)
WHERE deleted = FALSE;

CREATE INDEX IF NOT EXISTS idx_mcp_files_deleted_at
ON mcp_files (deleted_at)
WHERE deleted = TRUE;
