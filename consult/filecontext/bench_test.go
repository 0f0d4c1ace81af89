package filecontext

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const (
	fcBenchFiles      = 200
	fcBenchFileTokens = 250 // 1,000 bytes each: 50,000 tokens in context
)

// fcBenchSetup builds a Context with 200 files in context (each read by its own call, as a
// model would) over source, plus the paths of one more turn: two files already in context and
// one new file.
func fcBenchSetup(b *testing.B, src FileSource, root string) (*Context, []string) {
	b.Helper()
	ctx := context.Background()
	fc, err := New(ctx, []string{root + "/base.md"}, Options{Source: src})
	if err != nil {
		b.Fatal(err)
	}
	for i := range fcBenchFiles {
		if _, err := fc.ReadFiles(ctx, []string{fmt.Sprintf("%s/f%03d.go", root, i)}); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(fc.Files()); n != fcBenchFiles+1 {
		b.Fatalf("%d files in context, want %d", n, fcBenchFiles+1)
	}
	return fc, []string{root + "/f010.go", root + "/f150.go", root + "/new.go"}
}

func fcBenchContents(root string) map[string]string {
	files := map[string]string{root + "/base.md": fcText(root+"/base.md", 1, 500), root + "/new.go": fcText(root+"/new.go", 1, fcBenchFileTokens)}
	for i := range fcBenchFiles {
		p := fmt.Sprintf("%s/f%03d.go", root, i)
		files[p] = fcText(p, 1, fcBenchFileTokens)
	}
	return files
}

func fcMapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, c := range files {
		m[strings.TrimPrefix(p, "/")] = &fstest.MapFile{Data: []byte(c)}
	}
	return m
}

// BenchmarkFileContextTurn200 measures one turn with 200 files in context — reading three
// files, then the bookkeeping (parse the history, decide, append) — and reports the two parts
// separately, from an in-memory fs and from disk.
func BenchmarkFileContextTurn200(b *testing.B) {
	contents := fcBenchContents("/repo")
	dir := b.TempDir()
	for p, c := range fcBenchContents(dir) {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		src  FileSource
		root string
	}{
		{"memfs", FSFileSource{FS: fcMapFS(contents)}, "/repo"},
		{"os", OSFileSource{}, filepath.Clean(dir)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			fc, paths := fcBenchSetup(b, tc.src, tc.root)
			ctx := context.Background()
			n0 := len(fc.history)
			var readNs, bookNs time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				reads := ReadForContext(ctx, paths, fc.opts)
				t1 := time.Now()
				fc.mu.Lock()
				res := fc.planLocked("bench", reads)
				fc.history = fc.history[:n0] // undo the turn so every iteration sees 200 files
				fc.mu.Unlock()
				bookNs += time.Since(t1)
				readNs += t1.Sub(t0)
				if res.Reset || res.Files[2].Status != FileSent {
					b.Fatalf("unexpected result %+v", res.Files)
				}
			}
			b.ReportMetric(float64(bookNs.Nanoseconds())/float64(b.N), "bookkeeping-ns/turn")
			b.ReportMetric(float64(readNs.Nanoseconds())/float64(b.N), "read-ns/turn")
			b.ReportMetric(float64(bookNs)/float64(readNs), "bookkeeping/read")
		})
	}
}

// BenchmarkPlanReadFiles200 is the pure bookkeeping of one turn with 200 files in context, for a
// host that owns its history: structured results, results stored as JSON text (parsed every
// turn), and a turn that forces a reset.
func BenchmarkPlanReadFiles200(b *testing.B) {
	contents := fcBenchContents("/repo")
	fc, paths := fcBenchSetup(b, FSFileSource{FS: fcMapFS(contents)}, "/repo")
	history := fc.Messages()
	base := fc.BaseFiles()
	jsonHistory := make([]Message, len(history))
	for i, m := range history {
		jsonHistory[i] = m
		if m.ReadFiles != nil {
			jsonHistory[i].Text, jsonHistory[i].ReadFiles = m.ReadFiles.JSON(), nil
		}
	}
	reads := ReadForContext(context.Background(), paths, fc.opts)
	tight := fc.opts
	tight.BudgetTokens = 50_000 // 500 base + 200×250 already exceed it: every turn resets
	for _, tc := range []struct {
		name    string
		history []Message
		opts    Options
		reset   bool
	}{
		{"structured", history, fc.opts, false},
		{"json-text", jsonHistory, fc.opts, false},
		{"reset", history, tight, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				plan, err := PlanReadFiles(tc.history, base, ReadFilesRequest{CallID: "bench", Reads: reads}, tc.opts)
				if err != nil || plan.Reset != tc.reset {
					b.Fatalf("plan: reset=%v err=%v", plan.Reset, err)
				}
				_ = plan.Apply(tc.history)
			}
		})
	}
}

// BenchmarkExport200 is the cost of exporting a conversation with 200 files in context and
// marshalling it to JSON, which a host pays every turn before sending.
func BenchmarkExport200(b *testing.B) {
	fc, _ := fcBenchSetup(b, FSFileSource{FS: fcMapFS(fcBenchContents("/repo"))}, "/repo")
	b.Run("anthropic", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(fc.ExportAnthropic()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("openai", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(fc.ExportOpenAI(OpenAIExportOptions{CacheControl: true})); err != nil {
				b.Fatal(err)
			}
		}
	})
}
