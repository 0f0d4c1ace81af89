package commands

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Owner is the owner and group ls -l shows: a project's files have none, and agents expect
// the root of a container.
const Owner = "root"

// dirSize is the size ls -l and stat show for a directory (one ext4 block).
const dirSize = 4096

// lsEntry is one name to list.
type lsEntry struct {
	name  string // as printed
	abs   string
	info  fs.FileInfo
	links int
}

type lsOpts struct {
	all, almostAll, dirSelf, recursive, long, human, classify, slash, reverse bool
	sortBy                                                                    byte // 'n' name, 't' time, 'S' size, 'U' none
	now                                                                       time.Time
}

// runLs is ls: -a -A -1 -d -R -l -h -t -S -r -U -F -p, one name per line (stdout is not a
// terminal), -l with the project's sizes and times.
func runLs(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "ls")
	opts, operands, err := optSpec{short: "aA1dRlhtSrUFpgonCxk",
		long: []string{"all|a", "almost-all|A", "directory|d", "recursive|R", "human-readable|h", "reverse|r",
			"classify?|F", "color?", "sort=", "group-directories-first", "full-time", "time-style="}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 2)
	}
	o := lsOpts{sortBy: 'n', now: time.Now()}
	if env.Now != nil {
		o.now = env.Now()
	}
	for _, op := range opts {
		switch op.key {
		case "a":
			o.all, o.almostAll = true, false // the later of -a and -A wins
		case "A":
			o.almostAll, o.all = true, false
		case "d":
			o.dirSelf = true
		case "R":
			o.recursive = true
		case "l", "g", "o", "n":
			o.long = true
		case "h":
			o.human = true
		case "t":
			o.sortBy = 't'
		case "S":
			o.sortBy = 'S'
		case "U":
			o.sortBy = 'U'
		case "r":
			o.reverse = true
		case "F":
			o.classify = true
		case "p":
			o.slash = true
		case "sort":
			switch op.val {
			case "time":
				o.sortBy = 't'
			case "size":
				o.sortBy = 'S'
			case "none":
				o.sortBy = 'U'
			case "name":
				o.sortBy = 'n'
			}
		}
	}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	status := 0
	var files, dirs []lsEntry
	for _, name := range operands {
		abs := env.Abs(name)
		fi, err := env.FS.Stat(ctx, abs)
		if err != nil {
			c.errorf("cannot access %s: %s", quote(name), errText(c.classify(abs, err)))
			status = 2
			continue
		}
		e := lsEntry{name: name, abs: abs, info: fi}
		if fi.IsDir() && !o.dirSelf {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
	}
	o.sortEntries(files)
	o.sortEntries(dirs)
	if len(files) > 0 {
		// GNU sizes the columns of the operands' listing over every operand, the
		// directories listed below included.
		c.listEntriesWidth(files, o, false, append(append([]lsEntry(nil), files...), dirs...))
	}
	showHeaders := len(operands) > 1 || o.recursive
	first := len(files) == 0
	for _, d := range dirs {
		if !c.listDir(d.abs, d.name, o, showHeaders, &first) {
			status = max(status, 1)
		}
		if c.stopped() {
			break
		}
	}
	return c.done(status)
}

func (o lsOpts) sortEntries(es []lsEntry) {
	if o.sortBy == 'U' {
		return
	}
	slices.SortStableFunc(es, func(a, b lsEntry) int {
		r := 0
		switch o.sortBy {
		case 't':
			if ta, tb := a.info.ModTime(), b.info.ModTime(); !ta.Equal(tb) {
				if ta.After(tb) {
					r = -1
				} else {
					r = 1
				}
			}
		case 'S':
			if sa, sb := entrySize(a.info), entrySize(b.info); sa != sb {
				if sa > sb {
					r = -1
				} else {
					r = 1
				}
			}
		}
		if r == 0 {
			r = strings.Compare(a.name, b.name)
		}
		if o.reverse {
			r = -r
		}
		return r
	})
}

func entrySize(fi fs.FileInfo) int64 {
	if fi.IsDir() {
		return dirSize
	}
	return fi.Size()
}

// blocks is the 1K blocks a file takes on a disk of 4K blocks (what ls -s and "total" count).
func blocks(fi fs.FileInfo) int64 {
	return (entrySize(fi) + 4095) / 4096 * 4
}

func (c *cmdIO) linkCount(abs string, fi fs.FileInfo) int {
	if !fi.IsDir() {
		return 1
	}
	n := 2
	if entries, err := c.env.FS.ReadDir(c.ctx, abs); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				n++
			}
		}
	}
	return n
}

// listDir lists one directory (and below it with -R).
func (c *cmdIO) listDir(abs, shown string, o lsOpts, header bool, first *bool) bool {
	entries, err := c.env.FS.ReadDir(c.ctx, abs)
	if err != nil {
		c.errorf("cannot open directory %s: %s", quote(shown), errText(err))
		return false
	}
	var list []lsEntry
	if o.all {
		for _, dot := range []string{".", ".."} {
			p := abs
			if dot == ".." {
				p = path.Dir(abs)
			}
			if fi, err := c.env.FS.Stat(c.ctx, p); err == nil {
				list = append(list, lsEntry{name: dot, abs: p, info: fi})
			}
		}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && !o.all && !o.almostAll {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		list = append(list, lsEntry{name: e.Name(), abs: path.Join(abs, e.Name()), info: fi})
	}
	o.sortEntries(list)
	if header {
		if !*first {
			c.writeString("\n")
		}
		c.printf("%s:\n", shown)
	}
	*first = false
	c.listEntries(list, o, true)
	ok := true
	if o.recursive {
		for _, e := range list {
			if e.info.IsDir() && e.name != "." && e.name != ".." {
				child := shown + "/" + e.name
				if strings.HasSuffix(shown, "/") {
					child = shown + e.name
				}
				if !c.listDir(e.abs, child, o, true, first) {
					ok = false
				}
				if c.stopped() {
					return ok
				}
			}
		}
	}
	return ok
}

func (c *cmdIO) listEntries(list []lsEntry, o lsOpts, total bool) {
	c.listEntriesWidth(list, o, total, list)
}

// listEntriesWidth lists list with column widths computed over widthOf.
func (c *cmdIO) listEntriesWidth(list []lsEntry, o lsOpts, total bool, widthOf []lsEntry) {
	suffix := func(e lsEntry) string {
		if (o.classify || o.slash) && e.info.IsDir() {
			return "/"
		}
		return ""
	}
	if !o.long {
		for _, e := range list {
			c.writeString(e.name + suffix(e) + "\n")
		}
		return
	}
	var sum int64
	linkW, sizeW := 1, 1
	size := func(e lsEntry) string {
		if o.human {
			return humanSize(entrySize(e.info))
		}
		return strconv.FormatInt(entrySize(e.info), 10)
	}
	sizes := make([]string, len(list))
	for i := range list {
		e := &list[i]
		e.links = c.linkCount(e.abs, e.info)
		sum += blocks(e.info)
		sizes[i] = size(*e)
	}
	for _, e := range widthOf {
		linkW = max(linkW, len(strconv.Itoa(c.linkCount(e.abs, e.info))))
		sizeW = max(sizeW, len(size(e)))
	}
	if total {
		if o.human {
			c.printf("total %s\n", humanSize(sum*1024))
		} else {
			c.printf("total %d\n", sum)
		}
	}
	for i, e := range list {
		mode := "-rw-r--r--"
		if e.info.IsDir() {
			mode = "drwxr-xr-x"
		}
		c.printf("%s %*d %s %s %*s %s %s%s\n", mode, linkW, e.links, Owner, Owner, sizeW, sizes[i], lsTime(e.info.ModTime(), o.now), e.name, suffix(e))
	}
}

// lsTime is ls -l's time: "Jan  2 15:04" within six months before now, else "Jan  2  2006".
func lsTime(t, now time.Time) string {
	t = t.UTC()
	sixMonths := now.Add(-(365 * 24 * time.Hour / 2))
	if t.After(sixMonths) && !t.After(now) {
		return t.Format("Jan _2 15:04")
	}
	return t.Format("Jan _2  2006")
}

// humanSize is ls -h's size: 1023, 1.0K, 4.0K, 12K, 1.5M (rounded up, as GNU).
func humanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	units := "KMGTPE"
	v := float64(n)
	for i := 0; i < len(units); i++ {
		v /= 1024
		if v < 1024 || i == len(units)-1 {
			if v < 10 {
				r := ceilTenth(v)
				if r >= 10 {
					return fmt.Sprintf("%.0f%c", r, units[i])
				}
				return fmt.Sprintf("%.1f%c", r, units[i])
			}
			r := ceilWhole(v)
			if r >= 1024 && i+1 < len(units) {
				return fmt.Sprintf("%.1f%c", 1.0, units[i+1])
			}
			return fmt.Sprintf("%.0f%c", r, units[i])
		}
	}
	return strconv.FormatInt(n, 10)
}

func ceilTenth(v float64) float64 {
	x := float64(int64(v * 10))
	if x < v*10 {
		x++
	}
	return x / 10
}

func ceilWhole(v float64) float64 {
	x := float64(int64(v))
	if x < v {
		x++
	}
	return x
}
