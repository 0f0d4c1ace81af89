package grepbench

import (
	"archive/tar"
	"io"
	"sync"
	"testing"
)

// Tar writes files to w as an uncompressed tar, names relative to the root ("net/http/server.go"),
// as an import's archive.
func Tar(tb testing.TB, w io.Writer, files []File) {
	tb.Helper()
	tw := tar.NewWriter(w)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.Path[1:], Mode: 0o644, Size: int64(len(f.Content)), Typeflag: tar.TypeReg}); err != nil {
			tb.Fatal(err)
		}
		if _, err := tw.Write(f.Content); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
}

// Each calls write for every file from workers goroutines at once, as that many clients
// loading the files one call each, and returns the first error. After an error the other
// files are skipped.
func Each(files []File, workers int, write func(File) error) error {
	next := make(chan File)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			failed := false
			for f := range next { // after a failure, drain so that the sender never blocks
				if failed {
					continue
				}
				if err := write(f); err != nil {
					errs <- err
					failed = true
				}
			}
		}()
	}
	for _, f := range files {
		next <- f
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
