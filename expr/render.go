package expr

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/textproto"
	"os"
	"path"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// Output budgets for [Render], in bytes of rendered output.
const (
	DefaultMaxBytes = 256 << 10 // 256 KiB
	MaxBytesLimit   = 4 << 20   // 4 MiB; larger requests are clamped
)

// Format selects how several documents are put into one output.
type Format string

const (
	// FormatDelimited (the default) returns one document as its bare content and several as
	// parts, each starting with a "==> category/path <==" line.
	FormatDelimited Format = "delimited"
	// FormatMultipart returns a MIME multipart/mixed body (one part per document, even for one)
	// with Content-Type, Content-Location "category/path" and X-Category headers.
	FormatMultipart Format = "multipart"
)

// RenderOptions adjust [Render]; the zero value means the defaults.
type RenderOptions struct {
	Format Format
	// Data is passed to text/template when a document ends in ".tmpl".
	Data any
	// MaxBytes caps the output. 0 means DefaultMaxBytes; larger than MaxBytesLimit is clamped.
	MaxBytes int64
	// Boundary is the multipart boundary; empty means a random one.
	Boundary string
}

// RenderedDocument describes one document in a [Rendered] output.
type RenderedDocument struct {
	Category  string `json:"category"`
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`          // full size of the document (templates: of their output)
	Truncated bool   `json:"truncated,omitempty"` // content was cut to fit the budget
	Omitted   bool   `json:"omitted,omitempty"`   // left out entirely: the budget was spent
}

// Rendered is the output of [Render] and [Catalog.Content].
type Rendered struct {
	Content     string
	ContentType string // "text/plain; charset=utf-8" or "multipart/mixed; boundary=..."
	Documents   []RenderedDocument
	// Truncated is true when the output was cut (by the byte budget or a per-pattern cap).
	Truncated bool
	// Message is an advisory for the caller: nothing matched, what was cut and how to get the
	// rest. Empty when everything requested was returned.
	Message string
	// Resolution is set by [Catalog.Content].
	Resolution *Resolution
}

// Render reads the documents and joins them into one output within a byte budget. Documents
// are read through os.Root, so a symlink swapped in after resolution still cannot escape its
// category directory. An empty document list renders as empty content with an advisory
// message; that is not an error. A ".tmpl" document that fails to parse or execute is a
// TEMPLATE_ERROR naming the file.
func Render(ctx context.Context, docs []Document, o RenderOptions) (*Rendered, error) {
	out := &Rendered{ContentType: "text/plain; charset=utf-8"}
	var notes []string
	budget := o.MaxBytes
	switch {
	case budget <= 0:
		budget = DefaultMaxBytes
	case budget > MaxBytesLimit:
		budget = MaxBytesLimit
		notes = append(notes, "max_bytes clamped to "+strconv.Itoa(MaxBytesLimit))
	}
	if len(docs) == 0 {
		out.Message = "No documents matched."
		return out, nil
	}
	rd := &reader{roots: map[string]*os.Root{}}
	defer rd.close()

	var buf bytes.Buffer
	var mw *multipart.Writer
	if o.Format == FormatMultipart {
		mw = multipart.NewWriter(&buf)
		if o.Boundary != "" {
			if err := mw.SetBoundary(o.Boundary); err != nil {
				return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "invalid multipart boundary: "+err.Error(), o.Boundary)
			}
		}
		out.ContentType = mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": mw.Boundary()})
	} else if o.Format != "" && o.Format != FormatDelimited {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "unknown format; use delimited or multipart", string(o.Format))
	}
	single := mw == nil && len(docs) == 1
	var omitted []string
	for _, d := range docs {
		if err := ctxErr(ctx); err != nil {
			return nil, err
		}
		rdoc := RenderedDocument{Category: d.Category, Path: d.Path}
		remaining := budget - int64(buf.Len())
		if out.Truncated || remaining <= 0 {
			rdoc.Omitted = true
			out.Truncated = true
			omitted = append(omitted, d.Category+"/"+d.Path)
			out.Documents = append(out.Documents, rdoc)
			continue
		}
		body, size, err := rd.content(d, o.Data, remaining+1)
		if err != nil {
			return nil, err
		}
		rdoc.SizeBytes = size
		switch {
		case single:
		case mw != nil:
			h := textproto.MIMEHeader{}
			h.Set("Content-Type", contentType(d.Path))
			h.Set("Content-Location", d.Category+"/"+d.Path)
			h.Set("X-Category", d.Category)
			if _, err := mw.CreatePart(h); err != nil {
				return nil, internalError("cannot write multipart output", err)
			}
		default:
			if buf.Len() > 0 {
				buf.WriteByte('\n')
			}
			buf.WriteString("==> " + d.Category + "/" + d.Path + " <==\n")
		}
		remaining = budget - int64(buf.Len())
		if int64(len(body)) > remaining {
			body = cutUTF8(body, max(remaining, 0))
			rdoc.Truncated = true
			out.Truncated = true
		}
		buf.Write(body)
		if !single && mw == nil && !rdoc.Truncated && len(body) > 0 && body[len(body)-1] != '\n' {
			buf.WriteByte('\n')
		}
		out.Documents = append(out.Documents, rdoc)
	}
	if mw != nil {
		mw.Close()
	}
	out.Content = buf.String()
	if out.Truncated {
		msg := "Output cut at " + strconv.FormatInt(budget, 10) + " bytes"
		if len(omitted) > 0 {
			msg += "; " + strconv.Itoa(len(omitted)) + " documents were left out (" + strings.Join(firstN(omitted, 5), ", ") + ")"
		}
		msg += ". Ask for fewer documents, e.g. " + quote(firstCut(out.Documents)) +
			", or raise max_bytes (up to " + strconv.Itoa(MaxBytesLimit) + ")."
		notes = append(notes, msg)
	}
	out.Message = strings.Join(notes, " ")
	return out, nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}

func firstCut(docs []RenderedDocument) string {
	for _, d := range docs {
		if d.Truncated || d.Omitted {
			return d.Category + "/" + d.Path
		}
	}
	return ""
}

// cutUTF8 shortens b to at most n bytes without splitting a UTF-8 sequence.
func cutUTF8(b []byte, n int64) []byte {
	if int64(len(b)) <= n {
		return b
	}
	b = b[:n]
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRune(b[i:]) {
		b = b[:i]
	}
	return b
}

func contentType(p string) string {
	switch ext := path.Ext(strings.TrimSuffix(p, ".tmpl")); ext {
	case ".md", ".markdown", ".mdx":
		return "text/markdown; charset=utf-8"
	case "":
		return "text/plain; charset=utf-8"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "text/plain; charset=utf-8"
	}
}

type reader struct{ roots map[string]*os.Root }

func (rd *reader) close() {
	for _, r := range rd.roots {
		r.Close()
	}
}

// content returns the document's content (rendered, for templates), at most limit bytes, and
// its full size (for a template, the size of the output it produced before being stopped).
func (rd *reader) content(d Document, data any, limit int64) ([]byte, int64, error) {
	root, ok := rd.roots[d.Dir]
	if !ok {
		var err error
		if root, err = os.OpenRoot(d.Dir); err != nil {
			return nil, 0, internalError("cannot open the directory of category "+quote(d.Category), err)
		}
		rd.roots[d.Dir] = root
	}
	f, err := root.Open(d.Path)
	if err != nil {
		return nil, 0, internalError("cannot read "+quote(d.Category+"/"+d.Path)+"; it may have been removed, retry the call", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, internalError("cannot read "+quote(d.Category+"/"+d.Path)+": not a regular file", err)
	}
	if !isTemplate(d.Path) {
		b, err := io.ReadAll(io.LimitReader(f, limit))
		if err != nil {
			return nil, 0, internalError("cannot read "+quote(d.Category+"/"+d.Path), err)
		}
		return b, max(fi.Size(), int64(len(b))), nil
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxBytesLimit+1))
	if err != nil {
		return nil, 0, internalError("cannot read "+quote(d.Category+"/"+d.Path), err)
	}
	if len(src) > MaxBytesLimit {
		return nil, 0, agentfiles.NewError(CodeTemplateError, "template is larger than "+strconv.Itoa(MaxBytesLimit)+" bytes", d.Category+"/"+d.Path)
	}
	t, err := template.New(d.Path).Option("missingkey=default").Parse(string(src))
	if err != nil {
		return nil, 0, agentfiles.WrapError(CodeTemplateError, "template does not parse: "+err.Error()+"; fix the file", d.Category+"/"+d.Path, err)
	}
	lw := &limitWriter{limit: limit}
	if err := t.Execute(lw, data); err != nil && !errors.Is(err, errLimit) {
		return nil, 0, agentfiles.WrapError(CodeTemplateError, "template failed with the given data: "+err.Error()+"; check the data fields it uses", d.Category+"/"+d.Path, err)
	}
	return lw.buf.Bytes(), int64(lw.buf.Len()), nil
}

var errLimit = errors.New("output limit reached")

// limitWriter keeps at most limit bytes and then fails, which stops a template early.
type limitWriter struct {
	buf   bytes.Buffer
	limit int64
}

func (w *limitWriter) Write(p []byte) (int, error) {
	room := w.limit - int64(w.buf.Len())
	if int64(len(p)) > room {
		w.buf.Write(p[:max(room, 0)])
		return int(max(room, 0)), errLimit
	}
	return w.buf.Write(p)
}
