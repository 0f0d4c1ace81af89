package fileiotools

import (
	"context"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
)

// Inputs of the fileio tools. Wire names are the seed's (003 §6).

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
	Path   string `json:"path" jsonschema:"file path, e.g. '/notes/todo.md'"`
	Offset int64  `json:"offset,omitempty" jsonschema:"byte offset to start at; default 0; past the end of the file returns empty content"`
	Length *int64 `json:"length,omitempty" jsonschema:"bytes to read; default -1, to the end of the file (clamped to the maximum read size; see truncated and next_offset_bytes)"`
}

type fileWriteIn struct {
	projectArg
	Path            string `json:"path" jsonschema:"file path, e.g. '/notes/todo.md'; missing parent directories are created"`
	Content         string `json:"content" jsonschema:"text to write (UTF-8); encode binary data as Base64 first"`
	ContentEncoding string `json:"content_encoding,omitempty" jsonschema:"must be 'utf-8' (the default)"`
	Offset          int64  `json:"offset,omitempty" jsonschema:"byte offset for OVERWRITE; must be 0 for TRUNCATE; ignored by APPEND; default 0"`
	Mode            string `json:"mode,omitempty" jsonschema:"APPEND (default: add at the end), OVERWRITE (replace bytes from offset, extending the file if needed) or TRUNCATE (replace the whole file)"`
}

type fileDeleteIn struct {
	projectArg
	Path      string `json:"path" jsonschema:"file or directory path, e.g. '/old/notes.md' or '/old'"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"true to delete a directory with everything below it; default false"`
}

type fileDeleteOut struct {
	Deleted bool   `json:"deleted" jsonschema:"true: the path is gone"`
	Path    string `json:"path"`
}

type fileListIn struct {
	projectArg
	Path  string `json:"path,omitempty" jsonschema:"directory to list; default '' (the root; '/' also means the root)"`
	Depth *int   `json:"depth,omitempty" jsonschema:"0: the path itself, 1 (default): its entries, n: n levels down"`
	Limit int    `json:"limit,omitempty" jsonschema:"maximum entries; default 256, larger values are clamped to 1024; has_more says when entries were cut"`
}

// Tools returns the five FileIO tools over svc: file_stat, file_read, file_write, file_delete
// and file_list, with the seed's parameter names and defaults. The caller's identity must be in
// the context (agentfiles.WithAuth; the bindings put it there). file_write's content is never
// logged by the bindings.
//
// svc must not be nil. The tools are safe for concurrent use, as the Service is.
func Tools(svc *fileio.Service) []adapters.Tool {
	if svc == nil {
		panic("fileiotools.Tools: nil *fileio.Service")
	}
	ro := adapters.Annotations{ReadOnly: true, Idempotent: true}
	write := adapters.NewTool("file_write", "Write a file",
		"Writes text to a file of a project and returns bytes_written. Modes: APPEND (default) adds content at the "+
			"end and ignores offset; OVERWRITE replaces bytes starting at offset (offset may equal the file size, "+
			"which appends; larger is INVALID_OFFSET); TRUNCATE replaces the whole file (offset must be 0). Missing "+
			"files and parent directories are created. Fails with IS_DIRECTORY if files exist below path, "+
			"NOT_DIRECTORY if a parent is a file, PAYLOAD_TOO_LARGE over 2 MiB per call (split the content and "+
			"APPEND the rest), QUOTA_EXCEEDED over the file or project size limit. Offsets are bytes and must not "+
			"fall inside a multi-byte character. Example: {\"project\": \"demo\", \"path\": \"/notes/todo.md\", "+
			"\"content\": \"- buy milk\\n\"}.",
		adapters.Annotations{Destructive: true},
		func(ctx context.Context, in fileWriteIn) (fileio.WriteResult, error) {
			return svc.Write(ctx, fileio.WriteRequest{
				Project: in.Project, Path: in.Path, Content: in.Content, ContentEncoding: in.ContentEncoding,
				OffsetBytes: in.Offset, Mode: fileio.WriteMode(in.Mode),
			})
		})
	write.RedactArgs = []string{"content"}
	return []adapters.Tool{
		adapters.NewTool("file_stat", "Describe a path",
			"Says whether a path exists in a project and whether it is a FILE or a DIRECTORY, with size_bytes, "+
				"created_at and updated_at. Directories exist while they contain files (size 0, created_at zero, "+
				"updated_at of the newest file below). exists=false is not an error. The root '' always exists. "+
				"Example: {\"project\": \"demo\", \"path\": \"/notes\"}.",
			ro,
			func(ctx context.Context, in fileStatIn) (fileio.StatResult, error) {
				return svc.Stat(ctx, in.Project, in.Path)
			}),
		adapters.NewTool("file_read", "Read a file",
			"Reads a file of a project as UTF-8 text. offset and length are in bytes; length -1 (default) reads to "+
				"the end. Reads longer than the maximum (2 MiB by default) stop early with truncated=true: continue "+
				"with offset=next_offset_bytes. An offset inside a multi-byte character is INVALID_OFFSET and the "+
				"message names valid offsets. NOT_FOUND if no file exists; IS_DIRECTORY for directories (use "+
				"file_list). Example: {\"project\": \"demo\", \"path\": \"/notes/todo.md\", \"offset\": 0, \"length\": 1000}.",
			ro,
			func(ctx context.Context, in fileReadIn) (fileio.ReadResult, error) {
				length := int64(fileio.ReadToEOF)
				if in.Length != nil {
					length = *in.Length
				}
				return svc.Read(ctx, in.Project, in.Path, in.Offset, length)
			}),
		write,
		adapters.NewTool("file_delete", "Delete a file or directory",
			"Deletes a file, or a directory with recursive=true (NOT_EMPTY otherwise). NOT_FOUND if nothing exists "+
				"at path. The project root '' cannot be deleted (PERMISSION_DENIED) unless the server allows root "+
				"wipes. Example: {\"project\": \"demo\", \"path\": \"/drafts\", \"recursive\": true}.",
			adapters.Annotations{Destructive: true, Idempotent: true},
			func(ctx context.Context, in fileDeleteIn) (fileDeleteOut, error) {
				if err := svc.Delete(ctx, in.Project, in.Path, in.Recursive); err != nil {
					return fileDeleteOut{}, err
				}
				return fileDeleteOut{Deleted: true, Path: in.Path}, nil
			}),
		adapters.NewTool("file_list", "List a directory",
			"Lists files and directories below path in a project, sorted by path. depth 1 (default) lists the "+
				"immediate entries, n goes n levels down, 0 describes path itself. limit defaults to 256 and is "+
				"clamped to 1024; has_more=true means entries were cut: list a subdirectory or lower the depth. "+
				"Start with {\"project\": \"demo\"} to see the root ('' or '/').",
			ro,
			func(ctx context.Context, in fileListIn) (fileio.ListResult, error) {
				depth := fileio.DefaultListDepth
				if in.Depth != nil {
					depth = *in.Depth
				}
				return svc.List(ctx, in.Project, in.Path, depth, in.Limit)
			}),
	}
}
