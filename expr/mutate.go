package expr

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// AddCategory adds a category at the end of the categories section and saves the catalog. The
// entry is written in the style of the section's first entry (one-line flow style by default).
// The name must pass [ValidateName] and not be used by a category or collection; Dir must be
// an existing directory (inside [Options.DirRoots] when set); nil Patterns mean
// [DefaultPatterns].
func (c *Catalog) AddCategory(ctx context.Context, cat Category) error {
	return c.mutate(ctx, func(st *state) ([]byte, error) {
		if err := ValidateName(cat.Name); err != nil {
			return nil, err
		}
		if err := st.nameFree(cat.Name); err != nil {
			return nil, err
		}
		if err := c.checkCategory(cat); err != nil {
			return nil, err
		}
		return st.setEntry("categories", cat.Name, categoryNode(cat, nil, st.sectionFlow("categories", true)))
	}, func(nst *state) bool { return equalCategory(nst.categories[cat.Name], &cat) })
}

// UpdateCategory changes the category called name: fn receives a copy to modify (renaming is
// not supported). The entry keeps its place and comments in the file. It returns the category
// as saved.
func (c *Catalog) UpdateCategory(ctx context.Context, name string, fn func(*Category) error) (Category, error) {
	var upd Category
	err := c.mutate(ctx, func(st *state) ([]byte, error) {
		old, ok := st.categories[name]
		if !ok {
			return nil, st.unknownCategory(name)
		}
		upd = old.clone()
		if err := fn(&upd); err != nil {
			return nil, err
		}
		if upd.Name != name {
			return nil, newError(CodeInvalidArgument, upd.Name, "a category cannot be renamed; add a new one and remove "+quote(name))
		}
		if err := c.checkCategory(upd); err != nil {
			return nil, err
		}
		_, oldVal := mapGet(deref(sectionNode(st, "categories")), name)
		return st.setEntry("categories", name, categoryNode(upd, oldVal, false))
	}, func(nst *state) bool { return equalCategory(nst.categories[name], &upd) })
	if err != nil {
		return Category{}, err
	}
	return upd, nil
}

// RemoveCategory removes a category that no collection refers to (else IN_USE naming them),
// together with the comment block directly above its entry.
func (c *Catalog) RemoveCategory(ctx context.Context, name string) error {
	return c.mutate(ctx, func(st *state) ([]byte, error) {
		if _, ok := st.categories[name]; !ok {
			return nil, st.unknownCategory(name)
		}
		if users := st.usersOf(name); len(users) > 0 {
			return nil, newError(CodeInUse, name, "category "+quote(name)+" is used by collection(s) "+strings.Join(users, ", ")+
				"; remove it from them with collection_update first")
		}
		return st.deleteEntry("categories", name)
	}, func(nst *state) bool { return nst.categories[name] == nil })
}

// AddCollection adds a collection, in block style, at the end of the collections section and
// saves the catalog. Exactly one of Categories and Expression must be set; every name it refers to must
// exist and it must not lead back to itself.
func (c *Catalog) AddCollection(ctx context.Context, col Collection) error {
	return c.mutate(ctx, func(st *state) ([]byte, error) {
		if err := ValidateName(col.Name); err != nil {
			return nil, err
		}
		if err := st.nameFree(col.Name); err != nil {
			return nil, err
		}
		if err := st.checkCollection(col); err != nil {
			return nil, err
		}
		return st.setEntry("collections", col.Name, collectionNode(col, nil, false))
	}, func(nst *state) bool { return equalCollection(nst.collections[col.Name], &col) })
}

// UpdateCollection changes the collection called name: fn receives a copy to modify
// (renaming is not supported; set Expression and clear Categories, or the reverse, to switch
// form). It returns the collection as saved.
func (c *Catalog) UpdateCollection(ctx context.Context, name string, fn func(*Collection) error) (Collection, error) {
	var upd Collection
	err := c.mutate(ctx, func(st *state) ([]byte, error) {
		old, ok := st.collections[name]
		if !ok {
			return nil, st.unknownCollection(name)
		}
		upd = old.clone()
		if err := fn(&upd); err != nil {
			return nil, err
		}
		if upd.Name != name {
			return nil, newError(CodeInvalidArgument, upd.Name, "a collection cannot be renamed; add a new one and remove "+quote(name))
		}
		if err := st.checkCollection(upd); err != nil {
			return nil, err
		}
		_, oldVal := mapGet(deref(sectionNode(st, "collections")), name)
		return st.setEntry("collections", name, collectionNode(upd, oldVal, false))
	}, func(nst *state) bool { return equalCollection(nst.collections[name], &upd) })
	if err != nil {
		return Collection{}, err
	}
	return upd, nil
}

// RemoveCollection removes a collection that no other collection refers to (else IN_USE).
func (c *Catalog) RemoveCollection(ctx context.Context, name string) error {
	return c.mutate(ctx, func(st *state) ([]byte, error) {
		if _, ok := st.collections[name]; !ok {
			return nil, st.unknownCollection(name)
		}
		if users := st.usersOf(name); len(users) > 0 {
			return nil, newError(CodeInUse, name, "collection "+quote(name)+" is used by collection(s) "+strings.Join(users, ", ")+
				"; remove it from them with collection_update first")
		}
		return st.deleteEntry("collections", name)
	}, func(nst *state) bool { return nst.collections[name] == nil })
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
		var xe *Error
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
		return newError(CodeInvalidArgument, cat.Name, "dir is required: the directory holding the category's documents")
	}
	dir := c.absDir(cat.Dir)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newError(CodeInvalidArgument, cat.Dir, "directory does not exist; create it first or give an existing one")
	case err != nil:
		return newError(CodeInvalidArgument, cat.Dir, "directory cannot be read")
	case !fi.IsDir():
		return newError(CodeInvalidArgument, cat.Dir, "not a directory")
	}
	if len(c.roots) > 0 {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || !c.insideRoots(real) {
			return newError(CodeInvalidArgument, cat.Dir, "directory is outside the allowed roots ("+strings.Join(c.roots, ", ")+"); choose a directory inside one of them")
		}
	}
	if cat.Patterns != nil && len(cat.Patterns) == 0 {
		return newError(CodeInvalidArgument, cat.Name, "patterns is an empty list; omit it for the default "+quote(DefaultPatterns[0])+" or give at least one")
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
		return newError(CodeInvalidArgument, col.Name, "give either categories or expression, not both")
	case col.Expression != "":
		e, err := Parse(col.Expression)
		if err != nil {
			return err
		}
		terms = e.Terms
	case len(col.Categories) > 0:
		terms = col.Categories
	default:
		return newError(CodeInvalidArgument, col.Name, "a collection needs categories (e.g. [\"lang\", \"docs/intro*.md\"]) or an expression (e.g. \"docs/intro+setup,lang/go\")")
	}
	for _, t := range terms {
		if t.Name == col.Name {
			return newError(CodeCycle, col.Name+" → "+col.Name, "collection "+quote(col.Name)+" cannot include itself")
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
		return newError(CodeCycle, cycle, "this change would make collections include each other in a cycle: "+cycle+"; leave out one of these references")
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
		return newError(CodeAlreadyExists, name, "a category named "+quote(name)+" exists; pick another name or update it with category_update")
	}
	if _, ok := st.collections[name]; ok {
		return newError(CodeAlreadyExists, name, "a collection named "+quote(name)+" exists; pick another name or update it with collection_update")
	}
	return nil
}

func (st *state) unknownCategory(name string) error {
	msg := "no category is named " + quote(name)
	if s := st.closeMatches(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	} else {
		msg += "."
	}
	return newError(CodeUnknownName, name, msg+" Call category_list to see the names.")
}

func (st *state) unknownCollection(name string) error {
	msg := "no collection is named " + quote(name)
	if s := st.closeMatches(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	} else {
		msg += "."
	}
	return newError(CodeUnknownName, name, msg+" Call collection_list to see the names.")
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
