package expr

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agentfiles/agentfiles"
)

// DefaultPatterns are the patterns of a category whose catalog entry has none.
var DefaultPatterns = []string{"*.md"}

// Category is a named directory of documents with default patterns.
type Category struct {
	// Name is how expressions refer to the category.
	Name string
	// Dir is the directory as written in the catalog; a relative Dir is relative to the
	// directory holding the catalog file (or the base directory given to [New]).
	Dir string
	// Patterns are the default glob patterns; nil means [DefaultPatterns].
	Patterns []string
	// Description says what the documents are about; shown by category_list.
	Description string
}

// Collection is a named, stored selection of categories. Exactly one of Categories and
// Expression is set.
type Collection struct {
	Name        string
	Description string
	// Categories are the members: each a category or collection name with, optionally, patterns
	// that override the category defaults (YAML: "- lang" or "- docs: [\"intro*.md\"]").
	Categories []Term
	// Expression is a stored expression, such as "docs/intro+setup,lang/go".
	Expression string
}

// Options configure a [Catalog]; the zero value means the defaults (no logging, any directory).
type Options struct {
	// Logger receives debug records (skipped symlinks, saves). Nil discards them. File contents
	// are never logged.
	Logger *slog.Logger
	// DirRoots, when not empty, restricts the directories that AddCategory and UpdateCategory
	// accept to these directories and their subdirectories (after resolving symlinks). Use it
	// when untrusted callers (agents) may create categories. Directories already in a loaded
	// catalog file are trusted.
	DirRoots []string
}

// Catalog holds categories and collections, loaded from YAML and saved back with comments,
// order and untouched text preserved. It resolves expressions against them.
//
// A Catalog is safe for concurrent use: readers see a consistent snapshot while mutations are
// serialised. A mutation of a catalog loaded from a file writes the file atomically before it
// becomes visible; if writing fails nothing changes.
type Catalog struct {
	mu      sync.Mutex // serialises mutations and reloads
	cur     atomic.Pointer[state]
	path    string // file to save to; "" for an in-memory catalog
	baseDir string // relative category dirs are relative to this
	roots   []string
	log     *slog.Logger
}

// Load reads the catalog file at path. Relative category directories are relative to the
// directory of the file. Mutations are saved back to the same file (through a symlink, to its
// target).
func Load(path string, opts Options) (*Catalog, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "catalog path cannot be made absolute", path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "catalog file does not exist; create it with a categories: section", path)
	}
	if err != nil {
		return nil, internalError("cannot read the catalog file", err)
	}
	c := newCatalog(abs, filepath.Dir(abs), opts)
	st, err := parseState(data, c.displayName())
	if err != nil {
		return nil, err
	}
	c.cur.Store(st)
	return c, nil
}

// New builds an in-memory catalog from YAML text (which may be empty). Relative category
// directories are relative to baseDir. Mutations change the text returned by [Catalog.Bytes]
// and are not written anywhere.
func New(yamlText []byte, baseDir string, opts Options) (*Catalog, error) {
	abs, err := filepath.Abs(baseDir)
	if err != nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "base directory cannot be made absolute", baseDir)
	}
	c := newCatalog("", abs, opts)
	st, err := parseState(bytes.Clone(yamlText), c.displayName())
	if err != nil {
		return nil, err
	}
	c.cur.Store(st)
	return c, nil
}

func newCatalog(path, base string, opts Options) *Catalog {
	c := &Catalog{path: path, baseDir: base, log: opts.Logger}
	for _, r := range opts.DirRoots {
		if abs, err := filepath.Abs(r); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			c.roots = append(c.roots, abs)
		}
	}
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c
}

func (c *Catalog) displayName() string {
	if c.path == "" {
		return "catalog"
	}
	return filepath.Base(c.path)
}

// Path returns the catalog file, or "" for an in-memory catalog.
func (c *Catalog) Path() string { return c.path }

// Bytes returns the current YAML text of the catalog.
func (c *Catalog) Bytes() []byte { return bytes.Clone(c.cur.Load().src) }

// Reload re-reads the catalog file, picking up edits made on disk. It is a no-op for an
// in-memory catalog. On error the catalog keeps its previous content.
func (c *Catalog) Reload() error {
	if c.path == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	data, err := os.ReadFile(c.path)
	if err != nil {
		return internalError("cannot read the catalog file", err)
	}
	st, err := parseState(data, c.displayName())
	if err != nil {
		return err
	}
	c.cur.Store(st)
	return nil
}

// Categories returns all categories in file order. The slices are copies.
func (c *Catalog) Categories() []Category { return categoryKind.all(c.cur.Load()) }

// Collections returns all collections in file order. The slices are copies.
func (c *Catalog) Collections() []Collection { return collectionKind.all(c.cur.Load()) }

// Category returns the category with this name.
func (c *Catalog) Category(name string) (Category, bool) { return categoryKind.get(c.cur.Load(), name) }

// Collection returns the collection with this name.
func (c *Catalog) Collection(name string) (Collection, bool) {
	return collectionKind.get(c.cur.Load(), name)
}

func (c *Catalog) absDir(dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(c.baseDir, dir)
}

func (cat *Category) clone() Category {
	out := *cat
	out.Patterns = slices.Clone(cat.Patterns)
	return out
}

// EffectivePatterns returns the category's patterns, or [DefaultPatterns] when it has none.
func (cat Category) EffectivePatterns() []string {
	if len(cat.Patterns) == 0 {
		return slices.Clone(DefaultPatterns)
	}
	return slices.Clone(cat.Patterns)
}

func (col *Collection) clone() Collection {
	out := *col
	out.Categories = make([]Term, len(col.Categories))
	for i, t := range col.Categories {
		out.Categories[i] = Term{Name: t.Name, Patterns: slices.Clone(t.Patterns)}
	}
	if col.Categories == nil {
		out.Categories = nil
	}
	return out
}

// terms returns the members of a collection as expression terms.
func (st *state) terms(name string) []Term {
	return st.colTerms[name]
}
