package commands_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
)

func TestDiffMisc(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	x := func(args ...string) difftest.Case { return difftest.Case{Args: args} }
	xb := func(args ...string) difftest.Case { return difftest.Case{Args: args, BlockSizes: true} }
	xe := func(args ...string) difftest.Case { return difftest.Case{Args: args, StderrExact: true} }
	cases := []difftest.Case{
		xb("stat", "-c", "%n %s %y %Y %F %a %A %U %G %h", "a.txt", "empty.txt", "src"),
		x("stat", "-c", "%s", "big.txt"),
		x("stat", "--printf", "%n:%s\\n", "a.txt", "b.txt"),
		xb("stat", "-c", "%b %B %o", "a.txt", "src"),
		xe("stat", "-c", "%n", "nosuch"),
		// The project root is "/": realpath answers project paths, not the disk copy's.
		{Args: []string{"realpath", "a.txt", "src/../docs", "nosuchfile"}, Want: &difftest.Result{Stdout: "/a.txt\n/docs\n/nosuchfile\n"}},
		{Args: []string{"realpath", "-m", "x/y/z"}, Want: &difftest.Result{Stdout: "/x/y/z\n"}},
		{Args: []string{"realpath", "."}, Dir: "src/lib", Want: &difftest.Result{Stdout: "/src/lib\n"}},
		x("realpath", "-e", "nosuch"),
		x("realpath", "--relative-to=src/lib", "docs/guide.md", "src"),
		x("comm", "words.txt", "a.txt"),
		x("comm", "-12", "a.txt", "words.txt"),
		x("comm", "-3", "b.txt", "a.txt"),
		x("paste", "a.txt", "b.txt"),
		x("paste", "-d", ",", "a.txt", "b.txt"),
		x("paste", "-s", "b.txt"),
		x("paste", "-s", "-d", "+", "a.txt"),
		x("paste", "-d", ",;", "a.txt", "b.txt", "noeol.txt"),
		{Args: []string{"paste", "-", "-"}, Stdin: "1\n2\n3\n4\n5\n"},
		x("rev", "b.txt", "noeol.txt"),
		{Args: []string{"rev"}, Stdin: "abc\ndef"},
		x("expand", "tabs.txt"),
		x("expand", "-t", "4", "tabs.txt", "table.tsv"),
		x("expand", "-i", "-t", "2", "tabs.txt"),
		x("fold", "-w", "10", "README.md"),
		x("fold", "-w", "10", "-s", "README.md"),
		x("fold", "-s", "-w", "7", "b.txt"),
		x("fold", "-b", "-w", "5", "café.txt"),
		x("fold", "-w", "6", "tabs.txt"),
		x("fold", "-20", "big.txt"),
		x("fold", "-w", "3", "noeol.txt"),
		x("tac", "a.txt"),
		x("tac", "noeol.txt"),
		xe("tac", "nosuch"),
	}
	difftest.Run(t, tree, cases)
}
