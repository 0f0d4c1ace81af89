-- Bulk import (fileio.Service.Import through pgstore's PutMany) without per-row work.
--
-- 1. File content is compressed with lz4 instead of pglz where the server has it (PostgreSQL 14
--    and later built --with-lz4, as Debian's and the official images are): compressing 30 MB of
--    Markdown took 2.3 s with pglz and 0.45 s with lz4 in one INSERT, and reading it back
--    (export, grep's recheck of the trigram index's candidates) decompresses about 3 times
--    faster. Only values written from now on use it; stored ones keep pglz, which PostgreSQL
--    still reads. A server without lz4 (or older than 14) keeps pglz: the statement is run
--    dynamically and its error caught, so this migration applies everywhere.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE mcp_files ALTER COLUMN content SET COMPRESSION lz4';
    EXECUTE 'ALTER TABLE mcp_file_versions ALTER COLUMN content SET COMPRESSION lz4';
EXCEPTION WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
    RAISE NOTICE 'lz4 compression is not available on this server; file content stays compressed with pglz';
END
$$;

-- 2. The row triggers on INSERT stand aside for a statement that does their work itself, set
--    based: the history's version numbering (mcp_files_number_version, migration 0006) and the
--    change feed's event (mcp_files_record_insert, migration 0010). pgstore's PutMany sets
--    agentfiles.bulk_insert (SET LOCAL, cleared again right after the statement) around the one
--    statement that inserts a batch of files, numbers the new rows as the trigger would, and
--    appends their events with consecutive positions taken from the project's feed head in one
--    update. Per file the two triggers cost a PL/pgSQL call, an index probe and a head update
--    and insert each, more than the insert itself. The UPDATE triggers are unchanged: a file
--    that an import replaces goes through them as after any write.
DROP TRIGGER IF EXISTS mcp_files_number_version ON mcp_files;
CREATE TRIGGER mcp_files_number_version BEFORE INSERT ON mcp_files
FOR EACH ROW WHEN (NEW.version = 1
    AND COALESCE(current_setting('agentfiles.history_versions', true), '') NOT IN ('', '0')
    AND COALESCE(current_setting('agentfiles.bulk_insert', true), '') = '')
EXECUTE FUNCTION mcp_files_keep_version();

DROP TRIGGER IF EXISTS mcp_files_record_insert ON mcp_files;
CREATE TRIGGER mcp_files_record_insert AFTER INSERT ON mcp_files
FOR EACH ROW WHEN (NOT NEW.deleted AND COALESCE(current_setting('agentfiles.bulk_insert', true), '') = '')
EXECUTE FUNCTION mcp_files_record_event();
