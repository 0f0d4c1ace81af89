-- Chunk text is no longer stored in the index: a chunk is its file version, chunk index, byte
-- offsets [start_byte, end_byte), content hash, length in terms, postings and vector, and the
-- Searcher reads the text of the chunks it ranks from the file store by those offsets (in the
-- same read that checks the file is still at the indexed version; see search.Index). The file
-- store holds the text once; the index no longer holds a second copy.
--
-- Existing rows: every chunk keeps its offsets, hash, postings and vector, so everything indexed
-- stays searchable without re-indexing, and results read their text from the file. Only the
-- stored text (chunk_content) is dropped, with the columns nothing reads (the chunk's tenant and
-- project, which mcp_search_projects holds, and its row timestamps) and the index over them. A
-- chunk whose file changed since it was indexed was already never served (the liveness check
-- drops it) and is re-indexed by the file's pending job as before. Dropping a column is a
-- catalog change, instant at any size; PostgreSQL reclaims the old text's space as rows are
-- rewritten (re-indexed files), or at once with VACUUM FULL mcp_file_chunks in a maintenance
-- window.
--
-- LexicalTSVector mode matched chunks with a GIN index on to_tsvector('english', chunk_content).
-- That index goes with the column: chunk_tsv holds each chunk's tsvector instead, written by
-- ReplaceFile in that mode only, with its own GIN index created by pgindex.New in that mode.
-- Rows of a database that was used in that mode (the old index exists) get their tsvector
-- computed here from the text before it is dropped; in other databases chunk_tsv stays NULL, and
-- a file indexed before a switch to tsvector mode is matched once it is indexed again.
ALTER TABLE mcp_file_chunks ADD COLUMN IF NOT EXISTS chunk_tsv TSVECTOR;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_class WHERE relname = 'idx_mcp_file_chunks_tsv' AND relkind = 'i')
       AND EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_name = 'mcp_file_chunks' AND column_name = 'chunk_content') THEN
        -- The stored text is escaped (migration 0003); U+0001 and U+0002 are separators to
        -- to_tsvector, so the escaped text gives the original's tsvector.
        UPDATE mcp_file_chunks SET chunk_tsv = to_tsvector('english', chunk_content);
    END IF;
END
$$;

DROP INDEX IF EXISTS idx_mcp_file_chunks_tsv;
DROP INDEX IF EXISTS idx_mcp_file_chunks_prefix;
ALTER TABLE mcp_file_chunks
    DROP COLUMN IF EXISTS chunk_content,
    DROP COLUMN IF EXISTS apikey_hash,
    DROP COLUMN IF EXISTS project,
    DROP COLUMN IF EXISTS created_at,
    DROP COLUMN IF EXISTS updated_at;
