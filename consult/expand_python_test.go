package consult

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// requirePython returns the python3 path, or skips (fails under AGENTFILES_REQUIRE_SERVICES=1).
func requirePython(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("AGENTFILES_REQUIRE_SERVICES") == "1" {
			t.Fatal("python3 not found (Debian package python3) and AGENTFILES_REQUIRE_SERVICES=1")
		}
		t.Skip("python3 not found; install the Debian package python3 to run the comparison with glob.glob")
	}
	return p
}

// pythonGlob runs Python's glob.glob for every pattern in one interpreter and returns the
// sorted regular files each one matches (glob.glob also returns directories and dangling links;
// Expand returns regular files only).
func pythonGlob(t testing.TB, python string, patterns []string) [][]string {
	t.Helper()
	const script = `
import glob, json, os, sys
pats = json.load(sys.stdin)
json.dump([sorted(p for p in glob.glob(pat) if os.path.isfile(p)) for pat in pats], sys.stdout)
`
	in, _ := json.Marshal(patterns)
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var res [][]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python3 output: %v", err)
	}
	return res
}

// randomTree builds a directory with file names drawn from an alphabet that exercises classes,
// hidden files, literal brackets, braces, commas, spaces and non-ASCII, avoiding the ignore list.
func randomTree(t testing.TB, rng *rand.Rand, nFiles int) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	if err := os.MkdirAll(filepath.Join(dir, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	alphabet := []string{"a", "b", "c", "x", "A", "B", "1", "9", "_", "-", ".", "[", "]", "{", "}", ",", " ", "!", "é", "日"}
	exts := []string{".py", ".go", ".md", ".txt", ".tar.gz", ".PY", ".p", ""}
	for i := 0; i < nFiles; i++ {
		var b strings.Builder
		if rng.IntN(6) == 0 {
			b.WriteString(".")
		}
		for n := 1 + rng.IntN(3); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteString(exts[rng.IntN(len(exts))])
		name := b.String()
		if name == "." || name == ".." || defaultExpander.ignore.match(name) != "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// randomPattern draws a file-name pattern from fnmatch's syntax; some are rejected by Expand.
func randomPattern(rng *rand.Rand) string {
	parts := []string{"*", "*", "*", "*", "?", "?", "a", "b", "x", "A", "_", "-", ".", "é", "[ab]", "[!a]", "[a-c]", "[!a-c]", "[a-cx]", "[-a]", "[]a]", "[!]]", "[", "{", ",", "[.]", "[_-]"}
	exts := []string{".py", ".py", ".go", ".md", ".txt", ".gz", ".tar.gz", "x.py", "_.py", ".*", ""}
	var b strings.Builder
	if rng.IntN(5) == 0 {
		b.WriteString(".")
	}
	for n := rng.IntN(3); n >= 0; n-- {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	b.WriteString(exts[rng.IntN(len(exts))])
	return b.String()
}

func TestExpandMatchesPythonGlob(t *testing.T) {
	python := requirePython(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var patterns []string
	var dirs []string
	for tree := 0; tree < 6; tree++ {
		dir := randomTree(t, rng, 300)
		for len(patterns) < (tree+1)*60 {
			entry := dir + "/" + randomPattern(rng)
			spec, perr := parseEntry(entry)
			if perr != nil || spec.pattern == nil {
				continue
			}
			patterns = append(patterns, entry)
			dirs = append(dirs, dir)
		}
	}
	want := pythonGlob(t, python, patterns)
	matched := 0
	for i, p := range patterns {
		got, _ := Expand([]string{p})
		if len(want[i]) == 0 {
			want[i] = nil
		} else {
			matched++
		}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("pattern %q: Expand differs from glob.glob (-python +expand):\n%s", strings.TrimPrefix(p, dirs[i]), diff)
		}
	}
	if matched < len(patterns)/4 {
		t.Errorf("only %d of %d patterns matched anything; the generator is too weak to compare", matched, len(patterns))
	}
	t.Logf("%d accepted patterns compared with glob.glob, %d matched files", len(patterns), matched)
}
