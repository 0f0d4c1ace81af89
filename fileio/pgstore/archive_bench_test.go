package pgstore_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/google/go-cmp/cmp"
)

// archiveBenchFiles is how many files BenchmarkImport loads: AGENTFILES_ARCHIVE_BENCH_FILES,
// default 3,000. The corpus is generated Markdown prose (grepbench.NewProse) of about 10 KB a
// file, so 30,000 is about 300 MB.
func archiveBenchFiles() int {
	n, err := strconv.Atoi(os.Getenv("AGENTFILES_ARCHIVE_BENCH_FILES"))
	if err != nil || n < 1 {
		return 3000
	}
	return n
}

// archiveBenchCorpus is the corpus of BenchmarkImport: archiveBenchFiles files of generated
// prose, or with AGENTFILES_ARCHIVE_BENCH_CORPUS=goroot real text, the shape — the
// first tenth of that many files of GOROOT/src (Go source and its documentation) ten times
// over, below /c0 … /c9 — and a word in about 1% of its files to grep for.
func archiveBenchCorpus(b *testing.B) ([]grepbench.File, string) {
	n := archiveBenchFiles()
	switch corpus := os.Getenv("AGENTFILES_ARCHIVE_BENCH_CORPUS"); corpus {
	case "", "prose":
		prose := grepbench.NewProse(n, int64(n)*10<<10, 1)
		return prose.Files, prose.Word(0.01)
	case "goroot":
		files := grepbench.Copies(grepbench.Corpus(b, max(n/10, 1), max(n/10, 1), 1<<40), 10)
		return files, grepbench.Word(files, 0.01)
	default:
		b.Fatalf("AGENTFILES_ARCHIVE_BENCH_CORPUS=%q: want prose or goroot", corpus)
		return nil, ""
	}
}

// BenchmarkImport compares, on the same corpus and in one process:
//
//   - Service.Import of a tar of the tree (streamed from a file) against the same files
//     written through Service.Write by 8 writers (x_faster: write time / import time), and the
//     import with IndexNow, which computes the trigrams in the import (x_faster_index_now);
//   - a Grep (files_with_matches, a rare literal) right after the import, with no background
//     indexer, against rg -l over the tree on disk (x_rg: the grep cache holds what the import
//     wrote);
//   - Service.Export of the project as tar against `tar -c` of the tree on disk into a pipe
//     (x_tar).
//
// Each iteration imports into and writes into a fresh project.
func BenchmarkImport(b *testing.B) {
	files, word := archiveBenchCorpus(b)
	dir := b.TempDir()
	tree := filepath.Join(dir, "tree")
	grepbench.WriteTree(b, tree, files)
	tarPath := filepath.Join(dir, "corpus.tar")
	writeTar(b, tarPath, files)
	// Statements get minutes rather than the default 30 s: the shared machine is sometimes
	// loaded enough to stretch one batch past it.
	s, _ := newStore(b, pgstore.Options{GrepIndexInterval: -1, StatementTimeout: 10 * time.Minute})
	svc := storetest.NewService(b, s, func(c *fileio.Config) {
		c.MaxProjectBytes, c.MaxArchiveBytes = 4<<30, 4<<30
		c.CallTimeout, c.ArchiveTimeout, c.LockTimeout = 10*time.Minute, 30*time.Minute, time.Minute
		c.MaxConcurrentCalls = 8
	})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-key", "bench"))
	b.Logf("corpus: %d files, %d bytes; grep for %q", len(files), grepbench.Bytes(files), word)
	var importTime, indexNowTime, writeTime, grepTime, rgTime, exportTime, tarTime time.Duration
	for i := 0; b.Loop(); i++ {
		project := fmt.Sprintf("import-%d", i)
		f, err := os.Open(tarPath)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := svc.Import(ctx, fileio.ImportRequest{Project: project, Archive: f})
		importTime += time.Since(start)
		f.Close()
		if err != nil || res.Files != len(files) {
			b.Fatalf("import: %d files, %v", res.Files, err)
		}

		// A grep straight after the import, against rg -l over the tree.
		req := fileio.GrepRequest{Project: project, Pattern: word, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000}
		start = time.Now()
		gres, err := svc.Grep(ctx, req)
		grepTime += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		want, took := grepbench.Ripgrep(b, tree, "-l", "-F", word)
		rgTime += took
		for k := range want {
			want[k] = "/" + filepath.ToSlash(want[k])
		}
		slices.Sort(want)
		if diff := cmp.Diff(want, gres.Files); diff != "" || gres.Truncated {
			b.Fatalf("grep after the import differs from rg (-rg +grep):\n%s", diff)
		}

		// Export against tar of the tree into a pipe.
		start = time.Now()
		if _, err := svc.Export(ctx, fileio.ExportRequest{Project: project}, io.Discard); err != nil {
			b.Fatal(err)
		}
		exportTime += time.Since(start)
		cmd := exec.Command("tar", "-cf", "-", "-C", tree, ".")
		cmd.Stdout = io.Discard // a pipe: tar reads every file (it skips them for /dev/null)
		start = time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("tar: %v", err)
		}
		tarTime += time.Since(start)

		// The same import computing the trigrams in the import.
		if f, err = os.Open(tarPath); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		res, err = svc.Import(ctx, fileio.ImportRequest{Project: "indexed-" + project, Archive: f, IndexNow: true})
		indexNowTime += time.Since(start)
		f.Close()
		if err != nil || res.Files != len(files) {
			b.Fatalf("import with IndexNow: %d files, %v", res.Files, err)
		}

		// The same files through file_write's Service.Write, 8 writers.
		start = time.Now()
		writeAll(b, svc, ctx, "write-"+project, files, 8)
		writeTime += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(importTime.Seconds()/n, "s/import")
	b.ReportMetric(float64(len(files))*n/importTime.Seconds(), "files/s_import")
	b.ReportMetric(writeTime.Seconds()/n, "s/write_8")
	b.ReportMetric(float64(len(files))*n/writeTime.Seconds(), "files/s_write")
	b.ReportMetric(writeTime.Seconds()/importTime.Seconds(), "x_faster")
	b.ReportMetric(indexNowTime.Seconds()/n, "s/import_index_now")
	b.ReportMetric(writeTime.Seconds()/indexNowTime.Seconds(), "x_faster_index_now")
	b.ReportMetric(float64(grepTime.Microseconds())/n/1000, "ms/grep")
	b.ReportMetric(float64(rgTime.Microseconds())/n/1000, "ms/rg")
	b.ReportMetric(grepTime.Seconds()/rgTime.Seconds(), "x_rg")
	b.ReportMetric(exportTime.Seconds()/n, "s/export")
	b.ReportMetric(tarTime.Seconds()/n, "s/tar")
	b.ReportMetric(exportTime.Seconds()/tarTime.Seconds(), "x_tar")
}

// writeTar writes files as an uncompressed tar at path (grepbench.Tar).
func writeTar(b testing.TB, path string, files []grepbench.File) {
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	grepbench.Tar(b, out, files)
}

// writeAll writes files into project with Service.Write (TRUNCATE), from writers goroutines.
func writeAll(b *testing.B, svc *fileio.Service, ctx context.Context, project string, files []grepbench.File, writers int) {
	err := grepbench.Each(files, writers, func(f grepbench.File) error {
		_, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: f.Path, Content: string(f.Content), Mode: fileio.ModeTruncate})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
