-- live_chunks: the chunks of a segment that files rows still point at. The merge that writes a
-- segment sets it, and a writer whose file leaves the segment (replaced or deleted) subtracts
-- the file's chunks, so the merge policy reads segments rows only instead of summing the
-- project's files rows on every merge. A process of an older version running beside a newer
-- one does not move it; a segment whose count is too low is merged sooner than it needs to be,
-- which rewrites it with an exact count (queries never read live_chunks).
ALTER TABLE mcp_search_segments ADD COLUMN IF NOT EXISTS live_chunks BIGINT NOT NULL DEFAULT 0;

UPDATE mcp_search_segments s SET live_chunks = l.live
FROM (SELECT segment_id, sum(chunk_count) AS live FROM mcp_search_files
      WHERE segment_id IS NOT NULL GROUP BY segment_id) l
WHERE l.segment_id = s.id;
