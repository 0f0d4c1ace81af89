-- Grep's index and its LIKE conditions independent of the database's collation. Migrations 0007
-- and 0008 indexed mcp_files_grep_text(content) and matched ignore-case literals with ILIKE,
-- which lower-cases both sides under the database's collation: under an ICU tr-TR collation
-- "FILE" lower-cases to "fıle" (dotless ı) and no longer contains "file", and under lt-LT an "I"
-- before a combining accent gains a dot above; pg_trgm lower-cases its trigrams with the
-- database's LC_CTYPE as well. An indexed file could then be missed by a search that matches
-- it in Go.
--
-- mcp_files_grep_fold(content) is the file's text with the ASCII letters A-Z replaced by a-z and
-- every other character kept: the ASCII case folding that fileio.ContentQuery's ignore-case
-- literals use, the same under every database collation and LC_CTYPE. lower() under the "C"
-- collation is exactly that (PostgreSQL lower-cases byte by byte, ASCII only, for C whatever
-- the database's locale), and costs about as much as LIKE (translate() would do the same 50
-- times slower). pgstore compares it with LIKE, which compares characters
-- exactly under every deterministic collation: an ignore-case literal as it is (it is lower
-- case), a case-sensitive one lower-cased as well as the text itself. The folded text holds no
-- upper-case ASCII letter, which is the only kind whose lower-casing differs between locales,
-- so pg_trgm's own lower-casing of a lower-case ASCII literal's trigrams finds them in the
-- folded text under every locale.
--
-- The index replaces migration 0008's, with the same predicate: building it reads the rows the
-- indexer has already indexed, once, in this migration's transaction.
CREATE OR REPLACE FUNCTION mcp_files_grep_fold(content BYTEA) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT lower(mcp_files_grep_text(content) COLLATE "C") $$;

DROP INDEX IF EXISTS idx_mcp_files_grep_trgm;

CREATE INDEX IF NOT EXISTS idx_mcp_files_grep_fold
ON mcp_files USING gin (mcp_files_grep_fold(content) gin_trgm_ops)
WHERE deleted = FALSE AND grep_indexed;
