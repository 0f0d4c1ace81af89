-- Quotas that count everything a project keeps (issue 41): the byte quota counts the files,
-- the kept versions (pinned ones included) and the change-feed events; the file counts of a
-- project and of a tenant and a tenant's projects are quotas too. The store checks them before
-- a transaction that created or replaced a file commits (driver.UpdateOptions.Quota).
--
-- 1. Each change-feed event counts as its path's bytes plus 128 (driver.EventOverheadBytes),
--    about what PostgreSQL keeps per event with its index entries. The project's feed head
--    holds the sum, kept by every statement that adds or purges events: the trigger of
--    migration 0010 (below), pgstore's bulk statements (PutMany, the COPY's follow-up) and the
--    purge.
ALTER TABLE mcp_file_feed_heads ADD COLUMN IF NOT EXISTS event_bytes BIGINT NOT NULL DEFAULT 0;

UPDATE mcp_file_feed_heads h SET event_bytes = e.bytes
FROM (SELECT apikey_hash, project, sum(octet_length(path) + 128) AS bytes
      FROM mcp_file_events GROUP BY apikey_hash, project) e
WHERE h.apikey_hash = e.apikey_hash AND h.project = e.project;

-- The trigger function of migration 0010, which now also counts the event's bytes in the head
-- row it already updates (so the write path takes no other lock).
CREATE OR REPLACE FUNCTION mcp_files_record_event() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    pos BIGINT;
BEGIN
    UPDATE mcp_file_feed_heads SET last_position = last_position + 1, event_bytes = event_bytes + octet_length(NEW.path) + 128
    WHERE apikey_hash = NEW.apikey_hash AND project = NEW.project
    RETURNING last_position INTO pos;
    IF NOT FOUND THEN
        INSERT INTO mcp_file_feed_heads AS h (apikey_hash, project, last_position, event_bytes)
        VALUES (NEW.apikey_hash, NEW.project, 1, octet_length(NEW.path) + 128)
        ON CONFLICT (apikey_hash, project) DO UPDATE
        SET last_position = h.last_position + 1, event_bytes = h.event_bytes + EXCLUDED.event_bytes
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

-- 2. What a project holds, as the quotas count it (driver.Usage): its bytes (files, kept
--    versions, events), its active files, and the bytes of its kept versions and events. Three
--    lookups by primary key; declared as a table of one row so that PostgreSQL inlines it into
--    the statements that read it.
CREATE OR REPLACE FUNCTION mcp_files_usage(h VARCHAR, p VARCHAR)
RETURNS TABLE (bytes BIGINT, files BIGINT, kept BIGINT, events BIGINT)
LANGUAGE sql STABLE AS $fn$
    SELECT COALESCE(u.size_bytes, 0) + COALESCE(hu.size_bytes, 0) + COALESCE(fh.event_bytes, 0),
           COALESCE(u.file_count, 0), COALESCE(hu.size_bytes, 0), COALESCE(fh.event_bytes, 0)
    FROM (VALUES (1)) AS one
    LEFT JOIN mcp_file_project_usage u ON u.apikey_hash = h AND u.project = p
    LEFT JOIN mcp_file_history_usage hu ON hu.apikey_hash = h AND hu.project = p
    LEFT JOIN mcp_file_feed_heads fh ON fh.apikey_hash = h AND fh.project = p
$fn$;

-- 3. driver.Quota.Check: raises SQLSTATE AFQ01 with the message "KIND LIMIT VALUE"
--    (driver.ParseQuotaError) when a transaction takes the project from (bytes_before,
--    files_before, counted_before) to (bytes_after, files_after, counted_after) past a bound
--    (0: none), else returns true. The tenant's bounds count its other projects as committed,
--    and this project as the caller says it is after, so the same function serves a check
--    before commit and one inside the statement that writes.
CREATE OR REPLACE FUNCTION mcp_files_quota_guard(h VARCHAR, p VARCHAR,
    bytes_before BIGINT, bytes_after BIGINT, files_before BIGINT, files_after BIGINT,
    counted_before BOOLEAN, counted_after BOOLEAN,
    max_bytes BIGINT, max_files BIGINT, max_tenant_files BIGINT, max_tenant_projects BIGINT) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
    n BIGINT;
BEGIN
    IF max_bytes > 0 AND bytes_after > max_bytes AND bytes_after > bytes_before THEN
        RAISE EXCEPTION USING ERRCODE = 'AFQ01', MESSAGE = format('project_bytes %s %s', max_bytes, bytes_after);
    END IF;
    IF max_files > 0 AND files_after > max_files AND files_after > files_before THEN
        RAISE EXCEPTION USING ERRCODE = 'AFQ01', MESSAGE = format('project_files %s %s', max_files, files_after);
    END IF;
    IF max_tenant_files > 0 AND files_after > files_before THEN
        SELECT COALESCE(sum(file_count), 0) + files_after INTO n FROM mcp_file_project_usage
        WHERE apikey_hash = h AND project <> p;
        IF n > max_tenant_files THEN
            RAISE EXCEPTION USING ERRCODE = 'AFQ01', MESSAGE = format('tenant_files %s %s', max_tenant_files, n);
        END IF;
    END IF;
    IF max_tenant_projects > 0 AND counted_after AND NOT counted_before THEN
        SELECT count(*) + 1 INTO n FROM (
            SELECT project FROM mcp_file_project_usage WHERE apikey_hash = h AND project <> p AND file_count > 0
            UNION
            SELECT project FROM mcp_file_history_usage WHERE apikey_hash = h AND project <> p AND size_bytes > 0) AS others;
        IF n > max_tenant_projects THEN
            RAISE EXCEPTION USING ERRCODE = 'AFQ01', MESSAGE = format('tenant_projects %s %s', max_tenant_projects, n);
        END IF;
    END IF;
    RETURN true;
END
$fn$;

-- 4. pgstore checks a whole transaction with two statements of its own: one records the
--    project's usage in a transaction-local setting once the transaction holds the project's
--    lock (agentfiles.quota_before: bytes, files, and whether the project counts), the other,
--    before COMMIT, compares the usage then with it and calls mcp_files_quota_guard only when a
--    bound may be passed (see session.go).
