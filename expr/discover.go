package expr

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// discover walks the category directory behind root and returns the slash-separated relative
// paths of regular files that m matches, in lexical walk order, at most limit of them (cut
// reports whether there were more).
//
// Names starting with "." or "__" are skipped at every level. Symbolic links are followed only
// to regular files that stay inside the directory (os.Root refuses the others); symlinked
// directories are not descended into. A missing base directory yields no documents.
func (r *resolver) discover(ctx context.Context, catDir string, root *os.Root, m *matcher, limit int) (found []string, cut bool, err error) {
	w := walker{ctx: ctx, catDir: catDir, root: root, m: m, limit: limit, r: r}
	if m.base != "." {
		fi, err := root.Stat(m.base)
		if err != nil || !fi.IsDir() {
			return nil, false, nil
		}
	}
	err = w.dir(m.base, 1)
	return w.found, w.cut, err
}

type walker struct {
	ctx    context.Context
	catDir string // absolute category directory, keys the listing cache
	root   *os.Root
	m      *matcher
	limit  int
	r      *resolver
	found  []string
	cut    bool
}

// dir reads one directory; depth is the level of its entries below the walk base (1 = direct).
func (w *walker) dir(dir string, depth int) error {
	if err := ctxErr(w.ctx); err != nil {
		return err
	}
	for _, e := range w.r.list(w.catDir, dir) {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "__") {
			continue
		}
		rel := name
		if dir != "." {
			rel = dir + "/" + name
		}
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			// os.Root resolves the link and fails if it leaves the category directory.
			fi, err := w.root.Stat(rel)
			if err != nil {
				w.r.log.Debug("expr: skipping symlink that is broken or leaves the category directory", "path", rel)
				continue
			}
			if !fi.Mode().IsRegular() {
				continue // symlinked directories are not descended into
			}
			typ = 0
		}
		switch {
		case typ.IsDir():
			if depth < w.m.maxDepth {
				if err := w.dir(rel, depth+1); err != nil {
					return err
				}
				if w.cut {
					return nil
				}
			}
		case typ.IsRegular():
			if w.m.match(rel) {
				if len(w.found) == w.limit {
					w.cut = true
					return nil
				}
				w.found = append(w.found, rel)
			}
		}
	}
	return nil
}

// list returns the entries of dir (relative to the category root), sorted by name. Listings
// are cached for the duration of one resolution, so several patterns over one category read
// each directory once. An unreadable directory lists as empty.
func (r *resolver) list(catDir, dir string) []fs.DirEntry {
	key := catDir + "\x00" + dir
	if entries, ok := r.listings[key]; ok {
		return entries
	}
	// Listing by path rather than through root: File.ReadDir on a directory opened in an
	// os.Root lstat()s every entry, which costs several times the listing itself. This is safe
	// because the walk never descends into a symlink (d_type tells it apart), symlinked
	// entries are resolved through root, and documents are only ever opened through root.
	entries, err := os.ReadDir(filepath.Join(catDir, filepath.FromSlash(dir)))
	if err != nil {
		r.log.Debug("expr: skipping unreadable directory", "dir", dir, "err", err)
	}
	r.listings[key] = entries
	return entries
}

// isTemplate reports whether a document is rendered with text/template.
func isTemplate(rel string) bool { return path.Ext(rel) == ".tmpl" }
