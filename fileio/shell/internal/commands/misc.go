package commands

import (
	"bytes"
	"context"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// runStat is stat -c/--format/--printf FORMAT (and a default form): %n %N %s %y %Y %x %X %z
// %Z %w %W %F %a %A %U %G %u %g %b %B %h %i %o.
func runStat(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "stat")
	opts, files, err := optSpec{short: "c:Lt", long: []string{"format=|c", "printf=", "dereference|L", "terse|t"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	format, printf := "", false
	for _, o := range opts {
		switch o.key {
		case "c":
			format = o.val
		case "printf":
			format, printf = o.val, true
		}
	}
	if len(files) == 0 {
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	}
	status := 0
	for _, f := range files {
		abs := env.Abs(f)
		fi, err := env.FS.Stat(ctx, abs)
		if err != nil {
			c.errorf("cannot statx %s: %s", quote(f), errText(c.classify(abs, err)))
			status = 1
			continue
		}
		links := c.linkCount(abs, fi)
		if format == "" {
			kind := statKind(fi)
			mode, perm := "-rw-r--r--", "0644"
			if fi.IsDir() {
				mode, perm = "drwxr-xr-x", "0755"
			}
			t := statTime(fi.ModTime())
			c.printf("  File: %s\n  Size: %-10d\tBlocks: %-10d IO Block: 4096   %s\nDevice: 0,0\tInode: 0           Links: %d\nAccess: (%s/%s)  Uid: (    0/    %s)   Gid: (    0/    %s)\nAccess: %s\nModify: %s\nChange: %s\n Birth: -\n",
				f, entrySize(fi), blocks(fi)*2, kind, links, perm, mode, Owner, Owner, t, t, t)
			continue
		}
		c.writeString(statFormat(format, f, fi, links, printf))
		if !printf {
			c.writeString("\n")
		}
	}
	return c.done(status)
}

func statKind(fi fs.FileInfo) string {
	switch {
	case fi.IsDir():
		return "directory"
	case fi.Size() == 0:
		return "regular empty file"
	}
	return "regular file"
}

func statTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000000000 -0700") }

func statFormat(format, name string, fi fs.FileInfo, links int, printf bool) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch == '\\' && printf && i+1 < len(format) {
			i++
			switch format[i] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
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
		mod := fi.ModTime()
		switch format[i] {
		case 'n':
			sb.WriteString(name)
		case 'N':
			sb.WriteString(quote(name))
		case 's':
			sb.WriteString(strconv.FormatInt(entrySize(fi), 10))
		case 'y', 'x', 'z':
			sb.WriteString(statTime(mod))
		case 'Y', 'X', 'Z':
			sb.WriteString(strconv.FormatInt(mod.Unix(), 10))
		case 'w':
			sb.WriteString("-")
		case 'W':
			sb.WriteString("0")
		case 'F':
			sb.WriteString(statKind(fi))
		case 'a':
			if fi.IsDir() {
				sb.WriteString("755")
			} else {
				sb.WriteString("644")
			}
		case 'A':
			if fi.IsDir() {
				sb.WriteString("drwxr-xr-x")
			} else {
				sb.WriteString("-rw-r--r--")
			}
		case 'U', 'G':
			sb.WriteString(Owner)
		case 'u', 'g':
			sb.WriteString("0")
		case 'b':
			sb.WriteString(strconv.FormatInt(blocks(fi)*2, 10))
		case 'B':
			sb.WriteString("512")
		case 'o':
			sb.WriteString("4096")
		case 'h':
			sb.WriteString(strconv.Itoa(links))
		case 'i':
			sb.WriteString("0")
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteByte('?')
		}
	}
	return sb.String()
}

// runRealpath is realpath [-m -e -s --relative-to DIR] NAME…: the project path of each name.
func runRealpath(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "realpath")
	opts, names, err := optSpec{short: "emsqLPz", long: []string{"canonicalize-existing|e", "canonicalize-missing|m", "strip|s",
		"no-symlinks|s", "quiet|q", "relative-to=", "relative-base=", "zero|z"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	existing, missing, quiet := false, false, false
	relTo := ""
	for _, o := range opts {
		switch o.key {
		case "e":
			existing = true
		case "m":
			missing = true
		case "q":
			quiet = true
		case "relative-to":
			relTo = env.Abs(o.val)
		}
	}
	if len(names) == 0 {
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	}
	status := 0
	for _, n := range names {
		abs := env.Abs(n)
		if !missing {
			_, err := env.FS.Stat(ctx, abs)
			parentOK := true
			if err != nil {
				if pfi, perr := env.FS.Stat(ctx, dirName(abs)); perr != nil || !pfi.IsDir() {
					parentOK = false
				}
			}
			if err != nil && (existing || !parentOK) {
				if !quiet {
					c.errorf("%s: %s", n, errText(c.classify(abs, err)))
				}
				status = 1
				continue
			}
		}
		out := abs
		if relTo != "" {
			out = relativePath(relTo, abs)
		}
		c.writeString(out + "\n")
	}
	return c.done(status)
}

// relativePath is target relative to dir (both absolute and clean).
func relativePath(dir, target string) string {
	split := func(p string) []string {
		if p == "/" {
			return nil
		}
		return strings.Split(p[1:], "/")
	}
	d, t := split(dir), split(target)
	i := 0
	for i < len(d) && i < len(t) && d[i] == t[i] {
		i++
	}
	var parts []string
	for range d[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, t[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

// runComm is comm [-1 -2 -3] FILE1 FILE2 over sorted input.
func runComm(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "comm")
	opts, files, err := optSpec{short: "123", long: []string{"check-order", "nocheck-order", "output-delimiter=", "total"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	hide := map[string]bool{}
	sep := "\t"
	total := false
	for _, o := range opts {
		switch o.key {
		case "output-delimiter":
			sep = o.val
		case "total":
			total = true
		case "1", "2", "3":
			hide[o.key] = true
		}
	}
	if len(files) != 2 {
		if len(files) < 2 {
			if len(files) == 0 {
				c.errorf("missing operand")
			} else {
				c.errorf("missing operand after %s", quote(files[0]))
			}
		} else {
			c.errorf("extra operand %s", quote(files[2]))
		}
		return c.usage(&usageError{}, 1)
	}
	var sides [2][][]byte
	for i, f := range files {
		data, err := c.readFile(f)
		if err != nil {
			c.errorf("%s: %s", quotef(f), errText(err))
			return 1
		}
		for _, l := range splitLines(data) {
			sides[i] = append(sides[i], bytes.TrimSuffix(l, []byte("\n")))
		}
	}
	prefix := func(col int) string {
		p := ""
		for k := 1; k < col; k++ {
			if !hide[strconv.Itoa(k)] {
				p += sep
			}
		}
		return p
	}
	var counts [3]int
	emit := func(col int, l []byte) {
		counts[col-1]++
		if !hide[strconv.Itoa(col)] {
			c.writeString(prefix(col))
			c.write(l)
			c.writeString("\n")
		}
	}
	a, b := sides[0], sides[1]
	i, j := 0, 0
	// As GNU comm: a file out of order is reported once, when met, and the status is 1.
	var reported [2]bool
	disorder := false
	check := func(side int, lines [][]byte, k int) {
		if k > 0 && !reported[side] && bytes.Compare(lines[k-1], lines[k]) > 0 {
			reported[side], disorder = true, true
			c.errorf("file %d is not in sorted order", side+1)
		}
	}
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && bytes.Compare(a[i], b[j]) < 0):
			check(0, a, i)
			emit(1, a[i])
			i++
		case i >= len(a) || bytes.Compare(a[i], b[j]) > 0:
			check(1, b, j)
			emit(2, b[j])
			j++
		default:
			check(0, a, i)
			check(1, b, j)
			emit(3, a[i])
			i++
			j++
		}
	}
	if total {
		c.printf("%d%s%d%s%d%stotal\n", counts[0], sep, counts[1], sep, counts[2], sep)
	}
	if disorder {
		c.errorf("input is not in sorted order")
		return c.done(1)
	}
	return c.done(0)
}

// runPaste is paste [-d LIST] [-s] FILE….
func runPaste(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "paste")
	opts, files, err := optSpec{short: "d:sz", long: []string{"delimiters=|d", "serial|s", "zero-terminated|z"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	delims := []byte{'\t'}
	serial := false
	for _, o := range opts {
		switch o.key {
		case "d":
			delims = pasteDelims(o.val)
		case "s":
			serial = true
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	// Several "-" operands take standard input's lines in turn.
	dashes := 0
	for _, f := range files {
		if f == "-" {
			dashes++
		}
	}
	var stdinLines [][]byte
	if dashes > 0 {
		data, err := c.readFile("-")
		if err != nil {
			c.errorf("-: %s", errText(err))
			return 1
		}
		for _, l := range splitLines(data) {
			stdinLines = append(stdinLines, bytes.TrimSuffix(l, []byte("\n")))
		}
	}
	var cols [][][]byte
	dash := 0
	for _, f := range files {
		if f == "-" {
			var lines [][]byte
			for i := dash; i < len(stdinLines); i += dashes {
				lines = append(lines, stdinLines[i])
			}
			dash++
			cols = append(cols, lines)
			continue
		}
		data, err := c.readFile(f)
		if err != nil {
			c.errorf("%s: %s", quotef(f), errText(err))
			return 1
		}
		var lines [][]byte
		for _, l := range splitLines(data) {
			lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
		}
		cols = append(cols, lines)
	}
	delim := func(k int) []byte {
		if len(delims) == 0 {
			return nil
		}
		d := delims[k%len(delims)]
		if d == 0 {
			return nil
		}
		return []byte{d}
	}
	if serial {
		for _, lines := range cols {
			for k, l := range lines {
				if k > 0 {
					c.write(delim(k - 1))
				}
				c.write(l)
			}
			c.writeString("\n")
		}
		return c.done(0)
	}
	rows := 0
	for _, lines := range cols {
		rows = max(rows, len(lines))
	}
	for r := 0; r < rows; r++ {
		for k, lines := range cols {
			if k > 0 {
				c.write(delim(k - 1))
			}
			if r < len(lines) {
				c.write(lines[r])
			}
		}
		c.writeString("\n")
	}
	return c.done(0)
}

// pasteDelims reads paste's -d list: \n \t \\ and \0 (no delimiter).
func pasteDelims(s string) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case '0':
				out = append(out, 0)
			default:
				out = append(out, s[i])
			}
			continue
		}
		out = append(out, s[i])
	}
	return out
}

// runRev is rev: each line's bytes reversed.
func runRev(ctx context.Context, env *Env, args []string) int {
	return eachLine(ctx, env, "rev", args, func(l []byte) []byte {
		out := make([]byte, len(l))
		for i, b := range l {
			out[len(l)-1-i] = b
		}
		return out
	})
}

// eachLine runs f over each line of the files (or stdin), printing what it returns.
func eachLine(ctx context.Context, env *Env, name string, args []string, f func([]byte) []byte) int {
	c := newIO(ctx, env, name)
	files := args[1:]
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, file := range files {
		r, err := c.open(file)
		if err != nil {
			c.errorf("cannot open %s for reading: %s", quote(file), errText(err))
			status = 1
			continue
		}
		lr := newLineReader(ctx, r)
		for l := lr.next(); l != nil && !c.stopped(); l = lr.next() {
			body, nl := bytes.CutSuffix(l, []byte("\n"))
			c.write(f(body))
			if nl {
				c.writeString("\n")
			}
		}
	}
	return c.done(status)
}

// runTac is tac: the lines of each file, last first.
func runTac(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "tac")
	files := args[1:]
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, f := range files {
		data, err := c.readFile(f)
		if err != nil {
			c.errorf("failed to open %s for reading: %s", quote(f), errText(err))
			status = 1
			continue
		}
		lines := splitLines(data)
		for i := len(lines) - 1; i >= 0; i-- {
			c.write(lines[i])
		}
	}
	return c.done(status)
}

// runExpand is expand [-t N] [-i]: tabs to spaces.
func runExpand(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "expand")
	opts, files, err := optSpec{short: "t:i", long: []string{"tabs=|t", "initial|i"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	width, initial := 8, false
	for _, o := range opts {
		switch o.key {
		case "t":
			n, err := strconv.Atoi(o.val)
			if err != nil || n <= 0 {
				c.errorf("tab size contains invalid character(s): %s", quote(o.val))
				return 1
			}
			width = n
		case "i":
			initial = true
		}
	}
	return eachLine(ctx, env, "expand", append([]string{"expand"}, files...), func(l []byte) []byte {
		var out []byte
		col := 0
		leading := true
		for _, b := range l {
			switch {
			case b == '\t' && (leading || !initial):
				n := width - col%width
				out = append(out, bytes.Repeat([]byte{' '}, n)...)
				col += n
				continue
			case b == '\b':
				col = max(col-1, 0)
			default:
				col++
			}
			if b != ' ' && b != '\t' {
				leading = false
			}
			out = append(out, b)
		}
		return out
	})
}

// runFold is fold [-w N] [-s] [-b]: lines cut to a width, in columns (or bytes with -b),
// at the last blank with -s.
func runFold(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "fold")
	var conv []string
	for _, a := range args[1:] {
		// fold -80 is fold -w 80.
		if len(a) > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9' {
			conv = append(conv, "-w", a[1:])
			continue
		}
		conv = append(conv, a)
	}
	opts, files, err := optSpec{short: "w:sb", long: []string{"width=|w", "spaces|s", "bytes|b"}}.parse(conv)
	if err != nil {
		return c.usage(err, 1)
	}
	width, spaces, byBytes := 80, false, false
	for _, o := range opts {
		switch o.key {
		case "w":
			n, err := strconv.Atoi(o.val)
			if err != nil || n <= 0 {
				c.errorf("invalid number of columns: %s", quote(o.val))
				return 1
			}
			width = n
		case "s":
			spaces = true
		case "b":
			byBytes = true
		}
	}
	advance := func(col int, b byte) int {
		if byBytes {
			return col + 1
		}
		switch b {
		case '\t':
			return col + 8 - col%8
		case '\b':
			return max(col-1, 0)
		case '\r':
			return 0
		}
		return col + 1
	}
	return eachLine(ctx, env, "fold", append([]string{"fold"}, files...), func(l []byte) []byte {
		var out, cur []byte
		col := 0
		for _, b := range l {
			next := advance(col, b)
			if next > width && len(cur) > 0 {
				if spaces {
					if i := bytes.LastIndexAny(cur, " \t"); i >= 0 {
						out = append(append(out, cur[:i+1]...), '\n')
						cur = append([]byte(nil), cur[i+1:]...)
						col = 0
						for _, x := range cur {
							col = advance(col, x)
						}
						next = advance(col, b)
						if next <= width {
							cur = append(cur, b)
							col = next
							continue
						}
					}
				}
				out = append(append(out, cur...), '\n')
				cur = cur[:0]
				col = 0
				next = advance(0, b)
			}
			cur = append(cur, b)
			col = next
		}
		return append(out, cur...)
	})
}
