// Package memorytool implements Anthropic's memory tool (memory_20250818) over any *fileio.Service,
// so that a host keeps Claude's /memories directory in fileio's memory or PostgreSQL store,
// per tenant, instead of writing its own storage.
//
// # Use
//
// Build a [Tool] over a Service and hand it the input of every tool_use block named "memory";
// send the [Result] back as the tool_result:
//
//	mem, _ := memorytool.New(svc, memorytool.Options{}) // memories live in the project "memories"
//	ctx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext(apiKey, "alice"))
//	res, _ := mem.Execute(ctx, block.Input) // {"command":"view","path":"/memories"}
//	// tool_result: content res.Content, is_error res.IsError
//
// [Tool.Run] does the same with a typed [Input]. The tenant is the agentfiles.AuthContext in
// the context, as for every fileio operation; which project holds the memories is
// Options.Project. Package adapters/memorytools serves the same tool to MCP clients as the tool
// "memory".
//
// # Paths
//
// Every path lives under /memories, which is the root of the memory project: /memories/a.md is
// the project's file /a.md, and the fileio tools see the same files. [ProjectPath] refuses, as
// INVALID_PATH, anything that could leave /memories whatever its spelling: paths outside
// /memories, "." and ".." segments, backslashes and percent-escapes (never decoded). The rest
// follows fileio's path rules (see fileio.ValidatePath), normalized to NFC.
//
// # Results
//
// The texts are those the memory tool documents, so that the model sees what it was trained on:
//
//	view (directory)  Here're the files and directories up to 2 levels deep in {path}, excluding
//	                  hidden items and node_modules:  then "{size}\t{path}" lines, sizes such as
//	                  512B, 1.5K, 4.0M (a directory's is the sum of the files below it, whose
//	                  path ends with "/")
//	view (file)       Here's the content of {path} with line numbers:  then "%6d\t{line}" lines;
//	                  view_range [start, end] selects lines, end -1 reads to the end
//	create            File created successfully at: {path}
//	str_replace       The memory file has been edited.  then a numbered snippet around the change
//	insert            The file {path} has been edited.
//	delete            Successfully deleted {path}
//	rename            Successfully renamed {old_path} to {new_path}
//
// Errors are results with is_error, with the documented texts: "The path {path} does not exist.
// Please provide a valid path." (view), "Error: File {path} already exists" (create), "No
// replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.", "No
// replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {lines}.
// Please ensure it is unique", "Error: Invalid `insert_line` parameter: {n}. It should be within
// the range of lines of the file: [0, {lines}]", "Error: The destination {new_path} already
// exists", "File {path} exceeds maximum line limit of 999,999 lines.". An old_str repeated in a
// message is cut to 256 bytes, a list of lines to the first 20. Behind each is an *agentfiles.Error whose code a host can branch
// on (NOT_FOUND, ALREADY_EXISTS, NO_MATCH, AMBIGUOUS_MATCH, INVALID_ARGUMENT, INVALID_PATH, and
// fileio's codes for the store, retryable where the store is busy or down).
//
// # Editing
//
// str_replace reads the file, finds old_str (it must occur exactly once), and makes the change
// with fileio.Service.Edit and the sha256 of what it read as ExpectedSHA256: if another writer
// changed the file in between, nothing is written and the answer says so (CONFLICT). insert is
// one Edit in its insert form, which checks the line and inserts in one transaction; rename is
// fileio.Service.Rename with Exclusive, which moves a file or a whole directory atomically only
// when nothing (no file, no directory) is at new_path, decided in the same step as the move. delete removes a file or a directory with everything below it; /memories
// itself cannot be deleted or renamed.
//
// A view of a file returns at most Options.MaxViewBytes of text (256 KiB by default) and then
// says which view_range shows the rest; a directory listing shows at most fileio's list limit
// (1024 entries by default).
package memorytool
