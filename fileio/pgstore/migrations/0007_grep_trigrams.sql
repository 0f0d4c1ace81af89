-- Exact search (fileio.Service.Grep): a pg_trgm GIN index on the text of every active file, so
-- that a pattern with literal text reads only the files whose text holds its trigrams. The
-- store turns the literals of a fileio.ContentQuery into LIKE/ILIKE conditions on
-- mcp_files_grep_text(content), which this index serves; PostgreSQL rechecks each condition
-- exactly, and the Service matches the lines in Go.
--
-- pg_trgm ships with PostgreSQL (Debian's postgresql package includes it); it is a trusted
-- extension, so a database owner may create it. This index was maintained by every statement
-- that writes a file, in the same transaction; migration 0008 replaces it with a partial index
-- that a background indexer maintains, keeping trigram work off the write path.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The text of a file for the index: the content as text, NULL when it holds a NUL byte (which
-- text cannot hold, and which grep skips as ripgrep does). The Service stores valid UTF-8 only.
-- IMMUTABLE because it depends on nothing but its argument (and the database encoding, which
-- never changes); not STRICT, so that the planner inlines it (NULL gives NULL anyway).
CREATE OR REPLACE FUNCTION mcp_files_grep_text(content BYTEA) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN position('\x00'::bytea IN content) > 0 THEN NULL ELSE convert_from(content, 'UTF8') END $$;

CREATE INDEX IF NOT EXISTS idx_mcp_files_grep_trgm
ON mcp_files USING gin (mcp_files_grep_text(content) gin_trgm_ops)
WHERE deleted = FALSE;
