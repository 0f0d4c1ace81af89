package archive_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/archive"
)

// BenchmarkOpenZip measures what the entry and directory limits add to opening a zip stream
// of 10,000 files of 1 KiB: archive.Open with the limits (spooled through the counter of
// directory headers, the end record read and the directory walked, then archive/zip's
// NewReader) against the reference, the same spooling to a temporary file and NewReader
// alone, in the same run, alternately. It reports both times per open and their ratio.
func BenchmarkOpenZip(b *testing.B) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	line := strings.Repeat("a line of text in a small file\n", 33)
	for i := range 10_000 {
		w, err := zw.Create(fmt.Sprintf("docs/d%02d/f%05d.md", i%100, i))
		if err != nil {
			b.Fatal(err)
		}
		io.WriteString(w, line)
	}
	zw.Close()
	data := buf.Bytes()
	dir := b.TempDir()
	limits := archive.Limits{MaxEntries: 125_000, MaxDirectoryBytes: 32 << 20, TempDir: dir}
	var limited, reference time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		r, err := archive.Open(bytes.NewReader(data), limits)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		limited += time.Since(start)

		start = time.Now()
		f, err := os.CreateTemp(dir, "ref-*")
		if err != nil {
			b.Fatal(err)
		}
		os.Remove(f.Name())
		n, err := io.Copy(f, bytes.NewReader(data))
		if err == nil {
			_, err = zip.NewReader(f, n)
		}
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		reference += time.Since(start)
	}
	b.ReportMetric(float64(limited.Microseconds())/float64(b.N), "limited-µs/open")
	b.ReportMetric(float64(reference.Microseconds())/float64(b.N), "reference-µs/open")
	b.ReportMetric(float64(limited)/float64(reference), "limited/reference")
	b.ReportMetric(0, "ns/op")
	b.SetBytes(int64(len(data)))
}
