package commands

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"
	"time"
)

// runMkdir is mkdir [-p] [-v] [-m MODE] DIR….
func runMkdir(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "mkdir")
	opts, dirs, err := optSpec{short: "pvm:", long: []string{"parents|p", "verbose|v", "mode=|m"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	parents, verbose := false, false
	for _, o := range opts {
		switch o.key {
		case "p":
			parents = true
		case "v":
			verbose = true
		}
	}
	if len(dirs) == 0 {
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	}
	status := 0
	for _, d := range dirs {
		abs := env.Abs(d)
		if parents {
			// Report the first component that is a file, as GNU does.
			var created []string
			failed := false
			for _, p := range ancestors(abs) {
				fi, err := env.FS.Stat(ctx, p)
				if err == nil && fi.IsDir() {
					continue
				}
				if err == nil {
					if p == abs {
						c.errorf("cannot create directory %s: File exists", quote(d))
					} else {
						c.errorf("cannot create directory %s: Not a directory", quote(relativeTo(d, abs, p)))
					}
					failed = true
					break
				}
				created = append(created, p)
			}
			if failed {
				status = 1
				continue
			}
			if err := env.FS.Mkdir(ctx, abs, true); err != nil {
				c.errorf("cannot create directory %s: %s", quote(d), errText(c.classify(abs, err)))
				status = 1
				continue
			}
			if verbose {
				for _, p := range created {
					c.printf("mkdir: created directory %s\n", quote(relativeTo(d, abs, p)))
				}
			}
			continue
		}
		if fi, err := env.FS.Stat(ctx, abs); err == nil {
			_ = fi
			c.errorf("cannot create directory %s: File exists", quote(d))
			status = 1
			continue
		}
		parent := path.Dir(abs)
		if fi, err := env.FS.Stat(ctx, parent); err != nil || !fi.IsDir() {
			msg := "No such file or directory"
			if err == nil || errors.Is(c.classify(parent, err), errNotDir) {
				msg = "Not a directory"
			}
			c.errorf("cannot create directory %s: %s", quote(d), msg)
			status = 1
			continue
		}
		if err := env.FS.Mkdir(ctx, abs, false); err != nil {
			c.errorf("cannot create directory %s: %s", quote(d), errText(err))
			status = 1
			continue
		}
		if verbose {
			c.printf("mkdir: created directory %s\n", quote(d))
		}
	}
	return c.done(status)
}

// ancestors returns the directories from the root's child down to abs.
func ancestors(abs string) []string {
	var out []string
	for p := abs; p != "/"; p = path.Dir(p) {
		out = append([]string{p}, out...)
	}
	return out
}

// relativeTo prints the ancestor p of abs the way the operand d names abs.
func relativeTo(d, abs, p string) string {
	suffix := strings.TrimPrefix(abs, p)
	return strings.TrimSuffix(strings.TrimRight(d, "/"), suffix)
}

// runTouch is touch [-c] [-d DATE] [-r FILE] [-t STAMP] FILE….
func runTouch(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "touch")
	opts, files, err := optSpec{short: "acd:fhmr:t:", long: []string{"no-create|c", "date=|d", "reference=|r", "time="}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	now := time.Now()
	if env.Now != nil {
		now = env.Now()
	}
	noCreate := false
	for _, o := range opts {
		switch o.key {
		case "c":
			noCreate = true
		case "r":
			abs := env.Abs(o.val)
			fi, err := env.FS.Stat(ctx, abs)
			if err != nil {
				c.errorf("failed to get attributes of %s: %s", quote(o.val), errText(c.classify(abs, err)))
				return 1
			}
			now = fi.ModTime()
		case "d":
			t, ok := parseDate(o.val, now)
			if !ok {
				c.errorf("invalid date format %s", quote(o.val))
				return 1
			}
			now = t
		case "t":
			t, ok := parseStamp(o.val, now)
			if !ok {
				c.errorf("invalid date format %s", quote(o.val))
				return 1
			}
			now = t
		}
	}
	if len(files) == 0 {
		c.errorf("missing file operand")
		return c.usage(&usageError{}, 1)
	}
	status := 0
	for _, f := range files {
		abs := env.Abs(f)
		if _, err := env.FS.Stat(ctx, abs); err != nil {
			if noCreate {
				if errors.Is(c.classify(abs, err), errNotDir) {
					c.errorf("setting times of %s: Not a directory", quote(f))
					status = 1
				}
				continue
			}
			parent := path.Dir(abs)
			if fi, perr := env.FS.Stat(ctx, parent); perr != nil || !fi.IsDir() {
				msg := "No such file or directory"
				if perr == nil || errors.Is(c.classify(parent, perr), errNotDir) {
					msg = "Not a directory"
				}
				c.errorf("cannot touch %s: %s", quote(f), msg)
				status = 1
				continue
			}
		}
		if err := env.FS.Touch(ctx, abs, now); err != nil {
			c.errorf("cannot touch %s: %s", quote(f), errText(c.classify(abs, err)))
			status = 1
		}
	}
	return c.done(status)
}

// parseDate reads the dates agents give touch -d: RFC 3339, "2006-01-02 15:04:05",
// "2006-01-02", "@UNIX", "now", "yesterday", "tomorrow".
func parseDate(s string, now time.Time) (time.Time, bool) {
	switch s {
	case "now":
		return now, true
	case "yesterday":
		return now.Add(-24 * time.Hour), true
	case "tomorrow":
		return now.Add(24 * time.Hour), true
	}
	if strings.HasPrefix(s, "@") {
		var sec int64
		for _, ch := range s[1:] {
			if ch < '0' || ch > '9' {
				return time.Time{}, false
			}
			sec = sec*10 + int64(ch-'0')
		}
		return time.Unix(sec, 0), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseStamp reads touch -t's [[CC]YY]MMDDhhmm[.ss].
func parseStamp(s string, now time.Time) (time.Time, bool) {
	main, sec, _ := strings.Cut(s, ".")
	layouts := map[int]string{8: "01021504", 10: "0601021504", 12: "200601021504"}
	layout, ok := layouts[len(main)]
	if !ok {
		return time.Time{}, false
	}
	if len(main) == 8 {
		main = now.Format("2006") + main
		layout = "2006" + layout
	}
	t, err := time.ParseInLocation(layout, main, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	if sec != "" {
		d, err := time.ParseDuration(sec + "s")
		if err != nil {
			return time.Time{}, false
		}
		t = t.Add(d)
	}
	return t, true
}

// runRm is rm [-r -R -f -d -v] FILE….
func runRm(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "rm")
	opts, files, err := optSpec{short: "rRfdviI", long: []string{"recursive|r", "force|f", "dir|d", "verbose|v",
		"interactive?", "one-file-system", "no-preserve-root", "preserve-root?"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	recursive, force, dirOK, verbose := false, false, false, false
	for _, o := range opts {
		switch o.key {
		case "r", "R":
			recursive = true
		case "f":
			force = true
		case "d":
			dirOK = true
		case "v":
			verbose = true
		case "i", "I", "interactive":
			force = false
		}
	}
	if len(files) == 0 {
		if force {
			return 0
		}
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	}
	status := 0
	for _, f := range files {
		if c.stopped() {
			break
		}
		b := baseName(f)
		if b == "." || b == ".." {
			c.errorf("refusing to remove '.' or '..' directory: skipping %s", quote(f))
			status = 1
			continue
		}
		abs := env.Abs(f)
		if abs == "/" && recursive {
			c.errorf("it is dangerous to operate recursively on %s", quote(f))
			c.errorf("use --no-preserve-root to override this failsafe")
			status = 1
			continue
		}
		fi, err := env.FS.Stat(ctx, abs)
		if err != nil {
			if !(force && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid))) {
				c.errorf("cannot remove %s: %s", quote(f), errText(c.classify(abs, err)))
				status = 1
			}
			continue
		}
		if fi.IsDir() {
			if !recursive {
				if dirOK {
					entries, _ := env.FS.ReadDir(ctx, abs)
					if len(entries) > 0 {
						c.errorf("cannot remove %s: Directory not empty", quote(f))
						status = 1
						continue
					}
				} else {
					c.errorf("cannot remove %s: Is a directory", quote(f))
					status = 1
					continue
				}
			}
			if verbose {
				c.verboseRemoved(abs, f)
			}
		} else if verbose {
			c.printf("removed %s\n", quote(f))
		}
		if err := env.FS.Remove(ctx, abs, fi.IsDir()); err != nil {
			c.errorf("cannot remove %s: %s", quote(f), errText(err))
			status = 1
		}
	}
	return c.done(status)
}

func (c *cmdIO) verboseRemoved(abs, shown string) {
	entries, _ := c.env.FS.ReadDir(c.ctx, abs)
	for _, e := range entries {
		child := strings.TrimSuffix(shown, "/") + "/" + e.Name()
		if e.IsDir() {
			c.verboseRemoved(path.Join(abs, e.Name()), child)
		} else {
			c.printf("removed %s\n", quote(child))
		}
	}
	c.printf("removed directory %s\n", quote(shown))
}

// copyMoveArgs resolves cp's and mv's operands: the sources and, for each, its final
// destination name. It prints GNU's error and returns false when the operands do not fit.
func (c *cmdIO) copyMoveArgs(operands []string, targetDir string, noTargetDir bool) ([]string, []string, bool) {
	env := c.env
	if targetDir == "" && len(operands) == 0 {
		c.errorf("missing file operand")
		c.usage(&usageError{}, 1)
		return nil, nil, false
	}
	sources := operands
	if targetDir == "" {
		if len(operands) == 1 {
			c.errorf("missing destination file operand after %s", quote(operands[0]))
			c.usage(&usageError{}, 1)
			return nil, nil, false
		}
		targetDir = operands[len(operands)-1]
		sources = operands[:len(operands)-1]
		fi, err := env.FS.Stat(c.ctx, env.Abs(targetDir))
		isDir := err == nil && fi.IsDir()
		if noTargetDir || (len(sources) == 1 && !isDir) {
			if len(sources) > 1 {
				c.errorf("extra operand %s", quote(operands[2]))
				c.usage(&usageError{}, 1)
				return nil, nil, false
			}
			return sources, []string{targetDir}, true
		}
		if !isDir {
			if err != nil {
				c.errorf("target %s: %s", quote(targetDir), errText(c.classify(env.Abs(targetDir), err)))
			} else {
				c.errorf("target %s: Not a directory", quote(targetDir))
			}
			return nil, nil, false
		}
	}
	dests := make([]string, len(sources))
	for i, s := range sources {
		b := baseName(s)
		if strings.HasSuffix(targetDir, "/") {
			dests[i] = targetDir + b
		} else {
			dests[i] = targetDir + "/" + b
		}
	}
	return sources, dests, true
}

// runCp is cp [-r -R -a -p -f -n -v -T -t DIR] SOURCE… DEST.
func runCp(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "cp")
	opts, operands, err := optSpec{short: "rRafnvpTt:iludPLH", long: []string{"recursive|r", "archive|a", "force|f", "no-clobber|n",
		"verbose|v", "preserve?", "no-target-directory|T", "target-directory=|t", "interactive|i", "update?", "parents", "dereference|L",
		"no-dereference|P"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	recursive, noClobber, verbose, preserve, noTarget := false, false, false, false, false
	targetDir := ""
	for _, o := range opts {
		switch o.key {
		case "r", "R":
			recursive = true
		case "a":
			recursive, preserve = true, true
		case "p", "preserve":
			preserve = true
		case "n":
			noClobber = true
		case "v":
			verbose = true
		case "T":
			noTarget = true
		case "t":
			targetDir = o.val
		}
	}
	sources, dests, ok := c.copyMoveArgs(operands, targetDir, noTarget)
	if !ok {
		return 1
	}
	now := time.Now()
	if env.Now != nil {
		now = env.Now()
	}
	status := 0
	seen := map[string]bool{}
	for i, src := range sources {
		if c.stopped() {
			break
		}
		if seen[src] {
			c.errorf("warning: source file %s specified more than once", quote(src))
			continue
		}
		seen[src] = true
		sAbs, dAbs := env.Abs(src), env.Abs(dests[i])
		sfi, err := env.FS.Stat(ctx, sAbs)
		if err != nil {
			c.errorf("cannot stat %s: %s", quote(src), errText(c.classify(sAbs, err)))
			status = 1
			continue
		}
		dfi, derr := env.FS.Stat(ctx, dAbs)
		if sfi.IsDir() && !recursive {
			c.errorf("-r not specified; omitting directory %s", quote(src))
			status = 1
			continue
		}
		if derr != nil && errors.Is(c.classify(dAbs, derr), errNotDir) {
			c.errorf("cannot stat %s: Not a directory", quote(dests[i]))
			status = 1
			continue
		}
		if sfi.IsDir() {
			if dAbs == sAbs {
				c.errorf("cannot copy a directory, %s, into itself, %s", quote(src), quote(dests[i]))
				status = 1
				continue
			}
			if derr == nil && !dfi.IsDir() {
				c.errorf("cannot overwrite non-directory %s with directory %s", quote(dests[i]), quote(src))
				status = 1
				continue
			}
			ct := &treeCopy{c: c, top: dAbs, topSrc: src, topDst: dests[i], noClobber: noClobber, verbose: verbose, preserve: preserve, now: now}
			if !ct.copy(sAbs, dAbs, src, dests[i]) {
				status = 1
			}
			continue
		}
		if derr == nil && noClobber {
			continue
		}
		if derr == nil && dfi.IsDir() {
			c.errorf("cannot overwrite directory %s with non-directory", quote(dests[i]))
			status = 1
			continue
		}
		if derr == nil && dAbs == sAbs {
			c.errorf("%s and %s are the same file", quote(src), quote(dests[i]))
			status = 1
			continue
		}
		if derr == nil && noClobber {
			continue
		}
		if !c.copyFile(sAbs, dAbs, src, dests[i], verbose, preserve, sfi.ModTime(), now) {
			status = 1
		}
	}
	return c.done(status)
}

func (c *cmdIO) copyFile(sAbs, dAbs, src, dst string, verbose, preserve bool, mod, now time.Time) bool {
	if verbose {
		c.printf("%s -> %s\n", quote(src), quote(dst)) // GNU says it before it tries
	}
	data, err := c.env.FS.ReadFile(c.ctx, sAbs)
	if err != nil {
		c.errorf("cannot open %s for reading: %s", quote(src), errText(err))
		return false
	}
	parent := path.Dir(dAbs)
	if fi, err := c.env.FS.Stat(c.ctx, parent); err != nil || !fi.IsDir() {
		msg := "No such file or directory"
		if err == nil || errors.Is(c.classify(parent, err), errNotDir) {
			msg = "Not a directory"
		}
		c.errorf("cannot create regular file %s: %s", quote(dst), msg)
		return false
	}
	if err := c.env.FS.WriteFile(c.ctx, dAbs, data, false); err != nil {
		c.errorf("cannot create regular file %s: %s", quote(dst), errText(err))
		return false
	}
	t := now
	if preserve {
		t = mod
	}
	if err := c.env.FS.Touch(c.ctx, dAbs, t); err != nil {
		c.errorf("preserving times for %s: %s", quote(dst), errText(err))
		return false
	}
	return true
}

// treeCopy is one cp -r of a directory.
type treeCopy struct {
	c                            *cmdIO
	top, topSrc, topDst          string // the destination of the whole copy, which is never copied again
	noClobber, verbose, preserve bool
	now                          time.Time
}

func (t *treeCopy) copy(sAbs, dAbs, src, dst string) bool {
	c, noClobber, verbose, preserve, now := t.c, t.noClobber, t.verbose, t.preserve, t.now
	parent := path.Dir(dAbs)
	if fi, err := c.env.FS.Stat(c.ctx, parent); err != nil || !fi.IsDir() {
		c.errorf("cannot create directory %s: No such file or directory", quote(dst))
		return false
	}
	if err := c.env.FS.Mkdir(c.ctx, dAbs, true); err != nil {
		c.errorf("cannot create directory %s: %s", quote(dst), errText(err))
		return false
	}
	if verbose {
		c.printf("%s -> %s\n", quote(src), quote(dst))
	}
	entries, err := c.env.FS.ReadDir(c.ctx, sAbs)
	if err != nil {
		c.errorf("cannot access %s: %s", quote(src), errText(err))
		return false
	}
	ok := true
	for _, e := range entries {
		if c.stopped() {
			return false
		}
		cs, cd := path.Join(sAbs, e.Name()), path.Join(dAbs, e.Name())
		srcName, dstName := strings.TrimSuffix(src, "/")+"/"+e.Name(), strings.TrimSuffix(dst, "/")+"/"+e.Name()
		if e.IsDir() {
			if cs == t.top {
				c.errorf("cannot copy a directory, %s, into itself, %s", quote(t.topSrc), quote(t.topDst))
				ok = false
				continue
			}
			if !t.copy(cs, cd, srcName, dstName) {
				ok = false
			}
			continue
		}
		if fi, err := c.env.FS.Stat(c.ctx, cd); err == nil {
			if fi.IsDir() {
				c.errorf("cannot overwrite directory %s with non-directory", quote(dstName))
				ok = false
				continue
			}
			if noClobber {
				continue
			}
		}
		info, _ := e.Info()
		mod := now
		if info != nil {
			mod = info.ModTime()
		}
		if !c.copyFile(cs, cd, srcName, dstName, verbose, preserve, mod, now) {
			ok = false
		}
	}
	return ok
}

// runMv is mv [-f -n -v -T -t DIR] SOURCE… DEST.
func runMv(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "mv")
	opts, operands, err := optSpec{short: "fnvTt:iu", long: []string{"force|f", "no-clobber|n", "verbose|v",
		"no-target-directory|T", "target-directory=|t", "interactive|i", "update?"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	noClobber, verbose, noTarget := false, false, false
	targetDir := ""
	for _, o := range opts {
		switch o.key {
		case "n":
			noClobber = true
		case "v":
			verbose = true
		case "T":
			noTarget = true
		case "t":
			targetDir = o.val
		}
	}
	sources, dests, ok := c.copyMoveArgs(operands, targetDir, noTarget)
	if !ok {
		return 1
	}
	status := 0
	for i, src := range sources {
		sAbs, dAbs := env.Abs(src), env.Abs(dests[i])
		sfi, err := env.FS.Stat(ctx, sAbs)
		if err != nil {
			c.errorf("cannot stat %s: %s", quote(src), errText(c.classify(sAbs, err)))
			status = 1
			continue
		}
		if sAbs == dAbs {
			if noClobber {
				continue // -n: the destination exists, so nothing happens
			}
			c.errorf("%s and %s are the same file", quote(src), quote(dests[i]))
			status = 1
			continue
		}
		dfi, derr := env.FS.Stat(ctx, dAbs)
		if derr == nil && sfi.IsDir() && !dfi.IsDir() && !noClobber {
			c.errorf("cannot overwrite non-directory %s with directory %s", quote(dests[i]), quote(src))
			status = 1
			continue
		}
		if sfi.IsDir() && strings.HasPrefix(dAbs, sAbs+"/") {
			c.errorf("cannot move %s to a subdirectory of itself, %s", quote(src), quote(dests[i]))
			status = 1
			continue
		}
		if derr != nil && errors.Is(c.classify(dAbs, derr), errNotDir) {
			c.errorf("cannot stat %s: Not a directory", quote(dests[i]))
			status = 1
			continue
		}
		if derr == nil {
			if noClobber {
				continue
			}
			switch {
			case dfi.IsDir() && !sfi.IsDir():
				c.errorf("cannot overwrite directory %s with non-directory", quote(dests[i]))
				status = 1
				continue
			case !dfi.IsDir() && sfi.IsDir():
				c.errorf("cannot overwrite non-directory %s with directory %s", quote(dests[i]), quote(src))
				status = 1
				continue
			case dfi.IsDir():
				if entries, _ := env.FS.ReadDir(ctx, dAbs); len(entries) > 0 {
					c.errorf("cannot move %s to %s: Directory not empty", quote(src), quote(dests[i]))
					status = 1
					continue
				}
				if err := env.FS.Remove(ctx, dAbs, true); err != nil {
					c.errorf("cannot move %s to %s: %s", quote(src), quote(dests[i]), errText(err))
					status = 1
					continue
				}
			}
		}
		parent := path.Dir(dAbs)
		if fi, err := env.FS.Stat(ctx, parent); err != nil || !fi.IsDir() {
			msg := "No such file or directory"
			if err == nil || errors.Is(c.classify(parent, err), errNotDir) {
				msg = "Not a directory"
			}
			c.errorf("cannot move %s to %s: %s", quote(src), quote(dests[i]), msg)
			status = 1
			continue
		}
		if err := env.FS.Rename(ctx, sAbs, dAbs); err != nil {
			c.errorf("cannot move %s to %s: %s", quote(src), quote(dests[i]), errText(err))
			status = 1
			continue
		}
		if verbose {
			c.printf("renamed %s -> %s\n", quote(src), quote(dests[i]))
		}
	}
	return c.done(status)
}
