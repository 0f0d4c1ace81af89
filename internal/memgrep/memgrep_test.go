package memgrep

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// corpus is n files in path order, "/d/f00000.md" …, each with a few lines; every seventh holds
// "needle" (twice in every fourteenth), every fifth "Needle", every eleventh a NUL byte.
func corpus(n int) ([]driver.FileInfo, [][]byte) {
	infos := make([]driver.FileInfo, n)
	contents := make([][]byte, n)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "file %d\n", i)
		if i%7 == 0 {
			b.WriteString("a needle here\n")
			if i%14 == 0 {
				b.WriteString("needle and needle again\n")
			}
		}
		if i%5 == 0 {
			b.WriteString("Needle\r\n")
		}
		if i%11 == 0 {
			b.WriteString("nul \x00 byte\n")
		}
		b.WriteString(strings.Repeat("filler text\n", i%3))
		infos[i] = driver.FileInfo{Path: fmt.Sprintf("/d/f%05d.md", i), SizeBytes: int64(b.Len())}
		contents[i] = []byte(b.String())
	}
	return infos, contents
}

// filesOf serves infos and contents, loading (recording the ranges) before they are read.
func filesOf(t *testing.T, infos []driver.FileInfo, contents [][]byte, loads *[][2]int) Files {
	loaded := make([]bool, len(infos))
	return Files{
		Infos: infos,
		Content: func(i int) []byte {
			if !loaded[i] {
				t.Errorf("content of %s read before it was loaded", infos[i].Path)
			}
			return contents[i]
		},
		Load: func(_ context.Context, from, to int) error {
			*loads = append(*loads, [2]int{from, to})
			for i := from; i < to; i++ {
				loaded[i] = true
			}
			return nil
		},
	}
}

// TestLiterals: the files with a matching line and their counts are those of a line-by-line
// reference, in path order, within the limit, the read budget and the path range.
func TestLiterals(t *testing.T) {
	infos, contents := corpus(1200)
	reference := func(g driver.LiteralGrep) []driver.LiteralFile {
		var out []driver.LiteralFile
		var before int64
		for i, info := range infos {
			if !strings.HasPrefix(info.Path, g.Prefix) || info.Path <= g.After || bytes.IndexByte(contents[i], 0) >= 0 {
				continue
			}
			n := 0
			for _, line := range strings.Split(string(contents[i]), "\n") {
				for _, l := range g.Literals {
					if (g.IgnoreCase && strings.Contains(strings.ToLower(line), l)) || (!g.IgnoreCase && strings.Contains(line, l)) {
						n++
						break
					}
				}
			}
			if n == 0 {
				continue
			}
			if len(out) >= g.Limit || (g.MaxReadBytes > 0 && before >= g.MaxReadBytes) {
				break
			}
			if !g.CountLines {
				n = 1
			}
			out = append(out, driver.LiteralFile{FileInfo: info, Lines: n})
			before += info.SizeBytes
		}
		return out
	}
	for _, g := range []driver.LiteralGrep{
		{Prefix: "/", Literals: []string{"needle"}, CountLines: true, Limit: 1000},
		{Prefix: "/", Literals: []string{"needle"}, IgnoreCase: true, CountLines: true, Limit: 1000},
		{Prefix: "/d/f001", Literals: []string{"needle", "file 12"}, Limit: 1000},
		{Prefix: "/", After: "/d/f00500.md", Literals: []string{"Needle"}, Limit: 7},
		{Prefix: "/", Literals: []string{"needle"}, Limit: 1000, MaxReadBytes: 2000},
		{Prefix: "/e/", Literals: []string{"needle"}, Limit: 1000},
	} {
		var loads [][2]int
		got, err := Literals(context.Background(), g, filesOf(t, infos, contents, &loads))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(reference(g), got); diff != "" {
			t.Errorf("%+v (-reference +got):\n%s", g, diff)
		}
	}
}

// TestCandidatesBudget: the filter charges 1/FilterCost of what it searches, stops at the
// budget after a whole block's worth of files at most, loads only the files it reads, and
// loads nothing for QueryAll.
func TestCandidatesBudget(t *testing.T) {
	infos, contents := corpus(3000)
	var total int64
	for _, fi := range infos {
		total += fi.SizeBytes
	}
	q := driver.ContentQuery{Op: driver.QueryLiteral, Literal: "needle"}
	var loads [][2]int
	var read driver.CandidateRead
	budget := charge(total) / 3
	got, err := Candidates(context.Background(), driver.GrepCandidates{Prefix: "/", Query: q, Limit: 5000, MaxReadBytes: budget, Read: &read},
		filesOf(t, infos, contents, &loads))
	if err != nil {
		t.Fatal(err)
	}
	if !read.Stopped || read.Bytes < budget || read.Bytes > budget+charge(blockBytes) {
		t.Errorf("read %+v against a budget of %d: want it stopped just past the budget", read, budget)
	}
	var charged int64
	for _, fi := range infos {
		if fi.Path > read.Through {
			break
		}
		charged += charge(fi.SizeBytes)
	}
	if charged != read.Bytes {
		t.Errorf("read.Bytes = %d, want %d (the charge of every file through %s)", read.Bytes, charged, read.Through)
	}
	for _, fi := range got {
		if fi.Path > read.Through {
			t.Errorf("candidate %s after Through %s", fi.Path, read.Through)
		}
	}
	if last := loads[len(loads)-1]; infos[last[1]-1].Path < read.Through {
		t.Errorf("loaded up to %s, read through %s", infos[last[1]-1].Path, read.Through)
	}

	loads = nil
	all, err := Candidates(context.Background(), driver.GrepCandidates{Prefix: "/d/f01", Query: driver.ContentQuery{Op: driver.QueryAll}, Limit: 50},
		filesOf(t, infos, contents, &loads))
	if err != nil || len(all) != 50 || all[0].Path != "/d/f01000.md" || len(loads) != 0 {
		t.Errorf("QueryAll: %d files from %v, %d loads, %v", len(all), all[:min(1, len(all))], len(loads), err)
	}
}

// TestDeadline: past its deadline a search is TIMEOUT; a cancelled context is its error.
func TestDeadline(t *testing.T) {
	infos, contents := corpus(10)
	files := Files{Infos: infos, Content: func(i int) []byte { return contents[i] }}
	q := driver.ContentQuery{Op: driver.QueryLiteral, Literal: "needle"}
	_, err := Candidates(context.Background(), driver.GrepCandidates{Prefix: "/", Query: q, Limit: 10, Deadline: time.Now().Add(-time.Second)}, files)
	if agentfiles.ErrorCode(err) != agentfiles.CodeTimeout {
		t.Errorf("Candidates past its deadline: %v, want TIMEOUT", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Literals(ctx, driver.LiteralGrep{Prefix: "/", Literals: []string{"needle"}, Limit: 10}, files); err != context.Canceled {
		t.Errorf("Literals with a cancelled context: %v", err)
	}
}
