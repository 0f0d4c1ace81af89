package commands

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// runTree is the tree command of Debian's tree package (2.x) with LC_ALL=C: ASCII lines,
// names with spaces and non-ASCII bytes escaped, names in byte order, and the report line.
// Flags: -a -d -L -I -P -f -F -i --noreport --dirsfirst.
func runTree(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "tree")
	opts, operands, err := optSpec{short: "adL:I:P:fFiN", long: []string{"noreport", "dirsfirst", "filelimit=", "charset=", "matchdirs", "prune", "gitignore"}}.parse(args[1:])
	if err != nil {
		c.errorf("%s", err)
		return 1
	}
	t := &treeRun{c: c, level: -1}
	for _, o := range opts {
		switch o.key {
		case "a":
			t.all = true
		case "d":
			t.dirsOnly = true
		case "L":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 {
				c.errorf("Invalid level, must be greater than 0.")
				return 1
			}
			t.level = n
		case "I":
			t.exclude = append(t.exclude, strings.Split(o.val, "|")...)
		case "P":
			t.include = append(t.include, strings.Split(o.val, "|")...)
		case "f":
			t.fullPath = true
		case "F":
			t.classify = true
		case "i":
			t.noIndent = true
		case "N":
			t.raw = true
		case "noreport":
			t.noReport = true
		case "dirsfirst":
			t.dirsFirst = true
		}
	}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	status := 0
	for _, op := range operands {
		abs := env.Abs(op)
		fi, err := env.FS.Stat(ctx, abs)
		if err != nil || !fi.IsDir() {
			c.printf("%s  [error opening dir]\n", t.escape(op))
			if err != nil {
				status = 2
			} else {
				t.files++
			}
			continue
		}
		top := t.escape(op)
		if t.classify && !t.dirsOnly && !strings.HasSuffix(op, "/") {
			top += "/"
		}
		c.writeString(top + "\n")
		// tree 2.x counts the directory it starts from when it lists something in it.
		if t.walk(abs, op, "", 1) > 0 {
			t.dirs++
		}
	}
	if !t.noReport {
		c.writeString("\n")
		d := "directories"
		if t.dirs == 1 {
			d = "directory"
		}
		if t.dirsOnly {
			c.printf("%d %s\n", t.dirs, d)
		} else {
			f := "files"
			if t.files == 1 {
				f = "file"
			}
			c.printf("%d %s, %d %s\n", t.dirs, d, t.files, f)
		}
	}
	if status != 0 {
		return c.done(status)
	}
	return c.done(0)
}

type treeRun struct {
	c                                                          *cmdIO
	all, dirsOnly, fullPath, classify, noIndent, noReport, raw bool
	dirsFirst                                                  bool
	level                                                      int
	exclude, include                                           []string
	dirs, files                                                int
}

// escape writes a name as tree does in the C locale: "\ " for a space, octal for bytes that
// are not printable ASCII.
func (t *treeRun) escape(s string) string {
	if t.raw {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == ' ':
			sb.WriteString(`\ `)
		case b < 0x20 || b >= 0x7f:
			fmt.Fprintf(&sb, `\%03o`, b)
		default:
			sb.WriteByte(b)
		}
	}
	return sb.String()
}

// walk lists the directory at abs and below; it returns how many entries it listed there.
func (t *treeRun) walk(abs, shown, indent string, depth int) int {
	c := t.c
	if t.level >= 0 && depth > t.level {
		return 0
	}
	entries, err := c.env.FS.ReadDir(c.ctx, abs)
	if err != nil || c.stopped() {
		return 0
	}
	type item struct {
		name string
		dir  bool
	}
	var items []item
	for _, e := range entries {
		n := e.Name()
		if !t.all && strings.HasPrefix(n, ".") {
			continue
		}
		if t.dirsOnly && !e.IsDir() {
			continue
		}
		skip := false
		for _, x := range t.exclude {
			if fnmatch(x, n, false) {
				skip = true
			}
		}
		if !skip && !e.IsDir() && len(t.include) > 0 {
			skip = true
			for _, p := range t.include {
				if fnmatch(p, n, false) {
					skip = false
				}
			}
		}
		if !skip {
			items = append(items, item{n, e.IsDir()})
		}
	}
	if t.dirsFirst {
		var ds, fs []item
		for _, it := range items {
			if it.dir {
				ds = append(ds, it)
			} else {
				fs = append(fs, it)
			}
		}
		items = append(ds, fs...)
	}
	for i, it := range items {
		last := i == len(items)-1
		branch, next := "|-- ", "|   "
		if last {
			branch, next = "`-- ", "    "
		}
		if t.noIndent {
			branch, next = "", ""
		}
		var childShown string
		if shown == "." && !t.fullPath {
			childShown = it.name
		} else if strings.HasSuffix(shown, "/") {
			childShown = shown + it.name
		} else {
			childShown = shown + "/" + it.name
		}
		label := t.escape(it.name)
		if t.fullPath {
			label = t.escape(childShown)
		}
		if t.classify && it.dir && !t.dirsOnly { // with -d, everything is a directory
			label += "/"
		}
		c.writeString(indent + branch + label + "\n")
		if it.dir {
			t.dirs++
			t.walk(path.Join(abs, it.name), childShown, indent+next, depth+1)
		} else {
			t.files++
		}
	}
	return len(items)
}
