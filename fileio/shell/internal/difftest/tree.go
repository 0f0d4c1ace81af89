package difftest

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
)

// StandardTree is the tree the differential suites run on: nested directories, dot-files,
// a git repository with a .gitignore and a directory with .gitignore, .ignore and .rgignore
// but no git, non-ASCII names, names with spaces, an empty file, a file without a final
// newline, CRLF lines, a file with a NUL byte, JSON, and a large-ish file (big.txt, about
// 200 KB). JSON objects keep their keys sorted: gojq, behind jq, prints keys sorted
// where jq keeps the input's order. Each file's time is Base plus its position in sorted order in minutes, so
// -newer and ls -l see distinct times.
func StandardTree() Tree {
	files := map[string]string{
		"README.md":              "# Demo project\n\nThis is a demo project for the shell.\nIt has several files.\nTODO: write more docs\n",
		"a.txt":                  "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\nlambda\nmu\n",
		"b.txt":                  "one two three\nfour five six\nseven eight nine\nten\n",
		"empty.txt":              "",
		"noeol.txt":              "first line\nsecond line\nno newline at end",
		"crlf.txt":               "line one\r\nline two\r\nline three\r\n",
		"with space.txt":         "a file with a space in its name\nfoo bar\n",
		"café.txt":               "naïve café\nplain ascii\n",
		".hidden":                "hidden file foo\n",
		".hiddendir/inner.txt":   "inside a hidden dir foo\n",
		"src/main.go":            "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n\t// TODO: flags\n}\n",
		"src/util.go":            "package main\n\n// Add adds two numbers.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Sub subtracts.\nfunc Sub(a, b int) int { return a - b }\n",
		"src/lib/helper.go":      "package lib\n\n// Helper helps.\nfunc Helper() string { return \"help\" }\n",
		"src/lib/helper_test.go": "package lib\n\nimport \"testing\"\n\nfunc TestHelper(t *testing.T) {\n\tif Helper() != \"help\" {\n\t\tt.Fatal(\"TODO\")\n\t}\n}\n",
		"src/lib/README":         "lib readme\n",
		"docs/guide.md":          "# Guide\n\n## Install\n\nRun make.\n\n## Use\n\nCall Helper.\nfoo Foo FOO fooBar\n",
		"docs/notes.txt":         "note 1\nnote 2\nfoo\n",
		"docs/deep/er/file.txt":  "deep foo\n",
		"data.json":              `{"items":[{"id":1,"n":"x","ok":true},{"id":2,"n":"y","ok":false},{"id":3,"n":"z","ok":true}],"name":"demo","nested":{"k":{"v":[1,2,3]}},"nil":null,"tags":["a","b","c"],"version":"1.2.3"}` + "\n",
		"lines.json":             "{\"a\":1}\n{\"a\":2,\"b\":\"two\"}\n{\"a\":3}\n",
		"numbers.txt":            "10\n2\n33\n-4\n2\n1.5\n+7\n0\n100\n-0.5\n1e3\n abc\n\n7\n",
		"versions.txt":           "v1.10.0\nv1.2.0\nv1.9.3\nfile-1.10.txt\nfile-1.2.txt\n1.0\n1.0.1\n1.0-rc1\nv2\n",
		"table.csv":              "name,age,city\nbob,31,paris\nalice,25,london\ncarol,40,new york\ndave,25,paris\neve,,rome\n",
		"table.tsv":              "b\t2\tx\na\t10\ty\nc\t1\tz\na\t2\tw\n",
		"words.txt":              "apple\napple\nbanana\napple\ncherry\ncherry\ncherry\ndate\nBanana\nbanana\n",
		"mixed.txt":              "Foo\nfoo\nFOO\nfood\nbarfoo\nfoo_bar\nfoo-bar\n  foo  \n(foo)\na.b\naxb\n[x]\nback\\slash\nstar*\nplus+\nq?\n$dollar\n^caret\n{brace}\n|pipe|\n",
		"bin.dat":                "binary\x00data foo\nmore foo\n",
		"repo/.git/HEAD":         "ref: refs/heads/main\n",
		"repo/.gitignore":        "*.log\nbuild/\n!keep.log\n/top.txt\n",
		"repo/app.log":           "log foo\n",
		"repo/keep.log":          "kept foo\n",
		"repo/top.txt":           "top foo\n",
		"repo/build/out.txt":     "built foo\n",
		"repo/src/x.go":          "package x // foo\n",
		"repo/src/top.txt":       "nested top foo\n",
		"repo/src/.gitignore":    "gen_*.go\n",
		"repo/src/gen_a.go":      "package x // generated foo\n",
		"nogit/.gitignore":       "*.txt\n",
		"nogit/a.txt":            "nogit foo\n",
		"nogit/.ignore":          "skip.md\n",
		"nogit/skip.md":          "skipped foo\n",
		"nogit/keep.md":          "kept foo\n",
		"nogit/.rgignore":        "*.tmp\n",
		"nogit/x.tmp":            "tmp foo\n",
		"tabs.txt":               "a\tb\tc\n\tindented\nno tabs\n",
		"spaces.txt":             "  leading\ntrailing  \n  both  \nmid  dle\n",
	}
	files["big.txt"] = bigText()
	tree := Tree{Files: map[string]memfs.File{}, Dirs: []string{"emptydir", "src/empty"}}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for i, p := range names {
		tree.Files[p] = memfs.File{Data: files[p], ModTime: Base.Add(time.Duration(i+1) * time.Minute)}
	}
	return tree
}

// bigText is about 200 KB of lines of words, the same every time.
func bigText() string {
	r := rand.New(rand.NewSource(43))
	words := []string{"alpha", "beta", "gamma", "delta", "foo", "bar", "baz", "qux", "lorem", "ipsum", "TODO", "error", "warn", "info"}
	var sb strings.Builder
	for i := 1; sb.Len() < 200_000; i++ {
		n := 3 + r.Intn(9)
		fmt.Fprintf(&sb, "%05d", i)
		for j := 0; j < n; j++ {
			sb.WriteByte(' ')
			sb.WriteString(words[r.Intn(len(words))])
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
