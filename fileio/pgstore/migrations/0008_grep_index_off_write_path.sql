-- Exact search without trigram work on the write path. Migration 0007's GIN index covered every
-- active row, so every write computed the trigrams of the text it wrote inside its transaction
-- (about 3 times the cost of a write of a 16 KB file). Now:
--
--   * grep_indexed says whether a row is in the trigram index. The GIN index is partial,
--     WHERE deleted = FALSE AND grep_indexed: PostgreSQL evaluates a partial index's predicate
--     before its expression, so a row written with grep_indexed = FALSE costs the index nothing.
--     Every statement that writes content leaves the row unindexed: a new row takes the default,
--     and the statements that replace content (pgstore's Put, conditional write and splice) set
--     grep_indexed = FALSE themselves. The trigger below does it for any other UPDATE of content
--     that would keep an indexed row indexed, so the write path never computes trigrams.
--   * The background indexer of pgstore (Store.IndexGrep) sets grep_indexed = TRUE on a few rows
--     at a time (FOR UPDATE SKIP LOCKED: it never waits for a writer), which inserts their GIN
--     entries. Its UPDATE changes no other column: the history triggers of 0005/0006 stand aside
--     (they fire on UPDATE only while agentfiles.history_versions is set, which the indexer sets
--     to 0), the byte counts, updated_at and the outbox are not touched.
--   * Grep's candidates are the GIN matches among indexed rows together with every unindexed
--     active row below the searched path (found with idx_mcp_files_grep_pending), which the
--     Service reads and matches itself. Index entries belong to the row version they were made
--     for, so an answer is exact at every moment, and a file is searchable as soon as its write
--     commits.
--
-- The indexer's UPDATE changes a column of an index predicate, so it is never a HOT update: it
-- leaves one dead row version per indexed write, which autovacuum removes (content stored out of
-- line in TOAST is shared by both versions, not copied).
--
-- Existing rows become unindexed (the column's default, no table rewrite) and the indexer
-- catches up; until then grep reads them as it reads files without literal text.
ALTER TABLE mcp_files ADD COLUMN IF NOT EXISTS grep_indexed BOOLEAN NOT NULL DEFAULT FALSE;

DROP INDEX IF EXISTS idx_mcp_files_grep_trgm;

CREATE INDEX IF NOT EXISTS idx_mcp_files_grep_trgm
ON mcp_files USING gin (mcp_files_grep_text(content) gin_trgm_ops)
WHERE deleted = FALSE AND grep_indexed;

-- The text of every active row must be something the indexer can index, or the indexer would
-- fail on that row for ever: valid UTF-8 (mcp_files_grep_text raises an error otherwise; a NUL
-- byte makes it NULL, which the check lets pass and the index leaves out). Under migration
-- 0007 the index expression refused such a write; this check keeps refusing it, at the cost of
-- verifying the UTF-8 of the text written (far less than computing its trigrams). NOT VALID:
-- the rows already stored passed the old index's expression, so they are not checked again.
ALTER TABLE mcp_files ADD CONSTRAINT mcp_files_grep_text_valid
CHECK (deleted OR octet_length(mcp_files_grep_text(content)) >= 0) NOT VALID;

-- The unindexed active rows: grep's second source of candidates (by tenant, project and path)
-- and the indexer's queue. It holds only the rows written since the indexer last ran.
CREATE INDEX IF NOT EXISTS idx_mcp_files_grep_pending
ON mcp_files (apikey_hash, project, path)
WHERE deleted = FALSE AND NOT grep_indexed;

-- A statement that replaces the content of an indexed row without saying grep_indexed = FALSE
-- would compute the trigrams of the new content in its own transaction. This trigger unindexes
-- the row instead. The WHEN clause is false for pgstore's own statements (they set it FALSE)
-- and for the indexer's (which does not set content, and whose old row is unindexed), so
-- neither pays a trigger call.
CREATE OR REPLACE FUNCTION mcp_files_grep_unindex() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    NEW.grep_indexed := FALSE;
    RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS mcp_files_grep_unindex ON mcp_files;
CREATE TRIGGER mcp_files_grep_unindex BEFORE UPDATE OF content ON mcp_files
FOR EACH ROW WHEN (OLD.grep_indexed AND NEW.grep_indexed)
EXECUTE FUNCTION mcp_files_grep_unindex();
