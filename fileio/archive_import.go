package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

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
// The whole archive is read and checked before the store's transaction opens: its files go to
// a temporary spool file as they arrive, so a client that sends slowly (or stalls) holds no
// connection and no lock of the store, only its tenant's archive slot (Config.
// MaxConcurrentArchives; a further import or export of the tenant waits for it at most
// Config.LockTimeout, then RESOURCE_BUSY) until Config.ArchiveTimeout, the budget of the
// whole call. The transaction then writes from the spool.
//
// The archive is refused, and nothing is imported, when it breaks a rule, with the entry
// named: INVALID_ARGUMENT for an entry that escapes (".." segments, absolute names, a
// backslash), a special file (a device, a FIFO), two entries that name one path once
// normalized, a file and a directory of the same name, or (with Strict) a file that is not
// UTF-8 text or a link, and for a stream that is not an archive or is damaged; INVALID_PATH for
// a name the path rule refuses; QUOTA_EXCEEDED for a file over Config.MaxFileBytes, more files
// than the project's or the tenant's file quota, or a project over MaxProjectBytes;
// PAYLOAD_TOO_LARGE past Config.MaxArchiveBytes, more entries than MaxArchiveEntries or a zip
// directory larger than MaxArchiveDirectoryBytes (both checked before a zip's directory is
// parsed); IS_DIRECTORY or NOT_DIRECTORY (merge) for a file where the project has a directory
// or the reverse. Without Strict, files that are not UTF-8 text and links (symbolic or hard: a
// project holds files, and a link is never followed) are skipped and listed, as a
// repository's archive often holds a few.
//
// Memory per import: one file of up to MaxFileBytes being read; for each file of the archive
// about 100 bytes and its path twice (the index of the spool and the map that finds duplicate
// names); while the transaction writes, two batches of at most 500 files or 2 MiB (plus one
// file) and the paths already below the directory. A zip's directory, which Go's archive/zip
// holds whole, is at most MaxArchiveEntries entries of about 250 bytes and
// MaxArchiveDirectoryBytes of names and fields; with the defaults (125,000 entries, 32 MiB)
// an import needs at most about 80 MiB, a tar or tar.gz of 100,000 files with 50-byte names
// about 25 MiB. Disk: the spool, at most MaxProjectBytes, and a zip's own spool, at most
// MaxArchiveBytes. pgstore also keeps what the import wrote for its grep cache until the
// import commits, within pgstore.Options.GrepCacheBytes (past it, nothing).
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
		res, err = s.importArchive(ctx, ac, scope, dir, mode, req)
	}
	s.logOp(ctx, "import", ac, req.Project, dir, err, slog.String("mode", string(mode)), slog.Int("files", res.Files),
		slog.Int64("bytes", res.Bytes), slog.Int("deleted", res.Deleted), slog.Int("skipped", len(res.Skipped)))
	return res, err
}

// importArchive takes the tenant's archive slot, reads the archive into a spool, then writes
// it in a transaction.
func (s *Service) importArchive(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, dir string, mode ImportMode, req ImportRequest) (ImportResult, error) {
	release, err := s.archiveSlot(ctx, scope.Tenant)
	if err != nil {
		return ImportResult{}, err
	}
	defer release()
	ar, err := archive.Open(req.Archive, s.archiveLimits())
	if err != nil {
		return ImportResult{}, s.archiveError(err)
	}
	defer ar.Close()
	sp, err := newSpool("")
	if err != nil {
		return ImportResult{}, storeError(err)
	}
	defer sp.Close()
	imp := &importer{s: s, ac: ac, scope: scope, dir: dir, mode: mode, strict: req.Strict, deferIndex: !req.IndexNow, spool: sp,
		seen: map[string]int32{}, newDirs: map[string]int32{}}
	imp.res = ImportResult{Format: string(ar.Format()), Path: dir}
	if err := imp.readAll(ctx, ar); err != nil {
		return ImportResult{}, s.archiveError(err)
	}
	res, err := inUpdate(ctx, s, scope, func(tx driver.WriteTx) (ImportResult, error) { return imp.write(ctx, tx) })
	return res, s.archiveError(err)
}

// archiveLimits are the limits of package archive, from the configuration.
func (s *Service) archiveLimits() archive.Limits {
	return archive.Limits{MaxArchiveBytes: s.cfg.MaxArchiveBytes, MaxEntries: s.cfg.MaxArchiveEntries, MaxDirectoryBytes: s.cfg.MaxArchiveDirectoryBytes}
}

// archiveSlot waits for one of the tenant's archive slots (Config.MaxConcurrentArchives), at
// most Config.LockTimeout, and returns the function that frees it.
func (s *Service) archiveSlot(ctx context.Context, tenant string) (func(), error) {
	wait, cancel := context.WithTimeout(ctx, s.cfg.LockTimeout)
	defer cancel()
	release, err := s.archives.Acquire(wait, tenant)
	if err == nil {
		return release, nil
	}
	if ctx.Err() != nil {
		return nil, ctxError(ctx.Err())
	}
	return nil, agentfiles.NewError(agentfiles.CodeResourceBusy, fmt.Sprintf(
		"this API key's other imports and exports (at most %d at once, max_concurrent_archives) held their slots for more than %s; retry when they end",
		s.cfg.MaxConcurrentArchives, s.cfg.LockTimeout), "")
}

// archiveError codes the errors of package archive: a refused entry or stream is
// INVALID_ARGUMENT naming the entry, an archive over a limit PAYLOAD_TOO_LARGE.
func (s *Service) archiveError(err error) error {
	var ee *archive.EntryError
	var le *archive.LimitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return agentfiles.WrapError(agentfiles.CodeInvalidArgument, ee.Error()+"; nothing was imported", truncateForArg(ee.Entry), err)
	case errors.As(err, &le):
		key, what := "max_archive_entries", "entries (files, directories and links)"
		if le.Limit != "entries" {
			key, what = "max_archive_directory_bytes", "bytes of zip directory (the list of its entries)"
		}
		least := ""
		if le.Partial {
			least = " at least"
		}
		return agentfiles.WrapError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
			"the archive has%s %d %s, more than the %d allowed (%s); nothing was imported. Import it in parts, one directory at a time",
			least, le.Got, what, le.Max, key), "", err)
	case archive.TooLarge(err):
		return agentfiles.WrapError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
			"the archive is larger than %d bytes (max_archive_bytes); import it in parts, one directory at a time", s.cfg.MaxArchiveBytes), "", err)
	}
	return storeError(err)
}

// importer is one Import: its archive read into a spool, then written in a transaction.
type importer struct {
	s          *Service
	ac         agentfiles.AuthContext
	scope      driver.Scope
	dir        string
	mode       ImportMode
	strict     bool
	deferIndex bool
	spool      *spool

	files   []importFile     // the archive's files, in its order, in the spool in that order
	seen    map[string]int32 // path → its file in files
	newDirs map[string]int32 // directory → the first file below it
	body    bytes.Buffer     // the entry being read
	res     ImportResult
}

// importFile is a file of the archive in the spool, or one skipped (not UTF-8 text), whose
// name stays taken.
type importFile struct {
	path    string // in the project
	entry   string // the name in the archive, when it is not path below the directory
	at      int64  // offset in the spool
	size    int64
	skipped bool
}

// name is the archive's name of files[i].
func (imp *importer) name(i int32) string {
	if f := imp.files[i]; f.entry != "" {
		return f.entry
	}
	return imp.files[i].path[len(dirPrefix(imp.dir)):]
}

// readAll reads the archive to its end: checks every entry and spools the files, so that the
// transaction starts only with an archive known to be whole and within the limits.
func (imp *importer) readAll(ctx context.Context, ar *archive.Reader) error {
	for {
		if err := stillWanted(ctx); err != nil {
			return err
		}
		e, err := ar.Next()
		if err == io.EOF {
			return imp.spool.done()
		}
		if err == nil {
			err = imp.add(e, ar)
		}
		if err != nil {
			return err
		}
	}
}

// add checks one entry, reads its body and spools it.
func (imp *importer) add(e archive.Entry, body io.Reader) error {
	cfg := &imp.s.cfg
	path := NormalizePath(dirPrefix(imp.dir) + e.Path)
	if e.Link != "" {
		if imp.strict {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"archive entry %q is a link (to %q); nothing was imported (import without strict to skip links)", e.Name, e.Link), truncateForArg(e.Name))
		}
		imp.skip(SkippedImport{Entry: e.Name, Path: path, Reason: fmt.Sprintf(
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
	imp.body.Reset()
	if _, err := imp.body.ReadFrom(io.LimitReader(body, cfg.MaxFileBytes+1)); err != nil {
		return err
	}
	content := imp.body.Bytes()
	if int64(len(content)) > cfg.MaxFileBytes {
		return entryQuotaError(e, cfg.MaxFileBytes)
	}
	f := importFile{path: path, at: imp.spool.size}
	if dirPrefix(imp.dir)+e.Name != path {
		f.entry = e.Name
	}
	if !utf8.Valid(content) {
		if imp.strict {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"archive entry %q is not UTF-8 text; nothing was imported (import without strict to skip such files)", e.Name), truncateForArg(e.Name))
		}
		imp.skip(SkippedImport{Entry: e.Name, Path: path, Reason: "not UTF-8 text (a binary file?); files hold text only"})
		f.skipped = true
		imp.files = append(imp.files, f)
		return nil
	}
	if imp.res.Bytes += int64(len(content)); imp.res.Bytes > cfg.MaxProjectBytes {
		return newProjectQuotaError(imp.res.Bytes, cfg.MaxProjectBytes, path)
	}
	if n := int64(imp.res.Files) + 1; n > cfg.MaxProjectFiles {
		return newQuotaError(&driver.QuotaError{Kind: driver.QuotaProjectFiles, Limit: cfg.MaxProjectFiles, Value: n}, path)
	}
	if _, err := imp.spool.add(content); err != nil {
		return err
	}
	f.size = int64(len(content))
	imp.files = append(imp.files, f)
	imp.res.Files++
	return nil
}

// skip records an entry left out: listed while fewer than MaxSkippedListed are, counted.
func (imp *importer) skip(s SkippedImport) {
	if imp.res.SkippedTotal++; len(imp.res.Skipped) < MaxSkippedListed {
		imp.res.Skipped = append(imp.res.Skipped, s)
	}
}

// checkName refuses a duplicate, and a file where another entry has a directory or below
// another entry's file, and records path as the next file's.
func (imp *importer) checkName(path, name string) error {
	if other, dup := imp.seen[path]; dup {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"archive entries %q and %q both name %s; nothing was imported", imp.name(other), name, path), truncateForArg(name))
	}
	if other, ok := imp.newDirs[path]; ok {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"archive entry %q is a file, but entry %q puts a file below it; nothing was imported", name, imp.name(other)), truncateForArg(name))
	}
	next := int32(len(imp.files))
	for _, d := range ancestors(path) {
		if other, ok := imp.seen[d]; ok {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"archive entry %q lies below entry %q, which is a file; nothing was imported", name, imp.name(other)), truncateForArg(name))
		}
		if _, ok := imp.newDirs[d]; !ok {
			imp.newDirs[d] = next
		}
	}
	imp.seen[path] = next
	return nil
}

func entryQuotaError(e archive.Entry, max int64) error {
	return agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
		"archive entry %q is larger than the maximum file size of %d bytes; nothing was imported (leave it out of the archive)", e.Name, max), truncateForArg(e.Name))
}

// write writes the spooled files in the transaction: it checks them against the files of the
// project, writes them in batches read from the spool, deletes the others with ImportReplace,
// and checks the project's quota.
func (imp *importer) write(ctx context.Context, tx driver.WriteTx) (ImportResult, error) {
	res := imp.res
	existing, oldDirs, err := imp.listDir(ctx, tx)
	if err != nil {
		return ImportResult{}, err
	}
	merge := imp.mode == ImportMerge
	for i, f := range imp.files {
		if f.skipped {
			continue
		}
		if merge && oldDirs[f.path] {
			return ImportResult{}, agentfiles.NewError(agentfiles.CodeIsDirectory, fmt.Sprintf(
				"archive entry %q would be the file %s, where the project has a directory; nothing was imported (mode replace replaces it)", imp.name(int32(i)), f.path), f.path)
		}
		if merge {
			for _, d := range ancestors(f.path) {
				if existing[d] {
					return ImportResult{}, agentfiles.NewError(CodeNotDirectory, fmt.Sprintf(
						"archive entry %q would lie below %s, which is a file in the project; nothing was imported (mode replace replaces it)", imp.name(int32(i)), d), d)
				}
			}
		}
		if existing[f.path] {
			res.Replaced++
		} else {
			res.Created++
		}
	}
	// The file count refuses before anything is written (the store's check at commit would,
	// after writing them all).
	if ur, ok := tx.(driver.UsageReader); ok {
		u, err := ur.Usage(ctx)
		if err != nil {
			return ImportResult{}, err
		}
		if n := u.Files + int64(res.Created); n > imp.s.cfg.MaxProjectFiles {
			return ImportResult{}, newQuotaError(&driver.QuotaError{Kind: driver.QuotaProjectFiles, Limit: imp.s.cfg.MaxProjectFiles, Value: n}, imp.dir)
		}
	}
	before, err := tx.ProjectBytes(ctx)
	if err != nil {
		return ImportResult{}, err
	}
	var batch []importFile
	var size int64
	for i, f := range imp.files {
		if !f.skipped {
			batch, size = append(batch, f), size+f.size
		}
		if len(batch) > 0 && (len(batch) >= importBatchFiles || size >= importBatchBytes || i == len(imp.files)-1) {
			if err := imp.flush(ctx, tx, batch, size); err != nil {
				return ImportResult{}, err
			}
			batch, size = batch[:0:0], 0
		}
	}
	if imp.mode == ImportReplace {
		if res.Deleted, err = imp.deleteOthers(ctx, tx, existing); err != nil {
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
	return res, nil
}

// listDir refuses a directory that is a file or lies below one, and returns the files below
// it and the directories they make.
func (imp *importer) listDir(ctx context.Context, tx driver.WriteTx) (existing, dirs map[string]bool, err error) {
	if imp.dir != "" {
		for _, d := range append(ancestors(imp.dir), imp.dir) {
			if _, ok, err := tx.Stat(ctx, d); err != nil || ok {
				if err != nil {
					return nil, nil, err
				}
				return nil, nil, agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is a file, so nothing can be imported below it; choose a directory", d), d)
			}
		}
	}
	files, err := tx.List(ctx, dirPrefix(imp.dir), 0)
	if err != nil {
		return nil, nil, err
	}
	existing, dirs = make(map[string]bool, len(files)), map[string]bool{}
	for _, f := range files {
		existing[f.Path] = true
		for _, d := range ancestors(f.Path) {
			dirs[d] = true
		}
	}
	return existing, dirs, nil
}

// flush writes a batch of spooled files, whose contents lie one after the other in the spool
// (size bytes; the skipped files between them take none): one read of the spool, into a
// buffer of the batch's own, which a store may keep (pgstore's grep cache keeps slices of it).
func (imp *importer) flush(ctx context.Context, tx driver.WriteTx, files []importFile, size int64) error {
	if err := stillWanted(ctx); err != nil {
		return err
	}
	contents, err := imp.spool.readAt(files[0].at, size)
	if err != nil {
		return err
	}
	batch := make([]driver.File, len(files))
	for i, f := range files {
		from := f.at - files[0].at
		batch[i] = driver.File{FileInfo: driver.FileInfo{Path: f.path, SizeBytes: f.size}, Content: contents[from : from+f.size : from+f.size]}
	}
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

// deleteOthers deletes the files below the directory that the archive does not hold, and
// returns how many.
func (imp *importer) deleteOthers(ctx context.Context, tx driver.WriteTx, existing map[string]bool) (int, error) {
	if imp.res.Files == 0 && len(existing) > 0 {
		return 0, agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"the archive holds no file, so mode replace would delete everything below the directory; nothing was changed (use file_delete for that)", imp.dir)
	}
	var gone []string
	for p := range existing {
		if _, ok := imp.seen[p]; !ok {
			gone = append(gone, p)
		}
	}
	deleted := 0
	for len(gone) > 0 {
		n := min(len(gone), importBatchFiles)
		if err := tx.Delete(ctx, gone[:n]...); err != nil {
			return deleted, err
		}
		deleted += n
		gone = gone[n:]
	}
	return deleted, nil
}
