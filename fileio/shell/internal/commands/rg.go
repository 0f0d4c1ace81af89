package commands

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// rgTypes are ripgrep's file types (rg --type-list) that agents name.
var rgTypes = map[string][]string{
	"asm": {"*.S", "*.asm", "*.s"}, "c": {"*.[chH]", "*.[chH].in", "*.cats"}, "cmake": {"*.cmake", "CMakeLists.txt"},
	"config": {"*.cfg", "*.conf", "*.config", "*.ini"},
	"cpp":    {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
	"csharp": {"*.cs"}, "css": {"*.css", "*.scss"}, "csv": {"*.csv"}, "dart": {"*.dart"}, "docker": {"*Dockerfile*"},
	"elixir": {"*.eex", "*.ex", "*.exs"}, "fsharp": {"*.fs", "*.fsi", "*.fsx"}, "go": {"*.go"}, "gradle": {"*.gradle"},
	"h": {"*.h", "*.hpp"}, "haskell": {"*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"}, "html": {"*.ejs", "*.htm", "*.html"},
	"java": {"*.java", "*.jsp", "*.jspx", "*.properties"}, "js": {"*.js", "*.jsx", "*.vue"}, "json": {"*.json", "composer.lock"},
	"kotlin": {"*.kt", "*.kts"}, "log": {"*.log"}, "lua": {"*.lua"},
	"make":     {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
	"markdown": {"*.markdown", "*.md", "*.mdown", "*.mkdn"}, "md": {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"nix": {"*.nix"}, "ocaml": {"*.ml", "*.mli", "*.mll", "*.mly"}, "perl": {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
	"php": {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"}, "py": {"*.py"}, "r": {"*.R", "*.Rmd", "*.Rnw", "*.r"},
	"ruby": {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"}, "rust": {"*.rs"},
	"scala": {"*.sbt", "*.scala"}, "sh": {"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh",
		".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc",
		".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile",
		"zlogin", "zlogout", "zprofile", "zshenv", "zshrc"},
	"sql": {"*.psql", "*.sql"}, "swift": {"*.swift"}, "tf": {"*.tf"}, "toml": {"*.toml", "Cargo.lock"}, "ts": {"*.ts", "*.tsx"},
	"txt": {"*.txt"}, "xml": {"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"},
	"yaml": {"*.yaml", "*.yml"}, "zig": {"*.zig"},
}

type rgOpts struct {
	patterns                                       []string
	fixed, ignoreCase, smartCase, word, lineRegexp bool
	invert, count, countMatches, filesWith         bool
	countInverted                                  bool // --count-matches -v counts the lines
	filesWithout, onlyMatching, quiet, files       bool
	lineNumbers, noLineNumbers, withName, noName   bool
	hidden, noIgnore, searchBinary, text           bool
	after, before                                  int
	maxCount                                       int64
	globs                                          []rgGlob
	types, notTypes                                []string
	nullSep, heading, noHeading, column            bool
	maxDepth                                       int
}

type rgGlob struct {
	segs     []string
	exclude  bool
	caseless bool
}

// runRg is ripgrep with the flags agents use: -n -i -S -w -x -F -v -c -l -o -q -g/--glob
// -t/-T --type --files --hidden --no-ignore -u -A -B -C -m -H -I --max-depth. Output is what rg
// prints when stdout is not a terminal, in --sort path order (ripgrep itself prints in the
// order its threads finish).
func runRg(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "rg")
	opts, operands, err := optSpec{short: "e:f:iSswxFvclLoqnNHIuaA:B:C:m:g:t:T:0.j:M:",
		long: []string{"regexp=|e", "file=|f", "ignore-case|i", "smart-case|S", "case-sensitive|s", "word-regexp|w",
			"line-regexp|x", "fixed-strings|F", "invert-match|v", "count|c", "count-matches", "files-with-matches|l",
			"files-without-match", "only-matching|o", "quiet|q", "line-number|n", "no-line-number|N", "with-filename|H",
			"no-filename|I", "unrestricted|u", "text|a", "after-context=|A", "before-context=|B", "context=|C",
			"max-count=|m", "glob=|g", "iglob=", "type=|t", "type-not=|T", "files", "hidden|.", "no-ignore", "no-ignore-vcs",
			"no-ignore-dot", "null|0", "heading", "no-heading", "color=", "colors=", "sort=", "sortr=", "sort-files",
			"max-depth=|d", "maxdepth=|d", "threads=|j", "no-messages", "max-columns=|M", "column", "no-config", "binary", "no-binary",
			"follow", "trim", "pcre2", "engine=", "vimgrep", "json", "stats", "type-list", "passthru", "multiline", "U"}}.parse(args[1:])
	if err != nil {
		var u *usageError
		if asUsage(err, &u) {
			c.errorf("%s", u.msg)
		}
		return 2
	}
	o := rgOpts{maxCount: -1, maxDepth: -1}
	var after, before, contextN int
	var afterSet, beforeSet bool
	unrestricted := 0
	for _, op := range opts {
		switch op.key {
		case "e":
			o.patterns = append(o.patterns, op.val)
		case "f":
			data, err := c.readFile(op.val)
			if err != nil {
				c.errorf("%s: %s", op.val, errText(err))
				return 2
			}
			s := strings.TrimSuffix(string(data), "\n")
			if len(data) > 0 {
				o.patterns = append(o.patterns, strings.Split(s, "\n")...)
			}
		case "i":
			o.ignoreCase, o.smartCase = true, false
		case "S":
			o.smartCase, o.ignoreCase = true, false
		case "s":
			o.ignoreCase, o.smartCase = false, false
		case "w":
			o.word, o.lineRegexp = true, false // the later of -w and -x wins
		case "x":
			o.lineRegexp, o.word = true, false
		case "F":
			o.fixed = true
		case "v":
			o.invert = true
		case "c":
			o.count, o.countMatches, o.countInverted = true, false, false // the later count flag wins
		case "count-matches":
			o.countMatches, o.countInverted, o.count = true, true, false
		case "l":
			o.filesWith = true
		case "files-without-match":
			o.filesWithout = true
		case "o":
			o.onlyMatching = true
		case "q":
			o.quiet = true
		case "n":
			o.lineNumbers, o.noLineNumbers = true, false
		case "N":
			o.noLineNumbers, o.lineNumbers = true, false
		case "H":
			o.withName, o.noName = true, false
		case "I":
			o.noName, o.withName = true, false
		case "u":
			unrestricted++
		case "a":
			o.text = true
		case "binary":
			o.searchBinary = true
		case "A", "B", "C":
			n, err := strconv.Atoi(op.val)
			if err != nil || n < 0 {
				c.errorf("invalid value %s for --context", quote(op.val))
				return 2
			}
			// ripgrep: the later of -C and -A/-B wins (-A and -B add up).
			switch op.key {
			case "A":
				afterSet, after, contextN = true, n, 0
			case "B":
				beforeSet, before, contextN = true, n, 0
			default:
				contextN, afterSet, beforeSet, after, before = n, false, false, 0, 0
			}
		case "m":
			n, err := strconv.ParseInt(op.val, 10, 64)
			if err != nil {
				c.errorf("invalid value for --max-count")
				return 2
			}
			o.maxCount = n
		case "g", "iglob":
			g := rgGlob{caseless: op.key == "iglob"}
			v := op.val
			if strings.HasPrefix(v, "!") {
				g.exclude, v = true, v[1:]
			}
			r, ok := parseIgnoreRule(v)
			if !ok {
				continue
			}
			g.segs = r.segs
			o.globs = append(o.globs, g)
		case "t", "T":
			if _, ok := rgTypes[op.val]; !ok && op.val != "all" {
				fmt.Fprintf(c.env.Stderr, "unrecognized file type: %s\n", op.val)
				return 2
			}
			if op.key == "t" {
				o.types = append(o.types, op.val)
			} else {
				o.notTypes = append(o.notTypes, op.val)
			}
		case "files":
			o.files = true
		case ".":
			o.hidden = true
		case "no-ignore", "no-ignore-vcs", "no-ignore-dot":
			o.noIgnore = true
		case "0":
			o.nullSep = true
		case "heading":
			o.heading = true
		case "no-heading":
			o.noHeading = true
		case "d":
			n, err := strconv.Atoi(op.val)
			if err != nil || n < 0 {
				c.errorf("invalid value for --max-depth")
				return 2
			}
			o.maxDepth = n
		case "column":
			o.column, o.lineNumbers = true, true
		case "type-list":
			names := make([]string, 0, len(rgTypes))
			for n := range rgTypes {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				c.printf("%s: %s\n", n, strings.Join(rgTypes[n], ", "))
			}
			return c.done(0)
		case "json", "vimgrep", "multiline", "U", "passthru", "pcre2":
			c.errorf("--%s is not supported", op.key)
			return 2
		}
	}
	if o.count && o.onlyMatching {
		o.countMatches = true // rg -c -o counts matches, not lines
	}
	o.after, o.before = contextN, contextN
	if afterSet || beforeSet {
		o.after, o.before = after, before
	}
	if unrestricted >= 1 {
		o.noIgnore = true
	}
	if unrestricted >= 2 {
		o.hidden = true
	}
	if unrestricted >= 3 {
		o.text = true
	}
	if !o.files && len(o.patterns) == 0 {
		if len(operands) == 0 {
			c.errorf("ripgrep requires at least one pattern to execute a search")
			return 2
		}
		o.patterns = []string{operands[0]}
		operands = operands[1:]
	}
	r := &rgRun{c: c, o: o}
	if !o.files {
		if !r.compile() {
			return 2
		}
	}
	implicit := len(operands) == 0
	if implicit {
		if env.Stdin != nil && !o.files {
			r.showName = o.withName
			r.stream("<stdin>", env.Stdin)
			return r.finish()
		}
		operands = []string{"."}
	}
	// Names print when more than one file may be searched (a directory, or several operands).
	r.showName = o.withName
	if !o.noName && !o.withName {
		if len(operands) > 1 {
			r.showName = true
		} else if fi, err := env.FS.Stat(ctx, env.Abs(operands[0])); err == nil && fi.IsDir() {
			r.showName = true
		}
	}
	for _, op := range operands {
		if c.stopped() || (r.matched && o.quiet) {
			break
		}
		r.operand(op, implicit)
	}
	return r.finish()
}

func asUsage(err error, u **usageError) bool {
	e, ok := err.(*usageError)
	if ok {
		*u = e
	}
	return ok
}

type rgRun struct {
	c          *cmdIO
	o          rgOpts
	m          *lineMatcher
	re2        string
	fold       bool
	showName   bool
	matched    bool
	errors     bool
	anyOut     bool
	anyHeading bool // --heading printed a file's name already
	searched   int  // files a directory walk offered for searching
	walked     bool // the working directory was walked (rg without a path)
	// candidates, when set, are the only files that may match (from Env.Search).
	candidates map[string]bool
}

func (r *rgRun) finish() int {
	c := r.c
	if c.ctx.Err() != nil {
		return 130
	}
	status := 1
	if r.matched {
		status = 0
	}
	if r.walked && r.searched == 0 && !r.matched && !r.errors && !r.o.files {
		r.errorf("No files were searched, which means ripgrep probably applied a filter you didn't expect.\nRunning with --debug will show why files are being skipped.")
		status = 2
	}
	if r.errors && !(r.matched && r.o.quiet) {
		status = 2
	}
	return c.done(status)
}

// compile builds the matcher; ripgrep's regexps are Rust's, which Go's RE2 reads the same
// way for the syntax agents use.
func (r *rgRun) compile() bool {
	o := r.o
	alts := make([]string, len(o.patterns))
	for i, p := range o.patterns {
		if o.fixed {
			alts[i] = regexp.QuoteMeta(p)
		} else {
			alts[i] = p
		}
	}
	fold := o.ignoreCase
	if o.smartCase {
		fold = true
		for _, p := range o.patterns {
			if hasUpperLiteral(p, o.fixed) {
				fold = false
			}
		}
	}
	r.fold = fold
	m, re2, err := compileMatcher(alts, fold, o.word, o.lineRegexp, false, true)
	if err != nil {
		r.c.errorf("regex parse error:\n    %s\nerror: %s", strings.Join(o.patterns, "|"), strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return false
	}
	r.m, r.re2 = m, re2
	return true
}

// hasUpperLiteral reports whether a pattern has an uppercase letter outside escapes (\S, \W
// do not count), as ripgrep's smart case decides.
func hasUpperLiteral(p string, fixed bool) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && !fixed {
			i++
			continue
		}
		if unicode.IsUpper(rune(p[i])) {
			return true
		}
	}
	return false
}

func (r *rgRun) operand(op string, implicit bool) {
	c := r.c
	if op == "-" {
		r.stream("<stdin>", c.env.Stdin)
		return
	}
	abs := c.env.Abs(op)
	fi, err := c.env.FS.Stat(c.ctx, abs)
	if err != nil {
		err = c.classify(abs, err)
		r.errorf("%s: IO error for operation on %s: %s (os error %d)", op, op, errText(err), osErrno(err))
		r.errors = true
		return
	}
	if !fi.IsDir() {
		if r.o.files {
			if r.typeOK(path.Base(abs)) && r.globOK(op, false) != -1 {
				r.printPath(op)
			}
			return
		}
		data, err := c.readPath(abs)
		if err != nil {
			c.errorf("%s: %s", op, errText(err))
			r.errors = true
			return
		}
		r.file(op, data, true)
		return
	}
	// The ignore files of the directories above the operand apply too.
	var stack ignoreStack
	if !r.o.noIgnore {
		for _, dir := range append([]string{"/"}, ancestors(path.Dir(abs))...) {
			if dir == abs {
				break
			}
			stack = stack.load(c.ctx, c.env, dir, r.names(dir))
		}
		if abs == "/" {
			stack = ignoreStack{}
		}
	}
	prefix := op
	if implicit {
		prefix = ""
	}
	r.walked = implicit // ripgrep's "No files were searched" is for a search without paths
	r.walk(abs, prefix, stack, 0)
}

// errorf prints a diagnostic as ripgrep does: without the command's name.
func (r *rgRun) errorf(format string, args ...any) {
	r.c.flush()
	if r.c.env.Stderr != nil {
		fmt.Fprintf(r.c.env.Stderr, format+"\n", args...)
	}
}

func osErrno(err error) int {
	switch err {
	case errNotDir:
		return 20
	case errIsDir:
		return 21
	}
	return 2
}

func (r *rgRun) names(dir string) map[string]bool {
	entries, err := r.c.env.FS.ReadDir(r.c.ctx, dir)
	if err != nil {
		return nil
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// walk searches the directory abs, printed with prefix ("" for the implicit "."), in
// bytewise name order.
func (r *rgRun) walk(abs, prefix string, stack ignoreStack, depth int) {
	c := r.c
	if c.stopped() || (r.matched && r.o.quiet) {
		return
	}
	entries, err := c.env.FS.ReadDir(c.ctx, abs)
	if err != nil {
		c.errorf("%s: %s", prefix, errText(err))
		r.errors = true
		return
	}
	if !r.o.noIgnore {
		names := make(map[string]bool, len(entries))
		for _, e := range entries {
			names[e.Name()] = true
		}
		stack = stack.load(c.ctx, c.env, abs, names)
	}
	var candidates map[string]bool
	if depth == 0 && c.env.Search != nil && !r.o.files && !r.o.invert && !r.o.filesWithout {
		paths, complete, err := c.env.Search.Candidates(c.ctx, abs, r.re2, false)
		if err == nil && complete {
			candidates = make(map[string]bool, len(paths))
			for _, p := range paths {
				candidates[p] = true
			}
			r.candidates = candidates
		}
	}
	for _, e := range entries {
		name := e.Name()
		child := path.Join(abs, name)
		shown := name
		if prefix != "" {
			if strings.HasSuffix(prefix, "/") {
				shown = prefix + name
			} else {
				shown = prefix + "/" + name
			}
		}
		isDir := e.IsDir()
		g := r.globOK(shown, isDir)
		if g < 0 {
			continue
		}
		if !r.o.hidden && strings.HasPrefix(name, ".") && g == 0 {
			continue
		}
		if g == 0 && !r.o.noIgnore && stack.ignored(child, isDir) {
			continue
		}
		if isDir {
			if r.o.maxDepth < 0 || depth+1 < r.o.maxDepth {
				r.walk(child, shown, stack, depth+1)
			}
			continue
		}
		if r.o.maxDepth >= 0 && depth+1 > r.o.maxDepth {
			continue
		}
		if g == 0 && r.hasIncludeGlobs() {
			continue
		}
		if g == 0 && !r.typeOK(name) {
			continue // a file a -g glob names is searched whatever its type
		}
		if r.o.files {
			r.printPath(shown)
			continue
		}
		r.searched++
		if r.candidates != nil && !r.candidates[child] {
			continue
		}
		data, err := c.readPath(child)
		if err != nil {
			c.errorf("%s: %s", shown, errText(err))
			r.errors = true
			continue
		}
		r.file(shown, data, false)
		if c.stopped() || (r.matched && r.o.quiet) {
			return
		}
	}
}

func (r *rgRun) hasIncludeGlobs() bool {
	for _, g := range r.o.globs {
		if !g.exclude {
			return true
		}
	}
	return false
}

// globOK applies -g globs: -1 excluded, 1 included by a glob, 0 no glob decided. The last
// matching glob wins, as in ripgrep.
func (r *rgRun) globOK(shown string, isDir bool) int {
	rel := strings.TrimPrefix(shown, "./")
	segs := strings.Split(rel, "/")
	for i := len(r.o.globs) - 1; i >= 0; i-- {
		g := r.o.globs[i]
		s := segs
		if g.caseless {
			s = strings.Split(strings.ToLower(rel), "/")
		}
		pat := g.segs
		if g.caseless {
			pat = make([]string, len(g.segs))
			for k, p := range g.segs {
				pat[k] = strings.ToLower(p)
			}
		}
		if matchSegs(pat, s) {
			if g.exclude {
				return -1
			}
			return 1
		}
		if isDir && !g.exclude {
			continue
		}
	}
	return 0
}

func (r *rgRun) typeOK(name string) bool {
	matches := func(t string) bool {
		for _, p := range rgTypes[t] {
			if fnmatch(p, name, true) {
				return true
			}
		}
		return false
	}
	for _, t := range r.o.notTypes {
		if matches(t) {
			return false
		}
	}
	if len(r.o.types) == 0 {
		return true
	}
	for _, t := range r.o.types {
		if t == "all" || matches(t) {
			return true
		}
	}
	return false
}

func (r *rgRun) printPath(p string) {
	r.matched = true
	if r.o.quiet {
		return
	}
	r.c.writeString(p)
	if r.o.nullSep {
		r.c.write([]byte{0})
	} else {
		r.c.writeString("\n")
	}
}

// file searches one file's content. explicit: the file was named on the command line (a
// binary file is then searched and reported, not skipped).
func (r *rgRun) file(name string, data []byte, explicit bool) {
	f := &rgFile{r: r, name: name, nul: -1}
	if !r.o.text {
		f.nul = bytes.IndexByte(data, 0)
	}
	if f.nul >= 0 && !explicit && !r.o.searchBinary {
		return
	}
	if f.nul >= 0 {
		// A binary file named on the command line is searched with its NUL bytes read as
		// line ends, as ripgrep does.
		data = bytes.ReplaceAll(data, []byte{0}, []byte{'\n'})
	}
	f.feed(data)
	f.finish()
}

// stream searches standard input as it comes, a few complete lines at a time, and stops
// reading once the answer is known (-q, -l, -m).
func (r *rgRun) stream(name string, in io.Reader) {
	c := r.c
	f := &rgFile{r: r, name: name, nul: -1}
	if in == nil {
		f.finish()
		return
	}
	var buf []byte
	chunk := make([]byte, 64<<10)
	for !f.done {
		if c.ctx.Err() != nil {
			return
		}
		n, err := in.Read(chunk)
		buf = append(buf, chunk[:n]...)
		last := bytes.LastIndexByte(buf, '\n')
		if err == io.EOF {
			last = len(buf) - 1
		}
		if last >= 0 && (len(buf) >= 1<<20 || err != nil) {
			seg := buf[:last+1]
			if !r.o.text && f.nul < 0 {
				if i := bytes.IndexByte(seg, 0); i >= 0 {
					f.nul = f.base + i
				}
			}
			f.feed(seg)
			buf = append(buf[:0], buf[last+1:]...)
		}
		if len(buf) > maxReadAll {
			r.errorf("%s: %s", name, errTooLarge)
			r.errors = true
			return
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			r.errorf("%s: %s", name, errText(err))
			r.errors = true
			return
		}
	}
	f.finish()
}

// rgFile is the state of one file's search, kept across the pieces of a stream.
type rgFile struct {
	r                     *rgRun
	name                  string
	nul                   int // offset of the first NUL byte, -1 for none (yet)
	count, matches        int64
	lastPrinted           int
	pendingAfter          int
	before                []rgHeld
	lineNo                int
	base                  int // byte offset of the piece being fed
	headed, done, stopped bool
}

type rgHeld struct {
	no   int
	line []byte
}

func (f *rgFile) sepName(sep byte) {
	r := f.r
	if r.showName {
		r.c.writeString(f.name)
		if r.o.nullSep {
			r.c.write([]byte{0})
		} else {
			r.c.write([]byte{sep})
		}
	}
}

// printLine prints a line (':' a match, '-' context); col is the 1-based column of
// --column (0: the line's first match).
func (f *rgFile) printLine(no int, line []byte, sep byte, col int) {
	r, c, o := f.r, f.r.c, &f.r.o
	if o.heading && r.showName {
		// --heading: the name on a line of its own above the file's lines, a blank line
		// between files.
		if !f.headed {
			if r.anyHeading {
				c.writeString("\n")
			}
			c.writeString(f.name + "\n")
			f.headed, r.anyHeading = true, true
		}
	} else {
		f.sepName(sep)
	}
	if o.lineNumbers && !o.noLineNumbers {
		c.writeString(strconv.Itoa(no))
		c.write([]byte{sep})
	}
	if o.column {
		// The column of the line's first match; a line without one (-v) has none.
		if col == 0 {
			if st, _ := r.m.find(line, 0); st >= 0 {
				col = st + 1
			}
		}
		if col > 0 {
			c.writeString(strconv.Itoa(col))
			c.write([]byte{sep})
		}
	}
	c.write(line)
	c.writeString("\n")
}

// contextLine prints a line of context: whole, or with -o its matches when it has some
// (lines of context match under -v), as ripgrep does.
func (f *rgFile) contextLine(no int, line []byte, sep byte) {
	if f.r.o.onlyMatching {
		if ms := f.r.m.all(line); len(ms) > 0 {
			for _, m := range ms {
				f.printLine(no, line[m[0]:m[1]], sep, m[0]+1)
			}
			return
		}
	}
	f.printLine(no, line, sep, 0)
}

// feed searches data, whole lines (the last one may lack its newline only at the end of
// the input).
func (f *rgFile) feed(data []byte) {
	r, c, o := f.r, f.r.c, &f.r.o
	defer func() { f.base += len(data) }()
	context := o.after > 0 || o.before > 0
	quietOut := o.quiet || o.filesWith || o.filesWithout || o.count || o.countMatches || f.nul >= 0
	// Without -v or context, lines that cannot match are skipped whole.
	skip := !o.invert && !context
	rest := data
	for len(rest) > 0 && !f.done {
		if f.lineNo&1023 == 0 && c.ctx.Err() != nil {
			f.done, f.stopped = true, true
			return
		}
		if skip {
			off := len(data) - len(rest)
			start, _ := r.m.nextLine(data, off)
			if start < 0 {
				return
			}
			f.lineNo += bytes.Count(data[off:start], []byte{'\n'})
			rest = data[start:]
		}
		if o.maxCount >= 0 && f.count >= o.maxCount && f.pendingAfter == 0 {
			f.done = true
			return
		}
		f.lineNo++
		i := bytes.IndexByte(rest, '\n')
		var line []byte
		if i < 0 {
			line, rest = rest, nil
		} else {
			line, rest = rest[:i], rest[i+1:]
		}
		selected := r.m.match(line) != o.invert
		if o.maxCount >= 0 && f.count >= o.maxCount {
			if f.pendingAfter > 0 && !quietOut {
				sep := byte('-')
				if selected {
					sep = ':' // ripgrep marks a matching line of the trailing context
				}
				f.contextLine(f.lineNo, line, sep)
				f.lastPrinted = f.lineNo
				f.pendingAfter--
			}
			continue
		}
		if !selected {
			if quietOut {
				continue
			}
			if f.pendingAfter > 0 {
				f.contextLine(f.lineNo, line, '-')
				f.lastPrinted = f.lineNo
				f.pendingAfter--
			} else if o.before > 0 {
				f.before = append(f.before, rgHeld{f.lineNo, append([]byte(nil), line...)})
				if len(f.before) > o.before {
					f.before = f.before[1:]
				}
			}
			continue
		}
		f.count++
		r.matched = true
		if o.countMatches {
			if o.invert && o.countInverted {
				f.matches++ // ripgrep's --count-matches -v counts inverted lines
			} else {
				f.matches += int64(len(r.m.all(line)))
			}
		}
		if o.quiet || (o.filesWith || o.filesWithout) && !o.count && !o.countMatches {
			f.done = true
			return
		}
		if quietOut {
			continue
		}
		if context {
			first := f.lineNo
			if len(f.before) > 0 {
				first = f.before[0].no
			}
			if r.anyOut && (f.lastPrinted == 0 || first > f.lastPrinted+1) {
				c.writeString("--\n")
			}
			for _, h := range f.before {
				f.contextLine(h.no, h.line, '-')
			}
			f.before = f.before[:0]
			r.anyOut = true
		}
		if o.onlyMatching && !o.invert {
			for _, m := range r.m.all(line) {
				// ripgrep prints empty matches too (grep does not).
				f.printLine(f.lineNo, line[m[0]:m[1]], ':', m[0]+1)
			}
		} else {
			f.printLine(f.lineNo, line, ':', 0)
		}
		f.lastPrinted = f.lineNo
		f.pendingAfter = o.after
		if c.stopped() {
			f.done, f.stopped = true, true
			return
		}
	}
}

// finish prints what is printed once the file is read: the count, the name for -l and
// --files-without-match, the binary file notice.
func (f *rgFile) finish() {
	r, c, o := f.r, f.r.c, &f.r.o
	if f.stopped {
		return
	}
	switch {
	case o.quiet:
	case o.count || o.countMatches:
		// ripgrep: a count wins over -l (GNU grep does the opposite).
		n := f.count
		if o.countMatches {
			n = f.matches
		}
		// ripgrep leaves out files without a match, but prints the 0s of -c -o -v.
		if n > 0 || (o.invert && o.countMatches && !o.countInverted) {
			f.sepName(':')
			c.printf("%d\n", n)
		}
	case o.filesWith:
		if f.count > 0 {
			r.printPath(f.name)
		}
	case o.filesWithout:
		if f.count == 0 {
			r.printPath(f.name)
		}
	case f.nul >= 0 && f.count > 0:
		if r.showName {
			c.printf("%s: ", f.name)
		}
		c.printf("binary file matches (found \"\\0\" byte around offset %d)\n", f.nul)
	}
}
