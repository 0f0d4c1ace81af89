package expr

import (
	"context"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// discover walks the category directory behind root and returns the slash-separated relative
// paths of regular files that m matches, in lexical walk order, at most limit of them (cut
// reports whether there were more).
//
// Names starting with "." or "__" are skipped at every level. Symbolic links are followed only
// to regular files that stay inside the directory (os.Root refuses the others); symlinked
// directories are not descended into. A missing base directory yields no documents.
func (r *resolver) discover(ctx context.Context, root *os.Root, m *matcher, limit int) (found []string, cut bool, err error) {
	w := walker{ctx: ctx, root: root, m: m, limit: limit, r: r}
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
	ctx   context.Context
	root  *os.Root
	m     *matcher
	limit int
	r     *resolver
	found []string
	cut   bool
}

// dir reads one directory; depth is the level of its entries below the walk base (1 = direct).
func (w *walker) dir(dir string, depth int) error {
	if err := ctxErr(w.ctx); err != nil {
		return err
	}
	f, err := w.root.Open(dir)
	if err != nil {
		w.r.log.Debug("expr: skipping unreadable directory", "dir", dir, "err", err)
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		w.r.log.Debug("expr: skipping unreadable directory", "dir", dir, "err", err)
		return nil
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
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

// isTemplate reports whether a document is rendered with text/template.
func isTemplate(rel string) bool { return path.Ext(rel) == ".tmpl" }
