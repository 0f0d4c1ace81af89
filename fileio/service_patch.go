package fileio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/patch"
)

// CodeInvalidPatch: a patch that is not V4A, a unified diff or valid operations, or whose
// header or line is malformed; the message names the line of the patch.
var CodeInvalidPatch = patch.CodeInvalidPatch

// ErrInvalidPatch is the sentinel of CodeInvalidPatch for errors.Is.
var ErrInvalidPatch = &agentfiles.Error{Code: CodeInvalidPatch, Message: "invalid patch"}

// ApplyPatchRequest is the input of Service.ApplyPatch: Patch or Operations, not both.
type ApplyPatchRequest struct {
	Project string
	// Patch is a V4A patch (*** Begin Patch … *** End Patch, optionally inside a <<'EOF'
	// heredoc) or a unified diff as git diff writes it; the dialect is read from the text.
	Patch string
	// Operations is the Responses API form: create_file, update_file and delete_file
	// operations whose Diff is the V4A body without the envelope.
	Operations []patch.Operation
	// DryRun computes the answer and changes nothing.
	DryRun bool
	// ExpectedSHA256 maps paths the patch updates, moves or deletes (as the patch writes them)
	// to the SHA-256 each file must still have, as Write, Edit and ReadMany report it: a file
	// that changed meanwhile fails the whole patch with CONFLICT, changing nothing. Two keys
	// that name one file ("a.txt" and "/a.txt", or the NFC and NFD spellings of a name) are
	// INVALID_ARGUMENT.
	ExpectedSHA256 map[string]string
}

// ApplyPatchResult is the answer of Service.ApplyPatch.
type ApplyPatchResult struct {
	Dialect patch.Dialect `json:"dialect"` // "v4a", "unified" or "operations"
	Files   []PatchedFile `json:"files"`   // in the order of the patch
	DryRun  bool          `json:"dry_run"`
}

// PatchedFile is what ApplyPatch did (or, for a dry run, would do) to one file.
type PatchedFile struct {
	Path      string `json:"path"`                 // the file's path after the patch ("/src/a.go")
	Operation string `json:"operation"`            // "add", "update", "move" (an update to a new path) or "delete"
	MovedFrom string `json:"moved_from,omitempty"` // for a move: the path it had
	SHA256    string `json:"sha256,omitempty"`     // hex SHA-256 of the new content; "" for a deleted file
	SizeBytes int64  `json:"size_bytes"`           // size of the new content; 0 for a deleted file
	// Diff is the unified diff of the file's change, bounded as Edit's is (Config.MaxDiffCost
	// and MaxDiffBytes, the latter shared by every file of the answer).
	Diff          string `json:"diff"`
	DiffTruncated bool   `json:"diff_truncated,omitempty"`
	DiffNote      string `json:"diff_note,omitempty"`
	// Chunks says, for an update, where each chunk matched and with which pass.
	Chunks    []patch.ChunkResult `json:"chunks,omitempty"`
	UpdatedAt time.Time           `json:"updated_at,omitzero"` // zero (omitted) for a dry run or a delete
}

// ApplyPatch applies a multi-file patch (see package fileio/patch for its dialects and
// matching) in one store transaction: every file changes or none does. Paths are relative
// to the project root as models write them ("src/a.go"; a leading "/" means the same); each
// changed file keeps its previous version in its history, as after Edit.
//
// Errors, each changing nothing: INVALID_PATCH for an empty or malformed patch (naming the
// line); NO_MATCH for a chunk that is not in its file (naming the file, the chunk, its first
// lines and the closest lines of the file); ALREADY_EXISTS for an added file or a move onto a
// path where a file exists; NOT_FOUND for an update or delete of a missing file;
// INVALID_PATH for a path that breaks the path rules or leaves the project; PAYLOAD_TOO_LARGE
// past Config.MaxPatchBytes; INVALID_ARGUMENT past Config.MaxPatchFiles files or
// MaxEditWorkBytes of matching, for two operations or two expected_sha256 keys naming one file
// (a patch text that names a file twice is INVALID_PATCH); QUOTA_EXCEEDED as for Write; RESOURCE_BUSY when the project's
// lock stays taken (retry).
func (s *Service) ApplyPatch(ctx context.Context, req ApplyPatchRequest) (ApplyPatchResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	ac, scope, err := s.begin(ctx, req.Project, "")
	var plan []patchStep
	var dialect patch.Dialect
	if err == nil {
		dialect, plan, err = s.planPatch(req)
	}
	var expected map[string]string
	if err == nil {
		expected, err = s.patchExpectations(req.ExpectedSHA256, plan)
	}
	var res ApplyPatchResult
	if err == nil {
		creds := map[string]string{}
		if !req.DryRun && s.sealer != nil {
			for _, st := range plan {
				if st.op != patch.OpDelete {
					creds[st.target()] = s.seal(ctx, ac, scope, st.target()).CredentialRef
				}
			}
		}
		res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (ApplyPatchResult, error) {
			for path, h := range expected {
				if err := expectSHA256(ctx, tx, path, h); err != nil {
					return ApplyPatchResult{}, err
				}
			}
			return s.patchTx(ctx, tx, plan, req.DryRun, creds)
		})
		res.Dialect = dialect
	}
	err = s.explainQuota(ctx, scope, err)
	s.logOp(ctx, "apply_patch", ac, req.Project, "", err, slog.String("dialect", string(dialect)), slog.Int("files", len(plan)),
		slog.Int("patch_bytes", patchBytes(req)), slog.Bool("dry_run", req.DryRun))
	if err != nil {
		return ApplyPatchResult{}, err
	}
	return res, nil
}

// patchStep is one file of a patch with its paths checked.
type patchStep struct {
	patch.FilePatch
	op       patch.Op
	path, to string // cleaned paths; to is "" unless the file moves
}

// target is the path the step writes.
func (st patchStep) target() string {
	if st.to != "" {
		return st.to
	}
	return st.path
}

func patchBytes(req ApplyPatchRequest) int {
	n := len(req.Patch)
	for _, op := range req.Operations {
		n += len(op.Path) + len(op.Diff) + len(op.Type)
	}
	return n
}

// planPatch parses the request and checks everything that does not need the stored state.
func (s *Service) planPatch(req ApplyPatchRequest) (patch.Dialect, []patchStep, error) {
	if n := int64(patchBytes(req)); n > s.cfg.MaxPatchBytes {
		return "", nil, agentfiles.NewError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
			"the patch is %d bytes; the maximum is %d. Split it into several patches of fewer files", n, s.cfg.MaxPatchBytes), "patch")
	}
	var p patch.Patch
	var err error
	switch {
	case req.Patch != "" && len(req.Operations) > 0:
		return "", nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "give either patch or operations, not both", "patch")
	case len(req.Operations) > 0:
		p, err = patch.ParseOperations(req.Operations)
	default:
		p, err = patch.Parse(req.Patch)
	}
	if err != nil {
		return "", nil, err
	}
	if len(p.Files) > s.cfg.MaxPatchFiles {
		return "", nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"the patch changes %d files; one patch changes at most %d. Split it into several patches", len(p.Files), s.cfg.MaxPatchFiles), "patch")
	}
	plan := make([]patchStep, len(p.Files))
	seen := map[string]int{}
	for i, f := range p.Files {
		if !utf8.ValidString(f.Content) {
			return "", nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "the content of "+f.Path+" is not valid UTF-8", "patch")
		}
		st := patchStep{FilePatch: f, op: f.Op}
		if st.path, err = s.patchPath(f.Path, f.Line); err != nil {
			return "", nil, err
		}
		if f.MoveTo != "" {
			if st.to, err = s.patchPath(f.MoveTo, f.Line); err != nil {
				return "", nil, err
			}
			if st.to == st.path {
				st.to = ""
			}
		}
		for _, q := range []string{st.path, st.to} {
			if q == "" {
				continue
			}
			if j, dup := seen[q]; dup {
				code, where := CodeInvalidPatch, "file"
				if p.Dialect == patch.DialectOperations {
					code, where = agentfiles.CodeInvalidArgument, "operation" // arguments, not patch text
				}
				return "", nil, agentfiles.NewError(code, fmt.Sprintf(
					"%s appears in %s %d and %s %d of the patch; give each file once, with all its chunks", q, where, j+1, where, i+1), q)
			}
			seen[q] = i
		}
		plan[i] = st
	}
	// A file the patch creates may not lie below another it creates.
	for _, st := range plan {
		if st.op == patch.OpDelete {
			continue
		}
		for _, dir := range ancestors(st.target()) {
			if j, ok := seen[dir]; ok && plan[j].op != patch.OpDelete && plan[j].target() == dir {
				return "", nil, agentfiles.NewError(CodeNotDirectory, fmt.Sprintf(
					"the patch makes %s a file, so it cannot also hold %s; choose other paths", dir, st.target()), dir)
			}
		}
	}
	return p.Dialect, plan, nil
}

// patchExpectations checks a patch's expected hashes and keys them by Service path: each must
// be 64 hex digits and name a file the patch updates, moves or deletes, and no two keys may
// name one file ("a.txt" and "/a.txt", or two Unicode spellings of a name): which hash was
// meant cannot be told, so that is INVALID_ARGUMENT whatever the hashes.
func (s *Service) patchExpectations(in map[string]string, plan []patchStep) (map[string]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	read := map[string]bool{}
	for _, st := range plan {
		if st.op != patch.OpAdd {
			read[st.path] = true
		}
	}
	out := make(map[string]string, len(in))
	named := make(map[string]string, len(in)) // path → the key that named it
	for _, p := range slices.Sorted(maps.Keys(in)) {
		h := in[p]
		if err := checkExpectedSHA256(h); err != nil {
			return nil, err
		}
		path, err := s.patchPath(p, 0)
		if err != nil {
			return nil, err
		}
		if other, dup := named[path]; dup {
			return nil, duplicatePathError("expected_sha256", path, other, p)
		}
		named[path] = p
		if !read[path] {
			return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"expected_sha256 names %s, which the patch does not update, move or delete; name only those files", path), "expected_sha256")
		}
		out[path] = h
	}
	return out, nil
}

// patchPath turns a path as a patch writes it into a checked Service path: cleaned, in NFC and
// within the configured path rule.
func (s *Service) patchPath(p string, line int) (string, error) {
	clean := NormalizePath(patch.CleanPath(p))
	if err := s.cfg.PathRule.Validate(clean); err != nil {
		var e *agentfiles.Error
		if errors.As(err, &e) {
			where := ""
			if line > 0 {
				where = fmt.Sprintf(" (patch line %d)", line)
			}
			return "", agentfiles.NewError(e.Code, fmt.Sprintf("path %q%s: %s; paths are relative to the project root and may not leave it", p, where, e.Message), e.Arg)
		}
		return "", err
	}
	if clean == "" {
		return "", agentfiles.NewError(agentfiles.CodeIsDirectory, "the patch names the project root; name a file such as src/main.go", "patch")
	}
	return clean, nil
}

// patchTx checks and computes every file of the plan against the stored state, then writes
// them all (unless dryRun).
func (s *Service) patchTx(ctx context.Context, tx driver.WriteTx, plan []patchStep, dryRun bool, creds map[string]string) (ApplyPatchResult, error) {
	res := ApplyPatchResult{Files: make([]PatchedFile, len(plan)), DryRun: dryRun}
	contents := make([][]byte, len(plan))
	var growth int64
	budget := &patch.Budget{MaxWorkBytes: s.cfg.MaxEditWorkBytes}
	diffBytes := s.cfg.MaxDiffBytes
	existing, err := s.patchedFiles(ctx, tx, plan)
	if err != nil {
		return res, err
	}
	for i, st := range plan {
		if err := stillWanted(ctx); err != nil {
			return res, err
		}
		out := PatchedFile{Path: st.target(), Operation: string(st.op)}
		var old, updated string
		switch st.op {
		case patch.OpAdd:
			if err := s.checkNewPath(ctx, tx, st.path, "*** Add File", "update it instead, or delete it first"); err != nil {
				return res, err
			}
			updated = st.Content
		case patch.OpDelete, patch.OpUpdate:
			f, ok := existing[st.path]
			if !ok {
				return res, missingPatchFile(ctx, tx, st)
			}
			old = string(f.Content)
			growth -= f.SizeBytes
			if st.op == patch.OpDelete {
				if err := patch.CheckDelete(ctx, old, st.FilePatch, budget); err != nil {
					return res, err
				}
				break
			}
			var chunks []patch.ChunkResult
			var err error
			updated, chunks, err = patch.ApplyUpdate(ctx, old, st.FilePatch, budget)
			if err != nil {
				return res, err
			}
			out.Chunks = chunks
			if st.to != "" {
				out.Operation, out.MovedFrom = "move", st.path
				if err := s.checkNewPath(ctx, tx, st.to, "*** Move to", "choose another destination, or delete that file first"); err != nil {
					return res, err
				}
			}
		}
		if st.op != patch.OpDelete {
			if n := int64(len(updated)); n > s.cfg.MaxFileBytes {
				return res, agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
					"%s would be %d bytes; the maximum file size is %d. Split the content across several files", st.target(), n, s.cfg.MaxFileBytes), st.target())
			}
			contents[i] = []byte(updated)
			out.SizeBytes, out.SHA256 = int64(len(updated)), SHA256Hex(contents[i])
			growth += out.SizeBytes
		}
		d := unifiedDiff(st.target(), old, updated, 0, diffLimits{steps: s.cfg.MaxDiffCost, bytes: max(diffBytes, 0)})
		out.Diff, out.DiffTruncated, out.DiffNote = d.text, d.truncated, d.note()
		diffBytes -= int64(len(d.text))
		res.Files[i] = out
	}
	if growth > 0 {
		total, err := tx.ProjectBytes(ctx)
		if err != nil {
			return res, err
		}
		if total+growth > s.cfg.MaxProjectBytes {
			return res, newProjectQuotaError(total+growth, s.cfg.MaxProjectBytes, plan[0].target())
		}
	}
	if dryRun {
		return res, nil
	}
	var gone []string
	for i, st := range plan {
		switch {
		case st.op == patch.OpDelete:
			gone = append(gone, st.path)
			continue
		case st.to != "":
			gone = append(gone, st.path)
		}
		info, err := tx.Put(ctx, st.target(), contents[i], driver.PutOptions{CredentialRef: creds[st.target()]})
		if err != nil {
			return res, err
		}
		res.Files[i].UpdatedAt = info.UpdatedAt
	}
	if len(gone) > 0 {
		if err := tx.Delete(ctx, gone...); err != nil {
			return res, err
		}
	}
	return res, nil
}

// patchedFiles reads, in one step when the store can (GetMany), the files the plan updates or
// deletes.
func (s *Service) patchedFiles(ctx context.Context, tx driver.ReadTx, plan []patchStep) (map[string]driver.File, error) {
	var paths []string
	for _, st := range plan {
		if st.op != patch.OpAdd {
			paths = append(paths, st.path)
		}
	}
	files, err := driver.GetMany(ctx, tx, paths)
	if err != nil {
		return nil, err
	}
	out := make(map[string]driver.File, len(files))
	for _, f := range files {
		out[f.Path] = f
	}
	return out, nil
}

// checkNewPath refuses a file the patch creates at path (by header) where a file, a directory
// or a file above it exists.
func (s *Service) checkNewPath(ctx context.Context, tx driver.WriteTx, path, header, fix string) error {
	check, _, err := inspectWrite(ctx, tx, path, false)
	switch {
	case err != nil:
		return err
	case check.AncestorFile != "":
		return agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is a file, so it cannot contain %s; choose another path", check.AncestorFile, path), check.AncestorFile)
	case check.HasDescendant:
		return agentfiles.NewError(agentfiles.CodeIsDirectory, fmt.Sprintf("%s is a directory; %s needs a path where nothing is", path, header), path)
	case check.Existing != nil:
		return agentfiles.NewError(agentfiles.CodeAlreadyExists, fmt.Sprintf("%s: a file already exists at %s; %s", header, path, fix), path)
	}
	return nil
}

// missingPatchFile is the error of an update or delete of a path where no file is.
func missingPatchFile(ctx context.Context, tx driver.ReadTx, st patchStep) error {
	err := missingFileError(ctx, tx, st.path)
	if agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
		return err
	}
	verb, fix := "updates", "add it with *** Add File, or check the path with file_glob"
	if st.op == patch.OpDelete {
		verb, fix = "deletes", "leave it out of the patch"
	}
	return agentfiles.NewError(agentfiles.CodeNotFound, fmt.Sprintf("the patch %s %s, but no file is there; %s", verb, st.path, fix), st.path)
}
