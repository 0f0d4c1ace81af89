package commands_test

import (
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
)

func TestDiffWalk(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	x := func(args ...string) difftest.Case { return difftest.Case{Args: args} }
	xe := func(args ...string) difftest.Case { return difftest.Case{Args: args, StderrExact: true} }
	xb := func(args ...string) difftest.Case { return difftest.Case{Args: args, BlockSizes: true} }
	fu := func(args ...string) difftest.Case {
		return difftest.Case{Args: append([]string{"find"}, args...), Unordered: true}
	}
	cases := []difftest.Case{
		x("ls"),
		x("ls", "-a", "src"),
		x("ls", "-A"),
		x("ls", "-1"),
		x("ls", "src"),
		x("ls", "src", "docs"),
		x("ls", "a.txt", "src", "b.txt"),
		x("ls", "-d", "src", "docs"),
		x("ls", "-d"),
		x("ls", "-R", "src"),
		x("ls", "-R"),
		x("ls", "-aR", "repo"),
		xb("ls", "-l", "src"),
		xb("ls", "-l"),
		xb("ls", "-la", "src/lib"),
		xb("ls", "-lA", "nogit"),
		xb("ls", "-ld", "src", "a.txt"),
		xb("ls", "-l", "a.txt", "big.txt", "empty.txt"),
		xb("ls", "-lh", "big.txt", "a.txt"),
		xb("ls", "-lh"),
		xb("ls", "-lR", "docs"),
		x("ls", "-t", "src"),
		xb("ls", "-lt", "docs"),
		x("ls", "-S"),
		x("ls", "-r", "src"),
		x("ls", "-F", "src"),
		x("ls", "-p"),
		x("ls", "emptydir"),
		xb("ls", "-l", "emptydir"),
		x("ls", "src/"),
		x("ls", "-R", "src/"),
		x("ls", "*.txt"),
		xe("ls", "nosuch"),
		xe("ls", "nosuch", "a.txt"),
		xe("ls", "a.txt/x"),
		xe("ls", "-k", "a.txt"),
		{Args: []string{"ls"}, Dir: "src"},
		{Args: []string{"ls", ".."}, Dir: "src/lib"},

		x("tree"),
		x("tree", "src"),
		x("tree", "-a", "repo"),
		x("tree", "-d"),
		x("tree", "-L", "1"),
		x("tree", "-L", "2", "src"),
		x("tree", "-F", "docs"),
		x("tree", "-f", "src"),
		x("tree", "--noreport", "src"),
		x("tree", "-I", "*.go", "src"),
		x("tree", "-P", "*.md"),
		x("tree", "--dirsfirst", "src"),
		x("tree", "-i", "docs"),
		x("tree", "src", "docs"),
		x("tree", "emptydir"),
		x("tree", "src/lib"),
		x("tree", "-d", "src/lib"),
		x("tree", "-a", "nogit"),
		x("tree", "nosuch"),
		x("tree", "a.txt"),
		{Args: []string{"tree"}, Dir: "docs"},

		fu(),
		fu("."),
		fu("src"),
		fu("src/"),
		fu("src", "docs"),
		fu("-name", "*.go"),
		fu(".", "-name", "*.go"),
		fu(".", "-iname", "readme*"),
		fu(".", "-name", "README*", "-o", "-name", "*.md"),
		fu(".", "-type", "f", "-name", "*.txt"),
		fu(".", "-type", "d"),
		fu(".", "-type", "f", "-empty"),
		fu(".", "-empty"),
		fu(".", "-maxdepth", "1"),
		fu(".", "-maxdepth", "1", "-type", "f"),
		fu(".", "-mindepth", "2", "-maxdepth", "2"),
		fu("src", "-mindepth", "1"),
		fu(".", "-path", "./src/*"),
		fu(".", "-path", "*lib*", "-type", "f"),
		fu(".", "-name", ".git", "-prune", "-o", "-type", "f", "-print"),
		fu(".", "-path", "./repo", "-prune", "-o", "-name", "*.txt", "-print"),
		fu(".", "(", "-name", "*.go", "-o", "-name", "*.md", ")", "-type", "f"),
		fu(".", "!", "-name", "*.txt", "-type", "f"),
		fu(".", "-not", "-path", "*/.*", "-type", "f"),
		fu(".", "-type", "f", "-newer", "src/main.go"),
		{Args: append([]string{"find"}, ".", "-size", "+1k"), Unordered: true, BlockSizes: true},
		fu(".", "-size", "-2", "-type", "f"),
		{Args: append([]string{"find"}, ".", "-size", "0"), Unordered: true, BlockSizes: true},
		{Args: append([]string{"find"}, ".", "-size", "+10c", "-size", "-20c"), Unordered: true, BlockSizes: true},
		fu(".", "-regex", `.*\.go`),
		fu(".", "-regex", `.*/\(a\|b\)\.txt`),
		fu(".", "-name", "*.go", "-printf", "%p %f %h %d %s\\n"),
		fu("src", "-printf", "%P|%y\\n"),
		fu("docs", "-name", "*.md", "-print0"),
		fu(".", "-name", "with*"),
		fu(".", "-name", "caf*"),
		fu(".", "-name", "[ab].txt"),
		fu(".", "-name", "*.[jt][sx][ot]*"),
		fu("src", "-name", "*.go", "-exec", "wc", "-l", "{}", ";"),
		fu("src", "-name", "*.go", "-exec", "wc", "-l", "{}", "+"),
		fu("docs", "-type", "f", "-exec", "grep", "-l", "foo", "{}", ";"),
		fu("docs", "-type", "f", "-exec", "grep", "-q", "foo", "{}", ";", "-print"),
		fu(".", "-maxdepth", "1", "-name", "*.json", "-exec", "cat", "{}", "+"),
		fu("src", "-name", "*.go", "-exec", "echo", "file:{}", ";"),
		fu(".", "-name", "nomatch"),
		fu(".", "-false"),
		fu("a.txt"),
		fu("a.txt", "b.txt", "-name", "a*"),
		fu(".", "-name", "*.txt", "-quit"),
		{Args: []string{"find", "."}, Dir: "src", Unordered: true},
		{Args: []string{"find", "..", "-maxdepth", "1"}, Dir: "src", Unordered: true},
		{Args: []string{"find", ".", "-name", "*.log", "-delete"}, Dir: "repo", Writes: true, Unordered: true},
		{Args: []string{"find", "src", "-name", "*_test.go", "-exec", "rm", "{}", "+"}, Writes: true},
		xe("find", "nosuch"),
		xe("find", "nosuch", "a.txt"),
		xe("find", ".", "-bogus"),
		xe("find", ".", "-name"),
		xe("find", ".", "-type", "x"),
		xe("find", ".", "(", "-name", "a"),
		xe("find", ".", "-name", "a", ")"),
		xe("find", ".", "-maxdepth", "x"),
		xe("find", ".", "-newer", "nosuch"),
		xe("find", ".", "-exec", "ls"),
		xe("find", "-name", "x", "src"),
		xe("find", ".", "-o"),
		xe("find", ".", "!"),
	}
	difftest.Run(t, tree, cases)
}

// TestDiffLsTimes: ls -l prints "Mon DD HH:MM" for times within six months before now, and
// the year otherwise (older, or in the future).
func TestDiffLsTimes(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	now := difftest.Now
	for name, d := range map[string]time.Duration{
		"hour-ago.txt": -time.Hour, "month-ago.txt": -30 * 24 * time.Hour, "year-ago.txt": -365 * 24 * time.Hour,
		"tomorrow.txt": 24 * time.Hour,
	} {
		tree.Files["times/"+name] = memfs.File{Data: name + "\n", ModTime: now.Add(d).Truncate(time.Second)}
	}
	difftest.Run(t, tree, []difftest.Case{
		{Args: []string{"ls", "-l", "times"}, BlockSizes: true},
		{Args: []string{"ls", "-lt", "times"}, BlockSizes: true},
		{Args: []string{"find", "times", "-mmin", "-120"}, Unordered: true},
		{Args: []string{"find", "times", "-mtime", "+7"}, Unordered: true},
		{Args: []string{"find", "times", "-newer", "times/month-ago.txt"}, Unordered: true},
	})
}
