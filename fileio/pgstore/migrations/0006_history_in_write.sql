-- File history without the trigger on the hot path (issue 16): the conditional write
-- (sqlWriteIfAllowed) keeps the replaced version itself, in data-modifying CTEs of its one
-- statement, and numbers the row it writes; a BEFORE trigger (a PL/pgSQL call and its
-- statements, and on INSERT … ON CONFLICT also the insert trigger's lookup of the newest kept
-- version, run even when the row then conflicts) cost more than the write. The trigger of 0005
-- stays for every other statement (Put, Splice, Delete, Move): it now fires only when the
-- statement has not numbered the row itself.
--   INSERT: when NEW.version is 1 (the default). A statement that knows the path's next
--           number (the old row's version + 1, at least 2) supplies it.
--   UPDATE: when NEW.version = OLD.version and the old row is active. A statement that keeps
--           the old version itself sets version = OLD.version + 1 in the same UPDATE.
-- The function is unchanged; only when it runs changes.
DROP TRIGGER IF EXISTS mcp_files_keep_version ON mcp_files;

CREATE TRIGGER mcp_files_number_version BEFORE INSERT ON mcp_files
FOR EACH ROW WHEN (NEW.version = 1
    AND COALESCE(current_setting('agentfiles.history_versions', true), '') NOT IN ('', '0'))
EXECUTE FUNCTION mcp_files_keep_version();

CREATE TRIGGER mcp_files_keep_version BEFORE UPDATE ON mcp_files
FOR EACH ROW WHEN (NEW.version = OLD.version AND NOT OLD.deleted
    AND COALESCE(current_setting('agentfiles.history_versions', true), '') NOT IN ('', '0'))
EXECUTE FUNCTION mcp_files_keep_version();
