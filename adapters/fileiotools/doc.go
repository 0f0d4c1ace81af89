// Package fileiotools is the tool set of package fileio: fourteen tools that give an agent a
// project-scoped, multi-tenant tree of UTF-8 text files, with edits in place, moves, a version
// history, and exact search.
//
// # Tools
//
// [Tools] returns them over one *fileio.Service:
//
//	file_stat      whether a path exists, FILE or DIRECTORY, size and times
//	file_read      a byte range of a file (offset, length; -1 reads to the end), clamped and
//	               cut on character boundaries with truncated and next_offset; or a line
//	               range (start_line, end_line; negative counts from the end, so start_line -20
//	               is a tail) with line_numbers for the memory tool's numbered view, not both
//	               (INVALID_ARGUMENT); version reads a kept version
//	file_write     APPEND (default), OVERWRITE at an offset, or TRUNCATE; parents are implied
//	file_delete    a file, or a directory with recursive=true
//	file_list      the entries below a path to a depth, sorted by path, paged with cursors
//	file_edit      {project, path, edits: [{old_str, new_str, replace_all?}], dry_run?,
//	               expected_sha256?}, or the insert form {insert_line, insert_text}: exact-match
//	               replacements, all or nothing; returns size, sha256 and a unified diff
//	               (cut at max_diff_bytes with diff_truncated; at most max_edits_per_call edits)
//	file_rename    {project, from, to, overwrite?}: a file or a whole directory, atomically
//	file_versions  {project, path}: the current and the kept previous versions, newest first
//	file_restore   {project, path, version}: a kept version made current again (a new version)
//	file_grep      {project, pattern, fixed_strings?, ignore_case?, path?, glob?, output_mode?,
//	               before_context?, after_context?, context?, limit?, cursor?}: the lines that
//	               match a Go RE2 pattern, as ripgrep finds them (content with context,
//	               files_with_matches or count), by path and line, paged with cursors
//	file_glob      {project, pattern, path?, limit?, cursor?}: the files whose path matches a
//	               glob ("**/*.md"), sorted, paged with cursors
//	file_purge_history {project, path}: drops the kept versions of a file, a directory or ''
//	               (the project), giving back the quota they hold
//	file_apply_patch {project, patch?, operations?, dry_run?}: a multi-file patch (OpenAI's
//	               apply_patch format, a unified diff, or the Responses API's operations) in one
//	               transaction, all or nothing, with each file's diff and each chunk's match
//	file_read_many {project, paths?, glob?, path?, max_bytes?, cursor?}: several files, each
//	               with its sha256 or its own error, under one answer cap with a cursor
//	file_checkpoint {project, label?}: records the project's state; {checkpoint, position, created_at}
//	file_checkpoints {project, cursor?}: the checkpoints, oldest first, paged
//	file_checkpoint_delete {project, checkpoint}: releases the versions it kept
//	file_events    {project, after?, path?, limit?, wait_ms?}: the change feed, every committed
//	               change once in commit order; next_after continues, wait_ms long-polls
//	file_changes   {project, since, path?, cursor?}: the files that differ from a checkpoint
//	               (added, modified, deleted, renamed) with their diffs, paged
//	file_rewind    {project, checkpoint, path?, dry_run?}: every file back to its state at the
//	               checkpoint in one transaction, itself undoable
//
// The Service enforces every rule and limit (see package fileio), and the descriptions state
// the limits of its Config. Paged answers follow the wire conventions of package adapters:
// truncated and next_cursor, taken back as cursor; a cut read has next_offset, taken back as
// offset. Directories are implicit: they exist while a file lies below them.
//
// # Identity
//
// Every tool is tenant-scoped: the tenant is the agentfiles.AuthContext in the context, which
// the bindings put there (adapters.BearerAuth over HTTP, a fixed identity for stdio). A call
// without one is PERMISSION_DENIED. The bindings never log file_write's content nor
// file_edit's edits and insert_text.
//
// # Serving
//
// The tools are plain [adapters.Tool] values: register them on an MCP server with
// adapters/mcpsdk, serve them as JSON over HTTP with adapters/httpapi, or append them to other
// tool sets (adapters/searchtools adds file_search over the same files). This package imports
// only adapters and fileio, so it links no database driver: the store (fileio/memstore,
// fileio/pgstore) is chosen by whoever builds the Service.
//
// # Errors
//
// Handlers return fileio's errors unchanged, so agents see its codes and messages: NOT_FOUND,
// ALREADY_EXISTS, IS_DIRECTORY, NOT_DIRECTORY, NOT_EMPTY, INVALID_PATH, INVALID_OFFSET,
// INVALID_ARGUMENT, PAYLOAD_TOO_LARGE, QUOTA_EXCEEDED, PERMISSION_DENIED, file_edit's CONFLICT
// (expected_sha256 no longer matches: read again), NO_MATCH and AMBIGUOUS_MATCH (the message
// names the lines of the matches), and the retryable
// RATE_LIMITED, RESOURCE_BUSY and UNAVAILABLE, and TIMEOUT when file_grep's time budget ran
// out before it searched one file (fileio.Codes lists them all). Each message says
// what to do next. The bindings send code, message and retryable, and map each code's kind to an
// HTTP status (404 for NOT_FOUND, 409 for the conflicts, 422 for NO_MATCH and AMBIGUOUS_MATCH,
// 507 for QUOTA_EXCEEDED, 503 for a busy or unreachable store, …).
package fileiotools
