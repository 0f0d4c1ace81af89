package commands

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/posixre"
)

// lineMatcher finds a pattern in one line (without its newline), as grep and rg do.
type lineMatcher struct {
	re   *regexp.Regexp
	word bool // -w: the match must stand between non-word characters; re has the match as group 1
	// scan finds candidates in a whole file at once (multi-line mode, the pattern without
	// -w or -x): every line that matches holds a match of scan, so lines without one are
	// skipped without being looked at.
	scan *regexp.Regexp
}

// compileMatcher builds a matcher from RE2 alternatives. longest asks for POSIX's
// leftmost-longest matches (grep -o, sed), else Go's leftmost-first (ripgrep's).
//
// unicodeWord makes -w's word characters Unicode letters, marks, digits and connectors (as
// ripgrep's \w); else ASCII letters, digits and _ (grep in the C locale).
func compileMatcher(alts []string, ignoreCase, word, line, longest, unicodeWord bool) (*lineMatcher, string, error) {
	for i, a := range alts {
		alts[i] = "(?:" + a + ")"
	}
	body := strings.Join(alts, "|")
	if len(alts) == 0 {
		body = "(?:)"
	}
	src := body
	switch {
	case line:
		src = "^(?:" + body + ")$"
	case word:
		nonWord := `[^0-9A-Za-z_]`
		if unicodeWord {
			nonWord = `[^\p{L}\p{M}\p{N}\p{Pc}]`
		}
		src = `(?:^|` + nonWord + `)(` + body + `)(?:` + nonWord + `|$)`
	}
	prefix := ""
	if ignoreCase {
		prefix = "(?i)"
	}
	re, err := regexp.Compile(prefix + src)
	if err != nil {
		return nil, "", err
	}
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	scan, err := regexp.Compile(flags + body)
	if err != nil {
		return nil, "", err
	}
	if longest {
		re.Longest()
	}
	return &lineMatcher{re: re, word: word && !line, scan: scan}, prefix + body, nil
}

// nextLine returns the bounds of the first line at or after pos (a line start) that
// matches, or -1.
func (m *lineMatcher) nextLine(data []byte, pos int) (int, int) {
	for pos <= len(data) {
		loc := m.scan.FindIndex(data[pos:])
		if loc == nil {
			return -1, -1
		}
		at := pos + loc[0]
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		if start == len(data) {
			return -1, -1 // past the last line
		}
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i
		}
		if m.match(data[start:end]) {
			return start, end
		}
		pos = end + 1
	}
	return -1, -1
}

// find returns the first match in line at or after from: its start and end, or -1.
func (m *lineMatcher) find(line []byte, from int) (int, int) {
	if from > len(line) {
		return -1, -1
	}
	if m.word {
		loc := m.re.FindSubmatchIndex(line[from:])
		if loc == nil {
			return -1, -1
		}
		return from + loc[2], from + loc[3]
	}
	loc := m.re.FindIndex(line[from:])
	if loc == nil {
		return -1, -1
	}
	return from + loc[0], from + loc[1]
}

// all returns the matches of line, each after the previous one, as grep -o and rg -o print
// them (anchors and word boundaries seen in the whole line).
func (m *lineMatcher) all(line []byte) [][2]int {
	var out [][2]int
	if !m.word {
		for _, loc := range m.re.FindAllIndex(line, -1) {
			out = append(out, [2]int{loc[0], loc[1]})
		}
		return out
	}
	for from := 0; from <= len(line); {
		st, en := m.find(line, from)
		if st < 0 {
			break
		}
		out = append(out, [2]int{st, en})
		if en > st {
			from = en
		} else {
			from = en + 1
		}
	}
	return out
}

func (m *lineMatcher) match(line []byte) bool {
	s, _ := m.find(line, 0)
	return s >= 0
}

// grepOpts are grep's settings.
type grepOpts struct {
	patterns                         []string
	fixed, ere, perl                 bool
	ignoreCase, invert, word, lineRe bool
	count, filesWith, filesWithout   bool
	onlyMatching, quiet, silent      bool
	lineNumbers, byteOffset          bool
	withName, noName                 bool
	recursive                        bool
	after, before                    int
	maxCount                         int64
	includes, excludes, excludeDirs  []string
	text, skipBinary                 bool
	nullAfterName                    bool
}

// runGrep is grep with the flags agents use (see the package documentation).
func runGrep(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "grep")
	// -NUM is -C NUM.
	var conv []string
	for _, a := range args[1:] {
		if len(a) > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9' && strings.Trim(a[1:], "0123456789") == "" {
			conv = append(conv, "-C", a[1:])
			continue
		}
		conv = append(conv, a)
	}
	opts, operands, err := optSpec{
		short: "e:f:EFGPiyvwxclLoqsnbhHrRA:B:C:m:aIZz",
		long: []string{"regexp=|e", "file=|f", "extended-regexp|E", "fixed-strings|F", "basic-regexp|G", "perl-regexp|P",
			"ignore-case|i", "no-ignore-case", "invert-match|v", "word-regexp|w", "line-regexp|x", "count|c",
			"files-with-matches|l", "files-without-match|L", "only-matching|o", "quiet|q", "silent|q", "no-messages|s",
			"line-number|n", "byte-offset|b", "no-filename|h", "with-filename|H", "recursive|r", "dereference-recursive|R",
			"after-context=|A", "before-context=|B", "context=|C", "max-count=|m", "text|a", "include=", "exclude=",
			"exclude-dir=", "color?", "colour?", "binary-files=", "null|Z", "null-data|z", "label=", "line-buffered"},
	}.parse(conv)
	if err != nil {
		c.usageGrep(err)
		return 2
	}
	var g grepOpts
	g.maxCount = -1
	matcher := ""
	patternsGiven := false
	for _, o := range opts {
		switch o.key {
		case "e":
			g.patterns = append(g.patterns, strings.Split(o.val, "\n")...)
			patternsGiven = true
		case "f":
			data, err := c.readFile(o.val)
			if err != nil {
				c.errorf("%s: %s", quotef(o.val), errText(err))
				return 2
			}
			s := strings.TrimSuffix(string(data), "\n")
			if len(data) > 0 {
				g.patterns = append(g.patterns, strings.Split(s, "\n")...)
			}
			patternsGiven = true
		case "E", "F", "G", "P":
			if matcher != "" && matcher != o.key {
				c.errorf("conflicting matchers specified")
				return 2
			}
			matcher = o.key
			g.ere, g.fixed, g.perl = o.key == "E", o.key == "F", o.key == "P"
		case "i", "y":
			g.ignoreCase = true
		case "no-ignore-case":
			g.ignoreCase = false
		case "v":
			g.invert = true
		case "w":
			g.word = true
		case "x":
			g.lineRe = true
		case "c":
			g.count = true
		case "l":
			g.filesWith, g.filesWithout = true, false
		case "L":
			g.filesWithout, g.filesWith = true, false
		case "o":
			g.onlyMatching = true
		case "q":
			g.quiet = true
		case "s":
			g.silent = true
		case "n":
			g.lineNumbers = true
		case "b":
			g.byteOffset = true
		case "h":
			g.noName, g.withName = true, false
		case "H":
			g.withName, g.noName = true, false
		case "r", "R":
			g.recursive = true
		case "A", "B", "C":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				c.errorf("%s: invalid context length argument", o.val)
				return 2
			}
			if o.key != "B" {
				g.after = n
			}
			if o.key != "A" {
				g.before = n
			}
		case "m":
			n, err := strconv.ParseInt(o.val, 10, 64)
			if err != nil {
				c.errorf("invalid max count")
				return 2
			}
			g.maxCount = n
		case "a":
			g.text = true
		case "I":
			g.skipBinary = true
		case "binary-files":
			switch o.val {
			case "text":
				g.text = true
			case "without-match":
				g.skipBinary = true
			}
		case "include":
			g.includes = append(g.includes, o.val)
		case "exclude":
			g.excludes = append(g.excludes, o.val)
		case "exclude-dir":
			g.excludeDirs = append(g.excludeDirs, o.val)
		case "Z":
			g.nullAfterName = true
		case "z":
			c.errorf("-z (NUL-separated lines) is not supported")
			return 2
		}
	}
	if !patternsGiven {
		if len(operands) == 0 {
			c.usageGrep(nil)
			return 2
		}
		g.patterns = strings.Split(operands[0], "\n")
		operands = operands[1:]
	}
	// As GNU grep: with -m 0, or -v and an empty pattern, nothing can be selected, and
	// grep answers 1 without reading (unless -L lists files).
	if (g.maxCount == 0 || (strings.Join(g.patterns, "") == "" && len(g.patterns) == 1 && g.invert && !g.lineRe && !g.word)) && !g.filesWithout {
		return 1
	}
	if g.perl {
		// PCRE: Go's RE2 reads most of what agents write with -P (\d, \s, (?:…), lazy
		// quantifiers); lookarounds and backreferences fail to compile with a clear message.
		g.ere = true
	}
	alts := make([]string, 0, len(g.patterns))
	for _, p := range g.patterns {
		switch {
		case g.fixed:
			alts = append(alts, regexp.QuoteMeta(p))
		case g.perl:
			alts = append(alts, p)
		default:
			t, warnings, err := posixre.TranslateWarn(p, posixre.Flags{ERE: g.ere})
			if err != nil {
				c.errorf("%s", err)
				return 2
			}
			for _, w := range warnings {
				c.errorf("warning: %s", w)
			}
			alts = append(alts, t)
		}
	}
	m, re2, err := compileMatcher(alts, g.ignoreCase, g.word, g.lineRe, !g.perl, false)
	if err != nil {
		c.errorf("%s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return 2
	}
	implicit := false
	if len(operands) == 0 {
		if g.recursive {
			operands = []string{"."}
			implicit = true
		} else {
			operands = []string{"-"}
		}
	}
	// Names print with more than one operand, or below a directory operand of -r.
	autoName := !g.noName && !g.withName
	if autoName && len(operands) > 1 {
		g.withName = true
	}
	s := &grepRun{c: c, g: g, m: m, re2: re2, implicit: implicit, autoName: autoName}
	for _, op := range operands {
		if c.stopped() || (s.matched && g.quiet) {
			break
		}
		s.operand(op)
	}
	status := 1
	if s.matched {
		status = 0
	}
	if s.errors && !(g.quiet && s.matched) {
		status = 2
	}
	return c.done(status)
}

func (c *cmdIO) usageGrep(err error) {
	if err != nil {
		var u *usageError
		if errors.As(err, &u) {
			c.errorf("%s", u.msg)
		}
	}
	if c.env.Stderr != nil {
		io.WriteString(c.env.Stderr, "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n")
	}
}

type grepRun struct {
	c        *cmdIO
	g        grepOpts
	m        *lineMatcher
	re2      string
	matched  bool
	errors   bool
	anyOut   bool // a context group was printed (for "--")
	implicit bool // grep -r without a file operand: names print without "./"
	autoName bool // neither -h nor -H: names print as GNU decides
}

func (s *grepRun) operand(op string) {
	c := s.c
	if op == "-" {
		s.stream("(standard input)", c.env.Stdin)
		return
	}
	abs := c.env.Abs(op)
	fi, err := c.env.FS.Stat(c.ctx, abs)
	if err != nil {
		if !s.g.silent {
			c.errorf("%s: %s", op, errText(c.classify(abs, err)))
		}
		s.errors = true
		return
	}
	if fi.IsDir() {
		for _, x := range s.g.excludeDirs {
			if s.g.recursive && (fnmatch(x, op, false) || fnmatch(x, baseName(op), false)) {
				return // --exclude-dir holds for directories named on the command line too
			}
		}
		if !s.g.recursive {
			if !s.g.silent {
				c.errorf("%s: Is a directory", op)
			}
			s.errors = true
			return
		}
		if s.autoName {
			s.g.withName = true
		}
		s.walk(abs, op)
		return
	}
	if !s.included(op, true) {
		return
	}
	data, err := c.readPath(abs)
	if err != nil {
		if !s.g.silent {
			c.errorf("%s: %s", op, errText(err))
		}
		s.errors = true
		return
	}
	s.file(op, data)
}

func (s *grepRun) included(name string, commandLine bool) bool {
	base := path.Base(name)
	for _, e := range s.g.excludes {
		if fnmatch(e, base, false) || (commandLine && fnmatch(e, name, false)) {
			return false
		}
	}
	if len(s.g.includes) == 0 {
		return true
	}
	for _, in := range s.g.includes {
		if fnmatch(in, base, false) || (commandLine && fnmatch(in, name, false)) {
			return true
		}
	}
	return false
}

// walk searches the tree at abs, shown as shown, in bytewise name order (GNU grep walks in
// directory order, which a project does not have). With a Searcher, only its candidates are
// read.
func (s *grepRun) walk(abs, shown string) {
	c := s.c
	var candidates map[string]bool
	if c.env.Search != nil && !s.g.invert && !s.g.filesWithout && !s.g.count {
		paths, complete, err := c.env.Search.Candidates(c.ctx, abs, s.re2, false)
		if err == nil && complete {
			candidates = make(map[string]bool, len(paths))
			for _, p := range paths {
				candidates[p] = true
			}
		}
	}
	var rec func(dir, shown string, top bool)
	rec = func(dir, shown string, top bool) {
		if c.stopped() || (s.matched && s.g.quiet) {
			return
		}
		entries, err := c.env.FS.ReadDir(c.ctx, dir)
		if err != nil {
			c.errorf("%s: %s", shown, errText(err))
			s.errors = true
			return
		}
		for _, e := range entries {
			child := path.Join(dir, e.Name())
			var childShown string
			switch {
			case s.implicit && top:
				childShown = e.Name()
			case strings.HasSuffix(shown, "/"):
				childShown = shown + e.Name()
			default:
				childShown = shown + "/" + e.Name()
			}
			if e.IsDir() {
				excluded := false
				for _, x := range s.g.excludeDirs {
					if fnmatch(x, e.Name(), false) {
						excluded = true
					}
				}
				if !excluded {
					rec(child, childShown, false)
				}
				continue
			}
			if !s.included(e.Name(), false) {
				continue
			}
			if candidates != nil && !candidates[child] {
				continue
			}
			data, err := c.readPath(child)
			if err != nil {
				c.errorf("%s: %s", childShown, errText(err))
				s.errors = true
				continue
			}
			s.file(childShown, data)
			if c.stopped() || (s.matched && s.g.quiet) {
				return
			}
		}
	}
	rec(abs, shown, true)
}

// file searches one file's content.
func (s *grepRun) file(name string, data []byte) {
	f := s.newFile(name)
	f.binary = !s.g.text && bytes.IndexByte(data, 0) >= 0
	if f.binary && s.g.skipBinary {
		f.finish() // -I: a binary file has no match (-c prints 0 for it)
		return
	}
	if f.binary {
		// GNU grep reads a binary file's NUL bytes as line ends.
		data = bytes.ReplaceAll(data, []byte{0}, []byte{'\n'})
	}
	f.feed(data)
	f.finish()
}

// stream searches standard input as it comes, a few complete lines at a time, and stops
// reading as soon as the answer is known (-q, -l, -m).
func (s *grepRun) stream(name string, r io.Reader) {
	c := s.c
	f := s.newFile(name)
	if r == nil {
		f.finish()
		return
	}
	var buf []byte
	chunk := make([]byte, 64<<10)
	for !f.done {
		if c.ctx.Err() != nil {
			return
		}
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if last := bytes.LastIndexByte(buf, '\n'); last >= 0 && (len(buf) >= 1<<20 || err != nil) {
			seg := buf[:last+1]
			if !s.g.text && !f.binary && bytes.IndexByte(seg, 0) >= 0 {
				f.binary = true
				if s.g.skipBinary {
					return
				}
			}
			if f.binary {
				seg = bytes.ReplaceAll(seg, []byte{0}, []byte{'\n'})
			}
			f.feed(seg)
			buf = append(buf[:0], buf[last+1:]...)
		}
		if len(buf) > maxReadAll {
			c.errorf("%s: %s", name, errTooLarge)
			s.errors = true
			return
		}
		if err == io.EOF {
			if len(buf) > 0 && !f.done {
				if !s.g.text && bytes.IndexByte(buf, 0) >= 0 {
					f.binary = true
				}
				if f.binary {
					buf = bytes.ReplaceAll(buf, []byte{0}, []byte{'\n'})
				}
				f.feed(buf)
			}
			break
		}
		if err != nil {
			c.errorf("%s: %s", name, errText(err))
			s.errors = true
			return
		}
	}
	f.finish()
}

// grepFile is the state of one file's search, kept across the pieces of a stream.
type grepFile struct {
	s            *grepRun
	name         string
	binary       bool
	done         bool // the answer is known: read no more
	stopped      bool // the context ended or stdout failed: print nothing more
	count        int64
	lastPrinted  int // line number of the last line printed (0: none in this file)
	pendingAfter int
	before       []grepHeld
	lineNo       int
	base         int  // byte offset of the piece being fed
	inContext    bool // printing the matches of a context line (grep -o)
}

type grepHeld struct {
	no, off int
	line    []byte
}

func (s *grepRun) newFile(name string) *grepFile { return &grepFile{s: s, name: name} }

func (f *grepFile) printLine(no, off int, line []byte, sep byte) {
	c, g := f.s.c, &f.s.g
	if g.onlyMatching && sep == '-' && !f.inContext {
		// grep -o shows of a context line only what matches in it (something only under
		// -v), marked as context.
		f.inContext = true
		for _, m := range f.s.m.all(line) {
			if m[1] > m[0] {
				f.printLine(no, off+m[0], line[m[0]:m[1]], '-')
			}
		}
		f.inContext = false
		return
	}
	if g.withName {
		c.writeString(f.name)
		if g.nullAfterName {
			c.write([]byte{0})
		} else {
			c.write([]byte{sep})
		}
	}
	if g.lineNumbers {
		c.writeString(strconv.Itoa(no))
		c.write([]byte{sep})
	}
	if g.byteOffset {
		c.writeString(strconv.Itoa(off))
		c.write([]byte{sep})
	}
	c.write(line)
	c.writeString("\n")
}

// feed searches data, whole lines (the last one may lack its newline only at the end of
// the input).
func (f *grepFile) feed(data []byte) {
	s, c, g := f.s, f.s.c, &f.s.g
	defer func() { f.base += len(data) }()
	quietOut := g.quiet || g.filesWith || g.filesWithout
	context := g.after > 0 || g.before > 0
	// Without -v or context, lines that cannot match are skipped whole.
	skip := !g.invert && !context
	off := 0
	rest := data
	for len(rest) > 0 && !f.done {
		if f.lineNo&1023 == 0 && c.ctx.Err() != nil {
			f.done, f.stopped = true, true
			return
		}
		if skip {
			start, _ := s.m.nextLine(data, off)
			if start < 0 {
				return
			}
			f.lineNo += bytes.Count(data[off:start], []byte{'\n'})
			off = start
			rest = data[start:]
		}
		if g.maxCount >= 0 && f.count >= g.maxCount {
			// After -m's last match, trailing context still prints.
			if f.pendingAfter == 0 || f.binary {
				f.done = true
				return
			}
		}
		f.lineNo++
		i := bytes.IndexByte(rest, '\n')
		var line []byte
		if i < 0 {
			line, rest = rest, nil
		} else {
			line, rest = rest[:i], rest[i+1:]
		}
		lineOff := f.base + off
		off += len(line) + 1
		selected := s.m.match(line) != g.invert
		if g.maxCount >= 0 && f.count >= g.maxCount {
			if f.pendingAfter > 0 {
				f.printLine(f.lineNo, lineOff, line, '-')
				f.lastPrinted = f.lineNo
				f.pendingAfter--
			}
			continue
		}
		if !selected {
			if quietOut || g.count || f.binary {
				continue
			}
			if f.pendingAfter > 0 {
				f.printLine(f.lineNo, lineOff, line, '-')
				f.lastPrinted = f.lineNo
				f.pendingAfter--
			} else if g.before > 0 {
				f.before = append(f.before, grepHeld{f.lineNo, lineOff, append([]byte(nil), line...)})
				if len(f.before) > g.before {
					f.before = f.before[1:]
				}
			}
			continue
		}
		f.count++
		s.matched = true
		if g.quiet || g.filesWith || g.filesWithout || f.binary && !g.count {
			// -l and -L win over -c: the first match answers.
			f.done = true
			return
		}
		if g.count {
			continue
		}
		if context {
			first := f.lineNo
			if len(f.before) > 0 {
				first = f.before[0].no
			}
			if s.anyOut && (f.lastPrinted == 0 || first > f.lastPrinted+1) {
				c.writeString("--\n")
			}
			for _, h := range f.before {
				f.printLine(h.no, h.off, h.line, '-')
			}
			f.before = f.before[:0]
			s.anyOut = true
		}
		if g.onlyMatching {
			if !g.invert {
				for _, m := range s.m.all(line) {
					if m[1] > m[0] {
						f.printLine(f.lineNo, lineOff+m[0], line[m[0]:m[1]], ':')
					}
				}
			}
		} else {
			f.printLine(f.lineNo, lineOff, line, ':')
		}
		f.lastPrinted = f.lineNo
		f.pendingAfter = g.after
		if c.stopped() {
			f.done, f.stopped = true, true
			return
		}
	}
}

// finish prints what is printed once the file is read: the count, the name for -l and -L,
// the binary file notice.
func (f *grepFile) finish() {
	c, g := f.s.c, &f.s.g
	if f.stopped || (g.quiet && f.count > 0) {
		return
	}
	quietOut := g.quiet || g.filesWith || g.filesWithout
	switch {
	case g.quiet:
	case g.filesWith && !g.filesWithout:
		if f.count > 0 {
			c.writeString(f.name)
			c.writeNameEnd(g.nullAfterName)
		}
	case g.filesWithout:
		if f.count == 0 {
			c.writeString(f.name)
			c.writeNameEnd(g.nullAfterName)
		}
	case g.count:
		if g.withName {
			c.writeString(f.name)
			if g.nullAfterName {
				c.write([]byte{0})
			} else {
				c.writeString(":")
			}
		}
		c.printf("%d\n", f.count)
	}
	if f.binary && f.count > 0 && !g.count && !quietOut {
		c.flush()
		c.errorf("%s: binary file matches", f.name)
		f.s.anyOut = true // a later context group is set apart with "--", as after printed lines
	}
}

func (c *cmdIO) writeNameEnd(null bool) {
	if null {
		c.write([]byte{0})
	} else {
		c.writeString("\n")
	}
}

// runEgrep is grep -E, runFgrep grep -F.
func runEgrep(ctx context.Context, env *Env, args []string) int {
	return runGrep(ctx, env, append([]string{"grep", "-E"}, args[1:]...))
}

func runFgrep(ctx context.Context, env *Env, args []string) int {
	return runGrep(ctx, env, append([]string{"grep", "-F"}, args[1:]...))
}
