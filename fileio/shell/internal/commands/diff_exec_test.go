package commands_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
)

func TestDiffXargs(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	x := func(stdin string, args ...string) difftest.Case {
		return difftest.Case{Args: append([]string{"xargs"}, args...), Stdin: stdin}
	}
	cases := []difftest.Case{
		x("a b c\nd\n"),
		x("a b c\nd\n", "echo", "x:"),
		x("a.txt b.txt\n", "wc", "-l"),
		x("a.txt\nb.txt\nnoeol.txt\n", "-n", "1", "wc", "-c"),
		x("a.txt\nb.txt\nnoeol.txt\n", "-n", "2", "echo"),
		x("a.txt\x00with space.txt\x00", "-0", "wc", "-l"),
		x("a.txt\x00with space.txt\x00", "-0", "-n1", "echo", "f:"),
		x("a.txt\nwith space.txt\n", "-I", "{}", "echo", "[{}]"),
		x("a.txt\nwith space.txt\n", "-I{}", "wc", "-l", "{}"),
		x("  lead\nx y\n", "-I", "%", "echo", "<%>"),
		x("a.txt\nb.txt\n", "-i", "echo", "got {}"),
		x("1 2\n3\n4 5 6\n", "-L", "1", "echo"),
		x("1 2\n3\n4 5 6\n", "-L", "2", "echo"),
		x("'quoted arg' \"dq arg\" back\\ slash\n", "-n", "1", "echo"),
		x("a,b,c", "-d", ",", "echo"),
		x("a\nb\n", "-t", "echo"),
		x("", "echo", "empty"),
		x("", "-r", "echo", "empty"),
		x("nosuch a.txt\n", "cat"),
		x("foo\n", "grep", "-l", "foo", "mixed.txt"),
		x("mixed.txt\na.txt\n", "grep", "-c", "foo"),
		x("a b\n", "nosuchcommand"),
		x("'unmatched\n", "echo"),
		x("a b c d e\n", "-n", "2", "-t", "echo"),
		x("x\n", "-a", "a.txt", "echo"),
		x("a\nSTOP\nb\n", "-E", "STOP", "echo"),
		{Args: []string{"xargs", "rm"}, Stdin: "a.txt b.txt\n", Writes: true},
		{Args: []string{"xargs", "-I", "{}", "cp", "{}", "emptydir"}, Stdin: "a.txt\nb.txt\n", Writes: true},
	}
	difftest.Run(t, tree, cases)
}

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	want := func(stdout string) *difftest.Result { return &difftest.Result{Stdout: stdout} }
	fail := func() *difftest.Result { return &difftest.Result{Status: 1, Stderr: "x"} }
	files := func(r *difftest.Result, changes map[string]*string) *difftest.Result {
		r.Files = map[string]string{}
		for p, f := range tree.Files {
			r.Files[p] = f.Data
		}
		for p, d := range changes {
			if d == nil {
				delete(r.Files, p)
			} else {
				r.Files[p] = *d
			}
		}
		dirs := map[string]bool{}
		for p := range r.Files {
			for d := dirOf(p); d != ""; d = dirOf(d) {
				dirs[d] = true
			}
		}
		for _, d := range tree.Dirs {
			dirs[d] = true
		}
		for p := range changes {
			for d := dirOf(p); d != ""; d = dirOf(d) {
				dirs[d] = true
			}
		}
		for d := range dirs {
			r.Dirs = append(r.Dirs, d)
		}
		sortStrings(r.Dirs)
		return r
	}
	s := func(v string) *string { return &v }
	cases := []difftest.Case{
		{Name: "add update delete", Args: []string{"apply_patch"}, Writes: true,
			Stdin: "*** Begin Patch\n*** Add File: new/hello.txt\n+hello\n+world\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** Delete File: b.txt\n*** End Patch\n",
			Want: files(want("Success. Updated the following files:\nA new/hello.txt\nM a.txt\nD b.txt\n"), map[string]*string{
				"new/hello.txt": s("hello\nworld\n"),
				"a.txt":         s("alpha\nBETA\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\nlambda\nmu\n"),
				"b.txt":         nil,
			})},
		{Name: "heredoc wrapper and move", Args: []string{"apply_patch"}, Writes: true,
			Stdin: "<<'EOF'\n*** Begin Patch\n*** Update File: src/util.go\n*** Move to: src/math.go\n@@ func Sub(a, b int) int { return a - b }\n-func Sub(a, b int) int { return a - b }\n+func Sub(a, b int) int {\n+\treturn a - b\n+}\n*** End Patch\nEOF\n",
			Want: files(want("Success. Updated the following files:\nM src/math.go\n"), map[string]*string{
				"src/util.go": nil,
				"src/math.go": s("package main\n\n// Add adds two numbers.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Sub subtracts.\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"),
			})},
		{Name: "patch as argument, relative to the working directory", Args: []string{"apply_patch", "*** Begin Patch\n*** Update File: main.go\n@@\n-\t// TODO: flags\n+\t// flags come later\n*** End Patch"},
			Dir: "src", Writes: true,
			Want: files(want("Success. Updated the following files:\nM main.go\n"), map[string]*string{
				"src/main.go": s("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n\t// flags come later\n}\n"),
			})},
		{Name: "unified diff", Args: []string{"apply_patch"}, Writes: true,
			Stdin: "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one two three\n-four five six\n+4 5 6\n",
			Want: files(want("Success. Updated the following files:\nM b.txt\n"), map[string]*string{
				"b.txt": s("one two three\n4 5 6\nseven eight nine\nten\n"),
			})},
		{Name: "no match changes nothing", Args: []string{"apply_patch"}, Writes: true,
			Stdin: "*** Begin Patch\n*** Add File: x.txt\n+x\n*** Update File: a.txt\n@@\n-not in the file\n+y\n*** End Patch\n",
			Want:  files(fail(), nil)},
		{Name: "missing file to update", Args: []string{"apply_patch"}, Writes: true,
			Stdin: "*** Begin Patch\n*** Update File: nosuch.txt\n@@\n-a\n+b\n*** End Patch\n",
			Want:  files(fail(), nil)},
		{Name: "not a patch", Args: []string{"apply_patch"}, Writes: true, Stdin: "hello\n", Want: files(fail(), nil)},
	}
	difftest.Run(t, tree, cases)
}

func dirOf(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return ""
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
