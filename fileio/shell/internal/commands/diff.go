package commands

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// diffLine is one line of a file being compared.
type diffLine struct {
	text string // without its newline
	nl   bool   // it had one
	key  string // what is compared (after -i, -w, -b)
}

// diffEdit is one run of the edit script: equal lines, or a change (deleted and inserted
// lines, either possibly empty). a and b are 0-based starts, na and nb the counts.
type diffEdit struct {
	equal bool
	a, na int
	b, nb int
}

// diffLines returns the edit script from a to b, as GNU diff finds it (diffalg.go) when it
// prints context lines of context.
func diffLines(ctx context.Context, a, b []diffLine, context int) []diffEdit {
	changedA, changedB := diffChanges(ctx, a, b, context)
	at := func(c []bool, i int) bool { return i < len(c) && c[i] }
	var edits []diffEdit
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if at(changedA, i) || at(changedB, j) {
			e := diffEdit{a: i, b: j}
			for at(changedA, i) {
				i++
			}
			for at(changedB, j) {
				j++
			}
			e.na, e.nb = i-e.a, j-e.b
			edits = append(edits, e)
			continue
		}
		// Lines that match: extend the equal run.
		if n := len(edits); n > 0 && edits[n-1].equal {
			edits[n-1].na++
			edits[n-1].nb++
		} else {
			edits = append(edits, diffEdit{equal: true, a: i, na: 1, b: j, nb: 1})
		}
		i++
		j++
	}
	return edits
}

type diffOpts struct {
	unified                            int // -1 for the normal format
	brief, same, recursive, newFile    bool
	ignoreCase, ignoreAll, ignoreSpace bool
	stripCR                            bool
	labels                             []string
}

// runDiff is diff: the normal format, -u/-U N, -q, -s, -r, -N, -i, -w, -b,
// --strip-trailing-cr, --label; exit 1 on a difference, 2 on trouble.
func runDiff(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "diff")
	opts, operands, err := optSpec{short: "uU:cC:qsrNiwbBatT",
		long: []string{"unified?", "brief|q", "report-identical-files|s", "recursive|r", "new-file|N", "ignore-case|i",
			"ignore-all-space|w", "ignore-space-change|b", "ignore-blank-lines|B", "text|a", "strip-trailing-cr", "label=",
			"color?", "no-dereference", "expand-tabs|t", "initial-tab|T"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 2)
	}
	o := diffOpts{unified: -1}
	for _, op := range opts {
		switch op.key {
		case "u":
			o.unified = 3
		case "unified":
			o.unified = 3
			if op.val != "" {
				n, err := strconv.Atoi(op.val)
				if err != nil || n < 0 {
					c.errorf("invalid context length '%s'", op.val)
					return c.usage(&usageError{}, 2)
				}
				o.unified = n
			}
		case "U":
			n, err := strconv.Atoi(op.val)
			if err != nil || n < 0 {
				c.errorf("invalid context length '%s'", op.val)
				return c.usage(&usageError{}, 2)
			}
			o.unified = n
		case "c", "C":
			c.errorf("the context format (-c) is not offered; use -u")
			return 2
		case "q":
			o.brief = true
		case "s":
			o.same = true
		case "r":
			o.recursive = true
		case "N":
			o.newFile = true
		case "i":
			o.ignoreCase = true
		case "w":
			o.ignoreAll = true
		case "b":
			o.ignoreSpace = true
		case "strip-trailing-cr":
			o.stripCR = true
		case "label":
			o.labels = append(o.labels, op.val)
		}
	}
	if len(operands) < 2 {
		if len(operands) == 0 {
			c.errorf("missing operand after 'diff'")
		} else {
			c.errorf("missing operand after %s", quote(operands[0]))
		}
		c.errorf("Try 'diff --help' for more information.")
		return 2
	}
	if len(operands) > 2 {
		c.errorf("extra operand %s", quote(operands[2]))
		c.errorf("Try 'diff --help' for more information.")
		return 2
	}
	// "diff -r" prints each pair's header with the options as they were typed.
	flags := append([]string(nil), args[1:]...)
	for k := len(operands) - 1; k >= 0; k-- {
		for i := len(flags) - 1; i >= 0; i-- {
			if flags[i] == operands[k] {
				flags = append(flags[:i], flags[i+1:]...)
				break
			}
		}
	}
	d := &diffRun{c: c, o: o, flags: strings.Join(flags, " ")}
	status := d.compare(operands[0], operands[1], true)
	return c.done(status)
}

type diffRun struct {
	c *cmdIO
	o diffOpts
	// header is printed before the first output of the next file pair ("diff -r a/x b/x").
	header string
	flags  string
}

type diffSide struct {
	name   string
	abs    string
	stdin  bool
	exists bool
	isDir  bool
	mod    time.Time
}

func (d *diffRun) side(name string) (diffSide, error) {
	s := diffSide{name: name}
	if name == "-" {
		s.stdin, s.exists = true, true
		s.mod = time.Now()
		if d.c.env.Now != nil {
			s.mod = d.c.env.Now()
		}
		return s, nil
	}
	s.abs = d.c.env.Abs(name)
	fi, err := d.c.env.FS.Stat(d.c.ctx, s.abs)
	if err != nil {
		return s, d.c.classify(s.abs, err)
	}
	s.exists, s.isDir, s.mod = true, fi.IsDir(), fi.ModTime()
	return s, nil
}

// compare compares two operands; top is the command line's pair.
func (d *diffRun) compare(na, nb string, top bool) int {
	c := d.c
	a, errA := d.side(na)
	b, errB := d.side(nb)
	if errA != nil && !(d.o.newFile && isNotExist(errA) && errB == nil) {
		c.errorf("%s: %s", na, errText(errA))
		return 2
	}
	if errB != nil && !(d.o.newFile && isNotExist(errB) && errA == nil) {
		c.errorf("%s: %s", nb, errText(errB))
		return 2
	}
	if top && a.isDir != b.isDir && a.exists && b.exists {
		// diff FILE DIR compares FILE with DIR/FILE.
		if a.isDir {
			nb2 := path.Join(nb, "")
			return d.compare(path.Join(na, baseName(nb2)), nb, false)
		}
		return d.compare(na, strings.TrimSuffix(nb, "/")+"/"+baseName(na), false)
	}
	if a.isDir && b.isDir {
		return d.dirs(a, b)
	}
	return d.files(a, b)
}

func isNotExist(err error) bool { return err != nil && strings.Contains(errText(err), "No such file") }

func (d *diffRun) readSide(s diffSide) ([]byte, error) {
	if !s.exists {
		return nil, nil
	}
	if s.stdin {
		return readAllBounded(d.c.ctx, d.c.env.Stdin)
	}
	return d.c.readPath(s.abs)
}

func (d *diffRun) files(a, b diffSide) int {
	c := d.c
	da, err := d.readSide(a)
	if err != nil {
		c.errorf("%s: %s", a.name, errText(err))
		return 2
	}
	db, err := d.readSide(b)
	if err != nil {
		c.errorf("%s: %s", b.name, errText(err))
		return 2
	}
	if bytes.Equal(da, db) {
		if d.o.same {
			c.printf("Files %s and %s are identical\n", a.name, b.name)
		}
		return 0
	}
	if !d.o.brief && (bytes.IndexByte(da, 0) >= 0 || bytes.IndexByte(db, 0) >= 0) {
		c.printf("Binary files %s and %s differ\n", a.name, b.name)
		return 1
	}
	la, lb := d.lines(da), d.lines(db)
	edits := diffLines(c.ctx, la, lb, max(d.o.unified, 0))
	changed := false
	for _, e := range edits {
		if !e.equal {
			changed = true
		}
	}
	if !changed {
		return 0
	}
	if d.o.brief {
		c.printf("Files %s and %s differ\n", a.name, b.name)
		return 1
	}
	if d.header != "" {
		c.writeString(d.header)
		d.header = ""
	}
	if d.o.unified >= 0 {
		d.unified(a, b, la, lb, edits)
	} else {
		d.normal(la, lb, edits)
	}
	return 1
}

func (d *diffRun) lines(data []byte) []diffLine {
	raw := splitLines(data)
	out := make([]diffLine, len(raw))
	for i, l := range raw {
		t := string(l)
		nl := strings.HasSuffix(t, "\n")
		t = strings.TrimSuffix(t, "\n")
		key := t
		if d.o.stripCR {
			key = strings.TrimSuffix(key, "\r")
		}
		if d.o.ignoreCase {
			key = strings.ToLower(key)
		}
		switch {
		case d.o.ignoreAll:
			key = strings.Join(strings.Fields(key), "")
		case d.o.ignoreSpace:
			key = strings.Join(strings.Fields(key), " ")
			if len(key) > 0 && len(t) > 0 && (t[0] == ' ' || t[0] == '\t') {
				key = " " + key
			}
		}
		if !nl {
			key += "\x00no-newline"
		}
		out[i] = diffLine{text: t, nl: nl, key: key}
	}
	return out
}

func (d *diffRun) writeLine(prefix string, l diffLine) {
	d.c.writeString(prefix + l.text + "\n")
	if !l.nl {
		d.c.writeString("\\ No newline at end of file\n")
	}
}

// normal prints diff's default format: "2c2", "< old", "---", "> new".
func (d *diffRun) normal(la, lb []diffLine, edits []diffEdit) {
	rng := func(start, n int) string {
		if n <= 1 {
			return strconv.Itoa(start + 1)
		}
		return fmt.Sprintf("%d,%d", start+1, start+n)
	}
	for _, e := range edits {
		if e.equal {
			continue
		}
		switch {
		case e.na == 0:
			d.c.printf("%da%s\n", e.a, rng(e.b, e.nb))
		case e.nb == 0:
			d.c.printf("%sd%d\n", rng(e.a, e.na), e.b)
		default:
			d.c.printf("%sc%s\n", rng(e.a, e.na), rng(e.b, e.nb))
		}
		for _, l := range la[e.a : e.a+e.na] {
			d.writeLine("< ", l)
		}
		if e.na > 0 && e.nb > 0 {
			d.c.writeString("---\n")
		}
		for _, l := range lb[e.b : e.b+e.nb] {
			d.writeLine("> ", l)
		}
	}
}

func diffTime(t time.Time) string {
	return t.Format("2006-01-02 15:04:05.000000000 -0700")
}

// unified prints -u's format: headers with times, then hunks of changes with context.
func (d *diffRun) unified(a, b diffSide, la, lb []diffLine, edits []diffEdit) {
	c := d.c
	label := func(s diffSide, i int) string {
		if i < len(d.o.labels) {
			return d.o.labels[i]
		}
		mod := s.mod
		if !s.exists {
			mod = time.Unix(0, 0)
		}
		return s.name + "\t" + diffTime(mod.UTC())
	}
	c.printf("--- %s\n+++ %s\n", label(a, 0), label(b, 1))
	ctxN := d.o.unified
	// Hunks: runs of changes whose gaps are at most 2*context equal lines.
	for i := 0; i < len(edits); {
		if edits[i].equal {
			i++
			continue
		}
		j := i
		for j+2 < len(edits) && edits[j+1].equal && edits[j+1].na <= 2*ctxN && !edits[j+2].equal {
			j += 2
		}
		first, last := edits[i], edits[j]
		startA := max(first.a-ctxN, 0)
		startB := max(first.b-ctxN, 0)
		endA := min(last.a+last.na+ctxN, len(la))
		endB := min(last.b+last.nb+ctxN, len(lb))
		hdr := func(start, end int) string {
			n := end - start
			switch n {
			case 0:
				return fmt.Sprintf("%d,0", start)
			case 1:
				return strconv.Itoa(start + 1)
			}
			return fmt.Sprintf("%d,%d", start+1, n)
		}
		c.printf("@@ -%s +%s @@\n", hdr(startA, endA), hdr(startB, endB))
		for _, l := range la[startA:first.a] {
			d.writeLine(" ", l)
		}
		for k := i; k <= j; k++ {
			e := edits[k]
			if e.equal {
				for _, l := range la[e.a : e.a+e.na] {
					d.writeLine(" ", l)
				}
				continue
			}
			for _, l := range la[e.a : e.a+e.na] {
				d.writeLine("-", l)
			}
			for _, l := range lb[e.b : e.b+e.nb] {
				d.writeLine("+", l)
			}
		}
		for _, l := range la[last.a+last.na : endA] {
			d.writeLine(" ", l)
		}
		i = j + 1
	}
}

// dirs compares two directories: names only in one, then the files in both (and, with -r,
// the directories in both), in byte order.
func (d *diffRun) dirs(a, b diffSide) int {
	c := d.c
	list := func(s diffSide) map[string]fs.DirEntry {
		m := map[string]fs.DirEntry{}
		if !s.exists {
			return m
		}
		entries, err := c.env.FS.ReadDir(c.ctx, s.abs)
		if err != nil {
			return m
		}
		for _, e := range entries {
			m[e.Name()] = e
		}
		return m
	}
	ea, eb := list(a), list(b)
	var names []string
	for n := range ea {
		names = append(names, n)
	}
	for n := range eb {
		if _, ok := ea[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	status := 0
	join := func(dir, name string) string {
		if strings.HasSuffix(dir, "/") {
			return dir + name
		}
		return dir + "/" + name
	}
	for _, n := range names {
		if c.stopped() {
			break
		}
		xa, inA := ea[n]
		xb, inB := eb[n]
		pa, pb := join(a.name, n), join(b.name, n)
		switch {
		case !inA && !d.o.newFile:
			c.printf("Only in %s: %s\n", b.name, n)
			status = max(status, 1)
		case !inB && !d.o.newFile:
			c.printf("Only in %s: %s\n", a.name, n)
			status = max(status, 1)
		case inA && inB && xa.IsDir() && xb.IsDir():
			if d.o.recursive {
				status = max(status, d.compare(pa, pb, false))
			} else {
				c.printf("Common subdirectories: %s and %s\n", pa, pb)
			}
		case inA && inB && xa.IsDir() != xb.IsDir():
			kind := func(e fs.DirEntry) string {
				if e.IsDir() {
					return "directory"
				}
				return "regular file"
			}
			c.printf("File %s is a %s while file %s is a %s\n", pa, kind(xa), pb, kind(xb))
			status = max(status, 1)
		default:
			if (inA && xa.IsDir()) || (inB && xb.IsDir()) {
				if d.o.recursive {
					status = max(status, d.compare(pa, pb, false))
				}
				continue
			}
			flag := "diff"
			if d.flags != "" {
				flag += " " + d.flags
			}
			d.header = flag + " " + pa + " " + pb + "\n"
			st := d.compare(pa, pb, false)
			d.header = ""
			status = max(status, st)
		}
	}
	return status
}
