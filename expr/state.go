package expr

import (
	"fmt"
	"strconv"

	"github.com/agentfiles/agentfiles"
	"gopkg.in/yaml.v3"
)

// state is an immutable snapshot of a catalog: its YAML text, the parsed node tree (used to
// locate entries when editing the text) and the model derived from it.
type state struct {
	src         []byte
	doc         yaml.Node
	categories  map[string]*Category
	catOrder    []string
	collections map[string]*Collection
	colOrder    []string
	colTerms    map[string][]Term // collection name -> members as terms
	colLine     map[string]int    // collection name -> line of its key, for messages
}

// parseState parses and validates catalog text. file names the catalog in error messages.
func parseState(src []byte, file string) (*state, error) {
	st := &state{
		src:         src,
		categories:  map[string]*Category{},
		collections: map[string]*Collection{},
		colTerms:    map[string][]Term{},
		colLine:     map[string]int{},
	}
	if err := yaml.Unmarshal(src, &st.doc); err != nil {
		return nil, agentfiles.WrapError(CodeInvalidCatalog, file+" is not valid YAML: "+err.Error()+
			"; fix the file (a catalog has the top-level keys categories and collections)", file, err)
	}
	root := st.root()
	if root == nil {
		return st, nil
	}
	v := validator{file: file}
	if root.Kind != yaml.MappingNode {
		return nil, v.errf(root, "the top level must be a mapping with the keys categories and collections")
	}
	err := eachPair(root, func(k, val *yaml.Node) error {
		switch k.Value {
		case "categories":
			return v.categories(st, val)
		case "collections":
			return v.collections(st, val)
		}
		return v.errf(k, "unknown top-level key %q; the keys are categories and collections", k.Value)
	})
	if err != nil {
		return nil, err
	}
	for _, name := range st.colOrder {
		if _, clash := st.categories[name]; clash {
			return nil, v.errAt(st.colLine[name], "collection %q has the same name as a category, which it would hide; rename one of them", name)
		}
	}
	return st, nil
}

// root returns the top-level node of the document, or nil for an empty document.
func (st *state) root() *yaml.Node {
	if st.doc.Kind != yaml.DocumentNode || len(st.doc.Content) == 0 {
		return nil
	}
	return st.doc.Content[0]
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

type validator struct{ file string }

func (v validator) errf(n *yaml.Node, format string, args ...any) error {
	return v.errAt(n.Line, format, args...)
}

// errAt returns the INVALID_CATALOG error for line of the catalog file.
func (v validator) errAt(line int, format string, args ...any) error {
	return agentfiles.NewError(CodeInvalidCatalog, fmt.Sprintf("%s line %d: ", v.file, line)+fmt.Sprintf(format, args...),
		v.file+":"+strconv.Itoa(line))
}

// eachPair calls fn with each key and (dereferenced) value of the mapping m, stopping at the
// first error.
func eachPair(m *yaml.Node, fn func(k, val *yaml.Node) error) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if err := fn(m.Content[i], deref(m.Content[i+1])); err != nil {
			return err
		}
	}
	return nil
}

// section checks a categories or collections section (a mapping, or empty) and calls entry
// for each of its entries whose name is usable, not defined before and maps to a mapping.
// fields describes an entry's value and example is one.
func section[T any](v validator, st *state, k entryKind[T], m *yaml.Node, fields, example string, entry func(k, val *yaml.Node) error) error {
	if isNull(m) {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		return v.errf(m, "%s must be a mapping of name to %s", k.section, fields)
	}
	return eachPair(m, func(key, val *yaml.Node) error {
		if msg := checkLoadedName(key.Value); msg != "" {
			return v.errf(key, "%s %s", k.word, msg)
		}
		if _, dup := k.entries(st)[key.Value]; dup {
			return v.errf(key, "%s %q is defined twice", k.word, key.Value)
		}
		if val.Kind != yaml.MappingNode {
			return v.errf(val, "%s %q must be a mapping %s", k.word, key.Value, example)
		}
		return entry(key, val)
	})
}

func (v validator) categories(st *state, m *yaml.Node) error {
	return section(v, st, categoryKind, m, "{dir, patterns, description}", `such as {dir: docs, patterns: ["*.md"]}`, func(k, val *yaml.Node) error {
		cat := &Category{Name: k.Value}
		err := eachPair(val, func(fk, fv *yaml.Node) (err error) {
			switch fk.Value {
			case "dir":
				cat.Dir, err = v.str(fv, "dir")
			case "patterns":
				cat.Patterns, err = v.patterns(fv)
			case "description":
				cat.Description, err = v.str(fv, "description")
			default:
				err = v.errf(fk, "category %q has an unknown key %q; the keys are dir, patterns and description", k.Value, fk.Value)
			}
			return err
		})
		if err != nil {
			return err
		}
		if cat.Dir == "" {
			return v.errf(k, "category %q needs a dir", k.Value)
		}
		st.categories[k.Value] = cat
		st.catOrder = append(st.catOrder, k.Value)
		return nil
	})
}

func (v validator) collections(st *state, m *yaml.Node) error {
	return section(v, st, collectionKind, m, "{description, categories or expression}", `with categories: [...] or expression: "..."`, func(k, val *yaml.Node) error {
		col := &Collection{Name: k.Value}
		var items *yaml.Node
		err := eachPair(val, func(fk, fv *yaml.Node) (err error) {
			switch fk.Value {
			case "description":
				col.Description, err = v.str(fv, "description")
			case "expression":
				col.Expression, err = v.str(fv, "expression")
			case "categories":
				items = fv
				col.Categories, err = v.items(k.Value, fv)
			default:
				err = v.errf(fk, "collection %q has an unknown key %q; the keys are description, categories and expression", k.Value, fk.Value)
			}
			return err
		})
		if err != nil {
			return err
		}
		var terms []Term
		switch {
		case items != nil && col.Expression != "":
			return v.errf(k, "collection %q has both categories and expression; keep one", k.Value)
		case col.Expression != "":
			e, err := Parse(col.Expression)
			if err != nil {
				se := syntaxOf(err)
				return v.errf(k, "collection %q: expression %q: %s (suggestion: %s)", k.Value, col.Expression, se.msg, se.Suggestion)
			}
			terms = e.Terms
		case items != nil:
			terms = col.Categories
		default:
			return v.errf(k, "collection %q needs categories: [...] or expression: \"...\"", k.Value)
		}
		st.collections[k.Value] = col
		st.colOrder = append(st.colOrder, k.Value)
		st.colTerms[k.Value] = terms
		st.colLine[k.Value] = k.Line
		return nil
	})
}

// items reads a collection's categories list: each item a name or a one-key map
// {name: [patterns]}.
func (v validator) items(col string, n *yaml.Node) ([]Term, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, v.errf(n, "categories of collection %q must be a list such as [lang, {docs: [\"intro*.md\"]}]", col)
	}
	out := make([]Term, 0, len(n.Content))
	for _, it := range n.Content {
		it = deref(it)
		switch {
		case it.Kind == yaml.ScalarNode && !isNull(it):
			if msg := checkLoadedName(it.Value); msg != "" {
				return nil, v.errf(it, "collection %q: %s", col, msg)
			}
			out = append(out, Term{Name: it.Value})
		case it.Kind == yaml.MappingNode && len(it.Content) == 2:
			name := it.Content[0].Value
			if msg := checkLoadedName(name); msg != "" {
				return nil, v.errf(it, "collection %q: %s", col, msg)
			}
			pats, err := v.patterns(deref(it.Content[1]))
			if err != nil {
				return nil, err
			}
			if len(pats) == 0 {
				return nil, v.errf(it, "collection %q: %q has an empty pattern list; give patterns or write just the name", col, name)
			}
			out = append(out, Term{Name: name, Patterns: pats})
		default:
			return nil, v.errf(it, "collection %q: each item is a name or a one-key map such as docs: [\"intro*.md\"]", col)
		}
	}
	return out, nil
}

func (v validator) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", v.errf(n, "%s must be a string", what)
	}
	if isNull(n) {
		return "", nil
	}
	return n.Value, nil
}

// patterns reads a list of patterns (or a single pattern string) and checks each one.
func (v validator) patterns(n *yaml.Node) ([]string, error) {
	var raw []*yaml.Node
	switch {
	case n.Kind == yaml.ScalarNode && !isNull(n):
		raw = []*yaml.Node{n}
	case n.Kind == yaml.SequenceNode:
		raw = n.Content
	default:
		return nil, v.errf(n, "patterns must be a list of glob patterns such as [\"*.md\"]")
	}
	out := make([]string, 0, len(raw))
	for _, p := range raw {
		p = deref(p)
		if p.Kind != yaml.ScalarNode || p.Value == "" {
			return nil, v.errf(p, "each pattern must be a non-empty string such as \"*.md\"")
		}
		if err := ValidatePattern(p.Value); err != nil {
			return nil, v.errf(p, "%s", messageOf(err))
		}
		out = append(out, p.Value)
	}
	return out, nil
}
