package fileiotools

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/patch"
)

type operationIn struct {
	Type string `json:"type" jsonschema:"create_file, update_file or delete_file" enum:"create_file,update_file,delete_file"`
	Path string `json:"path" jsonschema:"file path relative to the project root, e.g. 'src/main.go'"`
	Diff string `json:"diff,omitempty" jsonschema:"the V4A body without the envelope: '+' lines for create_file; @@, ' ', '-' and '+' lines for update_file; empty for delete_file"`
}

type fileApplyPatchIn struct {
	projectArg
	Patch          string            `json:"patch,omitempty" jsonschema:"a V4A patch (*** Begin Patch … *** End Patch, a <<'EOF' heredoc around it is fine) or a unified diff as git diff writes it"`
	Operations     []operationIn     `json:"operations,omitempty" jsonschema:"instead of patch: the Responses API's apply_patch operations [{type, path, diff}]"`
	DryRun         bool              `json:"dry_run,omitempty" jsonschema:"true: answer with the diffs and change nothing"`
	ExpectedSHA256 map[string]string `json:"expected_sha256,omitempty" jsonschema:"optional {path: sha256} of files the patch updates, moves or deletes (sha256 from file_read_many, file_write or file_edit): CONFLICT, nothing changed, if one changed meanwhile"`
}

type fileReadManyIn struct {
	projectArg
	Paths    []string `json:"paths,omitempty" jsonschema:"the files to read, e.g. ['src/a.go', 'README.md']; or give glob"`
	Glob     string   `json:"glob,omitempty" jsonschema:"instead of paths: a glob of the files to read, relative to path, e.g. '**/*.go'"`
	Path     string   `json:"path,omitempty" jsonschema:"the directory glob matches below; default '' (the whole project)"`
	MaxBytes int64    `json:"max_bytes,omitempty" jsonschema:"cap on the content of the answer; default and maximum in the tool description"`
	Cursor   string   `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated answer, to continue it (same other arguments)"`
}

// patchTools are file_apply_patch and file_read_many over svc.
func patchTools(svc *fileio.Service, cfg fileio.Config, ro adapters.Annotations) []adapters.Tool {
	apply := adapters.NewTool("file_apply_patch", "Apply a multi-file patch",
		"Applies a patch to several files of a project in one transaction: every file changes or none does. patch is "+
			"OpenAI's apply_patch format (*** Begin Patch, *** Add File: path, *** Delete File: path, *** Update File: "+
			"path with optional *** Move to: path, @@ chunks with optional anchor text, ' '/'-'/'+' lines, *** End of "+
			"File, *** End Patch) or a unified diff as git diff writes it; or give operations, the Responses API form "+
			"[{type: create_file|update_file|delete_file, path, diff}]. Paths are relative to the project root "+
			"('src/a.go'). A chunk's context and removed lines are found exactly, else ignoring whitespace at the ends of "+
			"lines, else also reading typographic dashes and quotes as ASCII; the file's own bytes, line endings (CRLF "+
			"stays CRLF), byte order mark and final newline are kept. Returns each file with operation, sha256, "+
			"size_bytes, a unified diff (all diffs together cut at "+sizeText(cfg.MaxDiffBytes)+") and, per chunk, the line "+
			"and pass that matched; dry_run=true changes nothing. Errors change nothing: NO_MATCH names the file, the "+
			"chunk, its first lines and the closest lines of the file (fix the chunk and resend the whole patch); "+
			"INVALID_PATCH names the patch line; ALREADY_EXISTS for Add File or Move to onto an existing file; NOT_FOUND "+
			"for an update or delete of a missing one; RESOURCE_BUSY: retry. Limits: "+sizeText(cfg.MaxPatchBytes)+
			" of patch and "+fmt.Sprint(cfg.MaxPatchFiles)+" files per call, "+sizeText(cfg.MaxEditWorkBytes)+
			" of file lines compared while matching. Each changed file keeps its previous version (file_versions). "+
			"Example: {\"project\": \"demo\", \"patch\": \"*** Begin Patch\\n*** Update File: src/app.py\\n@@ def main():\\n"+
			"-    print(\\\"hi\\\")\\n+    print(\\\"hello\\\")\\n*** End Patch\\n\"}.",
		adapters.Annotations{Destructive: true},
		func(ctx context.Context, in fileApplyPatchIn) (fileio.ApplyPatchResult, error) {
			req := fileio.ApplyPatchRequest{Project: in.Project, Patch: in.Patch, DryRun: in.DryRun, ExpectedSHA256: in.ExpectedSHA256}
			for _, op := range in.Operations {
				req.Operations = append(req.Operations, patch.Operation{Type: op.Type, Path: op.Path, Diff: op.Diff})
			}
			return svc.ApplyPatch(ctx, req)
		})
	apply.RedactArgs = []string{"patch", "operations"}
	return []adapters.Tool{apply,
		adapters.NewTool("file_read_many", "Read several files",
			"Reads several files of a project in one call: each with its content, size_bytes and sha256, or its own "+
				"error {code, message} (NOT_FOUND, IS_DIRECTORY, INVALID_PATH) without failing the others, in path order. "+
				"Name the files with paths (up to "+fmt.Sprint(cfg.MaxPatchFiles)+") or select them with glob below path. "+
				"The contents together stay within max_bytes (default and maximum "+sizeText(cfg.MaxReadBytes)+"): when "+
				"files are left, truncated=true and next_cursor continues; a single file larger than that comes cut "+
				"(its truncated=true; read the rest with file_read). Examples: {\"project\": \"demo\", \"paths\": "+
				"[\"src/a.go\", \"src/b.go\"]}, {\"project\": \"demo\", \"glob\": \"**/*.md\", \"path\": \"/docs\"}.",
			ro,
			func(ctx context.Context, in fileReadManyIn) (fileio.ReadManyResult, error) {
				return svc.ReadMany(ctx, fileio.ReadManyRequest{Project: in.Project, Paths: in.Paths, Glob: in.Glob, Path: in.Path,
					MaxBytes: in.MaxBytes, Cursor: in.Cursor})
			}),
	}
}
