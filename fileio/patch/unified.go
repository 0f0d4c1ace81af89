package patch

import (
	"strconv"
	"strings"
)

// unifiedSection is one file of a unified diff while it is read.
type unifiedSection struct {
	line                 int    // 0-based line of its first header
	gitOld, gitNew       string // paths of the diff --git line
	oldPath, newPath     string // from ---/+++ ("" for /dev/null)
	sawOld, sawNew       bool
	renameFrom, renameTo string
	isNew, isDeleted     bool
	chunks               []Chunk
}

// parseUnified reads a unified diff: sections that start at "diff --git" or at a "---"/"+++"
// pair; lines outside sections (a commit message, "index" lines) are ignored, as git apply
// ignores them.
func (s *source) parseUnified(first, end int) (Patch, error) {
	p := Patch{Dialect: DialectUnified}
	var sec *unifiedSection
	flush := func() error {
		if sec == nil {
			return nil
		}
		f, ok, err := s.sectionFile(sec)
		if ok {
			p.Files = append(p.Files, f)
		}
		sec = nil
		return err
	}
	for i := first; i < end; {
		l := s.lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if err := flush(); err != nil {
				return Patch{}, err
			}
			sec = &unifiedSection{line: i}
			sec.gitOld, sec.gitNew = splitGitHeader(l[len("diff --git "):])
			i++
		case strings.HasPrefix(l, "--- ") && i+1 < end && strings.HasPrefix(s.lines[i+1], "+++ "):
			if sec == nil || sec.sawOld || len(sec.chunks) > 0 {
				if err := flush(); err != nil {
					return Patch{}, err
				}
				sec = &unifiedSection{line: i}
			}
			sec.oldPath, sec.sawOld = diffPath(l[4:])
			sec.newPath, sec.sawNew = diffPath(s.lines[i+1][4:])
			i += 2
		case strings.HasPrefix(l, "@@"):
			if sec == nil || !sec.sawOld {
				return Patch{}, s.errorf(i, "a hunk needs the file's --- and +++ lines before it")
			}
			c, next, err := s.readHunk(i, end)
			if err != nil {
				return Patch{}, err
			}
			sec.chunks = append(sec.chunks, c)
			i = next
		case sec != nil && len(sec.chunks) == 0:
			if err := s.extendedHeader(sec, i); err != nil {
				return Patch{}, err
			}
			i++
		default:
			i++ // text between sections
		}
	}
	if err := flush(); err != nil {
		return Patch{}, err
	}
	return p, nil
}

// extendedHeader reads one git header line between "diff --git" and the first hunk.
func (s *source) extendedHeader(sec *unifiedSection, i int) error {
	l := s.lines[i]
	switch {
	case strings.HasPrefix(l, "new file mode"):
		sec.isNew = true
	case strings.HasPrefix(l, "deleted file mode"):
		sec.isDeleted = true
	case strings.HasPrefix(l, "rename from "):
		sec.renameFrom = unquote(l[len("rename from "):])
	case strings.HasPrefix(l, "rename to "):
		sec.renameTo = unquote(l[len("rename to "):])
	case strings.HasPrefix(l, "copy from "), strings.HasPrefix(l, "copy to "):
		return s.errorf(i, "copies are not supported; add the new file with its whole content instead")
	case strings.HasPrefix(l, "Binary files "), strings.HasPrefix(l, "GIT binary patch"):
		return s.errorf(i, "binary patches cannot be applied: files here are UTF-8 text")
	}
	return nil
}

// sectionFile turns a finished section into a FilePatch; ok is false for a section that
// changes nothing this store keeps (a mode change).
func (s *source) sectionFile(sec *unifiedSection) (FilePatch, bool, error) {
	f := FilePatch{Line: sec.line + 1, Chunks: sec.chunks}
	oldPath, newPath := sec.oldPath, sec.newPath
	if !sec.sawOld {
		oldPath, newPath = sec.gitOld, sec.gitNew
		if sec.isNew {
			oldPath = ""
		}
		if sec.isDeleted {
			newPath = ""
		}
	}
	if sec.renameFrom != "" || sec.renameTo != "" {
		oldPath, newPath = orElse(sec.renameFrom, oldPath), orElse(sec.renameTo, newPath)
	}
	switch {
	case oldPath == "" && newPath == "":
		return f, false, s.errorf(sec.line, "this file's header names no path (both sides are /dev/null)")
	case oldPath == "" || sec.isNew:
		f.Op, f.Path = OpAdd, orElse(newPath, oldPath)
		var sb strings.Builder
		for _, c := range sec.chunks {
			for _, l := range c.Lines {
				if l.Kind == Removed || l.Kind == Context {
					return f, false, s.errorf(c.PatchLine-1, "a new file's hunk can only add lines (\"+\")")
				}
				sb.WriteString(l.Text)
				sb.WriteByte('\n')
			}
		}
		f.Content = sb.String()
		if n := len(sec.chunks); n > 0 && sec.chunks[n-1].NewNoNewline {
			f.Content = strings.TrimSuffix(f.Content, "\n")
		}
		f.Chunks = nil
	case newPath == "" || sec.isDeleted:
		f.Op, f.Path = OpDelete, oldPath
		for _, c := range sec.chunks {
			for _, l := range c.Lines {
				if l.Kind != Removed {
					return f, false, s.errorf(c.PatchLine-1, "a deleted file's hunk can only remove lines (\"-\")")
				}
			}
		}
	default:
		f.Op, f.Path = OpUpdate, oldPath
		if newPath != oldPath {
			f.MoveTo = newPath
		}
		if len(f.Chunks) == 0 && f.MoveTo == "" {
			return f, false, nil
		}
	}
	return f, true, nil
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readHunk reads the hunk whose header is line i and returns it with the line after it. The
// header's counts say where the hunk ends; when they do not fit the lines that follow (models
// miscount), the hunk runs to the first line that cannot belong to it.
func (s *source) readHunk(i, end int) (Chunk, int, error) {
	h, ok := parseHunkHeader(s.lines[i])
	if !ok {
		return Chunk{}, i, s.errorf(i, "a unified hunk header reads \"@@ -12,5 +12,6 @@\"; found %q", clip(s.lines[i]))
	}
	c := Chunk{OldStart: h.oldStart, PatchLine: i + 1}
	if h.oldCount == 0 {
		c.OldStart++ // "-5,0": the lines go after line 5, so before line 6
	}
	if next, ok := s.readCounted(&c, i+1, end, h); ok {
		return c, next, nil
	}
	c.Lines, c.OldNoNewline, c.NewNoNewline = nil, false, false
	next := s.readLoose(&c, i+1, end)
	if len(c.Lines) == 0 {
		return Chunk{}, i, s.errorf(i, "this hunk has no lines")
	}
	return c, next, nil
}

// readCounted reads exactly the lines h counts; ok is false when they are not there.
func (s *source) readCounted(c *Chunk, i, end int, h hunkHeader) (int, bool) {
	old, new := 0, 0
	for i < end && (old < h.oldCount || new < h.newCount) {
		l := s.lines[i]
		var k Kind
		switch {
		case l == "":
			k = Context
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			k = Kind(l[0])
		case l[0] == '\\':
			s.noNewline(c)
			i++
			continue
		default:
			return i, false
		}
		if k != Added {
			old++
		}
		if k != Removed {
			new++
		}
		c.Lines = append(c.Lines, Line{Kind: k, Text: strings.TrimPrefix(l, string(k))})
		if l == "" {
			c.Lines[len(c.Lines)-1].Text = ""
		}
		i++
	}
	if i < end && strings.HasPrefix(s.lines[i], "\\") {
		s.noNewline(c)
		i++
	}
	if old != h.oldCount || new != h.newCount {
		return i, false
	}
	if i < end && !s.hunkBoundary(i, end) {
		return i, false
	}
	return i, len(c.Lines) > 0
}

// readLoose reads hunk lines up to the first line that cannot be one.
func (s *source) readLoose(c *Chunk, i, end int) int {
	for i < end && !s.hunkBoundary(i, end) {
		l := s.lines[i]
		switch {
		case l == "":
			// An empty line is context only when more hunk lines follow.
			j := i
			for j < end && s.lines[j] == "" {
				j++
			}
			if j == end || s.hunkBoundary(j, end) {
				return i
			}
			c.Lines = append(c.Lines, Line{Kind: Context})
		case l[0] == '\\':
			s.noNewline(c)
		default:
			c.Lines = append(c.Lines, Line{Kind: Kind(l[0]), Text: l[1:]})
		}
		i++
	}
	return i
}

// hunkBoundary reports whether line i cannot continue a hunk: a header, or a line that does
// not start with " ", "-", "+" or "\".
func (s *source) hunkBoundary(i, end int) bool {
	l := s.lines[i]
	switch {
	case l == "":
		return false
	case strings.HasPrefix(l, "@@"), strings.HasPrefix(l, "diff --git "):
		return true
	case strings.HasPrefix(l, "--- ") && i+1 < end && strings.HasPrefix(s.lines[i+1], "+++ "):
		return true
	}
	return !strings.ContainsRune(" -+\\", rune(l[0]))
}

// noNewline records "\ No newline at end of file" after the chunk's last line.
func (s *source) noNewline(c *Chunk) {
	if len(c.Lines) == 0 {
		return
	}
	switch c.Lines[len(c.Lines)-1].Kind {
	case Removed:
		c.OldNoNewline = true
	case Added:
		c.NewNoNewline = true
	default:
		c.OldNoNewline, c.NewNoNewline = true, true
	}
	if c.OldNoNewline {
		c.EndOfFile = true
	}
}

// diffPath reads the path of a ---/+++ line: "a/x" → "x", "/dev/null" → "" (ok false), with a
// trailing tab and timestamp (diff -u) removed.
func diffPath(s string) (string, bool) {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = unquote(strings.TrimSpace(s))
	if s == "/dev/null" {
		return "", true
	}
	return stripAB(s), true
}

func stripAB(s string) string {
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

// splitGitHeader reads the two paths of "diff --git a/x b/y".
func splitGitHeader(s string) (string, string) {
	if strings.HasPrefix(s, `"`) {
		if q, err := strconv.QuotedPrefix(s); err == nil {
			return stripAB(unquote(q)), stripAB(unquote(strings.TrimSpace(s[len(q):])))
		}
	}
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		return stripAB(s[:i]), s[i+3:]
	}
	a, b, _ := strings.Cut(s, " ")
	return stripAB(a), stripAB(b)
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
