-- The outbox of index jobs (seed 003 §10.2), written in the same transaction as the file
-- mutation. There is at most one row per (apikey_hash, project, file_path): a newer mutation
-- updates the pending row and bumps its version; a completed job is deleted.
--
-- Columns added to the seed's table for the Store contract:
--   version        bumped by every superseding mutation; Complete/Retry of an older claim are no-ops
--   enqueued_at    commit time of the newest mutation behind the job (freshness is measured from it)
--   claimed_until  end of the current lease, NULL when not leased
--   credential_ref reference to a sealed credential envelope for the indexer (never the key itself)
--   last_error     text of the last failed attempt (never file contents or keys)
-- A claim moves available_at to the end of the lease, so "claimable" is just available_at <= now.
-- idx_mcp_file_index_jobs_pending orders by enqueued_at (the claim order) rather than the seed's
-- available_at.
CREATE TABLE IF NOT EXISTS mcp_file_index_jobs (
    id              BIGSERIAL PRIMARY KEY,
    apikey_hash     VARCHAR(64)   NOT NULL,
    project         VARCHAR(128)  NOT NULL,
    file_path       VARCHAR(1024) COLLATE "C" NOT NULL,
    operation       VARCHAR(16)   NOT NULL CHECK (operation IN ('UPSERT', 'DELETE')),
    file_updated_at TIMESTAMPTZ,
    status          VARCHAR(16)   NOT NULL DEFAULT 'pending',
    retry_count     INT           NOT NULL DEFAULT 0,
    available_at    TIMESTAMPTZ   NOT NULL DEFAULT now(),
    created_at      TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ   NOT NULL DEFAULT now(),
    version         BIGINT        NOT NULL DEFAULT 1,
    enqueued_at     TIMESTAMPTZ   NOT NULL DEFAULT now(),
    claimed_until   TIMESTAMPTZ,
    credential_ref  TEXT          NOT NULL DEFAULT '',
    last_error      TEXT          NOT NULL DEFAULT ''
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_mcp_file_index_jobs_path
ON mcp_file_index_jobs (apikey_hash, project, file_path);

CREATE INDEX IF NOT EXISTS idx_mcp_file_index_jobs_pending
ON mcp_file_index_jobs (status, enqueued_at, id);
