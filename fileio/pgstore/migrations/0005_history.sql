-- File history (issue 16): every write, edit, rename and delete keeps the previous version of
-- the file, as long as the transaction asks for it. The Update that mutates sets
--   agentfiles.history_versions      how many previous versions to keep per path (0 or unset: none)
--   agentfiles.history_retention_us  how long, in microseconds, a previous version is kept
-- with SET LOCAL, and the trigger below copies the old row into mcp_file_versions inside the
-- database: the content never travels to the client. Versions are numbered per path, 1, 2, …;
-- mcp_files.version is the number of the active content, and a file created again after a
-- delete continues its path's numbering.
--
-- History bytes count toward the project's quota: mcp_file_history_usage holds them, apart from
-- mcp_file_project_usage so that the trigger never updates the row the writing statement itself
-- updates. The purge job deletes versions whose purge_after has passed and subtracts their bytes.
ALTER TABLE mcp_files ADD COLUMN IF NOT EXISTS version BIGINT NOT NULL DEFAULT 1;

CREATE TABLE IF NOT EXISTS mcp_file_versions (
    apikey_hash   VARCHAR(64)   NOT NULL,
    project       VARCHAR(128)  NOT NULL,
    path          VARCHAR(1024) COLLATE "C" NOT NULL,
    version       BIGINT        NOT NULL,
    content       BYTEA         NOT NULL,
    size          BIGINT        NOT NULL,
    created_at    TIMESTAMPTZ   NOT NULL, -- the file's created_at when this version was written
    written_at    TIMESTAMPTZ   NOT NULL, -- the file's updated_at: when this version was written
    replaced_at   TIMESTAMPTZ   NOT NULL, -- when a newer version or a delete replaced it
    deleted       BOOLEAN       NOT NULL, -- a delete (or a rename away) replaced it
    purge_after   TIMESTAMPTZ   NOT NULL,
    PRIMARY KEY (apikey_hash, project, path, version)
);

CREATE INDEX IF NOT EXISTS idx_mcp_file_versions_purge_after ON mcp_file_versions (purge_after);

CREATE TABLE IF NOT EXISTS mcp_file_history_usage (
    apikey_hash   VARCHAR(64)   NOT NULL,
    project       VARCHAR(128)  NOT NULL,
    size_bytes    BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (apikey_hash, project)
);

CREATE OR REPLACE FUNCTION mcp_files_keep_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    keep BIGINT := COALESCE(NULLIF(current_setting('agentfiles.history_versions', true), '')::bigint, 0);
BEGIN
    IF keep <= 0 THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'INSERT' THEN
        NEW.version := COALESCE((SELECT max(v.version) FROM mcp_file_versions v
            WHERE v.apikey_hash = NEW.apikey_hash AND v.project = NEW.project AND v.path = NEW.path), 0) + 1;
        RETURN NEW;
    END IF;
    IF OLD.deleted THEN
        RETURN NEW;
    END IF;
    IF NOT NEW.deleted THEN
        NEW.version := OLD.version + 1;
    END IF;
    -- One statement: keep the old row, drop what falls out of the last `keep` versions, and
    -- count the difference in the project's history bytes.
    WITH ins AS (
        INSERT INTO mcp_file_versions
            (apikey_hash, project, path, version, content, size, created_at, written_at, replaced_at, deleted, purge_after)
        VALUES (OLD.apikey_hash, OLD.project, OLD.path, OLD.version, OLD.content, OLD.size, OLD.created_at, OLD.updated_at,
                statement_timestamp(), NEW.deleted, statement_timestamp()
                + COALESCE(NULLIF(current_setting('agentfiles.history_retention_us', true), '')::bigint, 0) * interval '1 microsecond')
        ON CONFLICT (apikey_hash, project, path, version) DO NOTHING
        RETURNING size
    ), del AS (
        DELETE FROM mcp_file_versions v
        WHERE v.apikey_hash = OLD.apikey_hash AND v.project = OLD.project AND v.path = OLD.path
          AND v.version <= OLD.version - keep
        RETURNING v.size
    )
    INSERT INTO mcp_file_history_usage AS h (apikey_hash, project, size_bytes)
    SELECT OLD.apikey_hash, OLD.project, COALESCE((SELECT sum(size) FROM ins), 0) - COALESCE((SELECT sum(size) FROM del), 0)
    ON CONFLICT (apikey_hash, project) DO UPDATE SET size_bytes = h.size_bytes + EXCLUDED.size_bytes;
    RETURN NEW;
END
$fn$;

-- The trigger fires only in transactions that keep history, so writes without it (and the
-- benchmarks' bare reference INSERT) pay nothing; version numbers then stay as they are.
DROP TRIGGER IF EXISTS mcp_files_keep_version ON mcp_files;
CREATE TRIGGER mcp_files_keep_version BEFORE INSERT OR UPDATE ON mcp_files
FOR EACH ROW WHEN (COALESCE(current_setting('agentfiles.history_versions', true), '') NOT IN ('', '0'))
EXECUTE FUNCTION mcp_files_keep_version();
