package fileiotools

import (
	"context"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Inputs of the fileio tools. Wire names are snake_case and fixed: clients depend on them.

// projectArg is the project argument of every tool but file_stat, which describes it in full.
type projectArg struct {
	Project string `json:"project" jsonschema:"project name, e.g. 'my-project'"`
}

type fileStatIn struct {
	Project string `json:"project" jsonschema:"project name, 1 to 128 bytes, e.g. 'my-project'; each project is a separate file tree"`
	Path    string `json:"path" jsonschema:"path from the project root, e.g. '/notes/todo.md'; '' is the root"`
}

type fileReadIn struct {
	projectArg
	Path        string `json:"path" jsonschema:"file path, e.g. '/notes/todo.md'"`
	Offset      int64  `json:"offset,omitempty" jsonschema:"byte offset to start at; default 0; past the end of the file returns empty content"`
	Length      *int64 `json:"length,omitempty" jsonschema:"bytes to read; -1 reads to the end of the file; without it a read returns at most the default read size of the tool description; longer reads are clamped to the maximum read size (see truncated and next_offset)"`
	StartLine   int    `json:"start_line,omitempty" jsonschema:"first line to read, 1-based; negative counts from the end (-20: the last 20 lines); use lines or offset/length, not both"`
	EndLine     int    `json:"end_line,omitempty" jsonschema:"last line to read, inclusive; negative counts from the end (-1: the last line); default: the last line"`
	LineNumbers bool   `json:"line_numbers,omitempty" jsonschema:"true: prefix each line with its number, right-aligned in 6 columns, and a tab; implies a line read"`
	Version     int64  `json:"version,omitempty" jsonschema:"read this kept version (see file_versions) instead of the current content"`
}

type editIn struct {
	OldStr     string `json:"old_str" jsonschema:"exact text to replace, whitespace included; must occur exactly once unless replace_all"`
	NewStr     string `json:"new_str" jsonschema:"replacement text; '' deletes old_str"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"true: replace every occurrence; default false"`
}

type fileEditIn struct {
	projectArg
	Path           string   `json:"path" jsonschema:"file path, e.g. '/notes/todo.md'"`
	Edits          []editIn `json:"edits,omitempty" jsonschema:"replacements applied in order, each on the result of the ones before; all or nothing"`
	InsertLine     *int     `json:"insert_line,omitempty" jsonschema:"the insert form, instead of edits: insert insert_text after this line (0: at the top)"`
	InsertText     string   `json:"insert_text,omitempty" jsonschema:"the lines to insert with insert_line; a final newline is added if missing"`
	DryRun         bool     `json:"dry_run,omitempty" jsonschema:"true: return the diff and change nothing"`
	ExpectedSHA256 string   `json:"expected_sha256,omitempty" jsonschema:"the sha256 the file must still have (from an earlier file_edit or file_versions); CONFLICT if it changed"`
}

type fileRenameIn struct {
	projectArg
	From           string `json:"from" jsonschema:"the file or directory to move, e.g. '/drafts/a.md' or '/drafts'"`
	To             string `json:"to" jsonschema:"its new path, e.g. '/final/a.md'; missing parent directories are created"`
	Overwrite      bool   `json:"overwrite,omitempty" jsonschema:"true: replace files that exist at the destination; default false (ALREADY_EXISTS)"`
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema:"the sha256 the file at from must still have (from an earlier file_write, file_edit, file_read_many or file_versions); CONFLICT if it changed or is gone"`
}

type fileRenameOut struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Files  int    `json:"files" jsonschema:"how many files moved"`
	SHA256 string `json:"sha256,omitempty" jsonschema:"sha256 of the moved file's content when a single file moved, for a later expected_sha256"`
}

type filePurgeHistoryIn struct {
	projectArg
	Path string `json:"path" jsonschema:"the file or directory whose kept versions to drop, e.g. '/old'; '' drops those of the whole project"`
}

type filePurgeHistoryOut struct {
	Path string `json:"path"`
	fileio.PurgeHistoryResult
}

type fileVersionsIn struct {
	projectArg
	Path string `json:"path" jsonschema:"file path, e.g. '/notes/todo.md'; a deleted file's versions are listed while they are kept"`
}

type fileVersionsOut struct {
	Path     string               `json:"path"`
	Versions []driver.VersionInfo `json:"versions" jsonschema:"newest first: the current content (current=true) when the file exists, then the kept previous versions"`
}

type fileRestoreIn struct {
	projectArg
	Path           string `json:"path" jsonschema:"file path, e.g. '/notes/todo.md'"`
	Version        int64  `json:"version" jsonschema:"the version to bring back, from file_versions"`
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema:"the sha256 the current file must still have (from an earlier file_write, file_edit, file_read_many or file_versions); CONFLICT if it changed or is gone"`
}

type fileRestoreOut struct {
	Path          string    `json:"path"`
	Restored      int64     `json:"restored_version"`
	FileSizeBytes int64     `json:"size_bytes"`
	Created       bool      `json:"created" jsonschema:"true: the file had been deleted and exists again"`
	UpdatedAt     time.Time `json:"updated_at"`
	SHA256        string    `json:"sha256,omitempty" jsonschema:"sha256 of the restored content, for a later expected_sha256"`
}

type fileWriteIn struct {
	projectArg
	Path            string `json:"path" jsonschema:"file path, e.g. '/notes/todo.md'; missing parent directories are created"`
	Content         string `json:"content" jsonschema:"text to write (UTF-8); encode binary data as Base64 first"`
	ContentEncoding string `json:"content_encoding,omitempty" jsonschema:"must be 'utf-8' (the default)" enum:"utf-8"`
	Offset          int64  `json:"offset,omitempty" jsonschema:"byte offset for OVERWRITE; must be 0 for TRUNCATE; ignored by APPEND; default 0"`
	Mode            string `json:"mode,omitempty" jsonschema:"APPEND (default: add at the end), OVERWRITE (replace bytes from offset, extending the file if needed) or TRUNCATE (replace the whole file)" enum:"APPEND,OVERWRITE,TRUNCATE,append,overwrite,truncate"`
	ExpectedSHA256  string `json:"expected_sha256,omitempty" jsonschema:"the sha256 the file must still have (from an earlier file_write, file_edit or file_versions); CONFLICT if it changed or is gone"`
}

type fileDeleteIn struct {
	projectArg
	Path           string `json:"path" jsonschema:"file or directory path, e.g. '/old/notes.md' or '/old'"`
	Recursive      bool   `json:"recursive,omitempty" jsonschema:"true to delete a directory with everything below it; default false"`
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema:"the sha256 the file must still have (from an earlier file_write, file_edit, file_read_many or file_versions); CONFLICT if it changed or is gone"`
}

type fileDeleteOut struct {
	Deleted bool   `json:"deleted" jsonschema:"true: the path is gone"`
	Path    string `json:"path"`
}

type fileListIn struct {
	projectArg
	Path   string `json:"path,omitempty" jsonschema:"directory to list; default '' (the root; '/' also means the root)"`
	Depth  *int   `json:"depth,omitempty" jsonschema:"0: the path itself, 1 (default): its entries, n: n levels down"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most entries to return; the default and the maximum are in the tool description"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated answer, to continue it (same path and depth)"`
}

type fileGrepIn struct {
	projectArg
	Pattern       string `json:"pattern" jsonschema:"Go RE2 regular expression matched against each line, e.g. 'TODO|FIXME' or 'func \\w+Error'; the literal text with fixed_strings"`
	FixedStrings  bool   `json:"fixed_strings,omitempty" jsonschema:"true: pattern is literal text, not a regular expression (rg -F)"`
	IgnoreCase    bool   `json:"ignore_case,omitempty" jsonschema:"true: match case-insensitively (rg -i)"`
	Path          string `json:"path,omitempty" jsonschema:"directory (or file) to search below, e.g. '/docs'; default '' (the whole project)"`
	Glob          string `json:"glob,omitempty" jsonschema:"keep only files whose path matches: without '/' the base name ('*.md'), with '/' the path relative to path ('src/**/*.go'); a leading '!' keeps the others ('!*_test.go')"`
	OutputMode    string `json:"output_mode,omitempty" jsonschema:"content (default): the matching lines; files_with_matches: the paths; count: matching lines per file" enum:"content,files_with_matches,count"`
	BeforeContext int    `json:"before_context,omitempty" jsonschema:"lines to show before each match (content mode), at most 20"`
	AfterContext  int    `json:"after_context,omitempty" jsonschema:"lines to show after each match (content mode), at most 20"`
	Context       int    `json:"context,omitempty" jsonschema:"lines before and after each match, where before_context or after_context is not given"`
	Limit         int    `json:"limit,omitempty" jsonschema:"most entries to return; the default and the maximum are in the tool description"`
	Cursor        string `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated answer, to continue it (same other arguments)"`
}

type fileGlobIn struct {
	projectArg
	Pattern string `json:"pattern" jsonschema:"glob matched against file paths relative to path, e.g. '**/*.md', 'docs/*.txt', '*.{go,mod}'"`
	Path    string `json:"path,omitempty" jsonschema:"directory to match below, e.g. '/docs'; default '' (the whole project)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most paths to return; the default and the maximum are in the tool description"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated answer, to continue it"`
}

// grepTools are file_grep and file_glob over svc.
func grepTools(svc *fileio.Service, cfg fileio.Config, ro adapters.Annotations) []adapters.Tool {
	return []adapters.Tool{
		adapters.NewTool("file_grep", "Search file contents",
			"Finds the lines of a project's files that match a pattern, exactly like ripgrep (rg -n, with -F and -i): "+
				"pattern is a Go RE2 regular expression matched against each line (a line never includes its '\\n'; a "+
				"'\\r' before it is part of the line); files containing a NUL byte are skipped. Use it to find where "+
				"something is written; use file_search to find text by meaning. output_mode content (default) returns "+
				"matches [{path, line_number, line, before, after}], files_with_matches returns files, count returns "+
				"counts [{path, count}]; all ordered by path and line. Narrow with path (a directory or file) and glob "+
				"('*.md': base names; 'docs/**/*.md': paths relative to path; '!*.md' all others). Limits: "+
				fmt.Sprint(cfg.GrepLimitDefault)+" entries by default (limit, clamped to "+fmt.Sprint(cfg.GrepLimitMax)+
				"), answers up to "+sizeText(cfg.GrepMaxAnswerBytes)+", lines cut at "+sizeText(fileio.MaxGrepLineBytes)+
				" (line_truncated), context up to "+fmt.Sprint(fileio.MaxGrepContextLines)+" lines, and per call at most "+
				sizeText(cfg.GrepMaxScanBytes)+" of file content read and "+cfg.GrepTimeout.String()+". When a limit stops the search, truncated "+
				"is true: call again with cursor=next_cursor and the same arguments to continue exactly where it "+
				"stopped. A pattern with literal text is fast (an index skips files that cannot match); a pattern "+
				"without any (such as '^.{200,}$') reads every file and may need cursors. INVALID_PATTERN names a bad "+
				"pattern or glob, INVALID_ARGUMENT a bad cursor. Examples: {\"project\": \"demo\", \"pattern\": \"TODO\", \"glob\": \"*.md\"}, "+
				"{\"project\": \"demo\", \"pattern\": \"func \\\\w+Error\", \"path\": \"/src\", \"context\": 2}, "+
				"{\"project\": \"demo\", \"pattern\": \"deadline\", \"ignore_case\": true, \"output_mode\": \"files_with_matches\"}.",
			ro,
			func(ctx context.Context, in fileGrepIn) (fileio.GrepResult, error) {
				return svc.Grep(ctx, fileio.GrepRequest{Project: in.Project, Pattern: in.Pattern, FixedStrings: in.FixedStrings,
					IgnoreCase: in.IgnoreCase, Path: in.Path, Glob: in.Glob, OutputMode: fileio.GrepOutputMode(in.OutputMode),
					BeforeContext: in.BeforeContext, AfterContext: in.AfterContext, Context: in.Context, Limit: in.Limit, Cursor: in.Cursor})
			}),
		adapters.NewTool("file_glob", "Find files by path",
			"Lists the files of a project whose path relative to path matches a glob, sorted by path: '*' and '?' "+
				"match within one path segment, '[a-z]' one character of a class ('[!a]' any other), '{md,txt}' either "+
				"alternative, '**' any number of directories ('**/*.md' finds .md files at every depth, '*.md' only at "+
				"the top), a leading '!' the paths that do not match. Dot files match like other files. Returns paths (full "+
				"paths such as '/docs/a.md'); "+fmt.Sprint(cfg.ListLimitDefault)+" paths by default (limit, clamped to "+
				fmt.Sprint(cfg.ListLimitMax)+"), then truncated=true and next_cursor to continue; at most "+cfg.GrepTimeout.String()+
				" per call. NOT_FOUND when path "+
				"does not exist. Examples: {\"project\": \"demo\", \"pattern\": \"**/*.md\"}, {\"project\": \"demo\", "+
				"\"pattern\": \"*.go\", \"path\": \"/src\"}.",
			ro,
			func(ctx context.Context, in fileGlobIn) (fileio.GlobResult, error) {
				return svc.Glob(ctx, fileio.GlobRequest{Project: in.Project, Pattern: in.Pattern, Path: in.Path, Limit: in.Limit, Cursor: in.Cursor})
			}),
	}
}

// Tools returns the file tools over svc: the five basic ones, file_stat, file_read, file_write,
// file_delete and file_list, with its parameter names and defaults (file_read also reads line
// ranges and kept versions), then file_edit, file_rename, file_versions, file_restore and
// file_purge_history, then the exact search tools file_grep and file_glob, then file_import and
// file_export (an archive as Base64, up to Config.MaxPayloadBytes), then file_apply_patch and
// file_read_many, then the project-wide file_checkpoint, file_checkpoints,
// file_checkpoint_delete, file_events, file_changes and file_rewind. Descriptions state the
// limits of svc's Config (payload, read sizes, list and grep limits, edits per call, diff size,
// files per rename), never constants. The caller's identity must be in
// the context (agentfiles.WithAuth; the bindings put it there). file_write's content is never
// logged by the bindings.
//
// svc must not be nil. The tools are safe for concurrent use, as the Service is.
func Tools(svc *fileio.Service) []adapters.Tool {
	if svc == nil {
		panic("fileiotools.Tools: nil *fileio.Service")
	}
	ro := adapters.Annotations{ReadOnly: true, Idempotent: true}
	cfg := svc.Config()
	write := adapters.NewTool("file_write", "Write a file",
		"Writes text to a file of a project and returns bytes_written and sha256. Modes: APPEND (default) adds content at the "+
			"end and ignores offset; OVERWRITE replaces bytes starting at offset (offset may equal the file size, "+
			"which appends; larger is INVALID_OFFSET); TRUNCATE replaces the whole file (offset must be 0). Missing "+
			"files and parent directories are created. Fails with IS_DIRECTORY if files exist below path, "+
			"NOT_DIRECTORY if a parent is a file, PAYLOAD_TOO_LARGE over "+sizeText(cfg.MaxPayloadBytes)+" per call (split the content and "+
			"APPEND the rest), QUOTA_EXCEEDED for a file over "+sizeText(cfg.MaxFileBytes)+", a project over "+sizeText(cfg.MaxProjectBytes)+
			" (its files, the old versions it keeps, replaced content included even at the same size, and its change events; "+
			"the message says what holds the space) or over "+fmt.Sprint(cfg.MaxProjectFiles)+" files. Returns the new sha256: pass it as "+
			"expected_sha256 of the next write or edit to fail with CONFLICT (read the file again) if someone changed "+
			"the file meanwhile. Offsets are bytes and must not fall inside a multi-byte character. Example: {\"project\": \"demo\", \"path\": \"/notes/todo.md\", "+
			"\"content\": \"- buy milk\\n\"}.",
		adapters.Annotations{Destructive: true},
		func(ctx context.Context, in fileWriteIn) (fileio.WriteResult, error) {
			return svc.Write(ctx, fileio.WriteRequest{
				Project: in.Project, Path: in.Path, Content: in.Content, ContentEncoding: in.ContentEncoding,
				OffsetBytes: in.Offset, Mode: fileio.WriteMode(in.Mode), ExpectedSHA256: in.ExpectedSHA256,
			})
		})
	write.RedactArgs = []string{"content"}
	edit := adapters.NewTool("file_edit", "Edit a file",
		"Changes part of a file without sending all of it: each edit replaces the exact text old_str by new_str, in "+
			"order, all or nothing. old_str must occur exactly once (else NO_MATCH, or AMBIGUOUS_MATCH naming the lines "+
			"of the matches: add surrounding lines to make it unique) unless replace_all is true. The insert form "+
			"{insert_line, insert_text} inserts lines after line insert_line (0: at the top). Returns the new size, "+
			"sha256 and a unified diff; dry_run=true returns the diff and changes nothing. Pass expected_sha256 (from a "+
			"previous result) to fail with CONFLICT if someone changed the file meanwhile. The previous content is kept "+
			"(file_versions). Limits: "+fmt.Sprint(cfg.MaxEditsPerCall)+" edits per call (INVALID_ARGUMENT above); the diff "+
			"is cut at "+sizeText(cfg.MaxDiffBytes)+" (diff_truncated) and a change too large to diff line by line is shown as "+
			"one hunk (diff_note says so). Example: {\"project\": \"demo\", \"path\": \"/notes/todo.md\", \"edits\": "+
			"[{\"old_str\": \"- buy milk\", \"new_str\": \"- buy oat milk\"}]}.",
		adapters.Annotations{Destructive: true},
		func(ctx context.Context, in fileEditIn) (fileio.EditResult, error) {
			req := fileio.EditRequest{Project: in.Project, Path: in.Path, DryRun: in.DryRun, ExpectedSHA256: in.ExpectedSHA256}
			for _, e := range in.Edits {
				req.Edits = append(req.Edits, fileio.Edit{OldStr: e.OldStr, NewStr: e.NewStr, ReplaceAll: e.ReplaceAll})
			}
			switch {
			case in.InsertLine != nil:
				req.Insert, req.InsertLine, req.InsertText = true, *in.InsertLine, in.InsertText
			case in.InsertText != "":
				return fileio.EditResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "insert_text needs insert_line: the line to insert after (0: at the top)", "insert_line")
			}
			return svc.Edit(ctx, req)
		})
	edit.RedactArgs = []string{"edits", "insert_text"}
	return append([]adapters.Tool{
		adapters.NewTool("file_stat", "Describe a path",
			"Says whether a path exists in a project and whether it is a FILE or a DIRECTORY, with size_bytes, "+
				"created_at and updated_at. Directories exist while they contain files (size 0, created_at zero, "+
				"updated_at of the newest file below). exists=false is not an error. The root '' always exists. "+
				"Example: {\"project\": \"demo\", \"path\": \"/notes\"}.",
			ro,
			func(ctx context.Context, in fileStatIn) (fileio.StatResult, error) {
				return svc.Stat(ctx, fileio.StatRequest{Project: in.Project, Path: in.Path})
			}),
		adapters.NewTool("file_read", "Read a file",
			"Reads a file of a project as UTF-8 text. offset and length are in bytes. Without length (or end_line) "+
				"a read returns at most "+fmt.Sprint(cfg.ReadDefaultLines)+" lines and "+sizeText(min(cfg.ReadDefaultBytes, cfg.MaxReadBytes))+
				", ending at a line boundary; length -1 reads to the end. Reads longer than the maximum ("+sizeText(cfg.MaxReadBytes)+
				") stop early too. Either way truncated=true says so: continue with offset=next_offset (a line read: the "+
				"start_line the note names). An offset inside a multi-byte character is INVALID_OFFSET and the "+
				"message names valid offsets. NOT_FOUND if no file exists; IS_DIRECTORY for directories (use "+
				"file_list). By lines instead: start_line and end_line (1-based, inclusive; negative counts from the end, "+
				"so start_line -20 reads the last 20 lines), line_numbers=true numbers them; not together with offset or "+
				"length (INVALID_ARGUMENT); the line-number prefixes count toward the maximum read size. version reads a kept version (see file_versions). Examples: {\"project\": "+
				"\"demo\", \"path\": \"/notes/todo.md\", \"offset\": 0, \"length\": 1000}, {\"project\": \"demo\", "+
				"\"path\": \"/log.txt\", \"start_line\": -20, \"line_numbers\": true}.",
			ro,
			func(ctx context.Context, in fileReadIn) (fileio.ReadResult, error) {
				return svc.Read(ctx, fileio.ReadRequest{Project: in.Project, Path: in.Path, OffsetBytes: in.Offset, LengthBytes: in.Length,
					StartLine: in.StartLine, EndLine: in.EndLine, LineNumbers: in.LineNumbers, Version: in.Version})
			}),
		write,
		adapters.NewTool("file_delete", "Delete a file or directory",
			"Deletes a file, or a directory with recursive=true (NOT_EMPTY otherwise). NOT_FOUND if nothing exists "+
				"at path. The project root '' cannot be deleted (PERMISSION_DENIED) unless the server allows root "+
				"wipes. Example: {\"project\": \"demo\", \"path\": \"/drafts\", \"recursive\": true}.",
			adapters.Annotations{Destructive: true, Idempotent: true},
			func(ctx context.Context, in fileDeleteIn) (fileDeleteOut, error) {
				if err := svc.Delete(ctx, fileio.DeleteRequest{Project: in.Project, Path: in.Path, Recursive: in.Recursive, ExpectedSHA256: in.ExpectedSHA256}); err != nil {
					return fileDeleteOut{}, err
				}
				return fileDeleteOut{Deleted: true, Path: in.Path}, nil
			}),
		adapters.NewTool("file_list", "List a directory",
			"Lists files and directories below path in a project, sorted by path. depth 1 (default) lists the "+
				"immediate entries, n goes n levels down, 0 describes path itself. "+fmt.Sprint(cfg.ListLimitDefault)+
				" entries by default (limit, clamped to "+fmt.Sprint(cfg.ListLimitMax)+"); when entries were cut, truncated is "+
				"true: call again with cursor=next_cursor and the same path and depth for the next ones. Start with {\"project\": \"demo\"} to see the root ('' or '/').",
			ro,
			func(ctx context.Context, in fileListIn) (fileio.ListResult, error) {
				depth := fileio.DefaultListDepth
				if in.Depth != nil {
					depth = *in.Depth
				}
				return svc.List(ctx, fileio.ListRequest{Project: in.Project, Path: in.Path, Depth: depth, Limit: in.Limit, Cursor: in.Cursor})
			}),
		edit,
		adapters.NewTool("file_rename", "Move a file or directory",
			"Moves a file, or a directory with everything below it, to a new path, atomically. Fails with "+
				"ALREADY_EXISTS when a file exists at the destination unless overwrite=true, NOT_FOUND when from does "+
				"not exist, IS_DIRECTORY or NOT_DIRECTORY when the destination clashes with a directory or a file, "+
				"INVALID_ARGUMENT for a path moved inside itself, or for a directory of more than "+fmt.Sprint(cfg.MaxRenameFiles)+
				" files (rename its subdirectories one at a time). The old paths keep their last version "+
				"(file_versions). Example: {\"project\": \"demo\", \"from\": \"/drafts\", \"to\": \"/archive/drafts\"}.",
			adapters.Annotations{Destructive: true},
			func(ctx context.Context, in fileRenameIn) (fileRenameOut, error) {
				res, err := svc.Rename(ctx, fileio.RenameRequest{Project: in.Project, From: in.From, To: in.To, Overwrite: in.Overwrite, ExpectedSHA256: in.ExpectedSHA256})
				if err != nil {
					return fileRenameOut{}, err
				}
				return fileRenameOut{From: in.From, To: in.To, Files: res.Files, SHA256: res.SHA256}, nil
			}),
		adapters.NewTool("file_versions", "List a file's versions",
			"Lists the versions of a file, newest first: the current content and the previous versions kept by every "+
				"write, edit, rename and delete ("+historyText(cfg)+"), each with version, size_bytes, "+
				"sha256, written_at and replaced_at. Works for deleted files while their versions are kept. Read one "+
				"with file_read {version}, bring one back with file_restore. Example: {\"project\": \"demo\", "+
				"\"path\": \"/notes/todo.md\"}.",
			ro,
			func(ctx context.Context, in fileVersionsIn) (fileVersionsOut, error) {
				vs, err := svc.Versions(ctx, fileio.VersionsRequest{Project: in.Project, Path: in.Path})
				if err != nil {
					return fileVersionsOut{}, err
				}
				return fileVersionsOut{Path: in.Path, Versions: vs}, nil
			}),
		adapters.NewTool("file_restore", "Restore a file version",
			"Makes a kept version (see file_versions) the current content of a file again, also for a deleted file. "+
				"The restore is itself a new version, so the content it replaces is kept too. NOT_FOUND when the "+
				"version is not kept. Example: {\"project\": \"demo\", \"path\": \"/notes/todo.md\", \"version\": 3}.",
			adapters.Annotations{Destructive: true},
			func(ctx context.Context, in fileRestoreIn) (fileRestoreOut, error) {
				res, err := svc.Restore(ctx, fileio.RestoreRequest{Project: in.Project, Path: in.Path, Version: in.Version, ExpectedSHA256: in.ExpectedSHA256})
				if err != nil {
					return fileRestoreOut{}, err
				}
				return fileRestoreOut{Path: in.Path, Restored: in.Version, FileSizeBytes: res.FileSizeBytes, Created: res.Created, UpdatedAt: res.UpdatedAt, SHA256: res.SHA256}, nil
			}),
		adapters.NewTool("file_purge_history", "Drop kept versions",
			"Drops the kept previous versions (see file_versions) of a file, of a directory and everything below it, or "+
				"of the whole project with path '', before their retention runs out. Kept versions count toward the "+
				"project's quota, deleted files' too: when QUOTA_EXCEEDED says kept versions hold the space, this frees "+
				"it. Current files are not changed; deleted files can no longer be restored. Returns versions and "+
				"bytes_freed (0 when nothing was kept). Example: {\"project\": \"demo\", \"path\": \"\"}.",
			adapters.Annotations{Destructive: true, Idempotent: true},
			func(ctx context.Context, in filePurgeHistoryIn) (filePurgeHistoryOut, error) {
				res, err := svc.PurgeHistory(ctx, fileio.PurgeHistoryRequest{Project: in.Project, Path: in.Path})
				if err != nil {
					return filePurgeHistoryOut{}, err
				}
				return filePurgeHistoryOut{Path: in.Path, PurgeHistoryResult: res}, nil
			}),
	}, append(append(append(append(grepTools(svc, cfg, ro), archiveTools(svc, cfg)...), patchTools(svc, cfg, ro)...), checkpointTools(svc, cfg, ro)...), shellTool(svc, cfg))...)
}

// sizeText renders a byte limit for a tool description: "256 KiB", "2 MiB", "1000 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// historyText says which previous versions the Config keeps: "the last 10, for 7 days".
func historyText(cfg fileio.Config) string {
	if cfg.HistoryVersions == 0 {
		return "none: this server keeps no history"
	}
	d := cfg.HistoryRetention.String()
	if day := 24 * time.Hour; cfg.HistoryRetention%day == 0 {
		d = fmt.Sprintf("%d days", cfg.HistoryRetention/day)
	}
	return fmt.Sprintf("the last %d, for %s", cfg.HistoryVersions, d)
}
