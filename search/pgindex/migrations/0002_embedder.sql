-- The embedder identity: one row naming the embedding model and the vector size that every
-- vector of this database was made with. Vectors of different embedders cannot be compared, so
-- a second process configured with another embedder must not index or query the database as if
-- they could (see pgindex's package doc, "Embedder identity"):
--   * pgindex.New records the identity of Options.Embedder when none is recorded and refuses
--     (INVALID_CONFIG) when another one is;
--   * the trigger below refuses to store vectors of another embedder, whoever writes them (a
--     process that did not declare its embedder, or one that started before the database was
--     switched), and records the identity of the first vectors stored when none is recorded;
--   * Index.Reembed is the one way to change it: it drops the vectors of the old embedder and
--     re-embeds the indexed chunks with the new one.
--
-- One row per database rather than per tenant or project: a server process serves every tenant
-- with one embedder and its indexer re-indexes whichever file a job names, so only a record the
-- whole database shares keeps two differently configured processes from overwriting each
-- other's vectors.
CREATE TABLE IF NOT EXISTS mcp_search_embedder (
    singleton   BOOLEAN      PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    model       VARCHAR(128) NOT NULL CHECK (model <> ''),
    dims        INT          NOT NULL CHECK (dims > 0),
    recorded_at TIMESTAMPTZ  NOT NULL DEFAULT now()
);

-- A database indexed before this migration: record its embedder when all its vectors agree on
-- one. When they do not, nothing is recorded and pgindex.New refuses every embedder until
-- Index.Reembed settles on one.
INSERT INTO mcp_search_embedder (model, dims)
SELECT min(model), min(dims) FROM (SELECT DISTINCT model, dims FROM mcp_file_chunk_embeddings) AS d
HAVING count(*) = 1
ON CONFLICT DO NOTHING;

-- Once per INSERT statement into mcp_file_chunk_embeddings (one per indexed file): every new
-- vector must be of the recorded embedder. SQLSTATE AF001 is mapped to INVALID_CONFIG by
-- pgindex, with this message. Index.Reembed locks mcp_file_chunk_embeddings in EXCLUSIVE mode
-- while it switches, so no insert checked against the old identity can commit after the switch.
CREATE OR REPLACE FUNCTION mcp_search_check_embedder() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    rec_model TEXT;
    rec_dims  INT;
    bad_model TEXT;
    bad_dims  INT;
BEGIN
    SELECT model, dims INTO rec_model, rec_dims FROM mcp_search_embedder;
    IF NOT FOUND THEN
        INSERT INTO mcp_search_embedder (model, dims)
        SELECT model, dims FROM mcp_search_new_vectors LIMIT 1
        ON CONFLICT DO NOTHING;
        SELECT model, dims INTO rec_model, rec_dims FROM mcp_search_embedder;
        IF NOT FOUND THEN
            RETURN NULL; -- the statement inserted no rows
        END IF;
    END IF;
    SELECT model, dims INTO bad_model, bad_dims FROM mcp_search_new_vectors
    WHERE model <> rec_model OR dims <> rec_dims LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'AF001', MESSAGE = format(
            'vectors of embedder "%s" (%s dimensions) cannot be stored: the search index in this '
            'database holds vectors of embedder "%s" (%s dimensions), and vectors of different '
            'embedders cannot be compared; configure the recorded embedder, or switch the database '
            'to the new one explicitly with pgindex Index.Reembed',
            bad_model, bad_dims, rec_model, rec_dims);
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS mcp_search_check_embedder ON mcp_file_chunk_embeddings;
CREATE TRIGGER mcp_search_check_embedder AFTER INSERT ON mcp_file_chunk_embeddings
REFERENCING NEW TABLE AS mcp_search_new_vectors
FOR EACH STATEMENT EXECUTE FUNCTION mcp_search_check_embedder();
