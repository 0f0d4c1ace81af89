-- The change feed and checkpoints.
--
-- Every change of a file (an INSERT of an active row, an UPDATE that replaces the content of an
-- active row or deletes it) appends one row to mcp_file_events, from an AFTER ROW trigger, so
-- that every statement that writes files (those of today and any added later) feeds it. The
-- position comes from the project's row of mcp_file_feed_heads, incremented in the writing
-- transaction: that row lock is held until commit, so positions are handed out in commit order
-- and without gaps, whichever instance writes, and a reader that sees position n sees every
-- position below it. The grep indexer's updates (grep_indexed only) change neither updated_at
-- nor deleted and are left out by the trigger's WHEN.
--
-- An event keeps the version it replaced: the version that was current at a checkpoint's
-- position c is the one replaced by the path's first event after c, so
-- mcp_file_version_pinned answers whether a checkpoint needs a kept version, and the history's
-- deletes (count, retention, file_purge_history) skip those. The trigger does no more than it
-- must on the write path (a head update and one insert); the pin check, which runs only when a
-- version is about to go, looks up the path's previous event itself.
CREATE TABLE IF NOT EXISTS mcp_file_feed_heads (
    apikey_hash     VARCHAR(64)  NOT NULL,
    project         VARCHAR(128) NOT NULL,
    last_position   BIGINT       NOT NULL DEFAULT 0,
    last_checkpoint BIGINT       NOT NULL DEFAULT 0,
    pruned_through  BIGINT       NOT NULL DEFAULT 0, -- events up to here may have been purged
    PRIMARY KEY (apikey_hash, project)
);

CREATE TABLE IF NOT EXISTS mcp_file_events (
    apikey_hash   VARCHAR(64)   NOT NULL,
    project       VARCHAR(128)  NOT NULL,
    position      BIGINT        NOT NULL,
    path          VARCHAR(1024) COLLATE "C" NOT NULL,
    kind          TEXT          NOT NULL, -- created, modified, deleted
    version       BIGINT        NOT NULL,
    prev_version  BIGINT        NOT NULL, -- 0 for created
    sha256        TEXT          NOT NULL, -- '' for deleted
    size          BIGINT        NOT NULL,
    at            TIMESTAMPTZ   NOT NULL,
    purge_after   TIMESTAMPTZ   NOT NULL,
    PRIMARY KEY (apikey_hash, project, position)
);

CREATE INDEX IF NOT EXISTS idx_mcp_file_events_path ON mcp_file_events (apikey_hash, project, path, position);
CREATE INDEX IF NOT EXISTS idx_mcp_file_events_purge_after ON mcp_file_events (purge_after);

CREATE TABLE IF NOT EXISTS mcp_file_checkpoints (
    apikey_hash VARCHAR(64)  NOT NULL,
    project     VARCHAR(128) NOT NULL,
    id          BIGINT       NOT NULL,
    label       TEXT         NOT NULL,
    position    BIGINT       NOT NULL,
    created_at  TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (apikey_hash, project, id)
);

CREATE INDEX IF NOT EXISTS idx_mcp_file_checkpoints_position ON mcp_file_checkpoints (apikey_hash, project, position);

-- Events are kept as long as the history keeps versions (agentfiles.history_retention_us), at
-- least a day (fileio.MinFeedRetention).
CREATE OR REPLACE FUNCTION mcp_files_record_event() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    pos BIGINT;
BEGIN
    UPDATE mcp_file_feed_heads SET last_position = last_position + 1
    WHERE apikey_hash = NEW.apikey_hash AND project = NEW.project
    RETURNING last_position INTO pos;
    IF NOT FOUND THEN
        INSERT INTO mcp_file_feed_heads AS h (apikey_hash, project, last_position)
        VALUES (NEW.apikey_hash, NEW.project, 1)
        ON CONFLICT (apikey_hash, project) DO UPDATE SET last_position = h.last_position + 1
        RETURNING h.last_position INTO pos;
    END IF;
    INSERT INTO mcp_file_events
        (apikey_hash, project, position, path, kind, version, prev_version, sha256, size, at, purge_after)
    VALUES (NEW.apikey_hash, NEW.project, pos, NEW.path,
            CASE WHEN TG_OP = 'INSERT' THEN 'created' WHEN NEW.deleted THEN 'deleted' ELSE 'modified' END,
            NEW.version,
            CASE WHEN TG_OP = 'INSERT' THEN 0 ELSE OLD.version END,
            CASE WHEN NEW.deleted THEN '' ELSE encode(sha256(NEW.content), 'hex') END,
            CASE WHEN NEW.deleted THEN 0 ELSE NEW.size END,
            statement_timestamp(),
            statement_timestamp() + GREATEST(
                COALESCE(NULLIF(current_setting('agentfiles.history_retention_us', true), '')::bigint, 0),
                86400000000) * interval '1 microsecond');
    RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS mcp_files_record_insert ON mcp_files;
CREATE TRIGGER mcp_files_record_insert AFTER INSERT ON mcp_files
FOR EACH ROW WHEN (NOT NEW.deleted)
EXECUTE FUNCTION mcp_files_record_event();

DROP TRIGGER IF EXISTS mcp_files_record_update ON mcp_files;
CREATE TRIGGER mcp_files_record_update AFTER UPDATE ON mcp_files
FOR EACH ROW WHEN (NOT OLD.deleted AND (NEW.deleted OR NEW.updated_at IS DISTINCT FROM OLD.updated_at))
EXECUTE FUNCTION mcp_files_record_event();

-- Whether a checkpoint of the project needs version v of path: the version an event replaced
-- was current from the path's previous event (0 when it is no longer kept: events are purged
-- only at or before every checkpoint) until that event's position.
CREATE OR REPLACE FUNCTION mcp_file_version_pinned(h VARCHAR, p VARCHAR, f VARCHAR, v BIGINT) RETURNS boolean
LANGUAGE sql STABLE AS $fn$
    SELECT EXISTS (
        SELECT 1 FROM mcp_file_events e
        JOIN mcp_file_checkpoints c ON c.apikey_hash = e.apikey_hash AND c.project = e.project
            AND c.position < e.position
            AND c.position >= COALESCE((SELECT max(w.position) FROM mcp_file_events w
                WHERE w.apikey_hash = e.apikey_hash AND w.project = e.project AND w.path = e.path
                  AND w.position < e.position), 0)
        WHERE e.apikey_hash = h AND e.project = p AND e.path = f AND e.prev_version = v AND e.kind <> 'created')
$fn$;

-- The history trigger of 0005, unchanged but for the drop of the versions past the last `keep`,
-- which leaves the pinned ones.
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
          AND NOT mcp_file_version_pinned(v.apikey_hash, v.project, v.path, v.version)
        RETURNING v.size
    )
    INSERT INTO mcp_file_history_usage AS h (apikey_hash, project, size_bytes)
    SELECT OLD.apikey_hash, OLD.project, COALESCE((SELECT sum(size) FROM ins), 0) - COALESCE((SELECT sum(size) FROM del), 0)
    ON CONFLICT (apikey_hash, project) DO UPDATE SET size_bytes = h.size_bytes + EXCLUDED.size_bytes;
    RETURN NEW;
END
$fn$;
