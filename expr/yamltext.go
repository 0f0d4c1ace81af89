package expr

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"
)

// The catalog file is edited as text: an entry being added, changed or removed is located
// through the node tree (which records line numbers) and only its lines are rewritten, so
// every other byte of the file - comments, blank lines, alignment, quoting - stays as written.

// lineIndex gives access to the lines of a text.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of each line
}

func newLineIndex(src []byte) lineIndex {
	li := lineIndex{src: src, starts: []int{0}}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			li.starts = append(li.starts, i+1)
		}
	}
	if len(src) == 0 {
		li.starts = nil
	}
	return li
}

func (li lineIndex) n() int { return len(li.starts) }

// start returns the byte offset of line i (0-based); n() gives len(src).
func (li lineIndex) start(i int) int {
	if i >= len(li.starts) {
		return len(li.src)
	}
	return li.starts[i]
}

func (li lineIndex) line(i int) []byte {
	return bytes.TrimRight(li.src[li.start(i):li.start(i+1)], "\r\n")
}

func indentOf(l []byte) int {
	return len(l) - len(bytes.TrimLeft(l, " "))
}

func isBlank(l []byte) bool { return len(bytes.TrimSpace(l)) == 0 }

func isComment(l []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) }

// entryLines returns the lines [from, to) of the block-mapping entry whose key is on line k
// (0-based): the key line and every following line indented deeper, with comments between
// them; trailing blank lines and less-indented comments are not part of the entry.
func (li lineIndex) entryLines(k int) (from, to int) {
	ind := indentOf(li.line(k))
	last := k
	for i := k + 1; i < li.n(); i++ {
		l := li.line(i)
		if isBlank(l) || isComment(l) {
			continue
		}
		if indentOf(l) > ind {
			last = i
			continue
		}
		break
	}
	for i := last + 1; i < li.n(); i++ {
		if l := li.line(i); !isBlank(l) && isComment(l) && indentOf(l) > ind {
			last = i
			continue
		}
		break
	}
	return k, last + 1
}

// headComment returns the first line of the comment block directly above line k at the same
// indentation (k itself when there is none).
func (li lineIndex) headComment(k int) int {
	ind := indentOf(li.line(k))
	for k > 0 {
		l := li.line(k - 1)
		if isBlank(l) || !isComment(l) || indentOf(l) != ind {
			break
		}
		k--
	}
	return k
}

// splice replaces lines [from, to) of src with text.
func (li lineIndex) splice(from, to int, text string) []byte {
	out := make([]byte, 0, len(li.src)+len(text))
	out = append(out, li.src[:li.start(from)]...)
	if from > 0 && from == li.n() && len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, text...)
	return append(out, li.src[li.start(to):]...)
}

// renderEntry encodes "key: value" as YAML indented by indent spaces, ending in a newline.
func renderEntry(key string, val *yaml.Node, indent int, lineComment string) (string, error) {
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, LineComment: lineComment}, val,
	}}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	pad := strings.Repeat(" ", indent)
	lines := strings.SplitAfter(b.String(), "\n")
	var out strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out.WriteString(pad)
		}
		out.WriteString(l)
	}
	return out.String(), nil
}

// setEntry returns src with section.name set to val: an existing entry's lines are replaced,
// a new entry is inserted after the section's last entry (or a new section is appended).
func (st *state) setEntry(section, name string, val *yaml.Node) ([]byte, error) {
	li := newLineIndex(st.src)
	root := st.root()
	var secKey, secVal *yaml.Node
	if root != nil {
		secKey, secVal = mapGet(root, section)
	}
	if secKey == nil {
		text, err := renderEntry(name, val, 2, "")
		if err != nil {
			return nil, err
		}
		prefix := ""
		if len(st.src) > 0 && st.src[len(st.src)-1] != '\n' {
			prefix = "\n"
		}
		return append(bytes.Clone(st.src), prefix+section+":\n"+text...), nil
	}
	secVal = deref(secVal)
	if secVal.Kind == yaml.MappingNode && secVal.Style&yaml.FlowStyle == 0 && len(secVal.Content) > 0 {
		if k, _ := mapGet(secVal, name); k != nil {
			from, to := li.entryLines(k.Line - 1)
			text, err := renderEntry(name, val, indentOf(li.line(from)), k.LineComment)
			if err != nil {
				return nil, err
			}
			return li.splice(from, to, text), nil
		}
		last := secVal.Content[len(secVal.Content)-2]
		_, to := li.entryLines(last.Line - 1)
		text, err := renderEntry(name, val, indentOf(li.line(last.Line-1)), "")
		if err != nil {
			return nil, err
		}
		return li.splice(to, to, text), nil
	}
	// An empty, null or flow-style section: rewrite the section as a block mapping.
	m := &yaml.Node{Kind: yaml.MappingNode}
	if secVal.Kind == yaml.MappingNode {
		m.Content = append(m.Content, secVal.Content...)
	}
	mapSet(m, name, val)
	from, to := li.entryLines(secKey.Line - 1)
	text, err := renderEntry(section, m, indentOf(li.line(from)), secKey.LineComment)
	if err != nil {
		return nil, err
	}
	return li.splice(from, to, text), nil
}

// deleteEntry returns src without section.name and the comment block directly above it.
func (st *state) deleteEntry(section, name string) ([]byte, error) {
	li := newLineIndex(st.src)
	secKey, secVal := mapGet(st.root(), section)
	secVal = deref(secVal)
	if secVal.Style&yaml.FlowStyle == 0 {
		k, _ := mapGet(secVal, name)
		from, to := li.entryLines(k.Line - 1)
		return li.splice(li.headComment(from), to, ""), nil
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(secVal.Content); i += 2 {
		if secVal.Content[i].Value != name {
			m.Content = append(m.Content, secVal.Content[i], secVal.Content[i+1])
		}
	}
	from, to := li.entryLines(secKey.Line - 1)
	text, err := renderEntry(section, m, indentOf(li.line(from)), secKey.LineComment)
	if err != nil {
		return nil, err
	}
	return li.splice(from, to, text), nil
}

// mapGet returns the key and value nodes of key in mapping m.
func mapGet(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// mapSet sets key to v in mapping m, keeping the key's position when it exists.
func mapSet(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// mapDel removes key from mapping m.
func mapDel(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			return
		}
	}
}

// copyNode returns a deep copy of n (aliases are resolved into copies).
func copyNode(n *yaml.Node) *yaml.Node {
	n = deref(n)
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = copyNode(ch)
	}
	c.Anchor = ""
	return &c
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func quotedNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

func patternsNode(pats []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, p := range pats {
		n.Content = append(n.Content, quotedNode(p))
	}
	return n
}
