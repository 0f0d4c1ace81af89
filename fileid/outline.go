package fileid

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdown is the CommonMark parser. goldmark parsers are safe for concurrent use.
var markdown = goldmark.DefaultParser()

// PreambleID is the section ID of the text before the first heading, when that text is not blank.
const PreambleID = "0"

// heading is one section of a file: a document-level heading and the bytes up to the next
// heading of the same or a higher level.
type heading struct {
	id          string // "1", "1/2", "1/2/3"
	title       string // plain text of the heading
	level       int    // 1..6 as written (# or setext =, ## or setext -)
	depth       int    // number of components in id
	start, end  int    // byte offsets in the file content: line start of the heading .. section end
	line        int    // 1-based line of the heading in the file
	descendants int    // headings inside this section
}

// outline is the parsed structure of one file. It is computed at most once per file and is
// read-only afterwards.
type outline struct {
	preamble            bool // the text before the first heading is not blank: section "0"
	preStart, preEnd    int
	preLine             int
	headings            []heading      // in document order
	byID                map[string]int // section ID → index in headings
	firstH1             int            // index of the first level-1 heading, -1 if none
	firstHeadingStarted int            // offset of the first heading (len(content) if none)
}

// buildOutline parses content[bodyStart:] as CommonMark and derives the sections.
//
// Only headings that are direct children of the document count: a "#" line inside fenced or
// indented code, an HTML block, a block quote or a list item is not a section. Setext headings
// count. A heading's parent is the nearest earlier heading with a smaller level; its ID is the
// path of 1-based positions among its siblings, so a file of only "##" headings numbers 1, 2, 3.
func buildOutline(content []byte, bodyStart int) *outline {
	body := content[bodyStart:]
	// goldmark ends lines at "\n" only; CommonMark also at "\r\n" and a lone "\r". A body with
	// "\r" is parsed with every line ending written "\n", and headings are mapped back to
	// their lines in the file.
	src := body
	var starts, normStarts []int
	if bytes.IndexByte(body, '\r') >= 0 {
		src, starts, normStarts = normalizeEOL(body)
	}
	doc := markdown.Parse(text.NewReader(src))

	o := &outline{firstH1: -1, byID: map[string]int{}}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		pos := headingPos(h)
		if pos < 0 {
			continue
		}
		var start int
		if starts == nil {
			start = bodyStart + lineStart(body, pos)
		} else {
			k := sort.SearchInts(normStarts, pos+1) - 1 // the line holding pos
			start = bodyStart + starts[k]
		}
		if k := len(o.headings); k > 0 && start <= o.headings[k-1].start {
			continue // defensive: positions must increase
		}
		o.headings = append(o.headings, heading{
			title: plainText(h, src),
			level: h.Level,
			start: start,
		})
	}

	numberHeadings(o.headings, len(content))

	o.firstHeadingStarted = len(content)
	if len(o.headings) > 0 {
		o.firstHeadingStarted = o.headings[0].start
	}
	if len(bytes.TrimSpace(content[bodyStart:o.firstHeadingStarted])) > 0 {
		o.preamble = true
		o.preStart, o.preEnd = bodyStart, o.firstHeadingStarted
	}

	// Line numbers, counted once, in order.
	line, at := 1, 0
	if o.preamble {
		line += countLines(content[at:o.preStart])
		at = o.preStart
		o.preLine = line
	}
	for i := range o.headings {
		h := &o.headings[i]
		line += countLines(content[at:h.start])
		at = h.start
		h.line = line
		o.byID[h.id] = i
		if o.firstH1 < 0 && h.level == 1 {
			o.firstH1 = i
		}
	}
	return o
}

var nl = []byte{'\n'}

// numberHeadings assigns IDs, depths, section ends and descendant counts with one stack pass.
func numberHeadings(hs []heading, contentEnd int) {
	type open struct {
		index    int
		children int
	}
	var stack []open
	roots := 0
	closeTop := func(end, next int) {
		top := stack[len(stack)-1]
		hs[top.index].end = end
		hs[top.index].descendants = next - top.index - 1
		stack = stack[:len(stack)-1]
	}
	for i := range hs {
		for len(stack) > 0 && hs[stack[len(stack)-1].index].level >= hs[i].level {
			closeTop(hs[i].start, i)
		}
		var n int
		if len(stack) == 0 {
			roots++
			n = roots
			hs[i].id = strconv.Itoa(n)
		} else {
			parent := &stack[len(stack)-1]
			parent.children++
			hs[i].id = hs[parent.index].id + "/" + strconv.Itoa(parent.children)
		}
		hs[i].depth = len(stack) + 1
		stack = append(stack, open{index: i})
	}
	for len(stack) > 0 {
		closeTop(contentEnd, len(hs))
	}
}

// headingPos is the source offset of a heading: goldmark records it for ATX headings (the
// first non-space byte) and setext headings (the first text line).
func headingPos(h *ast.Heading) int {
	if p := h.Pos(); p >= 0 {
		return p
	}
	if h.Lines().Len() > 0 {
		return h.Lines().At(0).Start
	}
	return -1
}

// lineStart returns the offset of the start of the line containing pos.
func lineStart(b []byte, pos int) int {
	pos = min(pos, len(b))
	return bytes.LastIndexByte(b[:pos], '\n') + 1
}

// plainText renders a heading's inline content as plain text: emphasis, links and code spans
// keep their text, raw HTML is dropped, whitespace is collapsed.
func plainText(n ast.Node, src []byte) string {
	var sb strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				sb.Write(c.Segment.Value(src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					sb.WriteByte(' ')
				}
			case *ast.String:
				sb.Write(c.Value)
			case *ast.AutoLink:
				sb.Write(c.Label(src))
			case *ast.RawHTML:
				// markup, not text
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(sb.String()), " ")
}

// section returns the byte range and metadata of a section ID, or ok=false. Section "0" has
// level 0 and the title PreambleTitle.
func (o *outline) section(id string) (h heading, ok bool) {
	if id == PreambleID {
		if !o.preamble {
			return heading{}, false
		}
		return heading{id: PreambleID, title: PreambleTitle, start: o.preStart, end: o.preEnd, line: o.preLine}, true
	}
	i, ok := o.byID[id]
	if !ok {
		return heading{}, false
	}
	return o.headings[i], true
}

// sectionAt returns the innermost section containing byte offset off, or ok=false when off
// lies in front matter or in blank text before the first heading.
func (o *outline) sectionAt(off int) (h heading, ok bool) {
	i := sort.Search(len(o.headings), func(i int) bool { return o.headings[i].start > off }) - 1
	if i >= 0 {
		return o.headings[i], true
	}
	if o.preamble && off >= o.preStart && off < o.preEnd {
		return o.section(PreambleID)
	}
	return heading{}, false
}

// topLevelIDs lists the valid top-level section IDs, for error messages.
func (o *outline) topLevelIDs() []string {
	var ids []string
	if o.preamble {
		ids = append(ids, PreambleID)
	}
	for _, h := range o.headings {
		if h.depth == 1 {
			ids = append(ids, h.id)
		}
	}
	return ids
}

// firstH1Title finds the title of the first level-1 heading cheaply, without parsing the whole
// body: it parses only the prefix that ends at the first line that could be one (an ATX "# "
// line or a setext "=" underline with at most three spaces of indent). Block structure is
// decided line by line, so the prefix parse agrees with a full parse on that prefix. When the
// candidate turns out not to be a heading (say, "# comment" in a code block), done is false and
// the caller falls back to the full outline.
func firstH1Title(body []byte) (title string, found, done bool) {
	if title, ok := leadingATXTitle(body); ok {
		return title, true, true
	}
	end := -1
	for pos := 0; pos < len(body) && end < 0; {
		line, next := lineAt(body, pos)
		i := 0
		for i < 3 && i < len(line) && line[i] == ' ' {
			i++
		}
		if i < len(line) {
			switch line[i] {
			case '#':
				if i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' {
					end = next
				}
			case '=':
				end = next
			}
		}
		pos = next
	}
	if end < 0 {
		return "", false, true // no line can be an H1
	}
	prefix := body[:end]
	if bytes.IndexByte(prefix, '\r') >= 0 {
		prefix, _, _ = normalizeEOL(prefix) // see buildOutline
	}
	doc := markdown.Parse(text.NewReader(prefix), parser.WithContext(parser.NewContext()))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 1 {
			return plainText(h, prefix), true, true
		}
	}
	return "", false, false
}

// leadingATXTitle handles the most common shape without a parser: the first non-blank line of
// the body is "# Title" (at most three spaces of indent, so no container block or fence can be
// open), and the title has no character that could start inline markup, an escape or an
// entity. The CommonMark rules left are the optional closing sequence of #s and the trimming
// of spaces. TestTitleShortcutAgreesWithFullParse and FuzzTitle hold it to goldmark's answer.
func leadingATXTitle(body []byte) (string, bool) {
	for line := range textLines(body) {
		if len(bytes.Trim(line, " \t")) == 0 {
			continue
		}
		i := 0
		for i < 3 && i < len(line) && line[i] == ' ' {
			i++
		}
		if line[i] != '#' || i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
			return "", false
		}
		text := line[i+1:]
		for _, c := range text {
			if c < 0x20 && c != '\t' || c == 0x7f || bytes.IndexByte([]byte("`*_[]!<>&\\~=|{}"), c) >= 0 {
				return "", false
			}
		}
		text = bytes.TrimRight(text, " \t")
		if j := len(bytes.TrimRight(text, "#")); j < len(text) {
			if j == 0 {
				text = text[:0]
			} else if text[j-1] == ' ' || text[j-1] == '\t' {
				text = text[:j]
			}
		}
		return strings.Join(strings.Fields(string(text)), " "), true
	}
	return "", false
}
