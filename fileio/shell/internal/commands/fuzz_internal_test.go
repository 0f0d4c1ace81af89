package commands

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// FuzzSedScript: any script parses or fails with an error, and a script that parses runs on
// a few lines without panicking and stops with its context.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{
		"p", "1,3p", "$d", "/a/,/b/{s/x/y/g;p}", "s/\\(a\\)\\|b/\\1/2g", "y/abc/xyz/", "2i\\\nhello", "a foo",
		":a;N;$!ba;s/\\n/ /g", "0,/re/d", "1~2p", "2,+3!d", "s,/,|,w out", "/[[]/p", "s/[/]/x/", "\\%x%p",
		"{p", "p}", "s/a/b/gx", "b nowhere", "}", "s/x/\\U&\\E/", "l;=;F;z;Q3", "r /a.txt", "N;P;D", "#n\np",
		"s/a\\{1000\\}//", "s/a\\{2000\\}//", "/\\(/p", "s/\\n/x/", "y/\\n/x/", "c\\", "t;T;b",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, script string, ere bool) {
		cmds, err := parseSed([]string{script}, ere)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("empty error for %q", script)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		env := &Env{Dir: "/", Stdin: strings.NewReader("a\nbb\nccc\n\nx/y\n"), Stdout: io.Discard, Stderr: io.Discard, FS: nullFS{}}
		c := newIO(ctx, env, "sed")
		s := &sedRun{c: c, cmds: cmds, wfiles: map[string]bool{}, rfiles: map[string]*lineReader{}}
		s.out = &sedOut{c: c}
		s.in, _ = s.openInputs([]string{"-"})
		s.run()
	})
}

// FuzzFindExpression: any expression parses or fails with find's message, never panics.
func FuzzFindExpression(f *testing.F) {
	for _, s := range []string{
		"-name *.go", "( -name a -o -name b ) -type f", "! -path */.* -print", "-maxdepth 1 -empty",
		"-exec wc -l {} ;", "-exec echo {} +", "-size +1k -size -10M", "-newer a.txt", "-regex .*\\.go",
		"(", ")", "-o", "!", "-name", "-type x", "-printf %p\\n", "-prune -o -print", "-mtime -1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		args := strings.Fields(expr)
		e, err := parseFind(args, func(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist })
		if err == nil && e.root == nil {
			t.Fatalf("no expression and no error for %q", expr)
		}
	})
}

// FuzzTrSets: any pair of sets is read or refused; translation never panics.
func FuzzTrSets(f *testing.F) {
	for _, s := range [][2]string{{"a-z", "A-Z"}, {"[:lower:]", "[:upper:]"}, {"\\n", " "}, {"[x*]", "a"}, {"a", "[b*3]"},
		{"[=a=]", "b"}, {"\\\\", "/"}, {"\\001-\\177", "x"}, {"z-a", "x"}, {"[:bogus:]", "x"}, {"[", "]"}, {"a-", "-b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, set1, set2 string) {
		var out bytes.Buffer
		env := &Env{Dir: "/", Stdin: strings.NewReader("Hello, World!\n\x00\xff"), Stdout: &out, Stderr: io.Discard, FS: nullFS{}}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		runTr(ctx, env, []string{"tr", set1, set2})
		runTr(ctx, env, []string{"tr", "-d", set1})
		runTr(ctx, env, []string{"tr", "-cs", set1, set2})
	})
}

// FuzzFnmatch: matching never panics, and a pattern without special characters matches
// exactly itself.
func FuzzFnmatch(f *testing.F) {
	for _, s := range [][2]string{{"*.go", "a.go"}, {"[!a]*", "b"}, {"[[:alpha:]]?", "a1"}, {"a\\*", "a*"}, {"**", "a/b"},
		{"[", "["}, {"[]]", "]"}, {"*a*a*a*a*b", strings.Repeat("a", 40)}, {"{a,b}", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		// Whatever the answers, matching ends and never panics.
		_ = fnmatch(pat, name, false) || fnmatch(pat, name, true) || globSegment(pat, name)
		if !strings.ContainsAny(pat, "*?[\\") && !fnmatch(pat, pat, false) {
			t.Fatalf("%q does not match itself", pat)
		}
	})
}

// FuzzIgnoreRules: any .gitignore text parses, and matching any path never panics.
func FuzzIgnoreRules(f *testing.F) {
	f.Add("*.log\nbuild/\n!keep.log\n/top.txt\n**/gen\na/**/b\n# c\n\\!x\n", "a/b/keep.log")
	f.Add("", "")
	f.Add("/\n!\n**\n***\n", "x")
	f.Fuzz(func(t *testing.T, text, p string) {
		file := parseIgnoreFile("/", text)
		file.match(p, false)
		file.match(p, true)
	})
}

// nullFS is an empty FS for fuzzing: every name is missing; writes are dropped.
type nullFS struct{}

func (nullFS) Stat(context.Context, string) (fs.FileInfo, error)      { return nil, fs.ErrNotExist }
func (nullFS) ReadDir(context.Context, string) ([]fs.DirEntry, error) { return nil, fs.ErrNotExist }
func (nullFS) ReadFile(context.Context, string) ([]byte, error)       { return nil, fs.ErrNotExist }
func (nullFS) WriteFile(context.Context, string, []byte, bool) error  { return nil }
func (nullFS) Mkdir(context.Context, string, bool) error              { return nil }
func (nullFS) Remove(context.Context, string, bool) error             { return fs.ErrNotExist }
func (nullFS) Rename(context.Context, string, string) error           { return fs.ErrNotExist }
func (nullFS) Touch(context.Context, string, time.Time) error         { return nil }
