package readmecheck

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// block is one ```go block of a README.
type block struct {
	file string // README path
	line int    // line of the block's first code line
	code string
}

// goBlocks returns the ```go blocks of the Markdown file at path.
func goBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var cur *block
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &block{file: path, line: n + 1}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated ```go block", path, cur.line)
	}
	return out
}

// TestREADMEGoBlocksCompile writes every block into a directory of its own inside this package
// (so that it builds against this module) and runs go vet on all of them. Errors point at the
// README lines through //line directives.
func TestREADMEGoBlocksCompile(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	pkgDir := filepath.Dir(self)
	root := filepath.Join(pkgDir, "..", "..")
	readmes := []string{filepath.Join(root, "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "examples", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readmes = append(readmes, more...)

	var blocks []block
	for _, r := range readmes {
		blocks = append(blocks, goBlocks(t, r)...)
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d ```go blocks in %v; the extractor is broken", len(blocks), readmes)
	}
	// A directory whose name starts with "_" is left out of ./... but builds when named.
	tmp, err := os.MkdirTemp(pkgDir, "_readme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	rel, _ := filepath.Rel(root, tmp)
	args := []string{"vet"} // every directory by name: "..." skips those below a "_" directory
	for i, b := range blocks {
		readme, _ := filepath.Rel(root, b.file)
		if !strings.HasPrefix(strings.TrimLeft(b.code, "/ \n"), "package ") && !strings.Contains(b.code, "\npackage ") {
			t.Errorf("%s:%d: the ```go block is not a complete Go file (no package clause); readers paste it as it is", readme, b.line)
			continue
		}
		dir := filepath.Join(tmp, fmt.Sprintf("b%02d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf("//line %s:%d\n%s", filepath.Clean(b.file), b.line, b.code)
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "./"+filepath.ToSlash(filepath.Join(rel, filepath.Base(dir))))
	}
	if t.Failed() {
		return
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's Go code does not build as pasted: %v\n%s", err, out)
	}
	t.Logf("%d Go blocks from %d READMEs build and vet", len(blocks), len(readmes))
}
