package patch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// Pass names the matching pass that found a chunk (see the package documentation, Matching).
type Pass string

// The matching passes, strictest first.
const (
	PassExact      Pass = "exact"
	PassTrailing   Pass = "trailing_whitespace"
	PassWhitespace Pass = "whitespace"
	PassUnicode    Pass = "unicode"
)

var passes = []Pass{PassExact, PassTrailing, PassWhitespace, PassUnicode}

// ChunkResult says where and how one chunk of an update matched.
type ChunkResult struct {
	Chunk int  `json:"chunk"` // 1-based number of the chunk in its file
	Line  int  `json:"line"`  // 1-based line of the file where its old lines start (or its lines went)
	Pass  Pass `json:"pass"`  // the pass that matched
}

// Budget bounds the matching of ApplyUpdate and CheckDelete; one Budget may serve every file
// of a patch.
type Budget struct {
	// MaxWorkBytes caps the bytes of file lines the matching compares, over all chunks and
	// passes; 0 means no cap. Past it the call is INVALID_ARGUMENT.
	MaxWorkBytes int64
	// UsedBytes is what the calls given this Budget have compared so far.
	UsedBytes int64
}

// text is a file's content split into lines, each with the line ending it had.
type text struct {
	bom   string
	lines []string // without endings
	ends  []string // "\n", "\r\n", or "" (a last line without one)
	eol   string   // the ending added lines get: the file's most common one
}

const bom = "\uFEFF"

func splitText(content string) text {
	var t text
	if strings.HasPrefix(content, bom) {
		t.bom, content = bom, content[len(bom):]
	}
	crlf, lf := 0, 0
	for content != "" {
		i := strings.IndexByte(content, '\n')
		if i < 0 {
			t.lines, t.ends = append(t.lines, content), append(t.ends, "")
			break
		}
		line, end := content[:i], "\n"
		if strings.HasSuffix(line, "\r") {
			line, end = line[:len(line)-1], "\r\n"
			crlf++
		} else {
			lf++
		}
		t.lines, t.ends = append(t.lines, line), append(t.ends, end)
		content = content[i+1:]
	}
	t.eol = "\n"
	if crlf > lf {
		t.eol = "\r\n"
	}
	return t
}

// finalNewline reports whether the text ends with a line ending (true for an empty text).
func (t text) finalNewline() bool {
	return len(t.ends) == 0 || t.ends[len(t.ends)-1] != ""
}

// matcher finds sequences of lines in a file within a work budget.
type matcher struct {
	ctx     context.Context
	lines   []string
	unicode []string // lines normalised for PassUnicode, made when first needed
	work    int64    // bytes compared, those of earlier calls on the budget included
	max     int64
	steps   int
	budget  *Budget
	index   map[Pass]map[string][]int // line (as each pass compares it) → the lines where it is
}

// normalise maps a line to the form PassUnicode compares: trimmed, with typographic dashes,
// quotes and spaces read as ASCII and byte order marks dropped.
func normalise(s string) string {
	s = strings.TrimSpace(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		switch {
		case r >= 0x2010 && r <= 0x2015, r == 0x2212:
			return '-'
		case r >= 0x2018 && r <= 0x201B:
			return '\''
		case r >= 0x201C && r <= 0x201F:
			return '"'
		case r == 0x00A0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			return ' '
		case r == 0xFEFF:
			return -1
		}
		return r
	}, s))
}

func prepare(pass Pass, pattern []string) []string {
	out := make([]string, len(pattern))
	for i, p := range pattern {
		switch pass {
		case PassExact:
			out[i] = p
		case PassTrailing:
			out[i] = strings.TrimRight(p, " \t\f\v\r")
		case PassWhitespace:
			out[i] = strings.TrimSpace(p)
		case PassUnicode:
			out[i] = normalise(p)
		}
	}
	return out
}

func (m *matcher) line(pass Pass, i int) string {
	l := m.lines[i]
	switch pass {
	case PassTrailing:
		return strings.TrimRight(l, " \t\f\v\r")
	case PassWhitespace:
		return strings.TrimSpace(l)
	case PassUnicode:
		if m.unicode == nil {
			m.unicode = make([]string, len(m.lines))
			for j, x := range m.lines {
				m.unicode[j] = normalise(x)
			}
		}
		return m.unicode[i]
	}
	return l
}

var errWork = errors.New("work budget exceeded")

// starts returns the lines (ascending) that equal first as pass compares them: where a
// pattern beginning with first may start. Each pass indexes the file once, so a patch of many
// chunks costs about the file's size per pass, not the file's size per chunk.
func (m *matcher) starts(pass Pass, first string) ([]int, error) {
	idx := m.index[pass]
	if idx == nil {
		idx = make(map[string][]int, len(m.lines))
		for i := range m.lines {
			l := m.line(pass, i)
			if m.work += int64(len(l)) + 1; m.max > 0 && m.work > m.max {
				return nil, errWork
			}
			idx[l] = append(idx[l], i)
		}
		if m.index == nil {
			m.index = map[Pass]map[string][]int{}
		}
		m.index[pass] = idx
	}
	return idx[first], nil
}

func newMatcher(ctx context.Context, lines []string, b *Budget) *matcher {
	m := &matcher{ctx: ctx, lines: lines, budget: b}
	if b != nil {
		m.work, m.max = b.UsedBytes, b.MaxWorkBytes
	}
	return m
}

// done records the work in the budget.
func (m *matcher) done() {
	if m.budget != nil {
		m.budget.UsedBytes = m.work
	}
}

// at reports whether pattern (prepared for pass) matches at line i.
func (m *matcher) at(pass Pass, pattern []string, i int) (bool, error) {
	if m.steps++; m.steps%4096 == 0 {
		if err := m.ctx.Err(); err != nil {
			return false, err
		}
	}
	for j, p := range pattern {
		l := m.line(pass, i+j)
		if m.work += int64(len(l)) + 1; m.max > 0 && m.work > m.max {
			return false, errWork
		}
		if l != p {
			return false, nil
		}
	}
	return true, nil
}

// find returns the line where pattern starts, searching lines from..end with each pass in
// turn: at the end of the file first when eof, the match nearest hint when hint >= 0, else
// the first match.
func (m *matcher) find(pattern []string, from int, eof bool, hint int) (int, Pass, bool, error) {
	last := len(m.lines) - len(pattern)
	if last < from {
		return 0, "", false, nil
	}
	for _, pass := range passes {
		p := prepare(pass, pattern)
		if eof {
			if ok, err := m.at(pass, p, last); ok || err != nil {
				return last, pass, ok, err
			}
		}
		starts, err := m.starts(pass, p[0])
		if err != nil {
			return 0, "", false, err
		}
		best := -1
		for _, i := range starts[sort.SearchInts(starts, from):] {
			if i > last || best >= 0 && (hint < 0 || i-hint > abs(best-hint)) {
				break
			}
			ok, err := m.at(pass, p, i)
			if err != nil {
				return 0, "", false, err
			}
			if ok && (best < 0 || abs(i-hint) < abs(best-hint)) {
				best = i
			}
		}
		if best >= 0 {
			return best, pass, true, nil
		}
	}
	return 0, "", false, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// placed is one chunk where it matched.
type placed struct {
	start, n int // the old lines it replaces
	lines    []Line
	chunk    Chunk
}

// ApplyUpdate applies the chunks of an update (f.Op == OpUpdate) to content and returns the
// new content and where each chunk matched. Either every chunk matches or it returns an error
// and no content: NO_MATCH naming the chunk, its first lines and the closest lines of the
// file; INVALID_ARGUMENT past lim.MaxWorkBytes; TIMEOUT or CANCELED when ctx ends.
func ApplyUpdate(ctx context.Context, content string, f FilePatch, b *Budget) (string, []ChunkResult, error) {
	t := splitText(content)
	m := newMatcher(ctx, t.lines, b)
	defer m.done()
	var done []placed
	var results []ChunkResult
	pos := 0
	for k, c := range f.Chunks {
		p, res, err := m.place(c, pos)
		if err != nil {
			return "", nil, m.explain(err, f, k, c, pos)
		}
		res.Chunk = k + 1
		done, results = append(done, p), append(results, res)
		pos = p.start + p.n
	}
	return t.rebuild(done), results, nil
}

// errNotFound and errAnchor are the reasons place gives explain.
var (
	errNotFound = errors.New("lines not found")
	errAnchor   = errors.New("anchor not found")
)

// place finds chunk c at or after line pos.
func (m *matcher) place(c Chunk, pos int) (placed, ChunkResult, error) {
	from, hint := pos, -1
	if c.Anchor != "" {
		i, _, ok, err := m.find([]string{c.Anchor}, pos, false, -1)
		if err != nil {
			return placed{}, ChunkResult{}, err
		}
		if !ok {
			return placed{}, ChunkResult{}, errAnchor
		}
		// The chunk's lines are searched from the anchor line itself: models often repeat
		// the line they anchor on as the chunk's first line.
		from = i
		if len(c.Old()) == 0 {
			from = i + 1
		}
	}
	if c.OldStart > 0 {
		hint = c.OldStart - 1
	}
	lines := c.Lines
	old := c.Old()
	if len(old) == 0 {
		at := len(m.lines)
		switch {
		case c.Anchor != "":
			at = from
		case hint >= 0:
			at = min(max(hint, pos), len(m.lines))
		}
		return placed{start: at, lines: lines, chunk: c}, ChunkResult{Line: at + 1, Pass: PassExact}, nil
	}
	for {
		i, pass, ok, err := m.find(old, from, c.EndOfFile, hint)
		if err != nil {
			return placed{}, ChunkResult{}, err
		}
		if ok {
			return placed{start: i, n: len(old), lines: lines, chunk: c}, ChunkResult{Line: i + 1, Pass: pass}, nil
		}
		// A trailing empty context line often stands for the file's last newline: retry
		// without it.
		n := len(lines)
		if n == 0 || lines[n-1].Kind != Context || lines[n-1].Text != "" {
			return placed{}, ChunkResult{}, errNotFound
		}
		lines, old = lines[:n-1], old[:len(old)-1]
		if len(old) == 0 {
			return placed{}, ChunkResult{}, errNotFound
		}
	}
}

// rebuild returns the content with the placed chunks applied: context lines keep the file's
// bytes and endings, added lines get the file's line ending.
func (t text) rebuild(done []placed) string {
	var sb strings.Builder
	size := len(t.bom)
	for i, l := range t.lines {
		size += len(l) + len(t.ends[i])
	}
	sb.Grow(size + size/8)
	type entry struct{ text, end string }
	var out []entry
	cursor := 0
	finalNewline := t.finalNewline()
	for _, p := range done {
		for ; cursor < p.start; cursor++ {
			out = append(out, entry{t.lines[cursor], t.ends[cursor]})
		}
		fi := p.start
		for _, l := range p.lines {
			switch l.Kind {
			case Context:
				out = append(out, entry{t.lines[fi], t.ends[fi]})
				fi++
			case Removed:
				fi++
			case Added:
				out = append(out, entry{l.Text, t.eol})
			}
		}
		cursor = p.start + p.n
		if cursor == len(t.lines) {
			switch {
			case p.chunk.NewNoNewline:
				finalNewline = false
			case p.chunk.OldNoNewline:
				finalNewline = true
			}
		}
	}
	for ; cursor < len(t.lines); cursor++ {
		out = append(out, entry{t.lines[cursor], t.ends[cursor]})
	}
	sb.WriteString(t.bom)
	for i, e := range out {
		end := e.end
		switch {
		case i < len(out)-1 && end == "":
			end = t.eol
		case i == len(out)-1 && !finalNewline:
			end = ""
		case i == len(out)-1 && end == "":
			end = t.eol
		}
		sb.WriteString(e.text)
		sb.WriteString(end)
	}
	return sb.String()
}

// CheckDelete checks that content is what a unified diff deleting the file shows (its removed
// lines, matched with the same passes as an update); a deletion without lines always passes.
func CheckDelete(ctx context.Context, content string, f FilePatch, b *Budget) error {
	var old []string
	for _, c := range f.Chunks {
		old = append(old, c.Old()...)
	}
	if len(old) == 0 {
		return nil
	}
	t := splitText(content)
	m := newMatcher(ctx, t.lines, b)
	defer m.done()
	if len(old) == len(t.lines) {
		_, _, ok, err := m.find(old, 0, false, 0)
		if err != nil {
			return m.explain(err, f, 0, f.Chunks[0], 0)
		}
		if ok {
			return nil
		}
	}
	return agentfiles.NewError(CodeNoMatch, fmt.Sprintf(
		"the patch deletes %s, but the file holds other lines than the %d the patch removes (it has %d); read it again and resend the deletion",
		CleanPath(f.Path), len(old), len(t.lines)), CleanPath(f.Path))
}

// explain turns the failure of chunk k into the coded error a model can act on.
func (m *matcher) explain(err error, f FilePatch, k int, c Chunk, pos int) error {
	path := CleanPath(f.Path)
	switch {
	case errors.Is(err, errWork):
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"matching the chunks of %s would compare more than %d bytes of its lines; split the patch into smaller ones, or give each chunk an @@ line near its change",
			path, m.max), path)
	case errors.Is(err, context.DeadlineExceeded):
		return agentfiles.WrapError(agentfiles.CodeTimeout, "the patch ran out of time while matching "+path+"; retry it", path, err)
	case errors.Is(err, context.Canceled):
		return agentfiles.WrapError(agentfiles.CodeCanceled, "the request was canceled while matching "+path, path, err)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: chunk %d of %d (patch line %d) does not apply", path, k+1, len(f.Chunks), c.PatchLine)
	after := ""
	if pos > 0 {
		after = fmt.Sprintf(" after line %d, where the chunk before it ended", pos)
	}
	var pattern []string
	if errors.Is(err, errAnchor) {
		fmt.Fprintf(&sb, ": its @@ line %q matches no line of the file%s", clip(c.Anchor), after)
		pattern = []string{c.Anchor}
	} else {
		pattern = c.Old()
		fmt.Fprintf(&sb, ": these lines are not in the file%s, even ignoring whitespace at the ends of lines and Unicode dashes, quotes and spaces:", after)
		for i, l := range pattern {
			if i == 3 {
				fmt.Fprintf(&sb, "\n  … (%d lines in all)", len(pattern))
				break
			}
			fmt.Fprintf(&sb, "\n  %q", clip(l))
		}
	}
	if start, n := m.closest(pattern); n > 0 {
		fmt.Fprintf(&sb, "\nThe closest lines of the file (%d of the chunk's %d lines match there), from line %d:", n, len(pattern), start+1)
		for i := start; i < min(start+max(len(pattern), 3), len(m.lines), start+8); i++ {
			fmt.Fprintf(&sb, "\n  %d: %s", i+1, clip(m.lines[i]))
		}
	}
	sb.WriteString("\nRead the file again and resend the patch with the chunk's context and removed lines copied from it; nothing was changed.")
	return agentfiles.NewError(CodeNoMatch, sb.String(), path)
}

// closest returns the line where most of pattern's lines match (loosely) in order, and how
// many do; it gives up at a fixed amount of work.
func (m *matcher) closest(pattern []string) (int, int) {
	const budget = 4 << 20
	if len(pattern) > 40 {
		pattern = pattern[:40]
	}
	p := prepare(PassUnicode, pattern)
	bestAt, bestN, work := 0, 0, 0
	for i := range m.lines {
		n := 0
		for j := range p {
			if i+j >= len(m.lines) {
				break
			}
			if p[j] != "" && m.line(PassUnicode, i+j) == p[j] {
				n++
			}
		}
		if n > bestN {
			bestAt, bestN = i, n
		}
		if work += len(p); work > budget {
			break
		}
	}
	return bestAt, bestN
}
