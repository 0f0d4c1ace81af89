-- The int8 codes of each file's vectors (see vcodes.go for the byte format), next to their
-- floats, so that the vector cache warms from a quarter of the bytes and a project larger than
-- its cache share streams the codes of the rest rather than their floats. Codes are computed
-- in Go (their bounds must be the ones the query path certifies), so rows written before this
-- version keep NULL codes until pgindex.New fills them in, file by file in the background;
-- queries read such a file's floats meanwhile. Vectors of fewer than 512 dimensions are not
-- quantised: their codes are empty from now on.
ALTER TABLE mcp_search_vectors ADD COLUMN IF NOT EXISTS codes BYTEA;

-- Codes compress little: store them out of line without trying, so a scan reads them as they are.
ALTER TABLE mcp_search_vectors ALTER COLUMN codes SET STORAGE EXTERNAL;

UPDATE mcp_search_vectors SET codes = '' WHERE codes IS NULL AND dims < 512;

-- The rows the backfill has left to do; empty once it is done.
CREATE INDEX IF NOT EXISTS idx_mcp_search_vectors_uncoded ON mcp_search_vectors (project_id, file_path) WHERE codes IS NULL;
