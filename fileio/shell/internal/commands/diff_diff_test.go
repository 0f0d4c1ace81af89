package commands_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
)

func TestDiffDiff(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	add := func(name, data string) {
		tree.Files[name] = memfs.File{Data: data, ModTime: difftest.Base.Add(90 * 60e9)}
	}
	add("v1/app.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"one\")\n\tfmt.Println(\"two\")\n\tfmt.Println(\"three\")\n}\n\nfunc helper() int {\n\treturn 1\n}\n")
	add("v2/app.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Println(\"one\")\n\tfmt.Println(\"2\")\n\tfmt.Println(\"three\")\n\tos.Exit(0)\n}\n\nfunc helper() int {\n\treturn 2\n}\n")
	add("v1/same.txt", "same\n")
	add("v2/same.txt", "same\n")
	add("v1/only1.txt", "x\n")
	add("v2/only2.txt", "y\n")
	add("v1/sub/deep.txt", "a\nb\nc\n")
	add("v2/sub/deep.txt", "a\nB\nc\n")
	add("long1.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n")
	add("long2.txt", "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\nsixteen\n17\n18\n19\n20\n21\n")
	add("rep1.txt", "a\nb\na\nb\na\nb\n")
	add("rep2.txt", "b\na\nb\na\nc\n")
	add("ws1.txt", "a  b\nC\n  d\n")
	add("ws2.txt", "a b\nc\nd\n")
	d := func(args ...string) difftest.Case { return difftest.Case{Args: append([]string{"diff"}, args...)} }
	de := func(args ...string) difftest.Case {
		return difftest.Case{Args: append([]string{"diff"}, args...), StderrExact: true}
	}
	cases := []difftest.Case{
		d("a.txt", "a.txt"),
		d("a.txt", "b.txt"),
		d("-u", "a.txt", "b.txt"),
		d("-u", "v1/app.go", "v2/app.go"),
		d("v1/app.go", "v2/app.go"),
		d("-U", "1", "v1/app.go", "v2/app.go"),
		d("-U0", "v1/app.go", "v2/app.go"),
		d("-u", "long1.txt", "long2.txt"),
		d("long1.txt", "long2.txt"),
		d("-U", "10", "long1.txt", "long2.txt"),
		d("-u", "rep1.txt", "rep2.txt"),
		d("rep1.txt", "rep2.txt"),
		d("-u", "empty.txt", "a.txt"),
		d("-u", "a.txt", "empty.txt"),
		d("empty.txt", "b.txt"),
		d("b.txt", "empty.txt"),
		d("-u", "noeol.txt", "a.txt"),
		d("noeol.txt", "a.txt"),
		d("-u", "a.txt", "noeol.txt"),
		d("-u", "crlf.txt", "a.txt"),
		d("--strip-trailing-cr", "-u", "crlf.txt", "crlf.txt"),
		d("-q", "a.txt", "b.txt"),
		d("-q", "a.txt", "a.txt"),
		d("-s", "a.txt", "a.txt"),
		d("-i", "ws1.txt", "ws2.txt"),
		d("-w", "ws1.txt", "ws2.txt"),
		d("-b", "ws1.txt", "ws2.txt"),
		d("-iw", "ws1.txt", "ws2.txt"),
		d("v1", "v2"),
		d("-r", "v1", "v2"),
		d("-ru", "v1", "v2"),
		d("-rq", "v1", "v2"),
		d("-rN", "v1", "v2"),
		d("a.txt", "emptydir"),
		d("-u", "v1/same.txt", "v2"),
		d("bin.dat", "a.txt"),
		d("-u", "--label", "old", "--label", "new", "a.txt", "b.txt"),
		{Args: []string{"diff", "-", "b.txt"}, Stdin: "one two three\n"},
		de("a.txt", "nosuch"),
		de("nosuch", "a.txt"),
		de("a.txt"),
		de(),
		de("a", "b", "c"),
		de("-N", "a.txt", "nosuch"),
	}
	difftest.Run(t, tree, cases)
}
