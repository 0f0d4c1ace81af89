-- Chunk text is stored escaped from now on so that content with U+0000, which TEXT cannot hold,
-- can be indexed (see pgindex's text.go): U+0001 becomes U+0001 U+0001 and U+0000 becomes
-- U+0001 U+0002. Chunks stored before hold no U+0000 (they could not be stored), so escaping
-- their U+0001 is all they need to decode to their original text.
UPDATE mcp_file_chunks SET chunk_content = replace(chunk_content, E'\x01', E'\x01\x01')
WHERE strpos(chunk_content, E'\x01') > 0;
