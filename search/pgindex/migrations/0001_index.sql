-- The search index (seed 003 §10.2), adapted so that BM25 is computed from plain tables with no
-- extension. Rows are written only by pgindex, always in one transaction per file.
--
-- Differences from the seed, on purpose:
--   * mcp_search_projects gives each (apikey_hash, project) a small numeric id and keeps its BM25
--     statistics (chunk count, total terms), updated in the same transaction as every change, so
--     a query reads one row instead of aggregating the project; generation counts the changes,
--     so an in-process vector cache knows when it is stale.
--   * mcp_search_files records the indexed version of each file (also files with no chunks) and
--     its share of the project statistics.
--     file_updated_ns holds the sub-microsecond part of the version, which TIMESTAMPTZ drops, so
--     versions compare exactly with the store's.
--   * mcp_file_chunk_postings replaces the seed's JSONB token column: one row per (term, chunk)
--     with the term frequency and the chunk length, keyed for "all postings of these terms in
--     this project". file_path is repeated there so path filters need no join, and the
--     primary key INCLUDEs the scored columns so a query can read postings from the index alone.
--   * Embeddings are BYTEA (little-endian float32, any dimension), not pgvector's VECTOR(1536);
--     a pgvector column is added at start-up when the extension is installed (see pgindex.New).
--   * apikey_hash is VARCHAR(64) and paths use the "C" collation, as in fileio/pgstore, so paths
--     sort and compare bytewise like Go strings.
CREATE TABLE IF NOT EXISTS mcp_search_projects (
    id           BIGSERIAL PRIMARY KEY,
    apikey_hash  VARCHAR(64)  NOT NULL,
    project      VARCHAR(128) NOT NULL,
    chunk_count  BIGINT       NOT NULL DEFAULT 0,
    total_terms  BIGINT       NOT NULL DEFAULT 0,
    generation   BIGINT       NOT NULL DEFAULT 0,
    UNIQUE (apikey_hash, project)
);

CREATE TABLE IF NOT EXISTS mcp_search_files (
    project_id       BIGINT        NOT NULL REFERENCES mcp_search_projects(id),
    file_path        VARCHAR(1024) COLLATE "C" NOT NULL,
    file_updated_at  TIMESTAMPTZ   NOT NULL,
    file_updated_ns  INT           NOT NULL DEFAULT 0,
    embedding_model  VARCHAR(128)  NOT NULL DEFAULT '',
    tokenizer        VARCHAR(64)   NOT NULL,
    chunk_count      INT           NOT NULL,
    total_terms      BIGINT        NOT NULL,
    indexed_at       TIMESTAMPTZ   NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, file_path)
);

CREATE INDEX IF NOT EXISTS idx_mcp_search_files_prefix
ON mcp_search_files (project_id, file_path text_pattern_ops);

CREATE TABLE IF NOT EXISTS mcp_file_chunks (
    id              BIGSERIAL PRIMARY KEY,
    project_id      BIGINT        NOT NULL REFERENCES mcp_search_projects(id),
    apikey_hash     VARCHAR(64)   NOT NULL,
    project         VARCHAR(128)  NOT NULL,
    file_path       VARCHAR(1024) COLLATE "C" NOT NULL,
    file_updated_at TIMESTAMPTZ   NOT NULL,
    file_updated_ns INT           NOT NULL DEFAULT 0,
    chunk_index     INT           NOT NULL,
    start_byte      BIGINT        NOT NULL,
    end_byte        BIGINT        NOT NULL,
    chunk_content   TEXT          NOT NULL,
    content_hash    CHAR(64)      NOT NULL,
    chunk_terms     INT           NOT NULL,
    created_at      TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ   NOT NULL DEFAULT now(),
    last_served_at  TIMESTAMPTZ,
    UNIQUE (project_id, file_path, chunk_index)
);

CREATE INDEX IF NOT EXISTS idx_mcp_file_chunks_prefix
ON mcp_file_chunks (apikey_hash, project, file_path text_pattern_ops);

CREATE TABLE IF NOT EXISTS mcp_file_chunk_embeddings (
    chunk_id    BIGINT        PRIMARY KEY REFERENCES mcp_file_chunks(id) ON DELETE CASCADE,
    project_id  BIGINT        NOT NULL,
    file_path   VARCHAR(1024) COLLATE "C" NOT NULL,
    chunk_index INT           NOT NULL,
    model       VARCHAR(128)  NOT NULL,
    dims        INT           NOT NULL,
    embedding   BYTEA         NOT NULL,
    created_at  TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ   NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS idx_mcp_file_chunk_embeddings_scan
ON mcp_file_chunk_embeddings (project_id, model, dims);

CREATE TABLE IF NOT EXISTS mcp_file_chunk_postings (
    project_id   BIGINT        NOT NULL,
    term         TEXT          COLLATE "C" NOT NULL,
    chunk_id     BIGINT        NOT NULL,
    tf           INT           NOT NULL,
    chunk_terms  INT           NOT NULL,
    file_path    VARCHAR(1024) COLLATE "C" NOT NULL,
    PRIMARY KEY (project_id, term, chunk_id) INCLUDE (tf, chunk_terms, file_path)
);

CREATE INDEX IF NOT EXISTS idx_mcp_file_chunk_postings_chunk
ON mcp_file_chunk_postings (chunk_id);
