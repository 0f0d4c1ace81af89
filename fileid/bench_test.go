package fileid

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmarks run on a generated tree of benchFiles Markdown files (about 4 KiB each, in
// nested directories, some with front matter, code blocks and lists), written once per
// process under a temporary directory.
const benchFiles = 2400

var (
	benchTreeOnce sync.Once
	benchTreeDir  string
	benchTreeErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTreeDir != "" {
		os.RemoveAll(benchTreeDir)
	}
	if fmCorpusDir != "" {
		os.RemoveAll(fmCorpusDir)
	}
	if corpusDir != "" && os.Getenv("FILEID_BENCH_CORPUS") == "" {
		os.RemoveAll(corpusDir)
	}
	os.Exit(code)
}

func benchTree(b *testing.B) string {
	b.Helper()
	benchTreeOnce.Do(func() {
		benchTreeDir, benchTreeErr = os.MkdirTemp("", "fileid-bench-")
		if benchTreeErr == nil {
			benchTreeErr = writeBenchTree(benchTreeDir, benchFiles)
		}
	})
	if benchTreeErr != nil {
		b.Fatal(benchTreeErr)
	}
	return benchTreeDir
}

var benchWords = strings.Fields(`the a an of to in for with on by from server client request response
	configure install deploy cache index file directory section heading table value option flag error
	timeout retry token budget query search result widget service handler context channel buffer stream
	document markdown parser registry root label build run test benchmark example default maximum`)

// writeBenchTree writes n files: 40 directories (some nested), realistic Markdown. The marker
// words used by the search benchmarks are rare: "zanzibar" in about 10% of files, "Quasar" in
// mixed case, and "retry_count=<digits>" lines for the regular expression.
func writeBenchTree(dir string, n int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	para := func(sb *strings.Builder, words int) {
		for i := range words {
			if i > 0 {
				if i%14 == 0 {
					sb.WriteByte('\n')
				} else {
					sb.WriteByte(' ')
				}
			}
			sb.WriteString(benchWords[rng.IntN(len(benchWords))])
		}
		sb.WriteString(".\n\n")
	}
	for i := range n {
		sub := fmt.Sprintf("area%02d", i%40)
		if i%3 == 0 {
			sub = filepath.Join(sub, fmt.Sprintf("topic%d", i%7))
		}
		var sb strings.Builder
		if i%4 == 0 {
			fmt.Fprintf(&sb, "---\ntitle: Document %d\ndescription: generated page\n---\n", i)
		}
		fmt.Fprintf(&sb, "# Page %d\n\n", i)
		para(&sb, 40)
		for s := range 4 + rng.IntN(4) {
			fmt.Fprintf(&sb, "## Section %d\n\n", s+1)
			para(&sb, 30+rng.IntN(40))
			if rng.IntN(3) == 0 {
				sb.WriteString("```sh\n# a comment, not a heading\nwidget run --flag value\n```\n\n")
			}
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&sb, "### Details %d\n\n- item one\n- item two\n\n", s+1)
				para(&sb, 20)
			}
			if rng.IntN(40) == 0 {
				sb.WriteString("Note: the zanzibar setting is experimental.\n\n")
			}
			if rng.IntN(30) == 0 {
				sb.WriteString([]string{"QUASAR mode", "quasar mode", "Quasar mode"}[rng.IntN(3)] + " is on.\n\n")
			}
			if rng.IntN(25) == 0 {
				fmt.Fprintf(&sb, "retry_count=%d\n\n", rng.IntN(1000))
			}
		}
		p := filepath.Join(dir, sub, fmt.Sprintf("doc%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// walkAndRead is the reference: a bare filepath.WalkDir plus os.ReadFile of every .md file.
func walkAndRead(dir string) (files int, bytesRead int64, err error) {
	paths, err := walkMarkdown(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, 0, err
		}
		files++
		bytesRead += int64(len(b))
	}
	return files, bytesRead, nil
}

func buildDir(b *testing.B, dir string) *Registry {
	root, err := DirRoot("bench", dir)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := New(context.Background(), []Root{root}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

// BenchmarkBuildVsWalkRead builds the registry and, in the same iteration, runs the bare
// walk-and-read reference on the same tree; it reports both times and their ratio
// (goal: x_walk_read ≤ 1.3). The "+warm" variant also parses every file's heading structure.
// BenchmarkCorpusBuildVsWalkRead does the same on real documentation text.
func BenchmarkBuildVsWalkRead(b *testing.B) {
	buildVsWalkRead(b, benchTree(b), benchFiles)
}

func buildVsWalkRead(b *testing.B, dir string, files int) {
	for _, warm := range []bool{false, true} {
		name := "New"
		if warm {
			name = "New+Warm"
		}
		b.Run(name, func(b *testing.B) {
			var ours, ref time.Duration
			for b.Loop() {
				t0 := time.Now()
				n, _, err := walkAndRead(dir)
				if err != nil || n != files {
					b.Fatalf("reference read %d files: %v", n, err)
				}
				t1 := time.Now()
				reg := buildDir(b, dir)
				if warm {
					if err := reg.Warm(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				t2 := time.Now()
				if reg.Len() != files {
					b.Fatalf("registry has %d files, want %d (skipped: %v)", reg.Len(), files, reg.Skipped())
				}
				ref += t1.Sub(t0)
				ours += t2.Sub(t1)
			}
			b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms_fileid")
			b.ReportMetric(float64(ref.Microseconds())/float64(b.N)/1000, "ms_walk_read")
			b.ReportMetric(float64(ours)/float64(ref), "x_walk_read")
		})
	}
}

// benchQuery is one search of the ripgrep comparison.
type benchQuery struct {
	name, query string
	fold        bool
}

// BenchmarkSearchVsRipgrep runs each query through Registry.Search and through ripgrep (a new
// rg process over the same tree, output discarded) in the same iteration, and reports the
// ratio (goal: x_rg ≤ 0.5). The registry is built and warmed before timing, as a server's is.
// The queries exercise each path: literal, case-folded literal, an expression with a required
// literal, one with a small start-byte set, and one with neither, which the byte-run
// prefilter handles (see BenchmarkSearchRunFilter for queries where it skips less).
// BenchmarkCorpusSearchVsRipgrep does the same on real documentation text.
func BenchmarkSearchVsRipgrep(b *testing.B) {
	searchVsRipgrep(b, benchTree(b), []benchQuery{
		{"literal", "zanzibar", false},
		{"literal-ci", "quasar mode", true},
		{"regex", `retry_count=\d{3}\b`, false},
		{"regex-startbytes", `\b[QZ][a-z]{4,}\b`, false},
		{"regex-general", `[a-z]{12,}`, false},
	})
}

func searchVsRipgrep(b *testing.B, dir string, queries []benchQuery) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("AGENTFILES_REQUIRE_SERVICES") == "1" {
			b.Fatal("rg not found; install the Debian package ripgrep")
		}
		b.Skip("rg not found; install the Debian package ripgrep")
	}
	reg := buildDir(b, dir)
	if err := reg.Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			args := []string{"--no-heading", "-n", "--no-config", "-g", "*.md"}
			if q.fold {
				args = append(args, "-i")
			}
			args = append(args, "-e", q.query, dir)
			var ours, ref time.Duration
			var ourLines, rgLines int
			for b.Loop() {
				t0 := time.Now()
				res, err := reg.Search(context.Background(), SearchRequest{Query: q.query, CaseInsensitive: q.fold, MaxMatches: MaxMatches})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				cmd := exec.Command(rg, args...)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Run(); err != nil {
					b.Fatalf("rg: %v", err)
				}
				t2 := time.Now()
				ours += t1.Sub(t0)
				ref += t2.Sub(t1)
				ourLines, rgLines = res.MatchCount, bytes.Count(out.Bytes(), []byte{'\n'})
				if res.Truncated {
					b.Fatalf("query %q hit the match cap; the comparison needs full results", q.query)
				}
				_, _ = io.Discard.Write(out.Bytes())
			}
			if ourLines != rgLines {
				b.Logf("query %q: fileid %d lines, rg %d lines", q.query, ourLines, rgLines)
			}
			b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms_fileid")
			b.ReportMetric(float64(ref.Microseconds())/float64(b.N)/1000, "ms_rg")
			b.ReportMetric(float64(ours)/float64(ref), "x_rg")
			b.ReportMetric(float64(ourLines), "matches")
		})
	}
}

// BenchmarkTableOfContents measures a TOC of an already parsed file.
func BenchmarkTableOfContents(b *testing.B) {
	reg := buildDir(b, benchTree(b))
	if _, err := reg.TableOfContents("f1", TOCOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := reg.TableOfContents("f1", TOCOptions{MaxDepth: 6}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadSections measures reading three sections of an already parsed file.
func BenchmarkReadSections(b *testing.B) {
	reg := buildDir(b, benchTree(b))
	for b.Loop() {
		if _, err := reg.ReadSections("f1", []string{"1/1", "1/2", "1/3"}, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOutline measures the one-time CommonMark parse of a file's heading structure.
func BenchmarkOutline(b *testing.B) {
	reg := buildDir(b, benchTree(b))
	f := reg.files[0]
	b.SetBytes(int64(len(f.content)))
	for b.Loop() {
		buildOutline(f.content, f.bodyStart)
	}
}

// BenchmarkSearchRunFilter measures the byte-run prefilter (search_runs.go) against plain RE2
// over whole files (the path such expressions took before), in the same iteration, on one
// core, from queries where it skips almost every line to ones where almost every line is a
// candidate. x_plain below 1 means the filter pays off; the results are checked to be equal.
func BenchmarkSearchRunFilter(b *testing.B) {
	reg := buildDir(b, benchTree(b))
	for _, q := range []struct{ name, query string }{
		{"sparse", `[a-z]{12,}`},
		{"half", `[a-z]{9,}`},
		{"dense", `[a-z]{4,}`},
		{"long-lines", `.{80,}`},
	} {
		b.Run(q.name, func(b *testing.B) {
			m, err := newMatcher(q.query, false)
			if err != nil || m.runs == nil {
				b.Fatalf("%q does not take the byte-run path (%v)", q.query, err)
			}
			plain := *m
			plain.runs = nil
			compareMatchers(b, reg, m, &plain, "filtered", "plain")
		})
	}
}

// BenchmarkSearchAlternation measures the alternation prefilter (search_literals.go) against
// the path such expressions took before (start bytes, byte runs or plain RE2), in the same
// iteration, on one core; the results are checked to be equal.
func BenchmarkSearchAlternation(b *testing.B) {
	reg := buildDir(b, benchTree(b))
	for _, q := range []struct {
		name, query string
		fold        bool
	}{
		{"rare", `zanzibar|Quasar`, false},
		{"rare-ci", `zanzibar|quasar`, true},
		{"common", `\b(?:timeout|retry)\b`, false},
	} {
		b.Run(q.name, func(b *testing.B) {
			m, err := newMatcher(q.query, q.fold)
			if err != nil || m.pres == nil {
				b.Fatalf("%q does not take the alternation path (%v)", q.query, err)
			}
			before := *m
			before.pres = nil
			compareMatchers(b, reg, m, &before, "alternation", "before")
		})
	}
}

// compareMatchers times ours and ref over every file of reg in the same iteration, checks that
// they find the same number of lines, and reports both times (as ms_<oursName>, ms_<refName>) and
// their ratio (x_<refName>).
func compareMatchers(b *testing.B, reg *Registry, ours, ref *matcher, oursName, refName string) {
	b.Helper()
	var oursTime, refTime time.Duration
	var lines int
	for b.Loop() {
		lines = 0
		t0 := time.Now()
		for _, f := range reg.files {
			lines += len(ours.find(f.content, f.bodyStart, MaxMatches+1, f.hasCR))
		}
		t1 := time.Now()
		for _, f := range reg.files {
			lines -= len(ref.find(f.content, f.bodyStart, MaxMatches+1, f.hasCR))
		}
		oursTime += t1.Sub(t0)
		refTime += time.Since(t1)
	}
	if lines != 0 {
		b.Fatalf("the %s and %s paths disagree by %d lines", oursName, refName, lines)
	}
	b.ReportMetric(float64(oursTime.Microseconds())/float64(b.N)/1000, "ms_"+oursName)
	b.ReportMetric(float64(refTime.Microseconds())/float64(b.N)/1000, "ms_"+refName)
	b.ReportMetric(float64(oursTime)/float64(refTime), "x_"+refName)
}
