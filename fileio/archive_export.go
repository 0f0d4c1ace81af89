package fileio

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/globmatch"
)

// Export writes the files below req.Path (or the file at it) matching req.Glob to w as an
// archive of req.Format, from one read transaction: a consistent snapshot, even while others
// write. Entry names are relative to req.Path, with modification times. NOT_FOUND when nothing
// exists at req.Path.
//
// The transaction only reads: it copies the files to a temporary spool file, in pages (from a
// store whose ReadTx is a driver.ContentLister, pgstore, 256 files per statement, each spooled
// as its row arrives; otherwise batches of at most 256 files or 8 MiB), and ends; the archive
// is then written to w from the spool. So a client that reads slowly, or not at all, holds no
// connection and no lock of the store, only its tenant's archive slot (Config.
// MaxConcurrentArchives, as Import), until the budget of the whole call, Config.ArchiveTimeout,
// ends it (an HTTP server should also give the response a write deadline, as
// adapters/httpapi's archive routes do). When w fails or the budget ends part way, the archive
// is left unfinished, which every reader reports as damaged. Memory: one batch of files while
// reading, one file while writing, and about 60 bytes and its name per file exported; disk:
// the spool, at most the files' bytes.
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
		res, err = s.exportArchive(ctx, scope, dir, g, format, w)
	}
	s.logOp(ctx, "export", ac, req.Project, dir, err, slog.String("format", string(format)), slog.Int("files", res.Files), slog.Int64("bytes", res.Bytes))
	return res, err
}

// exportArchive takes the tenant's archive slot, spools the files in a read transaction, then
// writes the archive from the spool.
func (s *Service) exportArchive(ctx context.Context, scope driver.Scope, dir string, g *globmatch.Glob, format archive.Format, w io.Writer) (ExportResult, error) {
	release, err := s.archiveSlot(ctx, scope.Tenant)
	if err != nil {
		return ExportResult{}, err
	}
	defer release()
	sp, err := newSpool("")
	if err != nil {
		return ExportResult{}, storeError(err)
	}
	defer sp.Close()
	x := &exportSpool{sp: sp}
	if _, err := inView(ctx, s, scope, func(tx driver.ReadTx) (struct{}, error) {
		return struct{}{}, exportTx(ctx, tx, dir, g, x)
	}); err != nil {
		return ExportResult{}, err
	}
	if err := sp.done(); err != nil {
		return ExportResult{}, storeError(err)
	}
	return x.send(ctx, w, format, s.cfg.MaxFileBytes)
}

// export batches: files are read this many, or this many bytes, at a time.
const (
	exportBatchFiles = 256
	exportBatchBytes = 8 << 20
)

// exportSpool is the files of an export, spooled: their names in the archive, in the order
// they go in.
type exportSpool struct {
	sp    *spool
	base  string // what the paths lose to become entry names
	files []exportedFile
}

type exportedFile struct {
	name     string
	at, size int64
	modified time.Time
}

// add spools f.
func (x *exportSpool) add(f driver.File) error {
	at, err := x.sp.add(f.Content)
	if err != nil {
		return err
	}
	x.files = append(x.files, exportedFile{name: f.Path[len(x.base):], at: at, size: int64(len(f.Content)), modified: f.UpdatedAt})
	return nil
}

// send writes the spooled files to w as an archive of format; no file is larger than
// maxFileBytes.
func (x *exportSpool) send(ctx context.Context, w io.Writer, format archive.Format, maxFileBytes int64) (ExportResult, error) {
	res := ExportResult{Format: string(format)}
	aw := archive.NewWriter(w, format)
	buf := make([]byte, 0, min(maxFileBytes, 1<<20))
	for _, f := range x.files {
		if err := stillWanted(ctx); err != nil {
			return res, err
		}
		if int64(cap(buf)) < f.size {
			buf = make([]byte, 0, f.size)
		}
		content := buf[:f.size]
		if _, err := x.sp.f.ReadAt(content, f.at); err != nil {
			return res, storeError(err)
		}
		if err := aw.Add(f.name, content, f.modified); err != nil {
			return res, writeError(err)
		}
		res.Files++
		res.Bytes += f.size
	}
	return res, writeError(aw.Close())
}

// exportTx spools the files of an export from its transaction.
func exportTx(ctx context.Context, tx driver.ReadTx, dir string, g *globmatch.Glob, x *exportSpool) error {
	x.base = dirPrefix(dir)
	if dir != "" {
		if fi, ok, err := tx.Stat(ctx, dir); err != nil {
			return err
		} else if ok {
			got, err := driver.GetMany(ctx, tx, []string{fi.Path})
			if err != nil {
				return err
			}
			x.base = dir[:strings.LastIndexByte(dir, '/')+1]
			for _, f := range got {
				if err := x.add(f); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if cl, ok := tx.(driver.ContentLister); ok {
		return exportPages(ctx, cl, dir, g, x)
	}
	all, err := tx.List(ctx, x.base, 0)
	if err != nil {
		return err
	}
	if len(all) == 0 && dir != "" {
		return notFoundForExport(dir)
	}
	var files []driver.FileInfo
	for _, f := range all {
		if g == nil || g.MatchFile(dir, f.Path) {
			files = append(files, f)
		}
	}
	for len(files) > 0 {
		if err := stillWanted(ctx); err != nil {
			return err
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
			return err
		}
		for _, f := range got {
			if err := x.add(f); err != nil {
				return err
			}
		}
		files = files[n:]
	}
	return nil
}

// exportPages spools the files below dir from the pages of a ContentLister: one statement per
// exportBatchFiles files, each file spooled as its row arrives (memory: one file, whatever
// the page's size).
func exportPages(ctx context.Context, cl driver.ContentLister, dir string, g *globmatch.Glob, x *exportSpool) error {
	after, seen := "", 0
	for {
		if err := stillWanted(ctx); err != nil {
			return err
		}
		n := 0
		err := cl.ListContent(ctx, x.base, after, exportBatchFiles, func(f driver.File) error {
			n++
			after = f.Path
			if g != nil && !g.MatchFile(dir, f.Path) {
				return nil
			}
			return x.add(f)
		})
		if err != nil {
			return err
		}
		if seen += n; n < exportBatchFiles {
			break
		}
	}
	if seen == 0 && dir != "" {
		return notFoundForExport(dir)
	}
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
