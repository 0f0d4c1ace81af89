package expr

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// Limits on documents found per pattern.
const (
	DefaultMaxDocumentsPerPattern = 100
	MaxDocumentsPerPatternLimit   = 1000
)

// Pattern sources, the tier that supplied a category's patterns (see [PatternResult]).
const (
	SourceCall       = "call"       // the term's own patterns or the call's pattern argument
	SourceCollection = "collection" // a collection's override for the category
	SourceCategory   = "category"   // the category's default patterns
)

// ResolveOptions adjust [Catalog.Resolve]; the zero value means the defaults.
type ResolveOptions struct {
	// Pattern is the call's pattern argument ("+"-separated for several). It applies to every
	// term that has no patterns of its own, through collections, and outranks collection
	// overrides and category defaults.
	Pattern string
	// MaxDocumentsPerPattern caps how many documents one pattern yields in one category.
	// 0 means DefaultMaxDocumentsPerPattern; larger than MaxDocumentsPerPatternLimit is clamped.
	MaxDocumentsPerPattern int
}

// Document is one file found by resolution.
type Document struct {
	Category string // category name
	Dir      string // absolute category directory
	Path     string // slash-separated path relative to Dir
	Pattern  string // the pattern that found it
}

// AbsPath returns the absolute path of the document.
func (d Document) AbsPath() string { return filepath.Join(d.Dir, filepath.FromSlash(d.Path)) }

// PatternResult reports one pattern looked up in one category.
type PatternResult struct {
	Category string
	Pattern  string
	Source   string // SourceCall, SourceCollection or SourceCategory
	Found    int    // documents the pattern matched (before de-duplication, after the cap)
	Cut      bool   // more than the per-pattern cap matched; the rest were left out
	Note     string // why nothing could be found, e.g. a missing directory
}

// Resolution is the outcome of resolving an expression.
type Resolution struct {
	// Expression is the canonical form of the resolved expression.
	Expression string
	// Documents are de-duplicated by absolute path, first occurrence kept, in resolution order.
	Documents []Document
	// Patterns lists every (category, pattern) looked up, in order.
	Patterns []PatternResult
	// Truncated is true when some pattern hit the per-pattern cap.
	Truncated bool
	// Notes are advisories for the caller (clamped limits, cut patterns, empty patterns).
	Notes []string
}

// Resolve finds the documents an expression names. Each term's name is looked up as a
// collection first, then as a category; an unknown name is an UNKNOWN_NAME error listing close
// matches. Collections expand recursively; a collection that includes itself is a
// CYCLE error naming the cycle, while a collection reached twice (a diamond) is
// expanded once.
//
// A category's patterns come from, in priority order: the call (the term's own "/patterns",
// or else [ResolveOptions.Pattern]), the nearest collection's override, the category's
// defaults. Finding nothing is not an error: the Resolution says so in Notes.
func (c *Catalog) Resolve(ctx context.Context, e *Expression, o ResolveOptions) (*Resolution, error) {
	r := &resolver{
		c: c, st: c.cur.Load(), log: c.log,
		seen: map[string]bool{}, done: map[string]bool{}, expanded: map[string]bool{},
		roots: map[string]*os.Root{}, listings: map[string][]fs.DirEntry{},
		res: &Resolution{Expression: e.String()},
	}
	defer r.close()
	switch {
	case o.MaxDocumentsPerPattern <= 0:
		r.limit = DefaultMaxDocumentsPerPattern
	case o.MaxDocumentsPerPattern > MaxDocumentsPerPatternLimit:
		r.limit = MaxDocumentsPerPatternLimit
		r.note("max documents per pattern clamped to " + strconv.Itoa(MaxDocumentsPerPatternLimit))
	default:
		r.limit = o.MaxDocumentsPerPattern
	}
	var callPats []string
	if strings.TrimSpace(o.Pattern) != "" {
		pe, err := Parse("_/" + o.Pattern)
		if err != nil {
			return nil, agentfiles.NewError(CodeInvalidPattern, "pattern argument: "+syntaxOf(err).msg+
				"; give one glob or several joined by '+', e.g. intro*+setup.md", o.Pattern)
		}
		if len(pe.Terms) != 1 {
			return nil, agentfiles.NewError(CodeInvalidPattern, "the pattern argument cannot contain ',' outside {...}; "+
				"to name several categories write them in the expression, e.g. lang/go,docs/api", o.Pattern)
		}
		callPats = pe.Terms[0].Patterns
	}
	for _, t := range append([]Term{{Patterns: callPats}}, e.Terms...) {
		for _, p := range t.Patterns {
			if err := ValidatePattern(p); err != nil {
				return nil, err
			}
		}
	}
	if err := r.terms(ctx, e.Terms, callPats, nil, ""); err != nil {
		return nil, err
	}
	return r.res, nil
}

type resolver struct {
	c        *Catalog
	st       *state
	log      *slog.Logger
	limit    int
	seen     map[string]bool // absolute paths already in the result
	done     map[string]bool // category + pattern already discovered
	expanded map[string]bool // collection + inherited patterns already expanded
	stack    []string        // collections being expanded, outermost first
	roots    map[string]*os.Root
	listings map[string][]fs.DirEntry // directory listings read during this resolution
	res      *Resolution
}

func (r *resolver) close() {
	for _, root := range r.roots {
		if root != nil {
			root.Close()
		}
	}
}

func (r *resolver) note(s string) { r.res.Notes = append(r.res.Notes, s) }

// terms resolves terms. call holds the call-tier patterns, coll the nearest collection
// override (nil when none applies); in names the collection whose members these are ("" at
// the top level).
func (r *resolver) terms(ctx context.Context, ts []Term, call, coll []string, in string) error {
	for _, t := range ts {
		tCall, tColl := call, coll
		if len(t.Patterns) > 0 {
			if in == "" {
				tCall = t.Patterns // written in the call itself
			} else if tColl == nil {
				tColl = t.Patterns // a collection's override; an outer one wins
			}
		}
		if _, ok := r.st.collections[t.Name]; ok {
			if err := r.collection(ctx, t.Name, tCall, tColl); err != nil {
				return err
			}
			continue
		}
		cat, ok := r.st.categories[t.Name]
		if !ok {
			return r.unknown(t.Name, in)
		}
		switch {
		case tCall != nil:
			r.category(ctx, cat, tCall, SourceCall)
		case tColl != nil:
			r.category(ctx, cat, tColl, SourceCollection)
		default:
			r.category(ctx, cat, cat.EffectivePatterns(), SourceCategory)
		}
		if err := ctxErr(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (r *resolver) collection(ctx context.Context, name string, call, coll []string) error {
	for i, open := range r.stack {
		if open == name {
			cycle := strings.Join(append(append([]string{}, r.stack[i:]...), name), " → ")
			return agentfiles.NewError(CodeCycle, "collections include each other in a cycle: "+cycle+
				"; remove one of these references with collection_update", cycle)
		}
	}
	key := name + "\x00" + strings.Join(call, "\x01") + "\x00" + strings.Join(coll, "\x01")
	if call == nil {
		key += "\x02"
	}
	if coll == nil {
		key += "\x03"
	}
	if r.expanded[key] {
		return nil // reached again through another path: a diamond, already resolved
	}
	r.expanded[key] = true
	r.stack = append(r.stack, name)
	err := r.terms(ctx, r.st.terms(name), call, coll, name)
	r.stack = r.stack[:len(r.stack)-1]
	return err
}

func (r *resolver) category(ctx context.Context, cat *Category, pats []string, source string) {
	dir := r.c.absDir(cat.Dir)
	for _, p := range pats {
		key := cat.Name + "\x00" + p
		if r.done[key] {
			continue
		}
		r.done[key] = true
		pr := PatternResult{Category: cat.Name, Pattern: p, Source: source}
		r.discoverInto(ctx, cat.Name, dir, &pr)
		r.res.Patterns = append(r.res.Patterns, pr)
	}
}

func (r *resolver) discoverInto(ctx context.Context, name, dir string, pr *PatternResult) {
	m, err := compilePattern(pr.Pattern)
	if err != nil {
		pr.Note = messageOf(err)
		r.note("category " + name + ": " + pr.Note)
		return
	}
	root, ok := r.roots[dir]
	if !ok {
		root, err = os.OpenRoot(dir)
		if err != nil {
			root = nil
			if errors.Is(err, fs.ErrNotExist) {
				r.note("category " + name + ": its directory does not exist; fix it with category_update")
			} else {
				r.note("category " + name + ": its directory cannot be opened")
				r.log.Debug("expr: cannot open category directory", "category", name, "err", err)
			}
		}
		r.roots[dir] = root
	}
	if root == nil {
		pr.Note = "category directory is missing or unreadable"
		return
	}
	found, cut, err := r.discover(ctx, dir, root, m, r.limit)
	if err != nil {
		pr.Note = "lookup was cancelled"
		return
	}
	pr.Found, pr.Cut = len(found), cut
	if cut {
		r.res.Truncated = true
		r.note("category " + name + ": pattern " + quote(pr.Pattern) + " matched more than " + strconv.Itoa(r.limit) +
			" documents; only the first " + strconv.Itoa(r.limit) + " are included. Use a narrower pattern, e.g. " +
			name + "/" + narrower(pr.Pattern))
	}
	for _, rel := range found {
		d := Document{Category: name, Dir: dir, Path: rel, Pattern: pr.Pattern}
		abs := d.AbsPath()
		if r.seen[abs] {
			continue
		}
		r.seen[abs] = true
		r.res.Documents = append(r.res.Documents, d)
	}
}

// narrower suggests a narrower form of a pattern for the truncation advisory.
func narrower(p string) string {
	if strings.HasPrefix(p, "*") {
		return "a" + p
	}
	return "subdir/" + p
}

func (r *resolver) unknown(name, in string) error {
	msg := "no collection or category is named " + quote(name)
	if in != "" {
		msg += " (listed in collection " + quote(in) + ", fix it with collection_update)"
	}
	msg += r.st.didYouMean(name) + " Call category_list and collection_list to see the names."
	return agentfiles.NewError(CodeUnknownName, msg, name)
}
