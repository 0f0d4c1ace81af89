-- Bulk import without checking its text twice. Migration 0008's check constraint verifies that
-- the content of every active row is text the grep indexer can index (valid UTF-8, or holding a
-- NUL byte), at the cost of a call of mcp_files_grep_text per written row: about a tenth of an
-- import's statement. pgstore's PutMany verifies the UTF-8 of its batch in Go before it sends it
-- (Go's utf8.Valid and PostgreSQL's UTF-8 check accept the same byte sequences; a NUL byte, which
-- text cannot hold, passes both here), and then sets agentfiles.text_checked (SET LOCAL, cleared
-- again right after its statement), under which the constraint passes the rows of that one
-- statement without the call. Every other statement is checked as before.
--
-- NOT VALID, as in 0008: the rows already stored passed the old constraint.
ALTER TABLE mcp_files DROP CONSTRAINT IF EXISTS mcp_files_grep_text_valid;
ALTER TABLE mcp_files ADD CONSTRAINT mcp_files_grep_text_valid
CHECK (deleted OR current_setting('agentfiles.text_checked', true) = 'on'
    OR octet_length(mcp_files_grep_text(content)) >= 0) NOT VALID;
