-- Compact storage (issue 15): the index stores, apart from vectors, less than the text it
-- indexes. A row per chunk and a row per (term, chunk) cost 0.85× and 40× the text; instead
-- (see the package doc, "Storage", and codec.go for the byte formats):
--
--   * a file written by ReplaceFile is pending: its chunk records and postings (file-major) are
--     one mcp_search_pending row, named by the write's id (mcp_search_files.write_id);
--   * a merge turns pending files and small segments into one segment, a single
--     mcp_search_segments row: the chunk records of its files (directory), a term dictionary
--     (terms), and every term's postings over the segment's chunks, delta/varint coded, back to
--     back (postings, stored uncompressed out of line so that a query reads only the slices of
--     its terms); files rows then point at their chunks (segment_id, first_chunk);
--   * a chunk is live while its file's row points at it: replacing or deleting a file leaves
--     its old chunks in their segment, dead, until a merge drops them;
--   * vectors are one row per file (the chunks' float32 vectors back to back), last_served_at
--     one row per served chunk, and the tsvector of each chunk (LexicalTSVector mode only) one
--     row per chunk.
--
-- Files indexed before this migration are marked legacy; pgindex.New converts them to the new
-- form from the old tables (their terms, offsets and hashes; their vectors and tsvectors are
-- moved below) and then drops the old tables.
CREATE TABLE IF NOT EXISTS mcp_search_segments (
    id          BIGSERIAL   PRIMARY KEY,
    project_id  BIGINT      NOT NULL REFERENCES mcp_search_projects(id),
    chunk_count INT         NOT NULL,
    directory   BYTEA       NOT NULL,
    terms       BYTEA       NOT NULL,
    postings    BYTEA       NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS idx_mcp_search_segments_project ON mcp_search_segments (project_id);

ALTER TABLE mcp_search_segments ALTER COLUMN postings SET STORAGE EXTERNAL;

CREATE TABLE IF NOT EXISTS mcp_search_pending (
    write_id   BIGINT PRIMARY KEY,
    project_id BIGINT NOT NULL,
    data       BYTEA  NOT NULL
);

CREATE TABLE IF NOT EXISTS mcp_search_vectors (
    project_id BIGINT        NOT NULL,
    file_path  VARCHAR(1024) COLLATE "C" NOT NULL,
    model      VARCHAR(128)  NOT NULL,
    dims       INT           NOT NULL,
    vectors    BYTEA         NOT NULL,
    PRIMARY KEY (project_id, file_path)
);

-- Float vectors do not compress: store them out of line without trying.
ALTER TABLE mcp_search_vectors ALTER COLUMN vectors SET STORAGE EXTERNAL;

CREATE TABLE IF NOT EXISTS mcp_search_served (
    project_id  BIGINT        NOT NULL,
    file_path   VARCHAR(1024) COLLATE "C" NOT NULL,
    chunk_index INT           NOT NULL,
    served_at   TIMESTAMPTZ   NOT NULL,
    PRIMARY KEY (project_id, file_path, chunk_index)
);

CREATE TABLE IF NOT EXISTS mcp_search_chunk_tsv (
    project_id  BIGINT        NOT NULL,
    file_path   VARCHAR(1024) COLLATE "C" NOT NULL,
    chunk_index INT           NOT NULL,
    tsv         TSVECTOR      NOT NULL,
    PRIMARY KEY (project_id, file_path, chunk_index)
);

ALTER TABLE mcp_search_files
    ADD COLUMN IF NOT EXISTS segment_id  BIGINT,
    ADD COLUMN IF NOT EXISTS first_chunk INT,
    ADD COLUMN IF NOT EXISTS write_id    BIGINT  NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS legacy      BOOLEAN NOT NULL DEFAULT false,
    -- The transaction that last wrote the row (ReplaceFile, a merge, Reembed): a query's cached
    -- view of the project reads only the rows written by transactions its snapshot did not see.
    ADD COLUMN IF NOT EXISTS write_xact  xid8    NOT NULL DEFAULT pg_current_xact_id();

-- pending_chunks and dead_chunks (chunks in segments that no file points at any more) tell when
-- a merge is due; write_id (from the sequence) tells a merge whether a file changed since it
-- read it.
ALTER TABLE mcp_search_projects
    ADD COLUMN IF NOT EXISTS pending_chunks BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS dead_chunks    BIGINT NOT NULL DEFAULT 0;

CREATE SEQUENCE IF NOT EXISTS mcp_search_write_seq;

-- The primary key (project_id, file_path) with the "C" collation serves prefix scans.
DROP INDEX IF EXISTS idx_mcp_search_files_prefix;

-- Every file indexed so far lives in the old tables until New converts it.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_class WHERE relname = 'mcp_file_chunks' AND relkind = 'r') THEN
        UPDATE mcp_search_files SET legacy = true WHERE chunk_count > 0;
    END IF;
END
$$;

-- Vectors move now, a row per file, before the embedder check below exists: a database whose
-- vectors disagree (recorded no embedder, see migration 0002) keeps them as they are until
-- Index.Reembed settles it. A file whose chunks do not all have a vector of its model gets none.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_class WHERE relname = 'mcp_file_chunk_embeddings' AND relkind = 'r') THEN
        INSERT INTO mcp_search_vectors (project_id, file_path, model, dims, vectors)
        SELECT e.project_id, e.file_path, e.model, min(e.dims), string_agg(e.embedding, ''::bytea ORDER BY e.chunk_index)
        FROM mcp_file_chunk_embeddings e
        JOIN mcp_search_files f ON f.project_id = e.project_id AND f.file_path = e.file_path AND f.embedding_model = e.model
        GROUP BY e.project_id, e.file_path, e.model, f.chunk_count
        HAVING count(*) = f.chunk_count AND min(e.dims) = max(e.dims)
        ON CONFLICT DO NOTHING;
        UPDATE mcp_search_files f SET embedding_model = ''
        WHERE embedding_model <> '' AND NOT EXISTS (
            SELECT 1 FROM mcp_search_vectors v WHERE v.project_id = f.project_id AND v.file_path = f.file_path);
    END IF;
END
$$;

-- tsvectors (LexicalTSVector mode, migration 0004) move likewise.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'mcp_file_chunks' AND column_name = 'chunk_tsv') THEN
        INSERT INTO mcp_search_chunk_tsv (project_id, file_path, chunk_index, tsv)
        SELECT project_id, file_path, chunk_index, chunk_tsv FROM mcp_file_chunks WHERE chunk_tsv IS NOT NULL
        ON CONFLICT DO NOTHING;
    END IF;
END
$$;

-- The embedder check (migration 0002) moves to the new vector table.
DROP TRIGGER IF EXISTS mcp_search_check_embedder ON mcp_search_vectors;
CREATE TRIGGER mcp_search_check_embedder AFTER INSERT ON mcp_search_vectors
REFERENCING NEW TABLE AS mcp_search_new_vectors
FOR EACH STATEMENT EXECUTE FUNCTION mcp_search_check_embedder();
