package expr

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentfiles/agentfiles"
	"gopkg.in/yaml.v3"
)

// AddCategory adds a category at the end of the categories section and saves the catalog. The
// entry is written in the style of the section's first entry (one-line flow style by default).
// The name must pass [ValidateName] and not be used by a category or collection; Dir must be
// an existing directory (inside [Options.DirRoots] when set); nil Patterns mean
// [DefaultPatterns].
func (c *Catalog) AddCategory(ctx context.Context, cat Category) error {
	return categoryKind.add(ctx, c, cat)
}

// UpdateCategory changes the category called name: fn receives a copy to modify (renaming is
// not supported). The entry keeps its place and comments in the file. It returns the category
// as saved.
func (c *Catalog) UpdateCategory(ctx context.Context, name string, fn func(*Category) error) (Category, error) {
	return categoryKind.update(ctx, c, name, fn)
}

// RemoveCategory removes a category that no collection refers to (else IN_USE naming them),
// together with the comment block directly above its entry.
func (c *Catalog) RemoveCategory(ctx context.Context, name string) error {
	return categoryKind.remove(ctx, c, name)
}

// AddCollection adds a collection, in block style, at the end of the collections section and
// saves the catalog. Exactly one of Categories and Expression must be set; every name it refers to must
// exist and it must not lead back to itself.
func (c *Catalog) AddCollection(ctx context.Context, col Collection) error {
	return collectionKind.add(ctx, c, col)
}

// UpdateCollection changes the collection called name: fn receives a copy to modify
// (renaming is not supported; set Expression and clear Categories, or the reverse, to switch
// form). It returns the collection as saved.
func (c *Catalog) UpdateCollection(ctx context.Context, name string, fn func(*Collection) error) (Collection, error) {
	return collectionKind.update(ctx, c, name, fn)
}

// RemoveCollection removes a collection that no other collection refers to (else IN_USE).
func (c *Catalog) RemoveCollection(ctx context.Context, name string) error {
	return collectionKind.remove(ctx, c, name)
}

// entryKind describes one of the two kinds of catalog entries, categories and collections, so
// that reading, adding, updating and removing are written once for both.
type entryKind[T any] struct {
	word, section string // "category", "categories"
	entries       func(*state) map[string]*T
	order         func(*state) []string
	name          func(*T) string
	clone         func(*T) T
	check         func(c *Catalog, st *state, v T) error // validates an entry about to be stored
	// node builds the YAML value of v, starting from its old value (to keep key order, comments
	// and style) when updating.
	node  func(st *state, v T, old *yaml.Node) *yaml.Node
	equal func(a, b *T) bool
}

var categoryKind = entryKind[Category]{
	word: "category", section: "categories",
	entries: func(st *state) map[string]*Category { return st.categories },
	order:   func(st *state) []string { return st.catOrder },
	name:    func(c *Category) string { return c.Name },
	clone:   (*Category).clone,
	check:   func(c *Catalog, _ *state, cat Category) error { return c.checkCategory(cat) },
	node: func(st *state, cat Category, old *yaml.Node) *yaml.Node {
		return categoryNode(cat, old, old == nil && st.sectionFlow("categories", true))
	},
	equal: equalCategory,
}

var collectionKind = entryKind[Collection]{
	word: "collection", section: "collections",
	entries: func(st *state) map[string]*Collection { return st.collections },
	order:   func(st *state) []string { return st.colOrder },
	name:    func(c *Collection) string { return c.Name },
	clone:   (*Collection).clone,
	check:   func(_ *Catalog, st *state, col Collection) error { return st.checkCollection(col) },
	node: func(_ *state, col Collection, old *yaml.Node) *yaml.Node {
		return collectionNode(col, old, false)
	},
	equal: equalCollection,
}

// get returns a copy of the entry called name.
func (k entryKind[T]) get(st *state, name string) (T, bool) {
	e, ok := k.entries(st)[name]
	if !ok {
		var zero T
		return zero, false
	}
	return k.clone(e), true
}

// all returns copies of all entries in file order.
func (k entryKind[T]) all(st *state) []T {
	out := make([]T, 0, len(k.order(st)))
	for _, n := range k.order(st) {
		out = append(out, k.clone(k.entries(st)[n]))
	}
	return out
}

func (k entryKind[T]) add(ctx context.Context, c *Catalog, v T) error {
	name := k.name(&v)
	return c.mutate(ctx, func(st *state) ([]byte, error) {
		if err := ValidateName(name); err != nil {
			return nil, err
		}
		if err := st.nameFree(name); err != nil {
			return nil, err
		}
		if err := k.check(c, st, v); err != nil {
			return nil, err
		}
		return st.setEntry(k.section, name, k.node(st, v, nil))
	}, func(nst *state) bool { return k.equal(k.entries(nst)[name], &v) })
}

func (k entryKind[T]) update(ctx context.Context, c *Catalog, name string, fn func(*T) error) (T, error) {
	var upd T
	err := c.mutate(ctx, func(st *state) ([]byte, error) {
		old, ok := k.entries(st)[name]
		if !ok {
			return nil, k.unknown(st, name)
		}
		upd = k.clone(old)
		if err := fn(&upd); err != nil {
			return nil, err
		}
		if n := k.name(&upd); n != name {
			return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "a "+k.word+" cannot be renamed; add a new one and remove "+quote(name), n)
		}
		if err := k.check(c, st, upd); err != nil {
			return nil, err
		}
		_, oldVal := mapGet(deref(sectionNode(st, k.section)), name)
		return st.setEntry(k.section, name, k.node(st, upd, oldVal))
	}, func(nst *state) bool { return k.equal(k.entries(nst)[name], &upd) })
	if err != nil {
		var zero T
		return zero, err
	}
	return upd, nil
}

func (k entryKind[T]) remove(ctx context.Context, c *Catalog, name string) error {
	return c.mutate(ctx, func(st *state) ([]byte, error) {
		if _, ok := k.entries(st)[name]; !ok {
			return nil, k.unknown(st, name)
		}
		if users := st.usersOf(name); len(users) > 0 {
			return nil, agentfiles.NewError(CodeInUse, k.word+" "+quote(name)+" is used by collection(s) "+strings.Join(users, ", ")+
				"; remove it from them with collection_update first", name)
		}
		return st.deleteEntry(k.section, name)
	}, func(nst *state) bool { return k.entries(nst)[name] == nil })
}

// unknown is the UNKNOWN_NAME error for an entry of this kind that does not exist.
func (k entryKind[T]) unknown(st *state, name string) error {
	return agentfiles.NewError(CodeUnknownName, "no "+k.word+" is named "+quote(name)+st.didYouMean(name)+
		" Call "+k.word+"_list to see the names.", name)
}

// mutate runs edit on the current state under the mutation lock, re-parses the edited text,
// checks that it says what was intended, saves it (for a file catalog) and publishes it.
func (c *Catalog) mutate(ctx context.Context, edit func(*state) ([]byte, error), check func(*state) bool) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.cur.Load()
	src, err := edit(st)
	if err != nil {
		var xe *agentfiles.Error
		if errors.As(err, &xe) {
			return err
		}
		return internalError("cannot edit the catalog; nothing was changed", err)
	}
	nst, err := parseState(src, c.displayName())
	if err != nil || !check(nst) {
		return internalError("editing the catalog text went wrong; nothing was changed (please report this)", err)
	}
	if c.path != "" {
		if err := writeAtomic(c.path, st.src, src); err != nil {
			return err
		}
		c.log.Debug("expr: catalog saved", "path", c.path, "bytes", len(src))
	}
	c.cur.Store(nst)
	return nil
}

// checkCategory validates a category about to be stored.
func (c *Catalog) checkCategory(cat Category) error {
	if strings.TrimSpace(cat.Dir) == "" {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "dir is required: the directory holding the category's documents", cat.Name)
	}
	dir := c.absDir(cat.Dir)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "directory does not exist; create it first or give an existing one", cat.Dir)
	case err != nil:
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "directory cannot be read", cat.Dir)
	case !fi.IsDir():
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "not a directory", cat.Dir)
	}
	if len(c.roots) > 0 {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || !c.insideRoots(real) {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, "directory is outside the allowed roots ("+strings.Join(c.roots, ", ")+"); choose a directory inside one of them", cat.Dir)
		}
	}
	if cat.Patterns != nil && len(cat.Patterns) == 0 {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "patterns is an empty list; omit it for the default "+quote(DefaultPatterns[0])+" or give at least one", cat.Name)
	}
	for _, p := range cat.Patterns {
		if err := ValidatePattern(p); err != nil {
			return err
		}
	}
	return nil
}

func (c *Catalog) insideRoots(dir string) bool {
	for _, r := range c.roots {
		if rel, err := filepath.Rel(r, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// checkCollection validates a collection about to be stored against the current state.
func (st *state) checkCollection(col Collection) error {
	var terms []Term
	switch {
	case col.Expression != "" && len(col.Categories) > 0:
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "give either categories or expression, not both", col.Name)
	case col.Expression != "":
		e, err := Parse(col.Expression)
		if err != nil {
			return err
		}
		terms = e.Terms
	case len(col.Categories) > 0:
		terms = col.Categories
	default:
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "a collection needs categories (e.g. [\"lang\", \"docs/intro*.md\"]) or an expression (e.g. \"docs/intro+setup,lang/go\")", col.Name)
	}
	for _, t := range terms {
		if t.Name == col.Name {
			return agentfiles.NewError(CodeCycle, "collection "+quote(col.Name)+" cannot include itself", col.Name+" → "+col.Name)
		}
		if _, ok := st.collections[t.Name]; !ok {
			if _, ok := st.categories[t.Name]; !ok {
				r := resolver{st: st}
				return r.unknown(t.Name, "")
			}
		}
		for _, p := range t.Patterns {
			if err := ValidatePattern(p); err != nil {
				return err
			}
		}
	}
	if cycle := st.findCycle(col.Name, terms); cycle != "" {
		return agentfiles.NewError(CodeCycle, "this change would make collections include each other in a cycle: "+cycle+"; leave out one of these references", cycle)
	}
	return nil
}

// findCycle reports a path from collection name back to itself if its members were terms.
func (st *state) findCycle(name string, terms []Term) string {
	var path []string
	var visit func(n string, ts []Term) bool
	seen := map[string]bool{}
	visit = func(n string, ts []Term) bool {
		path = append(path, n)
		for _, t := range ts {
			if t.Name == name {
				path = append(path, name)
				return true
			}
			if _, ok := st.collections[t.Name]; ok && !seen[t.Name] {
				seen[t.Name] = true
				if visit(t.Name, st.colTerms[t.Name]) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if visit(name, terms) {
		return strings.Join(path, " → ")
	}
	return ""
}

// usersOf lists the collections that refer to name.
func (st *state) usersOf(name string) []string {
	var out []string
	for _, c := range st.colOrder {
		if slices.ContainsFunc(st.colTerms[c], func(t Term) bool { return t.Name == name }) {
			out = append(out, c)
		}
	}
	return out
}

func (st *state) nameFree(name string) error {
	if _, ok := st.categories[name]; ok {
		return agentfiles.NewError(agentfiles.CodeAlreadyExists, "a category named "+quote(name)+" exists; pick another name or update it with category_update", name)
	}
	if _, ok := st.collections[name]; ok {
		return agentfiles.NewError(agentfiles.CodeAlreadyExists, "a collection named "+quote(name)+" exists; pick another name or update it with collection_update", name)
	}
	return nil
}

// didYouMean ends a message about an unknown name: "; did you mean a, b?" with the close
// matches, or "." when there are none.
func (st *state) didYouMean(name string) string {
	if s := st.closeMatches(name); len(s) > 0 {
		return "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return "."
}

func sectionNode(st *state, section string) *yaml.Node {
	_, v := mapGet(st.root(), section)
	return v
}

// sectionFlow reports whether new entries of a section should be written in flow style: like
// the section's first entry, or def when it has none.
func (st *state) sectionFlow(section string, def bool) bool {
	sec := deref(sectionNode(st, section))
	if sec == nil || sec.Kind != yaml.MappingNode || len(sec.Content) < 2 {
		return def
	}
	return deref(sec.Content[1]).Style&yaml.FlowStyle != 0
}

// categoryNode builds the YAML value of a category, starting from its old value (to keep key
// order, comments and the style of unchanged fields) when there is one.
func categoryNode(cat Category, old *yaml.Node, flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	if old = deref(old); old != nil && old.Kind == yaml.MappingNode {
		n = copyNode(old)
	}
	if _, v := mapGet(n, "dir"); v == nil || v.Value != cat.Dir {
		mapSet(n, "dir", strNode(cat.Dir))
	}
	if cat.Patterns == nil {
		mapDel(n, "patterns")
	} else if _, v := mapGet(n, "patterns"); v == nil || !slices.Equal(nodeStrings(v), cat.Patterns) {
		mapSet(n, "patterns", patternsNode(cat.Patterns))
	}
	setOptional(n, "description", cat.Description)
	return n
}

// collectionNode builds the YAML value of a collection, starting from its old value when
// there is one.
func collectionNode(col Collection, old *yaml.Node, flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	if old = deref(old); old != nil && old.Kind == yaml.MappingNode {
		n = copyNode(old)
	}
	setOptional(n, "description", col.Description)
	if col.Expression != "" {
		mapDel(n, "categories")
		if _, v := mapGet(n, "expression"); v == nil || v.Value != col.Expression {
			mapSet(n, "expression", quotedNode(col.Expression))
		}
		return n
	}
	mapDel(n, "expression")
	if _, v := mapGet(n, "categories"); v == nil || !slices.EqualFunc(nodeTerms(v), col.Categories, equalTerm) {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, t := range col.Categories {
			if len(t.Patterns) == 0 {
				seq.Content = append(seq.Content, strNode(t.Name))
				continue
			}
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map",
				Content: []*yaml.Node{strNode(t.Name), patternsNode(t.Patterns)}})
		}
		mapSet(n, "categories", seq)
	}
	return n
}

func setOptional(n *yaml.Node, key, val string) {
	if val == "" {
		mapDel(n, key)
	} else if _, v := mapGet(n, key); v == nil || v.Value != val {
		mapSet(n, key, strNode(val))
	}
}

func nodeStrings(n *yaml.Node) []string {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		out = append(out, deref(c).Value)
	}
	return out
}

func nodeTerms(n *yaml.Node) []Term {
	var out []Term
	for _, it := range deref(n).Content {
		it = deref(it)
		if it.Kind == yaml.MappingNode && len(it.Content) == 2 {
			out = append(out, Term{Name: it.Content[0].Value, Patterns: nodeStrings(it.Content[1])})
		} else {
			out = append(out, Term{Name: it.Value})
		}
	}
	return out
}

func equalTerm(a, b Term) bool { return a.Name == b.Name && slices.Equal(a.Patterns, b.Patterns) }

func equalCategory(a, b *Category) bool {
	return a != nil && b != nil && a.Name == b.Name && a.Dir == b.Dir && a.Description == b.Description &&
		slices.Equal(a.Patterns, b.Patterns) && (a.Patterns == nil) == (b.Patterns == nil)
}

func equalCollection(a, b *Collection) bool {
	return a != nil && b != nil && a.Name == b.Name && a.Description == b.Description && a.Expression == b.Expression &&
		slices.EqualFunc(a.Categories, b.Categories, equalTerm)
}
