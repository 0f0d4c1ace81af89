package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
)

// ArchiveOptions configure [NewArchiveHandler].
type ArchiveOptions struct {
	// Authenticator produces the caller's identity, as for /tools; nil means anonymous
	// requests, which the Service refuses (PERMISSION_DENIED).
	Authenticator adapters.Authenticator
	// Logger receives one record per request; nil discards.
	Logger *slog.Logger
}

// ArchiveHandler serves a project as an archive:
//
//	PUT /archive/{project}?path=&mode=merge|replace&strict=&index_now=   import the body
//	GET /archive/{project}?path=&glob=&format=tar|tar.gz|zip      export
//
// PUT streams the body (tar, tar.gz or zip, detected from its bytes; at most the Service's
// Config.MaxArchiveBytes, else 413) into fileio.Service.Import and answers its
// fileio.ImportResult as JSON. GET streams fileio.Service.Export's archive as it is written,
// with Content-Disposition naming the file; an error found before the first byte answers JSON
// as /tools does, one found later (the budget ran out) cuts the response, which the client's
// archive reader reports as damaged. Neither holds the archive in memory, nor the store while
// the client sends or reads: Import reads the whole body into a spool file before its
// transaction, Export sends from a spool file after its transaction (see fileio.Service.Import
// and Export). Both bound the request's reading and writing by the Service's ArchiveTimeout
// (plus 10 s), whatever the server's own timeouts.
type ArchiveHandler struct {
	svc    *fileio.Service
	opts   ArchiveOptions
	logger *slog.Logger
}

// NewArchiveHandler returns the archive routes over svc. Mount it at "/archive/".
func NewArchiveHandler(svc *fileio.Service, opts ArchiveOptions) *ArchiveHandler {
	h := &ArchiveHandler{svc: svc, opts: opts, logger: opts.Logger}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	return h
}

// ServeHTTP implements http.Handler.
func (h *ArchiveHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := "archive_export"
	if r.Method == http.MethodPut {
		op = "archive_import"
	}
	project, ok := strings.CutPrefix(r.URL.EscapedPath(), "/archive/")
	if ok {
		var err error
		if project, err = url.PathUnescape(project); err != nil {
			ok = false
		}
	}
	if !ok || project == "" || strings.Contains(project, "/") {
		h.fail(w, r, agentfiles.NewError(adapters.CodeUnknownTool, "use PUT or GET /archive/{project}, the project name URL-encoded", r.URL.Path), op)
		return
	}
	if r.Method != http.MethodPut && r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET, PUT")
		h.fail(w, r, agentfiles.NewError(adapters.CodeMethodNotAllowed, "PUT /archive/{project} imports an archive, GET exports one", r.Method), op)
		return
	}
	ctx, err := authenticate(r, h.opts.Authenticator)
	if err != nil {
		w.Header().Set("WWW-Authenticate", "Bearer")
		h.fail(w, r, err, op)
		return
	}
	r = r.WithContext(ctx)
	// An archive may take longer to send than a tool call: the Service's ArchiveTimeout bounds
	// it instead of the server's read and write timeouts (where the server supports deadlines).
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(h.svc.Config().ArchiveTimeout + 10*time.Second)
	_ = rc.SetReadDeadline(deadline)
	_ = rc.SetWriteDeadline(deadline)
	q := r.URL.Query()
	start := time.Now()
	if r.Method == http.MethodPut {
		limit := h.svc.Config().MaxArchiveBytes
		strict, _ := strconv.ParseBool(q.Get("strict"))
		indexNow, _ := strconv.ParseBool(q.Get("index_now"))
		res, err := h.svc.Import(ctx, fileio.ImportRequest{Project: project, Path: q.Get("path"), Mode: fileio.ImportMode(q.Get("mode")),
			Strict: strict, IndexNow: indexNow, Archive: http.MaxBytesReader(w, r.Body, limit+1)})
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			err = agentfiles.NewError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
				"the archive is larger than %d bytes (max_archive_bytes); import it in parts, one directory at a time", limit), project)
		}
		if err != nil {
			h.fail(w, r, err, op)
			return
		}
		h.logger.LogAttrs(ctx, slog.LevelInfo, "archive import", slog.String("project", project), slog.Int("files", res.Files), slog.Duration("took", time.Since(start)))
		writeJSON(w, http.StatusOK, res)
		return
	}
	format, err := archive.ParseFormat(q.Get("format"))
	if err != nil {
		h.fail(w, r, agentfiles.NewError(agentfiles.CodeInvalidArgument, err.Error(), "format"), op)
		return
	}
	dw := &deferredWriter{w: w, header: func() {
		w.Header().Set("Content-Type", archive.ContentType(format))
		w.Header().Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(archiveName(project, q.Get("path"), format)))
		w.Header().Set("X-Content-Type-Options", "nosniff")
	}}
	res, err := h.svc.Export(ctx, fileio.ExportRequest{Project: project, Path: q.Get("path"), Glob: q.Get("glob"), Format: format}, dw)
	if err != nil {
		if !dw.started {
			h.fail(w, r, err, op)
			return
		}
		h.logger.LogAttrs(ctx, slog.LevelWarn, "archive export cut short", slog.String("project", project), slog.String("error", adapters.LogError(err)))
		panic(http.ErrAbortHandler) // the archive is unfinished: end the response without its end
	}
	h.logger.LogAttrs(ctx, slog.LevelInfo, "archive export", slog.String("project", project), slog.Int("files", res.Files), slog.Duration("took", time.Since(start)))
}

// archiveName is the download's file name: the project, the directory's last name, the format.
func archiveName(project, path string, format archive.Format) string {
	name := project
	if base := strings.Trim(path, "/"); base != "" {
		name += "-" + base[strings.LastIndexByte(base, '/')+1:]
	}
	return name + "." + string(format)
}

func (h *ArchiveHandler) fail(w http.ResponseWriter, r *http.Request, err error, op string) {
	failWith(h.logger, w, r, err, op)
}

// deferredWriter sets the headers and the 200 status at the first byte, so that an error
// found before it can still answer with its own status.
type deferredWriter struct {
	w       http.ResponseWriter
	header  func()
	started bool
}

func (d *deferredWriter) Write(p []byte) (int, error) {
	if !d.started {
		d.started = true
		d.header()
		d.w.WriteHeader(http.StatusOK)
	}
	return d.w.Write(p)
}
