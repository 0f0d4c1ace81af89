package patch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// Operation is one operation of the Responses API's apply_patch tool.
type Operation struct {
	Type string `json:"type"` // "create_file", "update_file" or "delete_file"
	Path string `json:"path"`
	// Diff is the V4A body without the envelope: "+" lines for create_file; @@, " ", "-"
	// and "+" lines for update_file; empty for delete_file.
	Diff string `json:"diff,omitempty"`
}

// source is the text being parsed, split into lines without their endings, and how errors
// name its lines.
type source struct {
	lines []string
	where string // "patch line", or "operations[2].diff line"
	arg   string // the argument errors name: "patch" or "operations[2]"
}

func newSource(text, where, arg string) *source {
	lines := strings.Split(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return &source{lines: lines, where: where, arg: arg}
}

// errorf returns INVALID_PATCH naming line i (0-based) of the source; i < 0 names none.
func (s *source) errorf(i int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if i >= 0 {
		msg = fmt.Sprintf("%s %d: %s", s.where, i+1, msg)
	}
	return agentfiles.NewError(CodeInvalidPatch, msg, s.arg)
}

// span returns the first and last (exclusive) lines that are not blank.
func (s *source) span() (int, int) {
	first, end := 0, len(s.lines)
	for first < end && strings.TrimSpace(s.lines[first]) == "" {
		first++
	}
	for end > first && strings.TrimSpace(s.lines[end-1]) == "" {
		end--
	}
	return first, end
}

// Parse parses a patch in the V4A or the unified dialect, detected from its content (see the
// package documentation). A patch that changes no file is INVALID_PATCH.
func Parse(text string) (Patch, error) {
	src := newSource(text, "patch line", "patch")
	first, end := src.span()
	if first == end {
		return Patch{}, src.errorf(-1, "the patch is empty; send *** Begin Patch … *** End Patch, or a unified diff")
	}
	if end-first >= 2 && isHeredocStart(src.lines[first]) && strings.HasSuffix(strings.TrimSpace(src.lines[end-1]), "EOF") {
		first, end = first+1, end-1
		for first < end && strings.TrimSpace(src.lines[first]) == "" {
			first++
		}
		for end > first && strings.TrimSpace(src.lines[end-1]) == "" {
			end--
		}
	}
	var p Patch
	var err error
	switch src.dialect(first, end) {
	case DialectV4A:
		p, err = src.parseV4A(first, end)
	case DialectUnified:
		p, err = src.parseUnified(first, end)
	default:
		return Patch{}, src.errorf(first, "neither a V4A patch (it starts with *** Begin Patch) nor a unified diff (--- a/file, +++ b/file, @@ hunks); found %q", clip(src.lines[first]))
	}
	if err == nil && len(p.Files) == 0 {
		err = src.errorf(-1, "the patch changes no file; name at least one file to add, update or delete")
	}
	return p, err
}

// isHeredocStart reports whether l opens a shell heredoc (<<EOF, <<'EOF', <<"EOF"), as models
// wrap patches meant for a shell: "apply_patch <<'EOF'".
func isHeredocStart(l string) bool {
	l = strings.TrimSpace(l)
	for _, h := range []string{"<<EOF", "<<'EOF'", `<<"EOF"`, "<< 'EOF'", "<< EOF"} {
		if strings.HasSuffix(l, h) {
			return true
		}
	}
	return false
}

func (s *source) dialect(first, end int) Dialect {
	for i := first; i < end; i++ {
		l := s.lines[i]
		switch {
		case strings.TrimSpace(l) == v4aBegin:
			return DialectV4A
		case strings.HasPrefix(l, "diff --git "):
			return DialectUnified
		case strings.HasPrefix(l, "--- ") && i+1 < end && strings.HasPrefix(s.lines[i+1], "+++ "):
			return DialectUnified
		}
	}
	return ""
}

func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// The V4A markers.
const (
	v4aBegin  = "*** Begin Patch"
	v4aEnd    = "*** End Patch"
	v4aAdd    = "*** Add File:"
	v4aDelete = "*** Delete File:"
	v4aUpdate = "*** Update File:"
	v4aMove   = "*** Move to:"
	v4aEOF    = "*** End of File"
)

func (s *source) parseV4A(first, end int) (Patch, error) {
	if t := strings.TrimSpace(s.lines[first]); t != v4aBegin {
		return Patch{}, s.errorf(first, "expected %s as the first line, found %q", v4aBegin, clip(t))
	}
	if t := strings.TrimSpace(s.lines[end-1]); t != v4aEnd || end-1 == first {
		return Patch{}, s.errorf(end-1, "the patch does not end with %s; it may have been cut off: send it whole", v4aEnd)
	}
	p := Patch{Dialect: DialectV4A}
	i, stop := first+1, end-1
	for i < stop {
		t := strings.TrimSpace(s.lines[i])
		var f FilePatch
		var err error
		switch {
		case t == "":
			i++
			continue
		case strings.HasPrefix(t, v4aAdd):
			f, i, err = s.parseV4AAdd(i, stop)
		case strings.HasPrefix(t, v4aDelete):
			f = FilePatch{Op: OpDelete, Path: strings.TrimSpace(t[len(v4aDelete):]), Line: i + 1}
			if f.Path == "" {
				err = s.errorf(i, "%s names no file", v4aDelete)
			}
			i++
		case strings.HasPrefix(t, v4aUpdate):
			f, i, err = s.parseV4AUpdate(i, stop)
		default:
			err = s.errorf(i, "expected a file header (%s, %s or %s path) or %s, found %q", v4aAdd, v4aDelete, v4aUpdate, v4aEnd, clip(t))
		}
		if err != nil {
			return Patch{}, err
		}
		p.Files = append(p.Files, f)
	}
	return p, nil
}

func (s *source) parseV4AAdd(i, stop int) (FilePatch, int, error) {
	f := FilePatch{Op: OpAdd, Path: strings.TrimSpace(strings.TrimSpace(s.lines[i])[len(v4aAdd):]), Line: i + 1}
	if f.Path == "" {
		return f, i, s.errorf(i, "%s names no file", v4aAdd)
	}
	var sb strings.Builder
	i++
	for i < stop {
		l := s.lines[i]
		if strings.HasPrefix(l, "+") {
			sb.WriteString(l[1:])
			sb.WriteByte('\n')
			i++
			continue
		}
		// A blank line between added lines is an empty line the model sent without its "+".
		if strings.TrimSpace(l) == "" && i+1 < stop && strings.HasPrefix(s.lines[i+1], "+") {
			sb.WriteByte('\n')
			i++
			continue
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "***") {
			break
		}
		return f, i, s.errorf(i, "every line of an added file starts with \"+\"; found %q", clip(l))
	}
	f.Content = sb.String()
	return f, i, nil
}

func (s *source) parseV4AUpdate(i, stop int) (FilePatch, int, error) {
	f := FilePatch{Op: OpUpdate, Path: strings.TrimSpace(strings.TrimSpace(s.lines[i])[len(v4aUpdate):]), Line: i + 1}
	if f.Path == "" {
		return f, i, s.errorf(i, "%s names no file", v4aUpdate)
	}
	i++
	if i < stop && strings.HasPrefix(strings.TrimSpace(s.lines[i]), v4aMove) {
		f.MoveTo = strings.TrimSpace(strings.TrimSpace(s.lines[i])[len(v4aMove):])
		if f.MoveTo == "" {
			return f, i, s.errorf(i, "%s names no file", v4aMove)
		}
		i++
	}
	end := i
	for end < stop && !isV4AHeader(s.lines[end]) {
		end++
	}
	chunks, err := s.parseChunks(i, end)
	if err != nil {
		return f, i, err
	}
	if len(chunks) == 0 && f.MoveTo == "" {
		return f, i, s.errorf(f.Line-1, "%s %s has no @@ chunk; give the lines to change, or use %s", v4aUpdate, f.Path, v4aMove)
	}
	f.Chunks = chunks
	return f, end, nil
}

// isV4AHeader reports whether l starts the next file of a V4A patch.
func isV4AHeader(l string) bool {
	if !strings.HasPrefix(l, "***") {
		return false
	}
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, v4aAdd) || strings.HasPrefix(t, v4aDelete) || strings.HasPrefix(t, v4aUpdate) || t == v4aEnd
}

// parseChunks parses lines [i, end) of an update: @@ lines, " ", "-" and "+" lines (an empty
// line is an empty context line) and *** End of File. Blank lines before the first chunk and
// after the last are ignored.
func (s *source) parseChunks(i, end int) ([]Chunk, error) {
	for end > i && strings.TrimSpace(s.lines[end-1]) == "" {
		end--
	}
	for i < end && strings.TrimSpace(s.lines[i]) == "" {
		i++
	}
	var chunks []Chunk
	var cur *Chunk
	open := func(line int) *Chunk {
		chunks = append(chunks, Chunk{PatchLine: line + 1})
		return &chunks[len(chunks)-1]
	}
	closeCur := func(at int) error {
		if cur != nil && len(cur.Lines) == 0 {
			return s.errorf(at, "this @@ chunk has no lines; give context (\" \"), removed (\"-\") or added (\"+\") lines after it")
		}
		return nil
	}
	for ; i < end; i++ {
		l := s.lines[i]
		switch {
		case strings.TrimSpace(l) == v4aEOF:
			if cur == nil || len(cur.Lines) == 0 {
				return nil, s.errorf(i, "%s must follow the lines of a chunk", v4aEOF)
			}
			cur.EndOfFile = true
			cur = nil
		case strings.HasPrefix(l, "@@"):
			if err := closeCur(i - 1); err != nil {
				return nil, err
			}
			cur = open(i)
			rest := strings.TrimSpace(l[2:])
			if start, ok := unifiedOldStart(l); ok {
				cur.OldStart = start
			} else {
				cur.Anchor = strings.TrimSpace(strings.TrimSuffix(rest, "@@"))
			}
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if cur == nil {
				cur = open(i)
			}
			if l == "" {
				cur.Lines = append(cur.Lines, Line{Kind: Context})
			} else {
				cur.Lines = append(cur.Lines, Line{Kind: Kind(l[0]), Text: l[1:]})
			}
		default:
			return nil, s.errorf(i, "every line of a chunk starts with \" \" (context), \"-\" (removed) or \"+\" (added), or is an @@ line; found %q", clip(l))
		}
	}
	if err := closeCur(end - 1); err != nil {
		return nil, err
	}
	return chunks, nil
}

// unifiedOldStart reads the old start line of a unified hunk header "@@ -l,n +l,n @@".
func unifiedOldStart(l string) (int, bool) {
	h, ok := parseHunkHeader(l)
	return h.oldStart, ok
}

// hunkHeader is "@@ -oldStart,oldCount +newStart,newCount @@".
type hunkHeader struct {
	oldStart, oldCount, newStart, newCount int
}

func parseHunkHeader(l string) (hunkHeader, bool) {
	var h hunkHeader
	rest, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return h, false
	}
	oldPart, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return h, false
	}
	newPart, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return h, false
	}
	var ok1, ok2 bool
	h.oldStart, h.oldCount, ok1 = parseRange(oldPart)
	h.newStart, h.newCount, ok2 = parseRange(newPart)
	return h, ok1 && ok2
}

func parseRange(s string) (start, count int, ok bool) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// ParseOperations reads the operations of the Responses API's apply_patch tool as a Patch.
func ParseOperations(ops []Operation) (Patch, error) {
	p := Patch{Dialect: DialectOperations}
	if len(ops) == 0 {
		return p, agentfiles.NewError(CodeInvalidPatch, "operations is empty; give at least one {type, path, diff}", "operations")
	}
	for n, op := range ops {
		arg := fmt.Sprintf("operations[%d]", n)
		src := newSource(op.Diff, arg+".diff line", arg)
		f := FilePatch{Path: strings.TrimSpace(op.Path)}
		if f.Path == "" {
			return Patch{}, agentfiles.NewError(CodeInvalidPatch, arg+".path is empty; name the file, e.g. \"src/main.go\"", arg)
		}
		switch op.Type {
		case "create_file":
			f.Op = OpAdd
			var sb strings.Builder
			for i, l := range src.lines {
				switch {
				case strings.HasPrefix(l, "+"):
					sb.WriteString(l[1:])
				case strings.TrimSpace(l) != "":
					return Patch{}, src.errorf(i, "every line of a create_file diff starts with \"+\"; found %q", clip(l))
				}
				sb.WriteByte('\n')
			}
			f.Content = sb.String()
		case "update_file":
			f.Op = OpUpdate
			chunks, err := src.parseChunks(0, len(src.lines))
			if err != nil {
				return Patch{}, err
			}
			if len(chunks) == 0 {
				return Patch{}, agentfiles.NewError(CodeInvalidPatch, arg+": an update_file diff needs at least one chunk of \" \", \"-\" and \"+\" lines", arg)
			}
			f.Chunks = chunks
		case "delete_file":
			f.Op = OpDelete
		default:
			return Patch{}, agentfiles.NewError(CodeInvalidPatch, fmt.Sprintf("%s.type is %q; use create_file, update_file or delete_file", arg, op.Type), arg)
		}
		p.Files = append(p.Files, f)
	}
	return p, nil
}
