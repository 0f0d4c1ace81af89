package commands

import (
	"context"
	"path"
	"strings"
)

// gitignore-style rules, as ripgrep reads .gitignore, .ignore and .rgignore files and its
// -g globs.

type ignoreRule struct {
	segs     []string // the pattern split at '/', "**" segments kept
	anchored bool     // the pattern had a '/' before its end: it matches from base
	negate   bool
	dirOnly  bool
}

// ignoreFile is the rules of one file, relative to the directory base it lies in.
type ignoreFile struct {
	base  string
	rules []ignoreRule
}

func parseIgnoreRule(line string) (ignoreRule, bool) {
	var r ignoreRule
	line = strings.TrimSuffix(line, "\r")
	if line == "" || strings.HasPrefix(line, "#") {
		return r, false
	}
	// Trailing spaces go unless escaped.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	r.segs = strings.Split(line, "/")
	if !r.anchored {
		r.segs = append([]string{"**"}, r.segs...)
	}
	return r, true
}

func parseIgnoreFile(base, text string) *ignoreFile {
	f := &ignoreFile{base: base}
	for _, line := range strings.Split(text, "\n") {
		if r, ok := parseIgnoreRule(line); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

// match returns +1 (ignored), -1 (whitelisted by a ! rule) or 0 for the path rel (relative to
// the file's base, '/'-separated).
func (f *ignoreFile) match(rel string, isDir bool) int {
	segs := strings.Split(rel, "/")
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if matchSegs(r.segs, segs) {
			if r.negate {
				return -1
			}
			return 1
		}
	}
	return 0
}

// matchSegs matches path segments against pattern segments, "**" matching any number of
// segments (a trailing "**" at least one).
func matchSegs(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return len(name) >= 1
		}
		for i := 0; i <= len(name); i++ {
			if matchSegs(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	if !globSegment(pat[0], name[0]) {
		return false
	}
	return matchSegs(pat[1:], name[1:])
}

// globSegment matches one path segment, with {a,b} alternatives (ripgrep's globs have them).
func globSegment(pat, name string) bool {
	if i := strings.IndexByte(pat, '{'); i >= 0 {
		if j := strings.IndexByte(pat[i:], '}'); j > 0 {
			for _, alt := range strings.Split(pat[i+1:i+j], ",") {
				if globSegment(pat[:i]+alt+pat[i+j+1:], name) {
					return true
				}
			}
			return false
		}
	}
	return fnmatch(pat, name, true)
}

// ignoreStack holds the ignore files that apply below one directory, by kind, shallowest
// first.
type ignoreStack struct {
	rg, ig, git []*ignoreFile
	inRepo      bool
}

// load returns the stack for dir: parent's plus the files in dir.
func (s ignoreStack) load(ctx context.Context, env *Env, dir string, names map[string]bool) ignoreStack {
	out := ignoreStack{
		rg:     s.rg[:len(s.rg):len(s.rg)],
		ig:     s.ig[:len(s.ig):len(s.ig)],
		git:    s.git[:len(s.git):len(s.git)],
		inRepo: s.inRepo || names[".git"],
	}
	read := func(name string) (*ignoreFile, bool) {
		if !names[name] {
			return nil, false
		}
		data, err := env.FS.ReadFile(ctx, path.Join(dir, name))
		if err != nil {
			return nil, false
		}
		return parseIgnoreFile(dir, string(data)), true
	}
	if f, ok := read(".rgignore"); ok {
		out.rg = append(out.rg, f)
	}
	if f, ok := read(".ignore"); ok {
		out.ig = append(out.ig, f)
	}
	if out.inRepo {
		if f, ok := read(".gitignore"); ok {
			out.git = append(out.git, f)
		}
	}
	return out
}

// ignored reports whether abs is ignored: .rgignore rules first, then .ignore, then
// .gitignore (inside a git repository), the deepest file deciding within a kind.
func (s ignoreStack) ignored(abs string, isDir bool) bool {
	for _, kind := range [][]*ignoreFile{s.rg, s.ig, s.git} {
		for i := len(kind) - 1; i >= 0; i-- {
			f := kind[i]
			rel := strings.TrimPrefix(abs, f.base)
			rel = strings.TrimPrefix(rel, "/")
			if m := f.match(rel, isDir); m != 0 {
				return m > 0
			}
		}
	}
	return false
}
