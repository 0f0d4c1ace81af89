package commands

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// findNode is one node of a find expression.
type findNode struct {
	op       string // "and", "or", "not", or a primary such as "-name"
	kids     []*findNode
	arg      string
	num      int64
	cmp      byte // '+', '-' or 0 for -size/-mtime style numbers
	unit     int64
	re       *regexp.Regexp
	t        time.Time
	execArgs []string
	batch    bool // -exec … {} +
	batched  []string
}

type findExpr struct {
	root               *findNode
	maxDepth, minDepth int
	depthFirst         bool
	hasAction          bool
	batches            []*findNode
	deletes            bool
}

// findError is a usage error of find's expression; its text is GNU's.
type findError struct{ msg string }

func (e *findError) Error() string { return e.msg }

type findParser struct {
	args []string
	i    int
	e    *findExpr
	stat func(string) (fs.FileInfo, error)
}

// parseFind parses find's expression (the arguments after the starting points). stat
// resolves -newer's file.
func parseFind(args []string, stat func(string) (fs.FileInfo, error)) (*findExpr, error) {
	p := &findParser{args: args, e: &findExpr{maxDepth: -1}, stat: stat}
	if len(args) == 0 {
		p.e.root = &findNode{op: "-true"}
		return p.e, nil
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.args) {
		if p.args[p.i] == ")" {
			return nil, &findError{"you have too many ')'"}
		}
		msg := fmt.Sprintf("paths must precede expression: `%s'", p.args[p.i])
		if p.i >= 2 && strings.HasSuffix(p.args[p.i-2], "name") {
			msg += fmt.Sprintf("\nfind: possible unquoted pattern after predicate `%s'?", p.args[p.i-2])
		}
		return nil, &findError{msg}
	}
	p.e.root = n
	return p.e, nil
}

func (p *findParser) or() (*findNode, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.i < len(p.args) && (p.args[p.i] == "-o" || p.args[p.i] == "-or") {
		p.i++
		if p.i >= len(p.args) {
			return nil, &findError{"invalid expression; you have used a binary operator '-o' with nothing after it."}
		}
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = &findNode{op: "or", kids: []*findNode{left, right}}
	}
	if p.i < len(p.args) && p.args[p.i] == "," {
		p.i++
		right, err := p.or()
		if err != nil {
			return nil, err
		}
		left = &findNode{op: "comma", kids: []*findNode{left, right}}
	}
	return left, nil
}

func (p *findParser) and() (*findNode, error) {
	left, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.i < len(p.args) {
		a := p.args[p.i]
		if a == "-o" || a == "-or" || a == ")" || a == "," {
			break
		}
		if a == "-a" || a == "-and" {
			p.i++
			if p.i >= len(p.args) {
				return nil, &findError{"invalid expression; you have used a binary operator '" + a + "' with nothing after it."}
			}
		}
		right, err := p.not()
		if err != nil {
			return nil, err
		}
		left = &findNode{op: "and", kids: []*findNode{left, right}}
	}
	return left, nil
}

func (p *findParser) not() (*findNode, error) {
	if p.i < len(p.args) && (p.args[p.i] == "!" || p.args[p.i] == "-not") {
		p.i++
		if p.i >= len(p.args) {
			return nil, &findError{"expected an expression after '" + p.args[p.i-1] + "'"}
		}
		k, err := p.not()
		if err != nil {
			return nil, err
		}
		return &findNode{op: "not", kids: []*findNode{k}}, nil
	}
	return p.primary()
}

func (p *findParser) next(name string) (string, error) {
	if p.i >= len(p.args) {
		return "", &findError{fmt.Sprintf("missing argument to `%s'", name)}
	}
	v := p.args[p.i]
	p.i++
	return v, nil
}

func (p *findParser) primary() (*findNode, error) {
	if p.i >= len(p.args) {
		return nil, &findError{"invalid expression; I was expecting to find a ')' somewhere but did not see one."}
	}
	a := p.args[p.i]
	p.i++
	switch a {
	case "(":
		if p.i < len(p.args) && p.args[p.i] == ")" {
			return nil, &findError{"invalid expression; empty parentheses are not allowed."}
		}
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.i >= len(p.args) || p.args[p.i] != ")" {
			return nil, &findError{"invalid expression; I was expecting to find a ')' somewhere but did not see one."}
		}
		p.i++
		return n, nil
	case ")":
		return nil, &findError{"you have too many ')'"}
	case "-o", "-or", "-a", "-and", ",":
		return nil, &findError{fmt.Sprintf("invalid expression; you have used a binary operator '%s' with nothing before it.", a)}
	case "-true", "-false", "-empty", "-prune":
		return &findNode{op: a}, nil
	case "-quit":
		p.e.hasAction = true
		return &findNode{op: a}, nil
	case "-print", "-print0", "-delete", "-ls":
		p.e.hasAction = true
		if a == "-delete" {
			p.e.depthFirst = true
			p.e.deletes = true
		}
		return &findNode{op: a}, nil
	case "-depth", "-d":
		p.e.depthFirst = true
		return &findNode{op: "-true"}, nil
	case "-maxdepth", "-mindepth":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, &findError{fmt.Sprintf("Expected a positive decimal integer argument to %s, but got '%s'", a, v)}
		}
		if a == "-maxdepth" {
			p.e.maxDepth = n
		} else {
			p.e.minDepth = n
		}
		return &findNode{op: "-true"}, nil
	case "-noleaf", "-xdev", "-mount", "-follow", "-nowarn", "-warn", "-ignore_readdir_race", "-daystart":
		return &findNode{op: "-true"}, nil
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-lname", "-ilname":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		return &findNode{op: a, arg: v}, nil
	case "-regex", "-iregex":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		// find's default regex type is emacs, close to a POSIX BRE with \| \( \); the
		// expression must match the whole path.
		src := emacsToRE2(v)
		if a == "-iregex" {
			src = "(?i)" + src
		}
		re, err := regexp.Compile("^(?:" + src + ")$")
		if err != nil {
			return nil, &findError{fmt.Sprintf("Invalid regular expression %s", quote(v))}
		}
		return &findNode{op: "-regex", re: re}, nil
	case "-type", "-xtype":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		for _, t := range strings.Split(v, ",") {
			if len(t) != 1 || !strings.Contains("bcdpflsD", t) {
				return nil, &findError{fmt.Sprintf("Unknown argument to %s: %s", a, v)}
			}
		}
		return &findNode{op: "-type", arg: v}, nil
	case "-newer", "-anewer", "-cnewer":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		fi, err := p.stat(v)
		if err != nil {
			return nil, &findError{fmt.Sprintf("%s: %s", quote(v), errText(err))}
		}
		return &findNode{op: "-newer", t: fi.ModTime()}, nil
	case "-size":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		n := &findNode{op: "-size", unit: 512}
		s := v
		if s != "" && (s[0] == '+' || s[0] == '-') {
			n.cmp, s = s[0], s[1:]
		}
		if s != "" {
			switch s[len(s)-1] {
			case 'c':
				n.unit, s = 1, s[:len(s)-1]
			case 'w':
				n.unit, s = 2, s[:len(s)-1]
			case 'b':
				n.unit, s = 512, s[:len(s)-1]
			case 'k':
				n.unit, s = 1024, s[:len(s)-1]
			case 'M':
				n.unit, s = 1<<20, s[:len(s)-1]
			case 'G':
				n.unit, s = 1<<30, s[:len(s)-1]
			}
		}
		if n.num, err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, &findError{fmt.Sprintf("invalid -size type `%s'", v)}
		}
		return n, nil
	case "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		n := &findNode{op: a}
		s := v
		if s != "" && (s[0] == '+' || s[0] == '-') {
			n.cmp, s = s[0], s[1:]
		}
		if n.num, err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, &findError{fmt.Sprintf("invalid argument `%s' to `%s'", v, a)}
		}
		return n, nil
	case "-printf", "-fprint":
		v, err := p.next(a)
		if err != nil {
			return nil, err
		}
		if a == "-fprint" {
			return nil, &findError{"-fprint is not offered; redirect -print's output instead"}
		}
		p.e.hasAction = true
		return &findNode{op: a, arg: v}, nil
	case "-exec", "-execdir", "-ok", "-okdir":
		p.e.hasAction = true
		n := &findNode{op: "-exec"}
		for {
			if p.i >= len(p.args) {
				return nil, &findError{fmt.Sprintf("missing argument to `%s'", a)}
			}
			v := p.args[p.i]
			p.i++
			if v == ";" {
				break
			}
			if v == "+" && len(n.execArgs) > 0 && n.execArgs[len(n.execArgs)-1] == "{}" {
				n.batch = true
				n.execArgs = n.execArgs[:len(n.execArgs)-1]
				p.e.batches = append(p.e.batches, n)
				break
			}
			n.execArgs = append(n.execArgs, v)
		}
		if len(n.execArgs) == 0 {
			return nil, &findError{fmt.Sprintf("missing argument to `%s'", a)}
		}
		if a == "-execdir" || a == "-okdir" {
			n.arg = "dir"
		}
		return n, nil
	}
	if strings.HasPrefix(a, "-") && len(a) > 1 {
		return nil, &findError{fmt.Sprintf("unknown predicate `%s'", a)}
	}
	msg := fmt.Sprintf("paths must precede expression: `%s'", a)
	if p.i >= 3 && strings.HasSuffix(p.args[p.i-3], "name") {
		msg += fmt.Sprintf("\nfind: possible unquoted pattern after predicate `%s'?", p.args[p.i-3])
	}
	return nil, &findError{msg}
}

// emacsToRE2 turns find's default (emacs) regexp into RE2: \( \) \| are groups and
// alternation, ( ) | { } + ? are literal except + and ? which are operators in emacs.
func emacsToRE2(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case '(', ')', '|':
				sb.WriteByte(s[i])
			default:
				sb.WriteString(regexp.QuoteMeta(string(s[i])))
			}
			continue
		}
		switch c {
		case '(', ')', '|', '{', '}':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

type findRun struct {
	c      *cmdIO
	e      *findExpr
	status int
	quit   bool
	now    time.Time
}

// runFind is find: starting points, then -name -iname -path -ipath -regex -type -maxdepth
// -mindepth -prune -print -print0 -printf -empty -newer -size -mtime -mmin -delete, ! -not
// -a -o ( ) and -exec … ; / {} + through Env.Exec. Directories are walked in bytewise name
// order (GNU find walks in the order the disk gives).
func runFind(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "find")
	rest := args[1:]
	for len(rest) > 0 && (rest[0] == "-L" || rest[0] == "-H" || rest[0] == "-P") {
		rest = rest[1:]
	}
	var starts []string
	for len(rest) > 0 {
		a := rest[0]
		if (strings.HasPrefix(a, "-") && len(a) > 1) || a == "(" || a == "!" || a == ")" {
			break
		}
		starts = append(starts, a)
		rest = rest[1:]
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	e, err := parseFind(rest, func(name string) (fs.FileInfo, error) {
		abs := env.Abs(name)
		fi, err := env.FS.Stat(ctx, abs)
		if err != nil {
			return nil, c.classify(abs, err)
		}
		return fi, nil
	})
	if err != nil {
		c.errorf("%s", err)
		return 1
	}
	r := &findRun{c: c, e: e, now: time.Now()}
	if env.Now != nil {
		r.now = env.Now()
	}
	for _, s := range starts {
		if r.quit || c.stopped() {
			break
		}
		abs := env.Abs(s)
		fi, err := env.FS.Stat(ctx, abs)
		if err != nil {
			c.errorf("%s: %s", quote(s), errText(c.classify(abs, err)))
			r.status = 1
			continue
		}
		r.visit(abs, s, fi, 0)
	}
	for _, b := range e.batches {
		r.flushBatch(b)
	}
	if ctx.Err() != nil {
		return 130
	}
	return c.done(r.status)
}

func (r *findRun) visit(abs, shown string, fi fs.FileInfo, depth int) {
	c := r.c
	if r.quit || c.stopped() {
		return
	}
	inRange := depth >= r.e.minDepth && (r.e.maxDepth < 0 || depth <= r.e.maxDepth)
	prune := false
	if !r.e.depthFirst && inRange {
		prune = r.apply(abs, shown, fi, depth)
	}
	if fi.IsDir() && !prune && (r.e.maxDepth < 0 || depth < r.e.maxDepth) {
		entries, err := c.env.FS.ReadDir(c.ctx, abs)
		if err != nil {
			c.errorf("%s: %s", quote(shown), errText(err))
			r.status = 1
		}
		for _, en := range entries {
			info, err := en.Info()
			if err != nil {
				continue
			}
			child := shown + "/" + en.Name()
			if strings.HasSuffix(shown, "/") {
				child = shown + en.Name()
			}
			r.visit(path.Join(abs, en.Name()), child, info, depth+1)
			if r.quit {
				return
			}
		}
	}
	if r.e.depthFirst && inRange {
		r.apply(abs, shown, fi, depth)
	}
}

// apply evaluates the expression on one file; it reports whether -prune matched.
func (r *findRun) apply(abs, shown string, fi fs.FileInfo, depth int) bool {
	f := &findFile{abs: abs, shown: shown, fi: fi, depth: depth}
	ok := r.eval(r.e.root, f)
	if ok && !r.e.hasAction {
		r.c.writeString(shown + "\n")
	}
	return f.pruned
}

type findFile struct {
	abs, shown string
	fi         fs.FileInfo
	depth      int
	pruned     bool
}

func (r *findRun) eval(n *findNode, f *findFile) bool {
	c := r.c
	switch n.op {
	case "and":
		return r.eval(n.kids[0], f) && r.eval(n.kids[1], f)
	case "or":
		return r.eval(n.kids[0], f) || r.eval(n.kids[1], f)
	case "comma":
		r.eval(n.kids[0], f)
		return r.eval(n.kids[1], f)
	case "not":
		return !r.eval(n.kids[0], f)
	case "-true":
		return true
	case "-false":
		return false
	case "-quit":
		r.quit = true
		return true
	case "-prune":
		if !r.e.depthFirst {
			f.pruned = true
		}
		return true
	case "-print":
		c.writeString(f.shown + "\n")
		return true
	case "-print0":
		c.writeString(f.shown + "\x00")
		return true
	case "-ls":
		c.printf("%s\n", f.shown)
		return true
	case "-printf":
		c.writeString(r.printf(n.arg, f))
		return true
	case "-delete":
		if f.abs == "/" || f.shown == "." {
			return true
		}
		if err := c.env.FS.Remove(c.ctx, f.abs, false); err != nil {
			c.errorf("cannot delete %s: %s", quote(f.shown), errText(err))
			r.status = 1
			return false
		}
		return true
	case "-name", "-iname":
		base := path.Base(f.shown)
		if f.depth == 0 {
			base = baseName(f.shown)
		}
		if n.op == "-iname" {
			return fnmatch(strings.ToLower(n.arg), strings.ToLower(base), false)
		}
		return fnmatch(n.arg, base, false)
	case "-path", "-wholename":
		return fnmatch(n.arg, f.shown, false)
	case "-ipath", "-iwholename":
		return fnmatch(strings.ToLower(n.arg), strings.ToLower(f.shown), false)
	case "-lname", "-ilname":
		return false
	case "-regex":
		return n.re.MatchString(f.shown)
	case "-type":
		for _, t := range strings.Split(n.arg, ",") {
			if (t == "d" && f.fi.IsDir()) || (t == "f" && f.fi.Mode().IsRegular()) {
				return true
			}
		}
		return false
	case "-empty":
		if f.fi.IsDir() {
			entries, err := c.env.FS.ReadDir(c.ctx, f.abs)
			return err == nil && len(entries) == 0
		}
		return f.fi.Size() == 0
	case "-newer":
		return f.fi.ModTime().After(n.t)
	case "-size":
		size := f.fi.Size()
		if f.fi.IsDir() {
			size = dirSize
		}
		units := (size + n.unit - 1) / n.unit
		switch n.cmp {
		case '+':
			return units > n.num
		case '-':
			return units < n.num
		}
		return units == n.num
	case "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin":
		unit := 24 * time.Hour
		if strings.HasSuffix(n.op, "min") {
			unit = time.Minute
		}
		age := int64(r.now.Sub(f.fi.ModTime()) / unit)
		if strings.HasSuffix(n.op, "min") {
			age = int64((r.now.Sub(f.fi.ModTime()) + unit - 1) / unit)
		}
		switch n.cmp {
		case '+':
			return age > n.num
		case '-':
			return age < n.num
		}
		return age == n.num
	case "-exec":
		if n.batch {
			n.batched = append(n.batched, f.shown)
			if len(n.batched) >= 4096 {
				r.flushBatch(n)
			}
			return true
		}
		argv := make([]string, len(n.execArgs))
		for i, a := range n.execArgs {
			argv[i] = strings.ReplaceAll(a, "{}", f.shown)
		}
		return r.exec(argv) == 0
	}
	return false
}

func (r *findRun) exec(argv []string) int {
	c := r.c
	c.flush()
	if c.env.Exec == nil {
		c.errorf("%s: cannot run commands here", argv[0])
		r.status = 1
		return 126
	}
	stdout := c.env.Stdout
	if stdout == nil {
		stdout = discard{}
	}
	st := c.env.Exec(c.ctx, argv, nil, stdout, c.env.Stderr)
	return st
}

func (r *findRun) flushBatch(n *findNode) {
	if len(n.batched) == 0 {
		return
	}
	argv := append(append([]string(nil), n.execArgs...), n.batched...)
	n.batched = nil
	if r.exec(argv) != 0 {
		r.status = 1
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// printf expands find's -printf directives %p %P %f %h %s %d %m %M %y %Y %t %T@ %%, and
// the escapes \n \t \0 \\.
func (r *findRun) printf(format string, f *findFile) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch == '\\' && i+1 < len(format) {
			i++
			switch format[i] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case '0':
				sb.WriteByte(0)
			case '\\':
				sb.WriteByte('\\')
			default:
				sb.WriteByte('\\')
				sb.WriteByte(format[i])
			}
			continue
		}
		if ch != '%' || i+1 >= len(format) {
			sb.WriteByte(ch)
			continue
		}
		i++
		switch format[i] {
		case 'p':
			sb.WriteString(f.shown)
		case 'P':
			rel := f.shown
			if f.depth == 0 {
				rel = ""
			} else if k := strings.IndexByte(f.shown, '/'); k >= 0 {
				// The starting point is the part before the first component below it.
				parts := strings.Split(f.shown, "/")
				rel = strings.Join(parts[len(parts)-f.depth:], "/")
			}
			sb.WriteString(rel)
		case 'f':
			sb.WriteString(baseName(f.shown))
		case 'h':
			sb.WriteString(dirName(f.shown))
		case 's':
			if f.fi.IsDir() {
				sb.WriteString(strconv.Itoa(dirSize))
			} else {
				sb.WriteString(strconv.FormatInt(f.fi.Size(), 10))
			}
		case 'd':
			sb.WriteString(strconv.Itoa(f.depth))
		case 'm':
			sb.WriteString(strconv.FormatUint(uint64(f.fi.Mode().Perm()), 8))
		case 'M':
			if f.fi.IsDir() {
				sb.WriteString("drwxr-xr-x")
			} else {
				sb.WriteString("-rw-r--r--")
			}
		case 'y', 'Y':
			if f.fi.IsDir() {
				sb.WriteByte('d')
			} else {
				sb.WriteByte('f')
			}
		case 'u', 'g':
			sb.WriteString(Owner)
		case 'T', 'A', 'C':
			if i+1 < len(format) && format[i+1] == '@' {
				i++
				t := f.fi.ModTime()
				fmt.Fprintf(&sb, "%d.%010d", t.Unix(), t.Nanosecond()*10)
			} else if i+1 < len(format) {
				i++
				sb.WriteString(strftime1(format[i], f.fi.ModTime().UTC()))
			}
		case 't':
			sb.WriteString(f.fi.ModTime().UTC().Format("Mon Jan _2 15:04:05.0000000000 2006"))
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteByte('%')
			sb.WriteByte(format[i])
		}
	}
	return sb.String()
}

func strftime1(c byte, t time.Time) string {
	switch c {
	case 'Y':
		return t.Format("2006")
	case 'm':
		return t.Format("01")
	case 'd':
		return t.Format("02")
	case 'H':
		return t.Format("15")
	case 'M':
		return t.Format("04")
	case 'S':
		return t.Format("05") + ".0000000000"
	case 'F':
		return t.Format("2006-01-02")
	case 'T':
		return t.Format("15:04:05") + ".0000000000"
	case '+':
		return t.Format("2006-01-02+15:04:05") + ".0000000000"
	}
	return ""
}
