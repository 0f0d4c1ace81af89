package commands_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
)

// TestDiffAgentLines: single commands as coding agents write them (Codex reads with sed and
// nl, searches with rg; Claude Code and Gemini CLI reach for grep, find, head and jq).
func TestDiffAgentLines(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	x := func(args ...string) difftest.Case { return difftest.Case{Args: args} }
	xu := func(args ...string) difftest.Case { return difftest.Case{Args: args, Unordered: true} }
	cases := []difftest.Case{
		x("sed", "-n", "1,5p", "src/main.go"),
		x("sed", "-n", "5,$p", "src/util.go"),
		x("sed", "-n", "3,8p", "src/lib/helper_test.go"),
		x("nl", "-ba", "src/main.go"),
		x("cat", "-n", "src/util.go"),
		x("head", "-n", "20", "README.md"),
		x("head", "-50", "big.txt"),
		x("tail", "-n", "+5", "a.txt"),
		x("tail", "-20", "big.txt"),
		x("rg", "-n", `func \w+\(`, "-t", "go"),
		x("rg", "-n", "TODO|FIXME"),
		x("rg", "-l", "package", "src"),
		x("rg", "-c", "foo", "-g", "*.txt"),
		x("rg", "-n", "-i", "helper", "src"),
		x("rg", "-n", "--hidden", "foo"),
		x("rg", "-n", "-w", "Add", "src"),
		x("rg", "-n", "-F", "fmt.Println(", "src"),
		x("rg", "-n", "-e", "func Add", "-e", "func Sub", "src/util.go"),
		x("rg", "--files", "-g", "*.md"),
		x("rg", "--files", "src"),
		x("rg", "-n", "-C", "2", "Helper", "src/lib"),
		x("rg", "-n", "-A", "3", "func main", "src"),
		xu("grep", "-rn", "--include=*.go", "func ", "."),
		xu("grep", "-rnE", "TODO|FIXME", "src"),
		xu("grep", "-rn", "-i", "helper", "src", "--include", "*.go"),
		xu("grep", "-rl", "foo", "."),
		x("grep", "-n", "func", "src/util.go"),
		x("grep", "-v", "^#", "README.md"),
		x("grep", "-c", "", "big.txt"),
		x("grep", "-n", "-B", "1", "-A", "1", "return", "src/util.go"),
		x("grep", "-o", "-E", "[0-9]+", "table.csv"),
		x("grep", "-E", "-w", "25|40", "table.csv"),
		xu("find", ".", "-name", "*.go", "-not", "-path", "./repo/*"),
		xu("find", "src", "-type", "f"),
		xu("find", ".", "-maxdepth", "2", "-type", "d"),
		xu("find", ".", "-type", "f", "-name", "*.md", "-newer", "README.md"),
		xu("find", "src", "-type", "f", "-exec", "grep", "-l", "package", "{}", "+"),
		{Args: []string{"ls", "-la", "src"}, BlockSizes: true},
		x("ls", "-1", "docs"),
		{Args: []string{"ls", "-lh", "src/lib"}, BlockSizes: true},
		x("tree", "-L", "2", "-a", "repo"),
		x("wc", "-l", "src/main.go", "src/util.go", "src/lib/helper.go"),
		x("wc", "-c", "big.txt"),
		x("sort", "-t,", "-k2", "-n", "table.csv"),
		x("cut", "-d,", "-f1,3", "table.csv"),
		x("awk", "-F,", "NR>1 {print $1}", "table.csv"),
		x("awk", "{ total += length($0) } END { print total }", "big.txt"),
		x("jq", "-r", ".items[].n", "data.json"),
		x("jq", ".items | map(select(.ok)) | length", "data.json"),
		x("diff", "-u", "src/main.go", "src/util.go"),
		x("diff", "src/lib/helper.go", "src/lib/helper_test.go"),
		{Args: []string{"sort"}, Stdin: "b\na\nb\nc\na\nb\n"},
		{Args: []string{"uniq", "-c"}, Stdin: "a\na\nb\nb\nb\nc\n"},
		{Args: []string{"sort", "-rn"}, Stdin: "      2 a\n      3 b\n      1 c\n"},
		{Args: []string{"grep", "-c", "x"}, Stdin: "x\ny\nx\n"},
		{Args: []string{"head", "-c", "5"}, Stdin: "hello world"},
		{Args: []string{"tr", "-d", "\\r"}, Stdin: "a\r\nb\r\n"},
		{Args: []string{"wc", "-w"}, Stdin: "one two\nthree\n"},
		{Args: []string{"sed", "-i.bak", "-e", "s/alpha/ALPHA/", "-e", "s/beta/BETA/", "a.txt"}, Writes: true},
		{Args: []string{"sed", "-i", "s/fmt.Println(\"hello, world\")/fmt.Println(\"hi\")/", "src/main.go"}, Writes: true},
		{Args: []string{"sed", "-i", "/TODO/d", "src/main.go", "src/lib/helper_test.go"}, Writes: true},
		{Args: []string{"sed", "-i", "3a\\// added", "src/util.go"}, Writes: true},
		{Args: []string{"mkdir", "-p", "pkg/a/b"}, Writes: true},
		{Args: []string{"cp", "-r", "src", "src.bak"}, Writes: true},
		{Args: []string{"mv", "docs/notes.txt", "docs/NOTES.txt"}, Writes: true},
		{Args: []string{"rm", "-rf", "repo/build", "nogit/x.tmp"}, Writes: true},
		{Args: []string{"tee", "-a", "README.md"}, Stdin: "## More\n", Writes: true},
	}
	difftest.Run(t, tree, cases)
}
