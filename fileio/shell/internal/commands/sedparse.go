package commands

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/posixre"
)

// A sed script, parsed: a flat list of commands where '{' jumps past its block when its
// address does not match and labels are resolved to indexes.

type sedAddrKind byte

const (
	addrNone sedAddrKind = iota
	addrLine
	addrLast
	addrRegex
	addrStep  // first~step
	addrPlus  // addr1,+N (second address only)
	addrMulti // addr1,~N (second address only)
	addrZero  // 0 (first address of 0,/re/ only)
)

type sedAddr struct {
	kind sedAddrKind
	n    int64
	step int64
	re   *sedRegex
}

// sedRegex is a compiled address or s/// regexp; nil re means "the last regexp used".
type sedRegex struct {
	re *regexp.Regexp
}

type sedCmd struct {
	a1, a2 sedAddr
	negate bool
	name   byte
	// text is the text of a, i, c; the file of r, w; the label of b, t, T, :.
	text string
	// s and y.
	re       *sedRegex
	repl     []sedReplPart
	global   bool
	nth      int
	print    int // s///p count (GNU allows p more than once)
	wfile    string
	ySrc     []byte
	yDst     []byte
	exitCode int
	jump     int // b/t/T: index to go to (-1: end of script); '{': index past the block
	// range state
	inRange  bool
	rangeEnd int64
	closed   bool // a range whose first address is a line number started (it starts once)
}

type sedReplPart struct {
	lit   string
	group int  // -1: literal
	conv  byte // 'U', 'L', 'u', 'l', 'E' (case conversion starting here), 0 none
}

// sedError is a script error as GNU words it.
type sedError struct {
	expr  int
	pos   int
	msg   string
	plain bool // GNU prints the message alone
}

func (e *sedError) Error() string {
	if e.plain {
		return e.msg
	}
	return fmt.Sprintf("-e expression #%d, char %d: %s", e.expr, e.pos, e.msg)
}

type sedParser struct {
	src  string
	i    int
	ere  bool
	cmds []*sedCmd
	// blocks holds the indexes of open '{'.
	blocks []int
	labels map[string]int
	// chunkEnds are the offsets where each -e chunk ends (a, i, c text stops there).
	chunkEnds []int
}

// parseSed parses a script (several -e chunks joined by newlines).
func parseSed(chunks []string, ere bool) ([]*sedCmd, error) {
	p := &sedParser{ere: ere, labels: map[string]int{}}
	for _, c := range chunks {
		p.src += c + "\n"
		p.chunkEnds = append(p.chunkEnds, len(p.src)-1)
	}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.cmds, nil
}

func (p *sedParser) errf(format string, args ...any) error {
	expr := 1
	pos := p.i
	start := 0
	for k, e := range p.chunkEnds {
		if p.i <= e {
			expr = k + 1
			pos = p.i - start
			break
		}
		start = e + 1
	}
	return &sedError{expr: expr, pos: pos, msg: fmt.Sprintf(format, args...)}
}

func (p *sedParser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *sedParser) skipSpace() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

func (p *sedParser) parse() error {
	var pendingJumps []*sedCmd
	for {
		// Skip separators.
		for p.i < len(p.src) && strings.IndexByte(" \t\n;", p.src[p.i]) >= 0 {
			p.i++
		}
		if p.i >= len(p.src) {
			break
		}
		if p.peek() == '#' {
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
			continue
		}
		cmd := &sedCmd{jump: -1}
		if err := p.addresses(cmd); err != nil {
			return err
		}
		p.skipSpace()
		for p.peek() == '!' {
			cmd.negate = true
			p.i++
			p.skipSpace()
		}
		if p.i >= len(p.src) || p.peek() == '\n' || p.peek() == ';' {
			return p.errf("missing command")
		}
		cmd.name = p.src[p.i]
		p.i++
		if cmd.a1.kind == addrZero && cmd.a2.kind != addrRegex {
			return p.errf("invalid usage of line address 0")
		}
		switch cmd.name {
		case '{':
			p.blocks = append(p.blocks, len(p.cmds))
		case '}':
			if cmd.a1.kind != addrNone || cmd.negate {
				return p.errf("} doesn't want any addresses")
			}
			if len(p.blocks) == 0 {
				return p.errf("unexpected `}'")
			}
			open := p.blocks[len(p.blocks)-1]
			p.blocks = p.blocks[:len(p.blocks)-1]
			p.cmds[open].jump = len(p.cmds) + 1
			if err := p.endOfCommand(); err != nil {
				return err
			}
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'l':
			if err := p.endOfCommand(); err != nil {
				return err
			}
		case 'q', 'Q':
			if cmd.a2.kind != addrNone {
				return p.errf("command only uses one address")
			}
			p.skipSpace()
			start := p.i
			for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
				p.i++
			}
			if p.i > start {
				cmd.exitCode, _ = strconv.Atoi(p.src[start:p.i])
			}
			if err := p.endOfCommand(); err != nil {
				return err
			}
		case 'a', 'i', 'c':
			cmd.text = p.readText()
		case ':':
			if cmd.a1.kind != addrNone {
				return p.errf(": doesn't want any addresses")
			}
			label := p.readLabel()
			if label == "" {
				return p.errf("\":\" lacks a label")
			}
			p.labels[label] = len(p.cmds)
		case 'b', 't', 'T':
			cmd.text = p.readLabel()
			pendingJumps = append(pendingJumps, cmd)
		case 'r', 'R', 'w', 'W':
			p.skipSpace()
			cmd.text = p.readToEOL()
			if cmd.text == "" {
				return p.errf("missing filename in r/R/w/W commands")
			}
		case 's':
			if err := p.substitute(cmd); err != nil {
				return err
			}
		case 'y':
			if err := p.transliterate(cmd); err != nil {
				return err
			}
		case 'e':
			return p.errf("the e command (run a shell command) is not offered")
		default:
			return p.errf("unknown command: `%c'", cmd.name)
		}
		p.cmds = append(p.cmds, cmd)
	}
	if len(p.blocks) > 0 {
		return &sedError{expr: 1, msg: "unmatched `{'"}
	}
	for _, c := range pendingJumps {
		if c.text == "" {
			continue
		}
		idx, ok := p.labels[c.text]
		if !ok {
			return &sedError{msg: fmt.Sprintf("can't find label for jump to `%s'", c.text), plain: true}
		}
		c.jump = idx
	}
	return nil
}

// endOfCommand accepts spaces then ';', '\n', '}', '#' or the end.
func (p *sedParser) endOfCommand() error {
	p.skipSpace()
	switch p.peek() {
	case 0, ';', '\n', '}', '#':
		return nil
	}
	p.i++
	return p.errf("extra characters after command")
}

func (p *sedParser) readLabel() string {
	p.skipSpace()
	start := p.i
	for p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != ';' {
		p.i++
	}
	return strings.TrimRight(p.src[start:p.i], " \t")
}

func (p *sedParser) readToEOL() string {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] != '\n' {
		p.i++
	}
	return p.src[start:p.i]
}

// readText reads the text of a, i or c: "a\" then lines ending in "\" continue, or GNU's
// one-line "a text".
func (p *sedParser) readText() string {
	p.skipSpace()
	if p.peek() == '\\' {
		p.i++
		p.skipSpace()
		if p.peek() == '\n' {
			p.i++
		}
	}
	if p.i >= len(p.src) {
		return ""
	}
	var sb strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '\n' {
			p.i++
			break
		}
		if c == '\\' && p.i+1 < len(p.src) {
			p.i++
			sb.WriteByte(p.src[p.i])
			p.i++
			continue
		}
		sb.WriteByte(c)
		p.i++
	}
	return sb.String() + "\n"
}

func (p *sedParser) addresses(cmd *sedCmd) error {
	a, ok, err := p.address(false)
	if err != nil || !ok {
		return err
	}
	cmd.a1 = a
	p.skipSpace()
	if p.peek() == ',' {
		p.i++
		p.skipSpace()
		a2, ok, err := p.address(true)
		if err != nil {
			return err
		}
		if !ok {
			p.i++
			return p.errf("unexpected `,'")
		}
		cmd.a2 = a2
	}
	return nil
}

func (p *sedParser) number() (int64, bool) {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	if p.i == start {
		return 0, false
	}
	n, err := strconv.ParseInt(p.src[start:p.i], 10, 64)
	if err != nil {
		n = 1<<62 - 1
	}
	return n, true
}

func (p *sedParser) address(second bool) (sedAddr, bool, error) {
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		n, _ := p.number()
		if p.peek() == '~' {
			p.i++
			step, _ := p.number()
			return sedAddr{kind: addrStep, n: n, step: step}, true, nil
		}
		if n == 0 && !second {
			return sedAddr{kind: addrZero}, true, nil
		}
		if n == 0 {
			return sedAddr{}, false, p.errf("invalid usage of line address 0")
		}
		return sedAddr{kind: addrLine, n: n}, true, nil
	case c == '$':
		p.i++
		return sedAddr{kind: addrLast}, true, nil
	case second && (c == '+' || c == '~'):
		p.i++
		n, ok := p.number()
		if !ok {
			return sedAddr{}, false, p.errf("expected newer version of sed")
		}
		if c == '+' {
			return sedAddr{kind: addrPlus, n: n}, true, nil
		}
		return sedAddr{kind: addrMulti, n: n}, true, nil
	case c == '/' || c == '\\':
		p.i++
		delim := byte('/')
		if c == '\\' {
			if p.i >= len(p.src) {
				return sedAddr{}, false, p.errf("unexpected end of file")
			}
			delim = p.src[p.i]
			p.i++
		}
		pat, err := p.delimited(delim, true)
		if err != nil {
			return sedAddr{}, false, p.errf("unterminated address regex")
		}
		flags := ""
		for p.peek() == 'I' || p.peek() == 'M' {
			flags += string(p.peek())
			p.i++
		}
		re, err := p.compile(pat, flags)
		if err != nil {
			return sedAddr{}, false, err
		}
		return sedAddr{kind: addrRegex, re: re}, true, nil
	}
	return sedAddr{}, false, nil
}

// delimited reads up to the unescaped delim; "\delim" becomes delim (for a regexp, kept
// escaped when delim is special), "\n" stays for the regexp translator.
func (p *sedParser) delimited(delim byte, regex bool) (string, error) {
	var sb strings.Builder
	inBracket := false
	for p.i < len(p.src) {
		c := p.src[p.i]
		if regex && c == '[' && !inBracket {
			// A bracket expression may hold the delimiter unescaped.
			inBracket = true
			sb.WriteByte(c)
			p.i++
			if p.peek() == '^' {
				sb.WriteByte('^')
				p.i++
			}
			if p.peek() == ']' {
				sb.WriteByte(']')
				p.i++
			}
			continue
		}
		if inBracket {
			if c == '[' && p.i+1 < len(p.src) && strings.IndexByte(":.=", p.src[p.i+1]) >= 0 {
				end := strings.Index(p.src[p.i+2:], string(p.src[p.i+1])+"]")
				if end >= 0 {
					sb.WriteString(p.src[p.i : p.i+2+end+2])
					p.i += 2 + end + 2
					continue
				}
			}
			if c == ']' {
				inBracket = false
			}
			if c == '\n' && delim != '\n' {
				return "", fmt.Errorf("unterminated")
			}
			sb.WriteByte(c)
			p.i++
			continue
		}
		if c == delim {
			p.i++
			return sb.String(), nil
		}
		if c == '\n' && !regex {
			// A newline in a replacement must be escaped.
			return "", fmt.Errorf("unterminated")
		}
		if c == '\n' {
			return "", fmt.Errorf("unterminated")
		}
		if c == '\\' && p.i+1 < len(p.src) {
			n := p.src[p.i+1]
			p.i += 2
			switch {
			case n == delim && delim != '\\':
				if regex && strings.IndexByte(`.*[]^$+?(){}|`, delim) >= 0 {
					sb.WriteByte('\\')
				}
				sb.WriteByte(delim)
			case n == '\n':
				if regex {
					sb.WriteString(`\n`)
				} else {
					sb.WriteString("\\\n")
				}
			default:
				sb.WriteByte('\\')
				sb.WriteByte(n)
			}
			continue
		}
		sb.WriteByte(c)
		p.i++
	}
	return "", fmt.Errorf("unterminated")
}

func (p *sedParser) compile(pat, flags string) (*sedRegex, error) {
	if pat == "" {
		return &sedRegex{}, nil // the last regexp used
	}
	t, err := posixre.Translate(pat, posixre.Flags{ERE: p.ere, Sed: true})
	if err != nil {
		return nil, p.errf("%s", err)
	}
	prefix := "(?s"
	if strings.Contains(flags, "I") {
		prefix += "i"
	}
	if strings.Contains(flags, "M") {
		prefix += "m"
	}
	re, err := regexp.Compile(prefix + ")" + t)
	if err != nil {
		return nil, p.errf("%s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	re.Longest()
	return &sedRegex{re: re}, nil
}

func (p *sedParser) substitute(cmd *sedCmd) error {
	if p.i >= len(p.src) || p.peek() == '\n' || p.peek() == '\\' {
		return p.errf("unterminated `s' command")
	}
	delim := p.src[p.i]
	p.i++
	pat, err := p.delimited(delim, true)
	if err != nil {
		return p.errf("unterminated `s' command")
	}
	repl, err := p.delimited(delim, false)
	if err != nil {
		return p.errf("unterminated `s' command")
	}
	flags := ""
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == 'g':
			cmd.global = true
		case c == 'p':
			cmd.print++
		case c == 'i' || c == 'I':
			flags += "I"
		case c == 'm' || c == 'M':
			flags += "M"
		case c >= '0' && c <= '9':
			n, _ := p.number()
			if n == 0 {
				return p.errf("number option to `s' command may not be zero")
			}
			cmd.nth = int(n)
			continue
		case c == 'w':
			p.i++
			p.skipSpace()
			cmd.wfile = p.readToEOL()
			if cmd.wfile == "" {
				return p.errf("missing filename in r/R/w/W commands")
			}
			continue
		case c == 'e':
			return p.errf("the e flag (run a shell command) is not offered")
		default:
			goto done
		}
		p.i++
	}
done:
	if err := p.endOfCommand(); err != nil {
		return &sedError{expr: err.(*sedError).expr, pos: err.(*sedError).pos, msg: "unknown option to `s'"}
	}
	cmd.re, err = p.compile(pat, flags)
	if err != nil {
		return err
	}
	groups := -1
	if cmd.re.re != nil {
		groups = cmd.re.re.NumSubexp()
	}
	cmd.repl, err = parseReplacement(repl, groups)
	if err != nil {
		return p.errf("%s", err.Error())
	}
	return nil
}

// parseReplacement reads the replacement of s///: & the match, \1…\9 groups, \n newline,
// \t tab, \L \U \l \u \E case conversion, \x the character x.
func parseReplacement(s string, groups int) ([]sedReplPart, error) {
	var parts []sedReplPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, sedReplPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			flush()
			parts = append(parts, sedReplPart{group: 0})
		case c == '\\' && i+1 < len(s):
			i++
			n := s[i]
			switch {
			case n >= '0' && n <= '9':
				g := int(n - '0')
				if groups >= 0 && g > groups {
					return nil, fmt.Errorf("invalid reference \\%c on `s' command's RHS", n)
				}
				flush()
				parts = append(parts, sedReplPart{group: g})
			case n == 'n':
				lit.WriteByte('\n')
			case n == 't':
				lit.WriteByte('\t')
			case n == 'r':
				lit.WriteByte('\r')
			case n == 'f':
				lit.WriteByte('\f')
			case n == 'v':
				lit.WriteByte('\v')
			case n == 'a':
				lit.WriteByte('\a')
			case n == 'L' || n == 'U' || n == 'l' || n == 'u' || n == 'E':
				flush()
				parts = append(parts, sedReplPart{group: -1, conv: n})
			default:
				lit.WriteByte(n)
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

func (p *sedParser) transliterate(cmd *sedCmd) error {
	if p.i >= len(p.src) {
		return p.errf("unterminated `y' command")
	}
	delim := p.src[p.i]
	p.i++
	read := func() ([]byte, error) {
		var out []byte
		for p.i < len(p.src) {
			c := p.src[p.i]
			p.i++
			if c == delim {
				return out, nil
			}
			if c == '\\' && p.i < len(p.src) {
				n := p.src[p.i]
				p.i++
				switch n {
				case 'n':
					out = append(out, '\n')
				case 't':
					out = append(out, '\t')
				case '\\':
					out = append(out, '\\')
				default:
					if n == delim {
						out = append(out, n)
					} else {
						out = append(out, '\\', n)
					}
				}
				continue
			}
			out = append(out, c)
		}
		return nil, fmt.Errorf("unterminated")
	}
	src, err := read()
	if err != nil {
		return p.errf("unterminated `y' command")
	}
	dst, err := read()
	if err != nil {
		return p.errf("unterminated `y' command")
	}
	if len(src) != len(dst) {
		return p.errf("strings for `y' command are different lengths")
	}
	cmd.ySrc, cmd.yDst = src, dst
	return p.endOfCommand()
}
