-- idx_mcp_files_prefix (migration 0001: apikey_hash, project, path text_pattern_ops, on active
-- rows) duplicates uq_mcp_files_active. path is COLLATE "C", so the unique index already sorts
-- bytewise, and every prefix lookup is a range of it (path >= prefix AND path < its end, plus
-- starts_with); text_pattern_ops' operators (~>=~ …) are used by no statement. It cost every
-- write of a new file one more B-tree insertion of the same key, about a tenth of an
-- import's work.
DROP INDEX IF EXISTS idx_mcp_files_prefix;
