package expr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/testfiles"
)

// benchExpression has 20 terms over 20 of the 50 categories: defaults, one pattern, two
// patterns, a subdirectory glob and alternatives.
func benchExpression() string {
	var terms []string
	for i := range 20 {
		c := fmt.Sprintf("cat%02d", i*2)
		switch i % 4 {
		case 0:
			terms = append(terms, c)
		case 1:
			terms = append(terms, c+"/doc01*")
		case 2:
			terms = append(terms, c+"/doc02*+doc07*")
		case 3:
			terms = append(terms, c+"/doc{3,4}?.md")
		}
	}
	return strings.Join(terms, ",")
}

func BenchmarkParse(b *testing.B) {
	s := benchExpression()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve parses and resolves the 20-term expression over 50 categories holding
// 5,000 documents, then, in the same run, times a bare os.ReadDir of the 20 directories the
// expression touches and reports the ratio (x-readdir): how much resolution costs beyond
// reading the directories.
func BenchmarkResolve(b *testing.B) {
	dir := b.TempDir()
	var yaml strings.Builder
	yaml.WriteString("categories:\n")
	for c := range 50 {
		name := fmt.Sprintf("cat%02d", c)
		files := map[string]string{}
		for d := range 100 {
			files[fmt.Sprintf("%s/doc%02d.md", name, d)] = "# doc\n"
		}
		testfiles.Write(b, dir, files)
		fmt.Fprintf(&yaml, "  %s: {dir: %s, description: Category %d}\n", name, name, c)
	}
	cat := newTestCatalog(b, dir, yaml.String())
	s := benchExpression()
	var dirs []string
	for i := range 20 {
		dirs = append(dirs, filepath.Join(dir, fmt.Sprintf("cat%02d", i*2)))
	}
	ctx := context.Background()
	var docs int
	for b.Loop() {
		e, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		res, err := cat.Resolve(ctx, e, ResolveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		docs = len(res.Documents)
	}
	resolveNs := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	start := time.Now()
	for range b.N {
		for _, d := range dirs {
			if _, err := os.ReadDir(d); err != nil {
				b.Fatal(err)
			}
		}
	}
	readNs := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(docs), "docs")
	b.ReportMetric(readNs, "readdir-ns/op")
	b.ReportMetric(resolveNs/readNs, "x-readdir")
}

// BenchmarkContent measures the whole get_content path (parse, resolve, read and render) for a
// 5-document expression.
func BenchmarkContent(b *testing.B) {
	files := map[string]string{}
	for d := range 5 {
		files[fmt.Sprintf("docs/d%d.md", d)] = strings.Repeat("Some guide text.\n", 200)
	}
	cat := treeCatalog(b, files, "categories:\n  docs: {dir: docs}\n")
	ctx := context.Background()
	for b.Loop() {
		out, err := cat.Content(ctx, "docs", ContentOptions{})
		if err != nil || len(out.Documents) != 5 {
			b.Fatal(err)
		}
	}
}
