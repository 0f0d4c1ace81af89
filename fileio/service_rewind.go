package fileio

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// FileChangeKind is how a file differs from its state at a checkpoint.
type FileChangeKind string

// The kinds of FileChange.
const (
	FileAdded    FileChangeKind = "added"    // no file was at the path at the checkpoint
	FileModified FileChangeKind = "modified" // its content differs
	FileDeleted  FileChangeKind = "deleted"  // the file is gone
	FileRenamed  FileChangeKind = "renamed"  // the file at From is gone, and its content is at Path
)

// FileChange is one file that differs between a checkpoint and now.
type FileChange struct {
	Path string         `json:"path"` // for a rename, the new path
	Kind FileChangeKind `json:"kind"`
	From string         `json:"from,omitempty"` // for a rename, the path at the checkpoint
	// Diff is the unified diff from the checkpoint's content to the current one (Changes only),
	// within Config.MaxDiffCost and MaxDiffBytes, as Edit's; "" for a rename of the same bytes.
	Diff          string `json:"diff,omitempty"`
	DiffTruncated bool   `json:"diff_truncated,omitempty"`
	DiffNote      string `json:"diff_note,omitempty"`
}

// ChangesRequest is the input of Service.Changes.
type ChangesRequest struct {
	Project string
	Since   string // a checkpoint id
	Path    string // "" or a file or directory: only the changes at or below it
	Cursor  string // a previous answer's NextCursor
}

// ChangesResult is the answer of Service.Changes.
type ChangesResult struct {
	Changes []FileChange `json:"changes"`
	// Truncated is true when more changes follow: pass NextCursor as the next call's Cursor.
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"next_cursor,omitempty"`
}

// changesPageSize is the most changes one Changes answer lists; the answer also stops once its
// diffs reach Config.MaxDiffBytes.
const changesPageSize = 100

// Changes lists the net difference between checkpoint req.Since and now: each file that
// differs, once, as added, modified, deleted or renamed (a file deleted since whose content
// now lies at a new path), in path order, with its unified diff. A file changed and changed
// back is not listed. Pages end after 100 changes or once the diffs reach
// Config.MaxDiffBytes; pass NextCursor for the next. Errors: NOT_FOUND for an unknown
// checkpoint, INVALID_ARGUMENT when more than Config.MaxRewindFiles files differ (name a
// directory with Path).
func (s *Service) Changes(ctx context.Context, req ChangesRequest) (ChangesResult, error) {
	req.Path = NormalizePath(req.Path)
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	ac, scope, err := s.begin(ctx, req.Project, req.Path)
	fp := fingerprint("changes", req.Since, req.Path)
	var cur searchCursor
	if err == nil {
		cur, err = decodeCursor(req.Cursor, fp)
	}
	var res ChangesResult
	if err == nil {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (ChangesResult, error) {
			f, diff, err := s.diffSince(ctx, tx, req.Since, req.Path)
			if err != nil {
				return ChangesResult{}, err
			}
			return s.changesPage(ctx, tx, f, diff, cur.Path, fp)
		})
	}
	s.logOp(ctx, "changes", ac, req.Project, req.Path, err, slog.String("since", req.Since), slog.Int("changes", len(res.Changes)))
	return res, err
}

// netChange is a FileChange with the states it was derived from.
type netChange struct {
	FileChange
	before, after driver.FileState // at the checkpoint (of From for a rename) and now
}

// diffSince returns the feed and the files at or below dir that differ from checkpoint, in
// path order.
func (s *Service) diffSince(ctx context.Context, tx driver.ReadTx, checkpoint, dir string) (driver.FeedReader, []netChange, error) {
	f, err := feedStore(tx)
	if err != nil {
		return nil, nil, err
	}
	cp, err := findCheckpoint(ctx, f, checkpoint)
	if err != nil {
		return nil, nil, err
	}
	changed, err := f.ChangedSince(ctx, cp.Position, dir, s.cfg.MaxRewindFiles+1)
	if err != nil {
		return nil, nil, err
	}
	if len(changed) > s.cfg.MaxRewindFiles {
		where := "the project"
		if dir != "" {
			where = dir
		}
		return nil, nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"more than %d files of %s changed since checkpoint %s, the most one call handles; pass path to work on one directory at a time",
			s.cfg.MaxRewindFiles, where, checkpoint), "path")
	}
	return f, netChanges(changed), nil
}

// netChanges keeps the paths whose state differs and pairs a deleted file with an added one of
// the same content (in path order) as a rename.
func netChanges(changed []driver.PathChange) []netChange {
	var out []netChange
	added := map[string][]int{} // by SHA-256: indexes into out of unpaired additions
	for _, c := range changed {
		b, a := c.Before, c.After
		switch {
		case b.Exists && a.Exists && (b.SHA256 != a.SHA256 || b.SHA256 == ""):
			out = append(out, netChange{FileChange{Path: c.Path, Kind: FileModified}, b, a})
		case b.Exists && !a.Exists:
			out = append(out, netChange{FileChange{Path: c.Path, Kind: FileDeleted}, b, a})
		case !b.Exists && a.Exists:
			added[a.SHA256] = append(added[a.SHA256], len(out))
			out = append(out, netChange{FileChange{Path: c.Path, Kind: FileAdded}, b, a})
		}
	}
	var gone []int
	for i, c := range out {
		if c.Kind != FileDeleted || c.before.SHA256 == "" || len(added[c.before.SHA256]) == 0 {
			continue
		}
		j := added[c.before.SHA256][0]
		added[c.before.SHA256] = added[c.before.SHA256][1:]
		out[j].Kind, out[j].From, out[j].before = FileRenamed, c.Path, c.before
		gone = append(gone, i)
	}
	for k := len(gone) - 1; k >= 0; k-- {
		out = slices.Delete(out, gone[k], gone[k]+1)
	}
	return out
}

// changesPage returns the changes after path `after`, with their diffs, within the page limits.
func (s *Service) changesPage(ctx context.Context, tx driver.ReadTx, f driver.FeedReader, diff []netChange, after, fp string) (ChangesResult, error) {
	i, _ := slices.BinarySearchFunc(diff, after, func(c netChange, p string) int { return strings.Compare(c.Path, p) })
	if i < len(diff) && diff[i].Path == after {
		i++
	}
	res := ChangesResult{Changes: []FileChange{}}
	var bytes int64
	for ; i < len(diff) && len(res.Changes) < changesPageSize && bytes < s.cfg.MaxDiffBytes; i++ {
		if err := stillWanted(ctx); err != nil {
			return ChangesResult{}, err
		}
		c := diff[i]
		if err := s.fillDiff(ctx, tx, f, &c); err != nil {
			return ChangesResult{}, err
		}
		bytes += int64(len(c.Diff))
		res.Changes = append(res.Changes, c.FileChange)
	}
	if i < len(diff) {
		res.NextCursor = searchCursor{Path: res.Changes[len(res.Changes)-1].Path}.encode(fp)
		res.Truncated = true
	}
	return res, nil
}

// fillDiff sets the diff of c, from the checkpoint's content to the current one.
func (s *Service) fillDiff(ctx context.Context, tx driver.ReadTx, f driver.FeedReader, c *netChange) error {
	var old, cur []byte
	if c.before.Exists {
		from := c.Path
		if c.Kind == FileRenamed {
			from = c.From
		}
		contents, err := f.PinnedContents(ctx, []driver.VersionRef{{Path: from, Version: c.before.Version}})
		if err != nil {
			return err
		}
		content := contents[0]
		if content == nil {
			c.DiffNote = "the content at the checkpoint is no longer kept"
			return nil
		}
		old = content
	}
	if c.after.Exists {
		file, err := tx.Get(ctx, c.Path)
		if err != nil {
			return err
		}
		cur = file.Content
	}
	d := unifiedDiff(c.Path, string(old), string(cur), 0, diffLimits{steps: s.cfg.MaxDiffCost, bytes: s.cfg.MaxDiffBytes})
	c.Diff, c.DiffTruncated, c.DiffNote = d.text, d.truncated, d.note()
	return nil
}

// RewindRequest is the input of Service.Rewind.
type RewindRequest struct {
	Project    string
	Checkpoint string // a checkpoint id
	Path       string // "" or a file or directory: only what lies at or below it goes back
	DryRun     bool   // report what would change, change nothing
}

// RewindResult is the answer of Service.Rewind.
type RewindResult struct {
	// Changes are the differences the rewind undid (or would undo), as Changes lists them
	// without diffs, at most MaxRewindListed of them.
	Changes   []FileChange `json:"changes"`
	Total     int          `json:"total"`             // how many files differed
	Truncated bool         `json:"truncated"`         // Changes was cut at MaxRewindListed
	DryRun    bool         `json:"dry_run,omitempty"` // nothing was changed
}

// MaxRewindListed is the most changes a RewindResult lists.
const MaxRewindListed = 1000

// Rewind returns every file at or below req.Path to its state at checkpoint req.Checkpoint, in
// one transaction: files created since are deleted, deleted ones come back, modified ones get
// their content back and renamed ones move back. Readers see the project either before or
// after it. Each file it writes or deletes gets a new version and a change event, as any
// write, so a rewind is undone by rewinding to a checkpoint taken before it. Errors: those of
// Changes, NOT_FOUND when the content of a file at the checkpoint is no longer kept,
// NOT_DIRECTORY when an ancestor of req.Path is now a file, QUOTA_EXCEEDED when the project
// would outgrow max_project_bytes.
func (s *Service) Rewind(ctx context.Context, req RewindRequest) (RewindResult, error) {
	req.Path = NormalizePath(req.Path)
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	ac, scope, err := s.begin(ctx, req.Project, req.Path)
	var res RewindResult
	if err == nil && req.DryRun {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (RewindResult, error) {
			_, diff, err := s.diffSince(ctx, tx, req.Checkpoint, req.Path)
			return rewindResult(diff, true), err
		})
	} else if err == nil {
		res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (RewindResult, error) {
			f, diff, err := s.diffSince(ctx, tx, req.Checkpoint, req.Path)
			if err == nil {
				err = s.rewindTx(ctx, ac, scope, tx, f, req.Path, diff)
			}
			return rewindResult(diff, false), err
		})
		err = s.explainQuota(ctx, scope, err)
	}
	s.logOp(ctx, "rewind", ac, req.Project, req.Path, err, slog.String("checkpoint", req.Checkpoint),
		slog.Int("files", res.Total), slog.Bool("dry_run", req.DryRun))
	return res, err
}

func rewindResult(diff []netChange, dryRun bool) RewindResult {
	res := RewindResult{Changes: make([]FileChange, 0, min(len(diff), MaxRewindListed)), Total: len(diff), DryRun: dryRun}
	for _, c := range diff[:min(len(diff), MaxRewindListed)] {
		res.Changes = append(res.Changes, c.FileChange)
	}
	res.Truncated = len(diff) > MaxRewindListed
	return res
}

// rewindTx deletes what was added since the checkpoint and writes back what was there, then
// checks that the project stays within its quota.
func (s *Service) rewindTx(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, tx driver.WriteTx, f driver.FeedReader, dir string, diff []netChange) error {
	before, err := tx.ProjectBytes(ctx)
	if err != nil {
		return err
	}
	var remove []string
	paths := map[string]driver.FileState{} // what comes back: its state at the checkpoint
	for _, c := range diff {
		if c.after.Exists {
			remove = append(remove, c.Path)
		}
		if c.before.Exists {
			from := c.Path
			if c.Kind == FileRenamed {
				from = c.From
			}
			paths[from] = c.before
		}
	}
	if len(paths) > 0 && dir != "" {
		for _, a := range ancestors(dir) {
			if _, isFile, err := tx.Stat(ctx, a); err != nil || isFile {
				if err == nil {
					err = agentfiles.NewError(CodeNotDirectory, fmt.Sprintf(
						"%s is now a file, so the files below %s cannot come back; rewind its parent directory instead", a, dir), a)
				}
				return err
			}
		}
	}
	// A modified file is written over rather than deleted first, so that it keeps its
	// CreatedAt and its version numbering continues.
	remove = slices.DeleteFunc(remove, func(p string) bool { _, back := paths[p]; return back })
	if err := tx.Delete(ctx, remove...); err != nil {
		return err
	}
	order := slices.Sorted(maps.Keys(paths))
	for len(order) > 0 {
		n, size := 0, int64(0)
		for n < len(order) && n < rewindBatchFiles && (n == 0 || size+paths[order[n]].SizeBytes <= rewindBatchBytes) {
			size += paths[order[n]].SizeBytes
			n++
		}
		if err := s.restoreBatch(ctx, ac, scope, tx, f, order[:n], paths); err != nil {
			return err
		}
		order = order[n:]
	}
	after, err := tx.ProjectBytes(ctx)
	if err != nil {
		return err
	}
	if after > before && after > s.cfg.MaxProjectBytes {
		return newProjectQuotaError(after, s.cfg.MaxProjectBytes, dir)
	}
	return nil
}

// How Rewind writes files back: in batches of at most rewindBatchFiles files and (unless one
// file is larger) rewindBatchBytes of content, each read in one PinnedContents call and written
// in one driver.BulkWriter step when the store has one.
const (
	rewindBatchFiles = 256
	rewindBatchBytes = 8 << 20
)

// restoreBatch writes back the checkpoint's content of paths (in path order).
func (s *Service) restoreBatch(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, tx driver.WriteTx, f driver.FeedReader, paths []string, at map[string]driver.FileState) error {
	if err := stillWanted(ctx); err != nil {
		return err
	}
	refs := make([]driver.VersionRef, len(paths))
	for i, p := range paths {
		refs[i] = driver.VersionRef{Path: p, Version: at[p].Version}
	}
	contents, err := f.PinnedContents(ctx, refs)
	if err != nil {
		return err
	}
	files := make([]driver.File, len(paths))
	seals := make([]string, len(paths))
	for i, p := range paths {
		if contents[i] == nil {
			return agentfiles.NewError(agentfiles.CodeNotFound, fmt.Sprintf(
				"version %d of %s, its content at the checkpoint, is no longer kept; rewind the other files with path", refs[i].Version, p), p)
		}
		files[i] = driver.File{FileInfo: driver.FileInfo{Path: p}, Content: contents[i]}
		seals[i] = s.seal(ctx, ac, scope, p).CredentialRef
	}
	if bulk, ok := tx.(driver.BulkWriter); ok {
		// Left to the background indexer, as Put leaves a file.
		return bulk.PutMany(ctx, files, driver.BulkOptions{Refs: seals, DeferIndex: true})
	}
	for i, file := range files {
		if _, err := tx.Put(ctx, file.Path, file.Content, driver.PutOptions{CredentialRef: seals[i]}); err != nil {
			return err
		}
	}
	return nil
}
