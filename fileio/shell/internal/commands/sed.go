package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// runSed is sed: -n -e -f -E/-r -i[SUFFIX] -s, with the commands {} p P d D s y a i c q Q =
// l n N g G h H x b t T : r w z F and line, $, /re/, first~step, addr,+N and 0,/re/
// addresses (see the package documentation).
func runSed(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "sed")
	var chunks []string
	quiet, ere, inPlace, separate := false, false, false, false
	suffix := ""
	// -i takes an optional attached suffix, which getopt cannot say; read it first.
	var rest []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "-i") && !strings.HasPrefix(a, "--") {
			inPlace = true
			suffix = a[2:]
			continue
		}
		if strings.HasPrefix(a, "--in-place") {
			inPlace = true
			_, suffix, _ = strings.Cut(a, "=")
			continue
		}
		rest = append(rest, a)
	}
	opts, operands, err := optSpec{short: "ne:f:ErsuzlL:",
		long: []string{"quiet|n", "silent|n", "expression=|e", "file=|f", "regexp-extended|E", "separate|s",
			"unbuffered|u", "null-data|z", "posix", "debug", "sandbox", "follow-symlinks", "line-length=|L"}}.parse(rest)
	if err != nil {
		return c.usage(err, 1)
	}
	haveScript := false
	for _, o := range opts {
		switch o.key {
		case "n":
			quiet = true
		case "e":
			chunks = append(chunks, o.val)
			haveScript = true
		case "f":
			data, err := c.readFile(o.val)
			if err != nil {
				c.errorf("couldn't open file %s: %s", o.val, errText(err))
				return 1
			}
			chunks = append(chunks, strings.TrimSuffix(string(data), "\n"))
			haveScript = true
		case "E", "r":
			ere = true
		case "s":
			separate = true
		case "z":
			c.errorf("-z (NUL-separated lines) is not supported")
			return 1
		}
	}
	if !haveScript {
		if len(operands) == 0 {
			if env.Stderr != nil {
				io.WriteString(env.Stderr, "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n\n")
			}
			return 1
		}
		chunks = append(chunks, operands[0])
		operands = operands[1:]
	}
	if len(chunks) > 0 && (chunks[0] == "#n" || strings.HasPrefix(chunks[0], "#n\n")) {
		quiet = true
	}
	cmds, err := parseSed(chunks, ere)
	if err != nil {
		c.errorf("%s", err)
		if se, ok := err.(*sedError); ok && se.plain {
			return 4 // GNU's "panic" status for a missing label
		}
		return 1
	}
	if len(operands) == 0 {
		if inPlace {
			c.errorf("no input files")
			return 4
		}
		operands = []string{"-"}
	}
	s := &sedRun{c: c, cmds: cmds, quiet: quiet, inPlace: inPlace, wfiles: map[string]bool{}, rfiles: map[string]*lineReader{}}
	s.out = &sedOut{c: c}
	status := 0
	if inPlace || separate {
		for _, f := range operands {
			if c.stopped() || s.quit {
				break
			}
			in, ok := s.openInputs([]string{f})
			if !ok {
				status = max(status, 2, s.status)
				continue
			}
			s.lineNo = 0
			if !inPlace {
				s.in = in
				s.run()
				continue
			}
			var buf bytes.Buffer
			s.out = &sedOut{c: c, buf: &buf}
			s.in = in
			s.run()
			if ctx.Err() != nil {
				return 130
			}
			if suffix != "" {
				backup := suffix
				if strings.Contains(suffix, "*") {
					backup = strings.ReplaceAll(suffix, "*", baseName(f))
					if !strings.Contains(backup, "/") {
						backup = dirName(f) + "/" + backup
					}
				} else {
					backup = f + suffix
				}
				if old, err := c.readPath(env.Abs(f)); err == nil {
					if err := env.FS.WriteFile(ctx, env.Abs(backup), old, false); err != nil {
						c.errorf("couldn't open file %s: %s", backup, errText(err))
						status = 4
						continue
					}
				}
			}
			if err := env.FS.WriteFile(ctx, env.Abs(f), buf.Bytes(), false); err != nil {
				c.errorf("couldn't edit %s: %s", f, errText(err))
				status = 4
			}
			s.out = &sedOut{c: c}
		}
	} else {
		in, ok := s.openInputs(operands)
		if !ok {
			status = 2
		}
		s.in = in
		s.run()
	}
	if s.err != nil {
		c.errorf("%s", s.err)
		if status == 0 {
			status = 4
		}
	}
	if s.quit && status == 0 {
		status = s.exitCode
	}
	return c.done(status)
}

// sedInput yields the lines of one or more inputs with one line of lookahead, so $ is
// known.
type sedInput struct {
	srcs   []*lineReader
	names  []string
	cur    int
	next   []byte // lookahead (with its newline, if it had one)
	nextOK bool
	name   string // the file of the line last read
	nextNm string
}

func (s *sedRun) openInputs(files []string) (*sedInput, bool) {
	in := &sedInput{}
	ok := true
	for _, f := range files {
		if f == "-" {
			r := s.c.env.Stdin
			if r == nil {
				r = strings.NewReader("")
			}
			in.srcs = append(in.srcs, newLineReader(s.c.ctx, r))
			in.names = append(in.names, "-")
			continue
		}
		data, err := s.c.readPath(s.c.env.Abs(f))
		if err != nil {
			if err == errIsDir {
				if s.inPlace {
					s.c.errorf("couldn't edit %s: not a regular file", f)
					s.status = 4
				} else {
					s.c.errorf("read error on %s: Is a directory", f)
				}
			} else {
				s.c.errorf("can't read %s: %s", f, errText(err))
			}
			ok = false
			continue
		}
		in.srcs = append(in.srcs, newLineReader(s.c.ctx, bytes.NewReader(data)))
		in.names = append(in.names, f)
	}
	in.advance()
	return in, ok
}

func (in *sedInput) advance() {
	for in.cur < len(in.srcs) {
		if l := in.srcs[in.cur].next(); l != nil {
			in.next, in.nextOK, in.nextNm = l, true, in.names[in.cur]
			return
		}
		in.cur++
	}
	in.next, in.nextOK = nil, false
}

// read returns the next line without its newline and whether it had one.
func (in *sedInput) read() ([]byte, bool, bool) {
	if in == nil || !in.nextOK {
		return nil, false, false
	}
	l := append([]byte(nil), in.next...)
	in.name = in.nextNm
	in.advance()
	if n := len(l); n > 0 && l[n-1] == '\n' {
		return l[:n-1], true, true
	}
	return l, false, true
}

func (in *sedInput) last() bool { return in == nil || !in.nextOK }

// sedOut writes sed's output, adding the newline a last line lacked only when more output
// follows (as GNU sed does).
type sedOut struct {
	c       *cmdIO
	buf     *bytes.Buffer // -i: the file's new content
	missing bool
}

func (o *sedOut) write(p []byte) {
	if o.buf != nil {
		o.buf.Write(p)
		return
	}
	o.c.write(p)
}

func (o *sedOut) text(p []byte, newline bool) {
	if o.missing {
		o.write([]byte{'\n'})
		o.missing = false
	}
	o.write(p)
	if newline {
		o.write([]byte{'\n'})
	} else {
		o.missing = true
	}
}

func (o *sedOut) raw(p []byte) {
	if len(p) == 0 {
		return
	}
	if o.missing {
		o.write([]byte{'\n'})
		o.missing = false
	}
	o.write(p)
}

type sedRun struct {
	c        *cmdIO
	cmds     []*sedCmd
	quiet    bool
	in       *sedInput
	out      *sedOut
	lineNo   int64
	ps, hold []byte
	chomped  bool // the line in ps had its newline
	// holdChomped is chomped for the hold space (true until a line without one is held).
	holdChomped bool
	appendQ     [][]byte
	lastRe      *sedRegex
	replaced    bool
	quit        bool
	exitCode    int
	wfiles      map[string]bool
	rfiles      map[string]*lineReader
	err         error
	inPlace     bool
	status      int // 4 when -i met a file it cannot edit
}

func (s *sedRun) regex(r *sedRegex) (*sedRegex, error) {
	if r.re == nil {
		if s.lastRe == nil {
			return nil, errors.New("no previous regular expression")
		}
		return s.lastRe, nil
	}
	s.lastRe = r
	return r, nil
}

func (s *sedRun) matchAddr(a sedAddr) bool {
	switch a.kind {
	case addrLine:
		return s.lineNo == a.n
	case addrLast:
		return s.in.last()
	case addrStep:
		if a.step <= 0 {
			return s.lineNo == a.n
		}
		return s.lineNo >= a.n && (s.lineNo-a.n)%a.step == 0
	case addrRegex:
		r, err := s.regex(a.re)
		if err != nil {
			s.err = err
			return false
		}
		return r.re.Match(s.ps)
	}
	return false
}

func (s *sedRun) selected(cmd *sedCmd) bool {
	m := s.matchRange(cmd)
	return m != cmd.negate
}

func (s *sedRun) matchRange(cmd *sedCmd) bool {
	if cmd.a1.kind == addrNone {
		return true
	}
	if cmd.a2.kind == addrNone {
		return s.matchAddr(cmd.a1)
	}
	if cmd.inRange {
		switch cmd.a2.kind {
		case addrLine:
			if s.lineNo >= cmd.a2.n {
				cmd.inRange = false
			}
			return s.lineNo <= cmd.a2.n
		case addrPlus:
			if s.lineNo >= cmd.rangeEnd {
				cmd.inRange = false
			}
			return true
		case addrMulti:
			if cmd.a2.n <= 0 || s.lineNo%cmd.a2.n == 0 {
				cmd.inRange = false
			}
			return true
		default:
			if s.matchAddr(cmd.a2) {
				cmd.inRange = false
			}
			return true
		}
	}
	start := false
	if cmd.a1.kind == addrZero {
		start = s.lineNo == 1 || false
		if !start {
			return false
		}
		if s.matchAddr(cmd.a2) {
			return true
		}
		cmd.inRange = true
		return true
	}
	if cmd.a1.kind == addrLine {
		// A line number starts its range once; n or N may have read past it, and then
		// the range starts on the line they stopped at (GNU), unless that is past a
		// numeric end too.
		if cmd.closed || s.lineNo < cmd.a1.n {
			return false
		}
		cmd.closed = true
		if s.lineNo > cmd.a1.n && cmd.a2.kind == addrLine && s.lineNo > cmd.a2.n {
			return false
		}
	} else if !s.matchAddr(cmd.a1) {
		return false
	}
	switch cmd.a2.kind {
	case addrLine:
		cmd.inRange = cmd.a2.n > s.lineNo
	case addrPlus:
		cmd.rangeEnd = s.lineNo + cmd.a2.n
		cmd.inRange = cmd.a2.n > 0
	case addrMulti:
		cmd.inRange = cmd.a2.n > 0 && s.lineNo%cmd.a2.n != 0
	case addrLast:
		cmd.inRange = !s.in.last()
	default:
		cmd.inRange = true
	}
	return true
}

// run runs the script over s.in.
func (s *sedRun) run() {
	for _, cmd := range s.cmds {
		cmd.inRange, cmd.closed = false, false
	}
	s.holdChomped = true
	lastUseful := sedLastUsefulLine(s.cmds, s.quiet)
	for !s.quit && !s.c.stopped() && s.err == nil {
		if lastUseful > 0 && s.lineNo >= lastUseful && !s.anyInRange() {
			break // no command can act on a later line, and nothing prints by itself
		}
		line, nl, ok := s.in.read()
		if !ok {
			break
		}
		s.lineNo++
		s.ps, s.chomped = line, nl
		s.replaced = false
		for {
			autoprint, restart := s.cycle()
			if s.err != nil {
				return
			}
			if autoprint && !s.quiet {
				s.out.text(s.ps, s.chomped)
			}
			s.flushAppends()
			if !restart || s.quit {
				break
			}
		}
		if s.lineNo&1023 == 0 && s.c.ctx.Err() != nil {
			return
		}
	}
}

// sedLastUsefulLine returns the last line any command can act on when every command is
// addressed by line numbers (sed -n '1,200p'), so sed can stop reading there; 0 when a
// command may act on any line or lines print by themselves.
func sedLastUsefulLine(cmds []*sedCmd, quiet bool) int64 {
	if !quiet {
		return 0
	}
	var last int64
	for _, c := range cmds {
		if c.name == '}' || c.name == ':' {
			continue
		}
		if c.negate || c.a1.kind != addrLine {
			return 0
		}
		end := c.a1.n
		switch c.a2.kind {
		case addrNone:
		case addrLine:
			end = max(end, c.a2.n)
		case addrPlus:
			end += c.a2.n
		default:
			return 0
		}
		last = max(last, end)
	}
	return last
}

func (s *sedRun) anyInRange() bool {
	for _, c := range s.cmds {
		if c.inRange {
			return true
		}
	}
	return false
}

func (s *sedRun) flushAppends() {
	for _, a := range s.appendQ {
		s.out.raw(a)
	}
	s.appendQ = s.appendQ[:0]
}

// cycle runs the commands once over the pattern space. It reports whether the pattern
// space is printed at the end (not after d, D, c, Q) and whether to run again on what is
// left without reading (D).
func (s *sedRun) cycle() (autoprint, restart bool) {
	steps := 0
	for pc := 0; pc < len(s.cmds); pc++ {
		// A branch can loop forever on one line (":a;ba"): the context ends it.
		if steps++; steps&1023 == 0 && s.c.ctx.Err() != nil {
			s.quit = true
			return false, false
		}
		cmd := s.cmds[pc]
		if cmd.name == '}' || cmd.name == ':' {
			continue
		}
		if !s.selected(cmd) {
			if cmd.name == '{' {
				pc = cmd.jump - 1
			}
			continue
		}
		if s.err != nil {
			return false, false
		}
		switch cmd.name {
		case '{':
		case '=':
			s.out.raw([]byte(strconv.FormatInt(s.lineNo, 10) + "\n"))
		case 'a':
			s.appendQ = append(s.appendQ, []byte(cmd.text))
		case 'i':
			s.out.raw([]byte(cmd.text))
		case 'c':
			if cmd.a2.kind == addrNone || cmd.negate || !cmd.inRange {
				s.out.raw([]byte(cmd.text))
			}
			return false, false
		case 'd':
			return false, false
		case 'D':
			i := bytes.IndexByte(s.ps, '\n')
			if i < 0 {
				return false, false
			}
			s.ps = append([]byte(nil), s.ps[i+1:]...)
			return false, true
		case 'p':
			s.out.text(s.ps, s.chomped)
		case 'P':
			if i := bytes.IndexByte(s.ps, '\n'); i >= 0 {
				s.out.text(s.ps[:i], true)
			} else {
				s.out.text(s.ps, s.chomped)
			}
		case 'l':
			s.out.raw(sedList(s.ps))
		case 'n':
			if s.in.last() {
				s.quit = true
				return true, false
			}
			if !s.quiet {
				s.out.text(s.ps, s.chomped)
			}
			s.flushAppends()
			line, nl, _ := s.in.read()
			s.lineNo++
			s.ps, s.chomped = line, nl
		case 'N':
			if s.in.last() {
				s.quit = true
				return true, false
			}
			s.flushAppends()
			line, nl, _ := s.in.read()
			s.lineNo++
			s.ps = append(append(s.ps, '\n'), line...)
			s.chomped = nl
		case 'g':
			s.ps = append([]byte(nil), s.hold...)
			s.chomped = s.holdChomped
		case 'G':
			s.ps = append(append(s.ps, '\n'), s.hold...)
			s.chomped = s.holdChomped // the appended text's ending, as GNU's line_append
		case 'h':
			s.hold = append([]byte(nil), s.ps...)
			s.holdChomped = s.chomped
		case 'H':
			s.hold = append(append(s.hold, '\n'), s.ps...)
			s.holdChomped = s.chomped
		case 'x':
			// The hold space keeps whether its line had a newline, as GNU's does.
			s.ps, s.hold = s.hold, s.ps
			s.chomped, s.holdChomped = s.holdChomped, s.chomped
		case 'z':
			s.ps = s.ps[:0]
		case 'F':
			name := s.in.name
			s.out.raw([]byte(name + "\n"))
		case 'q':
			// GNU ends the line q prints with a newline even when the input's last line
			// had none.
			s.quit, s.exitCode = true, cmd.exitCode
			s.chomped = true
			return true, false
		case 'Q':
			s.quit, s.exitCode = true, cmd.exitCode
			return false, false
		case 'b':
			pc = s.jump(cmd)
		case 't':
			if s.replaced {
				s.replaced = false
				pc = s.jump(cmd)
			}
		case 'T':
			if !s.replaced {
				pc = s.jump(cmd)
			} else {
				s.replaced = false
			}
		case 'r':
			if data, err := s.c.readFile(cmd.text); err == nil && cmd.text != "-" {
				s.appendQ = append(s.appendQ, data)
			}
		case 'R':
			lr, ok := s.rfiles[cmd.text]
			if !ok {
				if data, err := s.c.readFile(cmd.text); err == nil {
					lr = newLineReader(s.c.ctx, bytes.NewReader(data))
				}
				s.rfiles[cmd.text] = lr
			}
			if lr != nil {
				if l := lr.next(); l != nil {
					if l[len(l)-1] != '\n' {
						l = append(l, '\n')
					}
					s.appendQ = append(s.appendQ, l)
				}
			}
		case 'w', 'W':
			text := s.ps
			if cmd.name == 'W' {
				if i := bytes.IndexByte(text, '\n'); i >= 0 {
					text = text[:i]
				}
			}
			s.writeFile(cmd.text, text)
		case 's':
			s.substitute(cmd)
		case 'y':
			for i, b := range s.ps {
				if k := bytes.IndexByte(cmd.ySrc, b); k >= 0 {
					s.ps[i] = cmd.yDst[k]
				}
			}
		}
	}
	return true, false
}

func (s *sedRun) jump(cmd *sedCmd) int {
	if cmd.jump < 0 {
		return len(s.cmds)
	}
	return cmd.jump - 1
}

// writeFile appends a line to a w file, emptying it at its first use.
func (s *sedRun) writeFile(name string, text []byte) {
	line := append(append([]byte(nil), text...), '\n')
	switch name {
	case "/dev/stdout":
		s.out.raw(line)
		return
	case "/dev/stderr":
		if s.c.env.Stderr != nil {
			s.c.env.Stderr.Write(line)
		}
		return
	}
	first := !s.wfiles[name]
	s.wfiles[name] = true
	if err := s.c.env.FS.WriteFile(s.c.ctx, s.c.env.Abs(name), line, !first); err != nil {
		s.err = fmt.Errorf("couldn't open file %s: %s", name, errText(err))
	}
}

func (s *sedRun) substitute(cmd *sedCmd) {
	r, err := s.regex(cmd.re)
	if err != nil {
		s.err = err
		return
	}
	matches := r.re.FindAllSubmatchIndex(s.ps, -1)
	if len(matches) == 0 {
		return
	}
	var out []byte
	last := 0
	n := 0
	did := false
	for _, m := range matches {
		n++
		if n < max(cmd.nth, 1) {
			continue
		}
		if !cmd.global && n > max(cmd.nth, 1) {
			break
		}
		out = append(out, s.ps[last:m[0]]...)
		out = appendReplacement(out, s.ps, m, cmd.repl)
		last = m[1]
		did = true
	}
	if !did {
		return
	}
	out = append(out, s.ps[last:]...)
	s.ps = out
	s.replaced = true
	for i := 0; i < cmd.print; i++ {
		s.out.text(s.ps, s.chomped)
	}
	if cmd.wfile != "" {
		s.writeFile(cmd.wfile, s.ps)
	}
}

func appendReplacement(out, src []byte, m []int, parts []sedReplPart) []byte {
	var mode, once byte
	put := func(b []byte) {
		for _, ch := range b {
			switch {
			case once == 'u':
				ch = upper(ch)
				once = 0
			case once == 'l':
				ch = lower(ch)
				once = 0
			case mode == 'U':
				ch = upper(ch)
			case mode == 'L':
				ch = lower(ch)
			}
			out = append(out, ch)
		}
	}
	for _, p := range parts {
		switch {
		case p.conv == 'U' || p.conv == 'L':
			mode, once = p.conv, 0
		case p.conv == 'E':
			mode, once = 0, 0
		case p.conv == 'u' || p.conv == 'l':
			once = p.conv
		case p.group >= 0:
			if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
				put(src[m[2*p.group]:m[2*p.group+1]])
			}
		default:
			put([]byte(p.lit))
		}
	}
	return out
}

func upper(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 32
	}
	return b
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 32
	}
	return b
}

// sedList is the l command's form of text: C escapes, octal for other bytes, lines cut at
// 69 characters with a trailing backslash, and a final $.
func sedList(text []byte) []byte {
	var out []byte
	col := 0
	emit := func(s string) {
		if col+len(s) > 69 {
			out = append(out, '\\', '\n')
			col = 0
		}
		out = append(out, s...)
		col += len(s)
	}
	for _, b := range text {
		switch b {
		case '\\':
			emit(`\\`)
		case '\a':
			emit(`\a`)
		case '\b':
			emit(`\b`)
		case '\f':
			emit(`\f`)
		case '\n':
			emit(`\n`)
		case '\r':
			emit(`\r`)
		case '\t':
			emit(`\t`)
		case '\v':
			emit(`\v`)
		default:
			if b < 0x20 || b >= 0x7f {
				emit(fmt.Sprintf(`\%03o`, b))
			} else {
				emit(string(rune(b)))
			}
		}
	}
	return append(out, '$', '\n')
}
