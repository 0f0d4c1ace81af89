package fileid

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The corpus benchmarks run on real documentation text instead of the generated tree: the
// Markdown files of the Go module cache, /usr/share/doc, GOROOT, /usr/lib, /usr/share and
// ~/.pyenv, topped up with their .rst and .txt documentation when Markdown alone gives fewer
// than corpusMaxFiles files. The files are copied once per process into a temporary tree
// (named *.md, so that fileid, the walk-and-read reference and rg see the same files); the
// benchmarks skip when fewer than corpusMinFiles are found. FILEID_BENCH_CORPUS=dir uses the
// Markdown files of dir as they are instead.
const (
	corpusMinFiles     = 1000
	corpusMaxFiles     = 3200
	corpusMaxFileBytes = 1 << 20
)

var (
	corpusOnce  sync.Once
	corpusDir   string
	corpusFiles int
	corpusBytes int64
	corpusErr   error
)

func realCorpus(b *testing.B) (dir string, files int) {
	b.Helper()
	corpusOnce.Do(func() {
		if d := os.Getenv("FILEID_BENCH_CORPUS"); d != "" {
			corpusDir = d
			paths, err := walkMarkdown(d)
			corpusFiles, corpusErr = len(paths), err
			return
		}
		corpusDir, corpusErr = os.MkdirTemp("", "fileid-corpus-")
		if corpusErr == nil {
			corpusFiles, corpusBytes, corpusErr = copyCorpus(corpusDir, corpusSources())
		}
	})
	if corpusErr != nil {
		b.Fatal(corpusErr)
	}
	if corpusFiles < corpusMinFiles {
		b.Skipf("only %d documentation files found (want %d); set FILEID_BENCH_CORPUS to a Markdown tree", corpusFiles, corpusMinFiles)
	}
	return corpusDir, corpusFiles
}

func corpusSources() []string {
	var dirs []string
	for _, args := range [][]string{{"env", "GOMODCACHE"}, {"env", "GOROOT"}} {
		if out, err := exec.Command("go", args...).Output(); err == nil {
			if d := strings.TrimSpace(string(out)); d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	dirs = append(dirs, "/usr/share/doc", "/usr/lib", "/usr/share")
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".pyenv"))
	}
	return dirs
}

// copyCorpus copies documentation files from sources into dir: Markdown first, then .rst and
// .txt, in path order, at most corpusMaxFiles. Each keeps its path below its source (under
// a directory per source, dot-names prefixed with "_" so that fileid does not skip them) with
// ".md" appended to names that lack it. Empty, binary and over-large files are left out.
func copyCorpus(dir string, sources []string) (files int, total int64, err error) {
	seen := map[string]bool{}
	for _, exts := range [][]string{{".md", ".markdown"}, {".rst"}, {".txt"}} {
		for si, src := range sources {
			var paths []string
			_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil // unreadable: skip
				}
				if d.Type().IsRegular() && slices.Contains(exts, strings.ToLower(filepath.Ext(p))) && !seen[p] {
					paths = append(paths, p)
				}
				return nil
			})
			slices.Sort(paths)
			for _, p := range paths {
				if files == corpusMaxFiles {
					return files, total, nil
				}
				seen[p] = true
				data, err := os.ReadFile(p)
				if err != nil || len(data) == 0 || len(data) > corpusMaxFileBytes || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
					continue
				}
				rel, err := filepath.Rel(src, p)
				if err != nil {
					continue
				}
				parts := strings.Split(filepath.ToSlash(rel), "/")
				for i, part := range parts {
					if strings.HasPrefix(part, ".") {
						parts[i] = "_" + part
					}
				}
				name := filepath.Join(append([]string{dir, "src" + string(rune('a'+si))}, parts...)...)
				if !strings.HasSuffix(name, ".md") {
					name += ".md"
				}
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					return files, total, err
				}
				if err := os.WriteFile(name, data, 0o644); err != nil {
					return files, total, err
				}
				files++
				total += int64(len(data))
			}
		}
	}
	return files, total, nil
}

// BenchmarkCorpusBuildVsWalkRead is BenchmarkBuildVsWalkRead on real documentation text
// (goal: x_walk_read ≤ 1.3).
func BenchmarkCorpusBuildVsWalkRead(b *testing.B) {
	dir, files := realCorpus(b)
	buildVsWalkRead(b, dir, files)
}

// BenchmarkCorpusSearchVsRipgrep is BenchmarkSearchVsRipgrep on real documentation text
// (goal: x_rg ≤ 0.5 for every query). The queries have fewer than MaxMatches hits, so that
// both sides produce the full result.
func BenchmarkCorpusSearchVsRipgrep(b *testing.B) {
	dir, _ := realCorpus(b)
	searchVsRipgrep(b, dir, []benchQuery{
		{"literal", "goroutine", false},
		{"literal-ci", "race condition", true},
		{"literal-ci-short", "utf-8", true},
		{"regex", `func \w+\(`, false},
		{"regex-ci", `thread-?safe`, true},
		{"regex-startbytes", `\b[QXZ][a-z]{6,}\b`, false},
		{"regex-general", `[a-z]{22,}`, false},
	})
}
