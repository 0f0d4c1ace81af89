package commands

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
)

// runCat is cat: -n -b -s -E -T -A -v.
func runCat(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "cat")
	opts, files, err := optSpec{short: "nbsETAvetu", long: []string{"number|n", "number-nonblank|b", "squeeze-blank|s", "show-ends|E", "show-tabs|T", "show-all|A", "show-nonprinting|v"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	var number, nonblank, squeeze, ends, tabs, nonprint bool
	for _, o := range opts {
		switch o.key {
		case "n":
			number = true
		case "b":
			nonblank = true
		case "s":
			squeeze = true
		case "E":
			ends = true
		case "T":
			tabs = true
		case "v":
			nonprint = true
		case "A":
			nonprint, ends, tabs = true, true, true
		case "e":
			nonprint, ends = true, true
		case "t":
			nonprint, tabs = true, true
		}
	}
	if nonblank {
		number = false
	}
	plain := !number && !nonblank && !squeeze && !ends && !tabs && !nonprint
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	lineNo := 0
	atStart := true
	blanks := 0
	for _, f := range files {
		if c.stopped() {
			break
		}
		r, err := c.open(f)
		if err != nil {
			c.errorf("%s: %s", quotef(f), errText(err))
			status = 1
			continue
		}
		if plain {
			if !c.copyFrom(r) {
				break
			}
			continue
		}
		lr := newLineReader(ctx, r)
		for line := lr.next(); line != nil; line = lr.next() {
			body, nl := bytes.CutSuffix(line, []byte("\n"))
			if atStart && len(body) == 0 && nl {
				blanks++
				if squeeze && blanks > 1 {
					continue
				}
			} else if atStart {
				blanks = 0
			}
			if atStart && (number || (nonblank && !(len(body) == 0 && nl))) {
				lineNo++
				c.printf("%6d\t", lineNo)
			}
			cr := false
			if ends && nl && !nonprint && bytes.HasSuffix(body, []byte("\r")) {
				body, cr = body[:len(body)-1], true // cat -E shows a CR before the newline as ^M
			}
			c.write(catVisible(body, tabs, nonprint))
			if cr {
				c.writeString("^M")
			}
			if nl {
				if ends {
					c.writeString("$")
				}
				c.writeString("\n")
			}
			atStart = nl
			if c.stopped() {
				break
			}
		}
	}
	return c.done(status)
}

// copyFrom copies r to stdout, checking ctx between chunks.
func (c *cmdIO) copyFrom(r io.Reader) bool {
	buf := make([]byte, 64<<10)
	for {
		if c.stopped() {
			return false
		}
		n, err := r.Read(buf)
		if n > 0 && !c.write(buf[:n]) {
			return false
		}
		if err != nil {
			return err == io.EOF
		}
	}
}

func catVisible(b []byte, tabs, nonprint bool) []byte {
	if !tabs && !nonprint {
		return b
	}
	var out []byte
	for _, ch := range b {
		switch {
		case ch == '\t' && tabs:
			out = append(out, '^', 'I')
		case ch == '\t':
			out = append(out, ch)
		case !nonprint:
			out = append(out, ch)
		case ch >= 128:
			out = append(out, 'M', '-')
			ch -= 128
			fallthrough
		default:
			switch {
			case ch < 32:
				out = append(out, '^', ch+64)
			case ch == 127:
				out = append(out, '^', '?')
			default:
				out = append(out, ch)
			}
		}
	}
	return out
}

// parseCount reads a head/tail count: digits with an optional GNU suffix (b, K, KB, M, …).
func parseCount(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 1<<62 - 1, true // as GNU: a huge count means "all"
	}
	mult := int64(1)
	switch s[i:] {
	case "":
	case "b":
		mult = 512
	case "kB", "KB":
		mult = 1000
	case "K", "KiB", "k":
		mult = 1024
	case "MB":
		mult = 1000 * 1000
	case "M", "MiB":
		mult = 1 << 20
	case "GB":
		mult = 1000 * 1000 * 1000
	case "G", "GiB":
		mult = 1 << 30
	default:
		return 0, false
	}
	if n > (1<<62)/mult {
		return 1<<62 - 1, true
	}
	return n * mult, true
}

// headTailArgs turns the obsolete "-5" form into "-n 5".
func headTailArgs(args []string) []string {
	if len(args) > 1 && len(args[1]) > 1 && args[1][0] == '-' && args[1][1] >= '0' && args[1][1] <= '9' {
		s := args[1][1:]
		unit := "-n"
		if strings.HasSuffix(s, "c") {
			unit, s = "-c", strings.TrimSuffix(s, "c")
		} else {
			s = strings.TrimSuffix(s, "l")
		}
		out := append([]string{args[0], unit, s}, args[2:]...)
		return out
	}
	return args
}

// runHead is head: -n [-]N, -c [-]N, -q, -v.
func runHead(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "head")
	opts, files, err := optSpec{short: "n:c:qvz", long: []string{"lines=|n", "bytes=|c", "quiet|q", "silent|q", "verbose|v"}}.parse(headTailArgs(args)[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	count, bytesMode, allBut := int64(10), false, false
	verbose := 0
	for _, o := range opts {
		switch o.key {
		case "n", "c":
			bytesMode = o.key == "c"
			v := o.val
			allBut = strings.HasPrefix(v, "-")
			v = strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
			n, ok := parseCount(v)
			if !ok {
				what := "lines"
				if bytesMode {
					what = "bytes"
				}
				c.errorf("invalid number of %s: %s", what, quote(o.val))
				return 1
			}
			count = n
		case "q":
			verbose = -1
		case "v":
			verbose = 1
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	headers := verbose == 1 || (verbose == 0 && len(files) > 1)
	status := 0
	firstHeader := true
	for _, f := range files {
		if c.stopped() {
			break
		}
		var r io.Reader
		var data []byte
		if f == "-" {
			r = env.Stdin
			if r == nil {
				r = strings.NewReader("")
			}
		} else {
			data, err = c.readPath(env.Abs(f))
			if err != nil && err != errIsDir {
				c.errorf("cannot open %s for reading: %s", quote(f), errText(err))
				status = 1
				continue
			}
		}
		if headers {
			if !firstHeader {
				c.writeString("\n")
			}
			firstHeader = false
			name := f
			if f == "-" {
				name = "standard input"
			}
			c.printf("==> %s <==\n", name)
		}
		if err == errIsDir {
			if count == 0 && !allBut {
				continue // head reads nothing, so a directory opens without complaint
			}
			c.errorf("error reading %s: Is a directory", quote(f))
			status = 1
			continue
		}
		if r == nil {
			r = bytes.NewReader(data)
		}
		if !c.headOne(r, count, bytesMode, allBut) {
			break
		}
	}
	return c.done(status)
}

// headOne writes the head of r; it reads no more of r than it needs.
func (c *cmdIO) headOne(r io.Reader, count int64, bytesMode, allBut bool) bool {
	switch {
	case bytesMode && !allBut:
		return c.copyFrom(io.LimitReader(r, count))
	case bytesMode:
		data, err := readAllBounded(c.ctx, r)
		if err != nil {
			return false
		}
		if int64(len(data)) > count {
			return c.write(data[:int64(len(data))-count])
		}
		return true
	case !allBut:
		lr := newLineReader(c.ctx, r)
		for n := int64(0); n < count; n++ {
			line := lr.next()
			if line == nil || !c.write(line) {
				break
			}
		}
		return !c.stopped()
	}
	data, err := readAllBounded(c.ctx, r)
	if err != nil {
		return false
	}
	lines := splitLines(data)
	if int64(len(lines)) > count {
		for _, l := range lines[:int64(len(lines))-count] {
			if !c.write(l) {
				return false
			}
		}
	}
	return true
}

// runTail is tail: -n [+]N, -c [+]N, -q, -v.
func runTail(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "tail")
	opts, files, err := optSpec{short: "n:c:qvfF", long: []string{"lines=|n", "bytes=|c", "quiet|q", "silent|q", "verbose|v", "follow?|f"}}.parse(headTailArgs(args)[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	count, bytesMode, fromStart := int64(10), false, false
	verbose := 0
	for _, o := range opts {
		switch o.key {
		case "n", "c":
			bytesMode = o.key == "c"
			v := o.val
			fromStart = strings.HasPrefix(v, "+")
			v = strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
			n, ok := parseCount(v)
			if !ok {
				what := "lines"
				if bytesMode {
					what = "bytes"
				}
				c.errorf("invalid number of %s: %s", what, quote(o.val))
				return 1
			}
			count = n
		case "q":
			verbose = -1
		case "v":
			verbose = 1
		case "f", "F":
			c.errorf("following a file (-f) is not offered: the project does not change while a command runs")
			return 1
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	if count == 0 && !fromStart {
		return 0 // GNU tail opens nothing to print nothing
	}
	headers := verbose == 1 || (verbose == 0 && len(files) > 1)
	status := 0
	firstHeader := true
	for _, f := range files {
		if c.stopped() {
			break
		}
		data, err := c.readFile(f)
		if err != nil && err != errIsDir {
			c.errorf("cannot open %s for reading: %s", quote(f), errText(err))
			status = 1
			continue
		}
		if headers {
			if !firstHeader {
				c.writeString("\n")
			}
			firstHeader = false
			name := f
			if f == "-" {
				name = "standard input"
			}
			c.printf("==> %s <==\n", name)
		}
		if err == errIsDir {
			c.errorf("error reading %s: Is a directory", quote(f))
			status = 1
			if bytesMode {
				break // GNU tail -c stops at a directory
			}
			continue
		}
		c.write(tailOf(data, count, bytesMode, fromStart))
	}
	return c.done(status)
}

func tailOf(data []byte, count int64, bytesMode, fromStart bool) []byte {
	if bytesMode {
		if fromStart {
			if count > 0 {
				count--
			}
			if count >= int64(len(data)) {
				return nil
			}
			return data[count:]
		}
		if count >= int64(len(data)) {
			return data
		}
		return data[int64(len(data))-count:]
	}
	if fromStart {
		// Skip count-1 lines.
		skip := count - 1
		i := 0
		for ; skip > 0 && i < len(data); skip-- {
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				return nil
			}
			i += j + 1
		}
		return data[i:]
	}
	if count == 0 {
		return nil
	}
	// Walk back count newlines, not counting a final one.
	end := len(data)
	i := end
	if i > 0 && data[i-1] == '\n' {
		i--
	}
	for n := int64(0); ; {
		j := bytes.LastIndexByte(data[:i], '\n')
		if j < 0 {
			return data
		}
		n++
		if n == count {
			return data[j+1:]
		}
		i = j
	}
}

// runWc is wc: -l -w -c -m -L and the default lines, words and bytes, with GNU's widths.
func runWc(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "wc")
	opts, files, err := optSpec{short: "lwcmL", long: []string{"lines|l", "words|w", "bytes|c", "chars|m", "max-line-length|L"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	show := map[string]bool{}
	for _, o := range opts {
		show[o.key] = true
	}
	if len(show) == 0 {
		show["l"], show["w"], show["c"] = true, true, true
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	type result struct {
		name               string
		failed, isDir      bool
		err                error
		lines, words, byts int64
		maxLen             int64
	}
	results := make([]result, len(files))
	// Widths as GNU: from the total size of the regular files, at least 7 when one input
	// is not a regular file (stdin, a directory), 1 when one count of one input is asked
	// or the first input failed.
	regularTotal, minWidth := int64(0), 1
	for i, f := range files {
		res := result{name: f}
		var data []byte
		var err error
		if f == "-" {
			// Standard input is counted as it comes, never held.
			res.lines, res.words, res.byts, res.maxLen, err = countReader(ctx, env.Stdin)
			if err != nil {
				if ctx.Err() != nil {
					return 130
				}
				res.failed, res.err = true, err
			} else {
				minWidth = 7
			}
			results[i] = res
			continue
		}
		data, err = c.readFile(f)
		switch {
		case err == errIsDir:
			res.isDir = true
			res.err = err
			minWidth = 7
		case err != nil:
			res.failed = true
			res.err = err
		default:
			if f == "-" {
				minWidth = 7
			} else {
				regularTotal += int64(len(data))
			}
			res.lines, res.words, res.byts, res.maxLen = countText(data)
		}
		results[i] = res
		if ctx.Err() != nil {
			return 130
		}
	}
	width := 1
	if !(len(files) == 1 && len(show) == 1) {
		for t := regularTotal; t >= 10; t /= 10 {
			width++
		}
		if width < minWidth {
			width = minWidth
		}
	}
	var total result
	status := 0
	line := func(r result, name string) {
		var cols []string
		for _, k := range []string{"l", "w", "m", "c", "L"} {
			if !show[k] {
				continue
			}
			v := map[string]int64{"l": r.lines, "w": r.words, "m": r.byts, "c": r.byts, "L": r.maxLen}[k]
			cols = append(cols, fmt.Sprintf("%*d", width, v))
		}
		s := strings.Join(cols, " ")
		if name != "" {
			s += " " + name
		}
		c.writeString(s + "\n")
	}
	for _, r := range results {
		if r.err != nil {
			c.errorf("%s: %s", quotef(r.name), errText(r.err))
			status = 1
			if !r.isDir {
				continue
			}
		}
		name := r.name
		if name == "-" && len(files) == 1 {
			name = ""
		}
		line(r, name)
		total.lines += r.lines
		total.words += r.words
		total.byts += r.byts
		total.maxLen = max(total.maxLen, r.maxLen)
	}
	if len(files) > 1 {
		line(total, "total")
	}
	return c.done(status)
}

func countText(data []byte) (lines, words, byts, maxLen int64) {
	var w wcCounter
	w.add(data)
	return w.lines, w.words, w.bytes, w.max()
}

// wcCounter counts as wc does, over pieces of input.
type wcCounter struct {
	lines, words, bytes, maxLen, col int64
	inWord                           bool
}

func (w *wcCounter) add(data []byte) {
	w.bytes += int64(len(data))
	for _, b := range data {
		switch b {
		case '\n':
			w.lines++
			w.maxLen = max(w.maxLen, w.col)
			w.col = 0
		case '\t':
			w.col += 8 - w.col%8
		case '\r', '\f':
			w.maxLen = max(w.maxLen, w.col)
			w.col = 0
		default:
			if b >= 0x20 && b < 0x7f {
				w.col++
			}
		}
		space := b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
		if space {
			w.inWord = false
		} else if !w.inWord && (b > 0x20 && b < 0x7f) {
			w.inWord = true
			w.words++
		}
	}
}

func (w *wcCounter) max() int64 { return max(w.maxLen, w.col) }

// countReader counts r as it comes, checking ctx between pieces.
func countReader(ctx context.Context, r io.Reader) (lines, words, byts, maxLen int64, err error) {
	var w wcCounter
	if r == nil {
		return 0, 0, 0, 0, nil
	}
	buf := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, 0, err
		}
		n, rerr := r.Read(buf)
		w.add(buf[:n])
		if rerr == io.EOF {
			return w.lines, w.words, w.bytes, w.max(), nil
		}
		if rerr != nil {
			return 0, 0, 0, 0, rerr
		}
	}
}

// runNl is nl: -ba (every line), -bt (the default: non-empty lines), -bn, -w, -s, -v, -i.
func runNl(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "nl")
	opts, files, err := optSpec{short: "b:w:s:v:i:n:", long: []string{"body-numbering=|b", "number-width=|w", "number-separator=|s", "starting-line-number=|v", "line-increment=|i", "number-format=|n"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	style, width, sep, start, incr, format := "t", 6, "\t", int64(1), int64(1), "rn"
	for _, o := range opts {
		switch o.key {
		case "b":
			if o.val != "a" && o.val != "t" && o.val != "n" {
				c.errorf("invalid body numbering style: %s", quote(o.val))
				return c.usage(&usageError{}, 1)
			}
			style = o.val
		case "w":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 {
				c.errorf("invalid line number field width: %s: Numerical result out of range", quote(o.val))
				return 1
			}
			width = n
		case "s":
			sep = o.val
		case "v", "i":
			n, err := strconv.ParseInt(o.val, 10, 64)
			if err != nil {
				c.errorf("invalid %s: %s", map[string]string{"v": "starting line number", "i": "line number increment"}[o.key], quote(o.val))
				return 1
			}
			if o.key == "v" {
				start = n
			} else {
				incr = n
			}
		case "n":
			if o.val != "ln" && o.val != "rn" && o.val != "rz" {
				c.errorf("invalid line numbering format: %s", quote(o.val))
				return 1
			}
			format = o.val
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	n := start
	for _, f := range files {
		r, err := c.open(f)
		if err != nil {
			c.errorf("%s: %s", quotef(f), errText(err))
			status = 1
			continue
		}
		lr := newLineReader(ctx, r)
		for line := lr.next(); line != nil && !c.stopped(); line = lr.next() {
			body := bytes.TrimSuffix(line, []byte("\n"))
			if style == "a" || (style == "t" && len(body) > 0) {
				switch format {
				case "ln":
					c.printf("%-*d%s", width, n, sep)
				case "rz":
					c.printf("%0*d%s", width, n, sep)
				default:
					c.printf("%*d%s", width, n, sep)
				}
				n += incr
			} else {
				c.writeString(strings.Repeat(" ", width+len(sep)))
			}
			c.write(body)
			c.writeString("\n")
		}
	}
	return c.done(status)
}

// runBasename is basename NAME [SUFFIX], or -a/-s for several names.
func runBasename(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "basename")
	opts, names, err := optSpec{short: "as:z", long: []string{"multiple|a", "suffix=|s", "zero|z"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	multiple, suffix, end := false, "", "\n"
	for _, o := range opts {
		switch o.key {
		case "a":
			multiple = true
		case "s":
			multiple, suffix = true, o.val
		case "z":
			end = "\x00"
		}
	}
	if len(names) == 0 {
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1) // the second line only
	}
	if !multiple {
		if len(names) > 2 {
			c.errorf("extra operand %s", quote(names[2]))
			return c.usage(&usageError{}, 1)
		}
		if len(names) == 2 {
			suffix = names[1]
		}
		names = names[:1]
	}
	for _, n := range names {
		b := baseName(n)
		if suffix != "" && b != suffix && strings.HasSuffix(b, suffix) && !strings.HasSuffix(strings.TrimRight(n, "/"), "/"+suffix) {
			b = strings.TrimSuffix(b, suffix)
		}
		c.writeString(b + end)
	}
	return c.done(0)
}

func baseName(n string) string {
	if n == "" {
		return ""
	}
	t := strings.TrimRight(n, "/")
	if t == "" {
		return "/"
	}
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		return t[i+1:]
	}
	return t
}

// runDirname is dirname NAME….
func runDirname(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "dirname")
	opts, names, err := optSpec{short: "z", long: []string{"zero|z"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	end := "\n"
	if len(opts) > 0 {
		end = "\x00"
	}
	if len(names) == 0 {
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	}
	for _, n := range names {
		c.writeString(dirName(n) + end)
	}
	return c.done(0)
}

func dirName(n string) string {
	t := strings.TrimRight(n, "/")
	if t == "" {
		if n == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

// runSeq is seq [-s SEP] [-w] [-f FMT] [FIRST [INCREMENT]] LAST.
func runSeq(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "seq")
	// Negative numbers are operands, not options.
	var opts []opt
	var nums []string
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		if len(a) > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.' {
			var o []opt
			var err error
			n := 1
			if (a == "-s" || a == "-f") && len(rest) > 1 {
				n = 2
			}
			o, _, err = optSpec{short: "s:f:w", long: []string{"separator=|s", "format=|f", "equal-width|w"}}.parse(rest[:n])
			if err != nil {
				return c.usage(err, 1)
			}
			opts = append(opts, o...)
			rest = rest[n:]
			continue
		}
		nums = append(nums, a)
		rest = rest[1:]
	}
	sep, equal, format := "\n", false, ""
	for _, o := range opts {
		switch o.key {
		case "s":
			sep = o.val
		case "w":
			equal = true
		case "f":
			format = o.val
		}
	}
	if len(nums) == 0 {
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	}
	if len(nums) > 3 {
		c.errorf("extra operand %s", quote(nums[3]))
		return c.usage(&usageError{}, 1)
	}
	vals := make([]float64, len(nums))
	prec := 0
	for i, s := range nums {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || strings.ContainsAny(s, "xXpP") {
			c.errorf("invalid floating point argument: %s", quote(s))
			return c.usage(&usageError{}, 1)
		}
		vals[i] = v
		if i < 2 || len(nums) == 1 {
			if j := strings.IndexByte(s, '.'); j >= 0 && !strings.ContainsAny(s, "eE") {
				prec = max(prec, len(s)-j-1)
			}
		}
	}
	first, step, last := 1.0, 1.0, vals[len(vals)-1]
	switch len(vals) {
	case 2:
		first = vals[0]
	case 3:
		first, step = vals[0], vals[1]
	}
	if step == 0 {
		c.errorf("invalid Zero increment value: %s", quote(nums[1]))
		return c.usage(&usageError{}, 1)
	}
	if len(nums) == 3 {
		if j := strings.IndexByte(nums[2], '.'); j >= 0 && !strings.ContainsAny(nums[2], "eE") && prec == 0 {
			_ = j // GNU takes the precision of FIRST and INCREMENT only
		}
	}
	fmtOne := func(v float64) string {
		if format != "" {
			return fmt.Sprintf(strings.Replace(format, "%g", "%v", 1), v)
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	width := 0
	if equal {
		width = max(len(fmtOne(first)), len(fmtOne(last)))
	}
	first0 := true
	for i := int64(0); ; i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return 130
		}
		v := first + float64(i)*step
		if (step > 0 && v > last) || (step < 0 && v < last) {
			break
		}
		s := fmtOne(v)
		if equal && len(s) < width {
			if strings.HasPrefix(s, "-") {
				s = "-" + strings.Repeat("0", width-len(s)) + s[1:]
			} else {
				s = strings.Repeat("0", width-len(s)) + s
			}
		}
		if !first0 {
			c.writeString(sep)
		}
		first0 = false
		if !c.writeString(s) {
			break
		}
	}
	if !first0 {
		c.writeString("\n")
	}
	return c.done(0)
}

// runTee is tee [-a] FILE…: stdin to stdout and to each file.
func runTee(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "tee")
	opts, files, err := optSpec{short: "ai", long: []string{"append|a", "ignore-interrupts|i"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	appendMode := false
	for _, o := range opts {
		if o.key == "a" {
			appendMode = true
		}
	}
	status := 0
	ok := make([]bool, len(files))
	for i, f := range files {
		ok[i] = true
		if !appendMode || true {
			// Create or truncate (or, with -a, create) each file first, as open(2) does.
			if err := c.prepareWrite(f, appendMode); err != nil {
				c.errorf("%s: %s", quotef(f), errText(err))
				ok[i] = false
				status = 1
			}
		}
	}
	in := env.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	buf := make([]byte, 64<<10)
	for {
		if ctx.Err() != nil {
			return 130
		}
		n, rerr := in.Read(buf)
		if n > 0 {
			c.write(buf[:n])
			c.flush()
			for i, f := range files {
				if ok[i] {
					if err := env.FS.WriteFile(ctx, env.Abs(f), buf[:n], true); err != nil {
						c.errorf("%s: %s", quotef(f), errText(err))
						ok[i] = false
						status = 1
					}
				}
			}
		}
		if rerr != nil {
			break
		}
	}
	return c.done(status)
}

// prepareWrite creates name (or truncates it, unless appending), failing as open(2) would.
func (c *cmdIO) prepareWrite(name string, appendMode bool) error {
	abs := c.env.Abs(name)
	if fi, err := c.env.FS.Stat(c.ctx, abs); err == nil && fi.IsDir() {
		return errIsDir
	}
	if fi, err := c.env.FS.Stat(c.ctx, path.Dir(abs)); err != nil {
		return c.classify(path.Dir(abs), err)
	} else if !fi.IsDir() {
		return errNotDir
	}
	return c.env.FS.WriteFile(c.ctx, abs, nil, appendMode)
}

// runSha256sum is sha256sum FILE… (and -c to check a list).
func runSha256sum(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "sha256sum")
	opts, files, err := optSpec{short: "bctzw", long: []string{"binary|b", "check|c", "text|t", "zero|z", "quiet", "status", "strict", "warn|w"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	check := false
	for _, o := range opts {
		if o.key == "c" {
			check = true
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, f := range files {
		if !check {
			// Hash as the input comes (standard input is never held whole).
			r, err := c.open(f)
			if err != nil {
				c.errorf("%s: %s", quotef(f), errText(err))
				status = 1
				continue
			}
			h := sha256.New()
			if err := copyContext(ctx, h, r); err != nil {
				if ctx.Err() != nil {
					return 130
				}
				c.errorf("%s: %s", quotef(f), errText(err))
				status = 1
				continue
			}
			c.printSum(f, h.Sum(nil))
			continue
		}
		data, err := c.readFile(f)
		if err != nil {
			c.errorf("%s: %s", quotef(f), errText(err))
			status = 1
			continue
		}
		if !c.sha256Check(data) {
			status = 1
		}
	}
	return c.done(status)
}

// copyContext copies r to w, checking ctx between pieces.
func copyContext(ctx context.Context, w io.Writer, r io.Reader) error {
	buf := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		w.Write(buf[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// printSum prints one line of sha256sum: the digest and the name, escaped as GNU does when
// the name holds a backslash or a newline.
func (c *cmdIO) printSum(f string, sum []byte) {
	name := f
	prefix := ""
	if strings.ContainsAny(name, "\\\n\r") {
		prefix = "\\"
		name = strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r").Replace(name)
	}
	c.printf("%s%s  %s\n", prefix, hex.EncodeToString(sum), name)
}

func (c *cmdIO) sha256Check(list []byte) bool {
	ok := true
	failed := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(list), "\n"), "\n") {
		sum, name, found := strings.Cut(line, "  ")
		if !found {
			sum, name, found = strings.Cut(line, " *")
		}
		if !found || len(sum) != 64 {
			continue
		}
		data, err := c.readFile(name)
		if err != nil {
			c.errorf("%s: %s", name, errText(err))
			c.printf("%s: FAILED open or read\n", name)
			ok = false
			continue
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) == strings.ToLower(sum) {
			c.printf("%s: OK\n", name)
		} else {
			c.printf("%s: FAILED\n", name)
			failed++
			ok = false
		}
	}
	if failed > 0 {
		s := "s"
		if failed == 1 {
			s = ""
		}
		c.errorf("WARNING: %d computed checksum%s did NOT match", failed, s)
	}
	return ok
}

// runYes is yes [STRING…]: the line until the reader leaves or the context ends.
func runYes(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "yes")
	line := "y\n"
	if len(args) > 1 {
		line = strings.Join(args[1:], " ") + "\n"
	}
	block := strings.Repeat(line, max(1, 8192/len(line)))
	for !c.stopped() {
		if !c.writeString(block) {
			break
		}
	}
	if ctx.Err() != nil {
		return 130
	}
	return 1
}

// runSleep is sleep N[smhd]…, bounded by the context.
func runSleep(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "sleep")
	if len(args) < 2 {
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	}
	var total time.Duration
	for _, a := range args[1:] {
		unit := time.Second
		s := a
		switch {
		case strings.HasSuffix(s, "s"):
			s = s[:len(s)-1]
		case strings.HasSuffix(s, "m"):
			s, unit = s[:len(s)-1], time.Minute
		case strings.HasSuffix(s, "h"):
			s, unit = s[:len(s)-1], time.Hour
		case strings.HasSuffix(s, "d"):
			s, unit = s[:len(s)-1], 24*time.Hour
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 {
			c.errorf("invalid time interval %s", quote(a))
			return c.usage(&usageError{}, 1)
		}
		total += time.Duration(v * float64(unit))
	}
	t := time.NewTimer(total)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		return 130
	}
}
