package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzScriptOf: any argv gives the text of its -c or an INVALID_ARGUMENT, never a panic, and
// the text is an element of argv.
func FuzzScriptOf(f *testing.F) {
	for _, seed := range [][]string{
		{"bash", "-lc", "ls"}, {"/bin/sh", "-c", "echo"}, {"bash", "-l", "-c", "x"}, {"bash", "-eux", "-o", "pipefail", "-c", "y"},
		{"bash"}, {"python3", "-c", "1"}, {"bash", "--", "-c"}, {"sh", "-c"}, {},
	} {
		f.Add(strings.Join(seed, "\x00"))
	}
	f.Fuzz(func(t *testing.T, joined string) {
		argv := strings.Split(joined, "\x00")
		if joined == "" {
			argv = nil
		}
		text, err := ScriptOf(argv)
		if err != nil {
			return
		}
		for _, a := range argv[1:] {
			if a == text {
				return
			}
		}
		t.Fatalf("ScriptOf(%q) = %q, not one of its arguments", argv, text)
	})
}

// FuzzRewrite: whatever parses, rewrites without a panic, and leaves no <(…) for the
// interpreter (which would make a FIFO on the host) and no background job.
func FuzzRewrite(f *testing.F) {
	for _, seed := range []string{
		"cat <(echo a) <(sort b)", "diff <(x <(y)) z", "echo >(cat)", "a & b; wait", "f(){ :|:& };f",
		"while read l; do echo $l; done < <(ls)", "echo $(echo <(true))", "x=<(a); echo ${x}", "coproc cat",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
		if err != nil {
			return
		}
		if err := rewrite(file, "capture", func(string) {}); err != nil {
			return // >(…) is refused
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ProcSubst:
				t.Fatalf("%q: a process substitution is left", text)
			case *syntax.Stmt:
				if n.Background || n.Coprocess {
					t.Fatalf("%q: a background job is left", text)
				}
			}
			return true
		})
		var b strings.Builder
		syntax.NewPrinter().Print(&b, file)
	})
}
