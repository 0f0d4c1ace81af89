package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/globmatch"
)

// ImportMode says what Import does with the files already below its directory.
type ImportMode string

// The import modes.
const (
	// ImportMerge (the default) writes the archive's files and leaves the others.
	ImportMerge ImportMode = "merge"
	// ImportReplace makes the directory equal to the archive: files below it that the
	// archive does not hold are deleted (into history, as file_delete does).
	ImportReplace ImportMode = "replace"
)

// ImportRequest is a Service.Import call (file_import, PUT /archive/{project}).
type ImportRequest struct {
	Project string
	// Path is the directory the archive's entries go below ("" or "/" for the project root):
	// entry "docs/a.md" imported at "/site" is "/site/docs/a.md".
	Path string
	Mode ImportMode // "" is ImportMerge
	// Strict refuses the whole archive when a file is not UTF-8 text or an entry is a link;
	// without it such entries are skipped and listed in ImportResult.Skipped.
	Strict bool
	// IndexNow indexes the new files for grep in the import itself, so that the import
	// answers once a grep can read them from the store's index (pgstore: their trigrams, about
	// 90% of such an import's time, 10 times slower; it also refreshes the planner's
	// statistics after a large import). By default the store's background indexer indexes them,
	// as after writes; grep answers are the same either way, and pgstore's grep cache holds
	// what the import wrote, so a grep right after it on the same process reads memory. Set it
	// when greps of the project go to the trigram index: a project larger than
	// pgstore.Options.GrepCacheBytes, or a Store without the cache.
	IndexNow bool
	// Archive is the tar, tar.gz or zip stream (detected from its first bytes), read once.
	Archive io.Reader
}

// ImportResult is what an Import did.
type ImportResult struct {
	Format   string          `json:"format"`  // tar, tar.gz or zip
	Path     string          `json:"path"`    // the directory imported into ("" for the root)
	Files    int             `json:"files"`   // files written
	Created  int             `json:"created"` // of Files, new paths
	Replaced int             `json:"replaced"`
	Deleted  int             `json:"deleted"` // files deleted by ImportReplace
	Bytes    int64           `json:"bytes"`   // bytes written
	Skipped  []SkippedImport `json:"skipped,omitempty"`
}

// SkippedImport is an archive entry Import left out, and why.
type SkippedImport struct {
	Entry  string `json:"entry"` // the name as the archive spells it
	Path   string `json:"path"`  // the path it would have had
	Reason string `json:"reason"`
}

// ExportRequest is a Service.Export call (file_export, GET /archive/{project}).
type ExportRequest struct {
	Project string
	// Path is the directory to export ("" for the whole project), or one file. Entry names
	// are relative to it, so importing the archive at the same Path gives the same paths.
	Path string
	// Glob keeps only the files whose path matches (see Glob, as in file_grep); "" keeps all.
	Glob   string
	Format archive.Format // "" is tar
}

// ExportResult is what an Export wrote.
type ExportResult struct {
	Format string `json:"format"`
	Files  int    `json:"files"`
	Bytes  int64  `json:"bytes"` // the files' bytes, before compression
}

// import batches: a batch is written when it holds this many files or bytes.
const (
	importBatchFiles = 500
	importBatchBytes = 2 << 20
)

// Import reads an archive stream (tar, tar.gz or zip, detected from its first bytes) into the
// directory req.Path of a project, in one transaction: all or nothing. Every file is written
// as by Write (a version of a replaced file is kept, an index job is queued), each entry name
// normalized to NFC and checked by the configured PathRule.
//
// The archive is refused, and nothing is imported, when it breaks a rule, with the entry
// named: INVALID_ARGUMENT for an entry that escapes (".." segments, absolute names, a
// backslash), a special file (a device, a FIFO), a duplicate name, a file and a directory of
// the same name, or (with Strict) a file that is not UTF-8 text or a link, and for a stream
// that is not an
// archive or is damaged; INVALID_PATH for a name the path rule refuses; QUOTA_EXCEEDED for a
// file over Config.MaxFileBytes or a project over MaxProjectBytes; PAYLOAD_TOO_LARGE past
// Config.MaxArchiveBytes; IS_DIRECTORY or NOT_DIRECTORY (merge) for a file where the project has
// a directory or the reverse. Without Strict, files that are not UTF-8 text and links
// (symbolic or hard: a project holds files, and a link is never followed) are skipped and
// listed, as a repository's archive often holds a few. The call's budget is
// Config.ArchiveTimeout.
//
// The archive is read and checked one batch ahead of the batch being written, so that reading
// and writing overlap. Memory: two batches of files (each at most 500 files or 2 MiB, plus one
// file of up to MaxFileBytes; a store may copy the batch it writes once more, pgstore into
// its statement's parameter) and the paths of the directory; a zip stream is spooled to a
// temporary file. pgstore also keeps what the import wrote for its grep cache until the import
// commits, within pgstore.Options.GrepCacheBytes (past it, nothing).
func (s *Service) Import(ctx context.Context, req ImportRequest) (ImportResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ArchiveTimeout)
	defer cancel()
	dir := searchDir(NormalizePath(req.Path))
	ac, scope, err := s.begin(ctx, req.Project, dir)
	mode := req.Mode
	if err == nil {
		switch mode {
		case "":
			mode = ImportMerge
		case ImportMerge, ImportReplace:
		default:
			err = agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("mode must be %q or %q, got %q", ImportMerge, ImportReplace, mode), "mode")
		}
	}
	if err == nil && req.Archive == nil {
		err = agentfiles.NewError(agentfiles.CodeInvalidArgument, "the archive is missing; send a tar, tar.gz or zip stream", "archive")
	}
	var res ImportResult
	if err == nil {
		var ar *archive.Reader
		ar, err = archive.Open(req.Archive, archive.Limits{MaxArchiveBytes: s.cfg.MaxArchiveBytes})
		if err == nil {
			defer ar.Close()
			imp := &importer{s: s, ac: ac, scope: scope, dir: dir, mode: mode, strict: req.Strict, deferIndex: !req.IndexNow, ar: ar}
			res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (ImportResult, error) { return imp.run(ctx, tx) })
			err = s.explainQuota(ctx, scope, err)
		}
		err = s.archiveError(err)
	}
	s.logOp(ctx, "import", ac, req.Project, dir, err, slog.String("mode", string(mode)), slog.Int("files", res.Files),
		slog.Int64("bytes", res.Bytes), slog.Int("deleted", res.Deleted), slog.Int("skipped", len(res.Skipped)))
	return res, err
}

// archiveError codes the errors of package archive: a refused entry or stream is
// INVALID_ARGUMENT naming the entry, an archive over the limit PAYLOAD_TOO_LARGE.
func (s *Service) archiveError(err error) error {
	var ee *archive.EntryError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return agentfiles.WrapError(agentfiles.CodeInvalidArgument, ee.Error()+"; nothing was imported", truncateForArg(ee.Entry), err)
	case archive.TooLarge(err):
		return agentfiles.WrapError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
			"the archive is larger than %d bytes (max_archive_bytes); import it in parts, one directory at a time", s.cfg.MaxArchiveBytes), "", err)
	}
	return storeError(err)
}

// importer is one Import inside its transaction.
type importer struct {
	s      *Service
	ac     agentfiles.AuthContext
	scope  driver.Scope
	dir    string
	mode   ImportMode
	strict bool
	ar     *archive.Reader

	deferIndex bool

	existing map[string]bool   // the files below dir before the import
	oldDirs  map[string]bool   // the directories those files make
	seen     map[string]string // path → entry name, for the archive's files
	newDirs  map[string]string // directory → an entry below it
	batch    []driver.File     // being read
	size     int64             // bytes in batch
	res      ImportResult
}

// importBatch is what the reader of an import hands its writer: a batch of files to write, or
// the error that ended the reading.
type importBatch struct {
	files []driver.File
	err   error
}

func (imp *importer) run(ctx context.Context, tx driver.WriteTx) (ImportResult, error) {
	imp.res = ImportResult{Format: string(imp.ar.Format()), Path: imp.dir}
	if err := imp.checkDir(ctx, tx); err != nil {
		return ImportResult{}, err
	}
	before, err := tx.ProjectBytes(ctx)
	if err != nil {
		return ImportResult{}, err
	}
	if err := imp.readAndWrite(ctx, tx); err != nil {
		return ImportResult{}, err
	}
	if imp.mode == ImportReplace {
		if err := imp.deleteOthers(ctx, tx); err != nil {
			return ImportResult{}, err
		}
	}
	after, err := tx.ProjectBytes(ctx)
	if err != nil {
		return ImportResult{}, err
	}
	if after > imp.s.cfg.MaxProjectBytes && after > before {
		return ImportResult{}, newProjectQuotaError(after, imp.s.cfg.MaxProjectBytes, imp.dir)
	}
	return imp.res, nil
}

// readAndWrite reads the archive on a goroutine of its own, which hands each batch to this one
// to write as soon as it is full and reads the next meanwhile. The batches are written in the
// archive's order, and the reading stops at the first failure of either side; the answer is
// that of reading and writing one after the other: a failed write of a batch is the error even
// when an entry after it is refused, as that entry would not have been read. A store may
// report the failure of a batch at its next statement (pgstore's PutMany returns while
// PostgreSQL writes the batch), so a refused entry is reported only after a statement has
// confirmed the batches before it.
func (imp *importer) readAndWrite(ctx context.Context, tx driver.WriteTx) error {
	readCtx, stop := context.WithCancel(ctx)
	batches := make(chan importBatch)
	go imp.read(readCtx, batches)
	var err error
	for b := range batches {
		if err == nil {
			if err = b.err; err != nil {
				if _, werr := tx.ProjectBytes(ctx); werr != nil {
					err = werr
				}
			} else {
				err = imp.flush(ctx, tx, b.files)
			}
		}
		if err != nil {
			stop() // the reader stops at its next entry; drain until it closes batches
		}
	}
	stop()
	return err
}

// read reads the archive's entries into batches and sends them to out, then closes it; an
// error is sent as the last batch. It stops when ctx ends.
func (imp *importer) read(ctx context.Context, out chan<- importBatch) {
	defer close(out)
	send := func(b importBatch) bool {
		select {
		case out <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		if err := stillWanted(ctx); err != nil {
			send(importBatch{err: err})
			return
		}
		e, err := imp.ar.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = imp.add(e)
		}
		if err != nil {
			send(importBatch{err: err})
			return
		}
		if len(imp.batch) >= importBatchFiles || imp.size >= importBatchBytes {
			if !send(importBatch{files: imp.batch}) {
				return
			}
			imp.batch, imp.size = make([]driver.File, 0, importBatchFiles), 0
		}
	}
	if len(imp.batch) > 0 {
		send(importBatch{files: imp.batch})
	}
}

// checkDir refuses a directory that is a file or lies below one, and lists the files below it.
func (imp *importer) checkDir(ctx context.Context, tx driver.WriteTx) error {
	if imp.dir != "" {
		for _, d := range append(ancestors(imp.dir), imp.dir) {
			if _, ok, err := tx.Stat(ctx, d); err != nil || ok {
				if err != nil {
					return err
				}
				return agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is a file, so nothing can be imported below it; choose a directory", d), d)
			}
		}
	}
	files, err := tx.List(ctx, dirPrefix(imp.dir), 0)
	if err != nil {
		return err
	}
	imp.existing = make(map[string]bool, len(files))
	imp.oldDirs = map[string]bool{}
	for _, f := range files {
		imp.existing[f.Path] = true
		for _, d := range ancestors(f.Path) {
			imp.oldDirs[d] = true
		}
	}
	imp.seen = map[string]string{}
	imp.newDirs = map[string]string{}
	return nil
}

// add checks one entry, reads its body and queues it in imp.batch.
func (imp *importer) add(e archive.Entry) error {
	cfg := &imp.s.cfg
	path := NormalizePath(dirPrefix(imp.dir) + e.Path)
	if e.Link != "" {
		if imp.strict {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"archive entry %q is a link (to %q); nothing was imported (import without strict to skip links)", e.Name, e.Link), truncateForArg(e.Name))
		}
		imp.res.Skipped = append(imp.res.Skipped, SkippedImport{Entry: e.Name, Path: path, Reason: fmt.Sprintf(
			"a link to %q; links are not imported: a project holds files, and a link is never followed", e.Link)})
		return nil
	}
	if err := cfg.PathRule.Validate(path); err != nil {
		var ae *agentfiles.Error
		msg := err.Error()
		if errors.As(err, &ae) {
			msg = ae.Message
		}
		return agentfiles.WrapError(CodeInvalidPath, fmt.Sprintf("archive entry %q: %s; nothing was imported", e.Name, msg), truncateForArg(e.Name), err)
	}
	if err := imp.checkName(path, e.Name); err != nil {
		return err
	}
	if e.Size > cfg.MaxFileBytes {
		return entryQuotaError(e, cfg.MaxFileBytes)
	}
	// Read into a buffer of the declared size (plus the room ReadFrom asks for at the end):
	// one allocation, where io.ReadAll would grow and copy.
	buf := bytes.NewBuffer(make([]byte, 0, max(e.Size, 0)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(imp.ar, cfg.MaxFileBytes+1)); err != nil {
		return err
	}
	content := buf.Bytes()
	if int64(len(content)) > cfg.MaxFileBytes {
		return entryQuotaError(e, cfg.MaxFileBytes)
	}
	if !utf8.Valid(content) {
		if imp.strict {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"archive entry %q is not UTF-8 text; nothing was imported (import without strict to skip such files)", e.Name), truncateForArg(e.Name))
		}
		imp.res.Skipped = append(imp.res.Skipped, SkippedImport{Entry: e.Name, Path: path, Reason: "not UTF-8 text (a binary file?); files hold text only"})
		return nil
	}
	if imp.res.Bytes += int64(len(content)); imp.res.Bytes > cfg.MaxProjectBytes {
		return newProjectQuotaError(imp.res.Bytes, cfg.MaxProjectBytes, path)
	}
	imp.res.Files++
	if imp.existing[path] {
		imp.res.Replaced++
	} else {
		imp.res.Created++
	}
	imp.batch = append(imp.batch, driver.File{FileInfo: driver.FileInfo{Path: path, SizeBytes: int64(len(content))}, Content: content})
	imp.size += int64(len(content))
	return nil
}

// checkName refuses a duplicate, a file where another entry (or, merging, the project) has a
// directory, and a file below another entry's file (or, merging, the project's).
func (imp *importer) checkName(path, name string) error {
	if other, dup := imp.seen[path]; dup {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"archive entries %q and %q both name %s; nothing was imported", other, name, path), truncateForArg(name))
	}
	if other, ok := imp.newDirs[path]; ok {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"archive entry %q is a file, but entry %q puts a file below it; nothing was imported", name, other), truncateForArg(name))
	}
	merge := imp.mode == ImportMerge
	if merge && imp.oldDirs[path] {
		return agentfiles.NewError(agentfiles.CodeIsDirectory, fmt.Sprintf(
			"archive entry %q would be the file %s, where the project has a directory; nothing was imported (mode replace replaces it)", name, path), path)
	}
	for _, d := range ancestors(path) {
		if other, ok := imp.seen[d]; ok {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"archive entry %q lies below entry %q, which is a file; nothing was imported", name, other), truncateForArg(name))
		}
		if merge && imp.existing[d] {
			return agentfiles.NewError(CodeNotDirectory, fmt.Sprintf(
				"archive entry %q would lie below %s, which is a file in the project; nothing was imported (mode replace replaces it)", name, d), d)
		}
		if _, ok := imp.newDirs[d]; !ok {
			imp.newDirs[d] = name
		}
	}
	imp.seen[path] = name
	return nil
}

func entryQuotaError(e archive.Entry, max int64) error {
	return agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
		"archive entry %q is larger than the maximum file size of %d bytes; nothing was imported (leave it out of the archive)", e.Name, max), truncateForArg(e.Name))
}

// flush writes a batch of files.
func (imp *importer) flush(ctx context.Context, tx driver.WriteTx, batch []driver.File) error {
	var refs []string
	if imp.s.sealer != nil {
		refs = make([]string, len(batch))
		for i, f := range batch {
			refs[i] = imp.s.seal(ctx, imp.ac, imp.scope, f.Path).CredentialRef
		}
	}
	if bw, ok := tx.(driver.BulkWriter); ok {
		return bw.PutMany(ctx, batch, driver.BulkOptions{Refs: refs, DeferIndex: imp.deferIndex})
	}
	for i, f := range batch {
		var opts driver.PutOptions
		if refs != nil {
			opts.CredentialRef = refs[i]
		}
		if _, err := tx.Put(ctx, f.Path, f.Content, opts); err != nil {
			return err
		}
	}
	return nil
}

// deleteOthers deletes the files below the directory that the archive does not hold.
func (imp *importer) deleteOthers(ctx context.Context, tx driver.WriteTx) error {
	if len(imp.seen) == 0 && len(imp.existing) > 0 {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"the archive holds no file, so mode replace would delete everything below the directory; nothing was changed (use file_delete for that)", imp.dir)
	}
	var gone []string
	for p := range imp.existing {
		if _, ok := imp.seen[p]; !ok {
			gone = append(gone, p)
		}
	}
	for len(gone) > 0 {
		n := min(len(gone), importBatchFiles)
		if err := tx.Delete(ctx, gone[:n]...); err != nil {
			return err
		}
		imp.res.Deleted += n
		gone = gone[n:]
	}
	return nil
}

// Export writes the files below req.Path (or the file at it) matching req.Glob to w as an
// archive of req.Format, from one read transaction: a consistent snapshot, even while others
// write. Entry names are relative to req.Path, with modification times. Files are read in
// pages and written as they come, so memory stays bounded whatever the project's size: from a
// store whose ReadTx is a driver.ContentLister (pgstore) 256 files per statement, each written
// as its row arrives (memory: about one file); otherwise in batches of at most 256 files or
// 8 MiB. NOT_FOUND when nothing exists at req.Path. When w fails or the budget
// (Config.ArchiveTimeout) ends part way, the archive is left unfinished, which every reader
// reports as damaged.
func (s *Service) Export(ctx context.Context, req ExportRequest, w io.Writer) (ExportResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ArchiveTimeout)
	defer cancel()
	dir := searchDir(NormalizePath(req.Path))
	ac, scope, err := s.begin(ctx, req.Project, dir)
	format := req.Format
	if err == nil {
		if format, err = archive.ParseFormat(string(req.Format)); err != nil {
			err = agentfiles.NewError(agentfiles.CodeInvalidArgument, err.Error(), "format")
		}
	}
	var g *globmatch.Glob
	if err == nil && req.Glob != "" {
		g, err = globmatch.Compile(NormalizePath(req.Glob))
	}
	var res ExportResult
	if err == nil {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (ExportResult, error) {
			return exportTx(ctx, tx, dir, g, format, w)
		})
	}
	s.logOp(ctx, "export", ac, req.Project, dir, err, slog.String("format", string(format)), slog.Int("files", res.Files), slog.Int64("bytes", res.Bytes))
	return res, err
}

// export batches: files are read this many, or this many bytes, at a time.
const (
	exportBatchFiles = 256
	exportBatchBytes = 8 << 20
)

func exportTx(ctx context.Context, tx driver.ReadTx, dir string, g *globmatch.Glob, format archive.Format, w io.Writer) (ExportResult, error) {
	res := ExportResult{Format: string(format)}
	base := dirPrefix(dir)
	if dir != "" {
		if fi, ok, err := tx.Stat(ctx, dir); err != nil {
			return res, err
		} else if ok {
			got, err := driver.GetMany(ctx, tx, []string{fi.Path})
			if err != nil {
				return res, err
			}
			return exportFiles(got, dir[:strings.LastIndexByte(dir, '/')+1], format, w)
		}
	}
	if cl, ok := tx.(driver.ContentLister); ok {
		return exportPages(ctx, cl, dir, base, g, format, w)
	}
	all, err := tx.List(ctx, base, 0)
	if err != nil {
		return res, err
	}
	if len(all) == 0 && dir != "" {
		return res, notFoundForExport(dir)
	}
	var files []driver.FileInfo
	for _, f := range all {
		if g == nil || g.MatchFile(dir, f.Path) {
			files = append(files, f)
		}
	}
	aw := archive.NewWriter(w, format)
	for len(files) > 0 {
		if err := stillWanted(ctx); err != nil {
			return res, err
		}
		n, size := 0, int64(0)
		for n < len(files) && n < exportBatchFiles && (n == 0 || size+files[n].SizeBytes <= exportBatchBytes) {
			size += files[n].SizeBytes
			n++
		}
		paths := make([]string, n)
		for i := range paths {
			paths[i] = files[i].Path
		}
		got, err := driver.GetMany(ctx, tx, paths)
		if err != nil {
			return res, err
		}
		for _, f := range got {
			if err := addToArchive(aw, &res, base, f); err != nil {
				return res, err
			}
		}
		files = files[n:]
	}
	return res, writeError(aw.Close())
}

// exportFiles writes files (one file exported by its path) as the whole archive.
func exportFiles(files []driver.File, base string, format archive.Format, w io.Writer) (ExportResult, error) {
	res := ExportResult{Format: string(format)}
	aw := archive.NewWriter(w, format)
	for _, f := range files {
		if err := addToArchive(aw, &res, base, f); err != nil {
			return res, err
		}
	}
	return res, writeError(aw.Close())
}

// exportPages writes the files below dir from the pages of a ContentLister: one statement per
// exportBatchFiles files, each file written to the archive as its row arrives (memory: one
// file, whatever the page's size).
func exportPages(ctx context.Context, cl driver.ContentLister, dir, base string, g *globmatch.Glob, format archive.Format, w io.Writer) (ExportResult, error) {
	res := ExportResult{Format: string(format)}
	aw := archive.NewWriter(w, format)
	after, seen := "", 0
	for {
		if err := stillWanted(ctx); err != nil {
			return res, err
		}
		n := 0
		err := cl.ListContent(ctx, base, after, exportBatchFiles, func(f driver.File) error {
			n++
			after = f.Path
			if g != nil && !g.MatchFile(dir, f.Path) {
				return nil
			}
			return addToArchive(aw, &res, base, f)
		})
		if err != nil {
			return res, err
		}
		if seen += n; n < exportBatchFiles {
			break
		}
	}
	if seen == 0 && dir != "" {
		return res, notFoundForExport(dir)
	}
	return res, writeError(aw.Close())
}

// addToArchive writes f to aw with its name relative to base, and counts it in res.
func addToArchive(aw *archive.Writer, res *ExportResult, base string, f driver.File) error {
	if err := aw.Add(f.Path[len(base):], f.Content, f.UpdatedAt); err != nil {
		return writeError(err)
	}
	res.Files++
	res.Bytes += int64(len(f.Content))
	return nil
}

func notFoundForExport(dir string) error {
	return agentfiles.NewError(agentfiles.CodeNotFound, "nothing exists at this path; use file_list to see existing files", dir)
}

// writeError codes a failure to write the archive to its destination (the client went away).
func writeError(err error) error {
	if err == nil {
		return nil
	}
	return agentfiles.WrapError(agentfiles.CodeCanceled, "the archive could not be written to its destination (the client stopped reading?)", "", err)
}
