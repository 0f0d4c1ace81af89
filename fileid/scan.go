package fileid

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
)

// candidate is a file found by the walk, before it is read.
type candidate struct {
	root  int
	rel   string
	lower string
}

// scan walks every root, reads and indexes the matching files in parallel, and assigns IDs.
func (r *Registry) scan(ctx context.Context) error {
	var cands []candidate
	for i, root := range r.roots {
		if root.FS == nil {
			return newError(CodeInvalidRoot, "root has no file system; build roots with fileid.DirRoot", root.Label)
		}
		start := len(cands)
		err := fs.WalkDir(root.FS, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == "." {
					return err
				}
				r.skip(i, p, "unreadable directory", err)
				return fs.SkipDir
			}
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !r.opts.included(p) {
				return nil
			}
			if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
				return nil // devices, sockets, pipes
			}
			cands = append(cands, candidate{root: i, rel: p, lower: strings.ToLower(p)})
			return ctx.Err()
		})
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return wrapError(CodeInvalidRoot, "cannot walk the root; check that it exists and is a readable directory", root.Label, err)
		}
		slices.SortFunc(cands[start:], func(a, b candidate) int {
			if c := strings.Compare(a.lower, b.lower); c != 0 {
				return c
			}
			return strings.Compare(a.rel, b.rel)
		})
	}

	loaded := make([]*file, len(cands))
	failed := make([]error, len(cands))
	err := r.parallel(ctx, len(cands), func(i int) bool {
		loaded[i], failed[i] = r.load(cands[i])
		return true
	})
	if err != nil {
		return err
	}
	for i, f := range loaded {
		if f == nil {
			r.skip(cands[i].root, cands[i].rel, failed[i].Error(), nil)
			continue
		}
		f.info.FileID = FormatID(len(r.files) + 1)
		r.files = append(r.files, f)
	}
	return nil
}

var errTooLarge = errors.New("larger than MaxFileBytes")

// load reads one file and extracts what the listing needs. Reading through the root's FS keeps
// symbolic links inside the root.
func (r *Registry) load(c candidate) (*file, error) {
	root := r.roots[c.root]
	content, err := readFile(root.FS, c.rel, r.opts.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	f := &file{
		content: content,
		info: FileInfo{
			Filename:        c.rel,
			SourceDirectory: root.Label,
			Size:            HumanSize(int64(len(content))),
			SizeBytes:       int64(len(content)),
		},
	}
	yamlText, bodyStart := splitFrontMatter(content)
	f.bodyStart = bodyStart
	if yamlText != nil {
		fm, err := parseFrontMatter(yamlText)
		if err != nil {
			r.opts.Logger.Debug("fileid: front matter is not valid YAML; ignoring its fields",
				slog.String("root", root.Label), slog.String("path", c.rel), slog.String("err", err.Error()))
		}
		f.info.Title = strings.TrimSpace(fm.Title)
		f.info.Description = strings.TrimSpace(fm.Description)
	}
	if f.info.Title == "" {
		f.info.Title = r.titleFromBody(f)
	}
	if f.info.Title == "" {
		f.info.Title = baseName(c.rel)
	}
	return f, nil
}

// titleFromBody returns the text of the first level-1 heading, parsing as little as possible.
func (r *Registry) titleFromBody(f *file) string {
	body := f.content[f.bodyStart:]
	if bytes.IndexByte(body, '#') < 0 && bytes.IndexByte(body, '=') < 0 {
		return ""
	}
	if title, found, done := firstH1Title(body); done {
		if found {
			return title
		}
		return ""
	}
	o := f.outline() // the cheap path was inconclusive: parse once, keep the result
	if o.firstH1 >= 0 {
		return o.headings[o.firstH1].title
	}
	return ""
}

func (r *Registry) skip(root int, rel, reason string, err error) {
	label := r.roots[root].Label
	r.skipped = append(r.skipped, Skipped{Root: label, Path: rel, Reason: reason})
	attrs := []any{slog.String("root", label), slog.String("path", rel), slog.String("reason", reason)}
	if err != nil {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	r.opts.Logger.Warn("fileid: file skipped", attrs...)
}

// readFile reads a whole file through fsys, refusing files over maxBytes without reading them.
// Errors are short reasons for Skipped, never file contents.
func readFile(fsys fs.FS, name string, maxBytes int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, unreadable(err)
	}
	defer f.Close()
	sizeHint := int64(0)
	if info, err := f.Stat(); err == nil {
		if !info.Mode().IsRegular() {
			return nil, errors.New("not a regular file")
		}
		sizeHint = info.Size()
	}
	if sizeHint > maxBytes {
		return nil, errTooLarge
	}
	buf := make([]byte, 0, sizeHint+1) // +1 so that reading EOF needs no reallocation
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > maxBytes {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, unreadable(err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

func unreadable(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return errors.New("unreadable: " + pe.Err.Error())
	}
	return errors.New("unreadable")
}
