package archive_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/internal/hostilezip"
	"github.com/google/go-cmp/cmp"
)

// zipOf is a zip of n empty files, and the size of its central directory.
func zipOf(t *testing.T, n int) ([]byte, int64) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range n {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("d/f%04d.md", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	return data, int64(binary.LittleEndian.Uint32(data[len(data)-22+12:])) // the end record's directory size
}

// tarOf is a tar of n empty files.
func tarOf(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i := range n {
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%04d", i), Mode: 0o644, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	return buf.Bytes()
}

// readAll opens data with limits and reads every entry; it returns the entries read and the
// first error (nil at the end).
func readAll(t *testing.T, data io.Reader, limits archive.Limits) (int, error) {
	t.Helper()
	limits.TempDir = t.TempDir()
	r, err := archive.Open(data, limits)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for {
		if _, err := r.Next(); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n++
	}
}

// limitOf is the LimitError in err, or nil.
func limitOf(err error) *archive.LimitError {
	var le *archive.LimitError
	if errors.As(err, &le) {
		return le
	}
	return nil
}

// TestLimits: an archive of exactly MaxEntries entries (MaxDirectoryBytes of zip directory)
// is read; one more is a *LimitError, for a zip before its directory is parsed.
func TestLimits(t *testing.T) {
	const n = 40
	z, dir := zipOf(t, n)
	tr := tarOf(t, n)
	tests := []struct {
		name   string
		data   []byte
		limits archive.Limits
		want   *archive.LimitError // nil: all n entries read
	}{
		{"zip at the entry limit", z, archive.Limits{MaxEntries: n}, nil},
		{"zip over the entry limit", z, archive.Limits{MaxEntries: n - 1}, &archive.LimitError{Limit: "entries", Max: n - 1, Got: n, Partial: true}},
		{"zip at the directory limit", z, archive.Limits{MaxDirectoryBytes: dir}, nil},
		{"zip over the directory limit", z, archive.Limits{MaxDirectoryBytes: dir - 1}, &archive.LimitError{Limit: "directory bytes", Max: dir - 1, Got: dir}},
		{"tar at the entry limit", tr, archive.Limits{MaxEntries: n}, nil},
		{"tar over the entry limit", tr, archive.Limits{MaxEntries: n - 1}, &archive.LimitError{Limit: "entries", Max: n - 1, Got: n, Partial: true}},
	}
	for _, tc := range tests {
		got, err := readAll(t, bytes.NewReader(tc.data), tc.limits)
		if diff := cmp.Diff(tc.want, limitOf(err)); diff != "" {
			t.Errorf("%s: error %v (-want +got):\n%s", tc.name, err, diff)
		}
		if tc.want == nil && (err != nil || got != n) {
			t.Errorf("%s: read %d entries, %v; want %d", tc.name, got, err, n)
		}
	}
}

// TestHostileZip: the red team's zip, a directory that lists one empty file millions of
// times, is refused while it is spooled, as soon as its directory has listed more entries than
// the limit, whatever its end record declares; with a higher entry limit, the directory's size
// refuses it (from the end record, or walking the records when the end record hides it).
func TestHostileZip(t *testing.T) {
	entries := 400_000
	if testing.Short() {
		entries = 100_000
	}
	for _, hide := range []bool{false, true} {
		o := hostilezip.Options{Entries: entries, HideSize: hide}
		_, err := readAll(t, hostilezip.Stream(o), archive.Limits{MaxEntries: 1000})
		if le := limitOf(err); le == nil || le.Limit != "entries" || !le.Partial || le.Got <= 1000 {
			t.Errorf("hidden size %v, 1,000 entries allowed: %v; want refused past 1,000", hide, err)
		}
		_, err = readAll(t, hostilezip.Stream(o), archive.Limits{MaxEntries: entries, MaxDirectoryBytes: 1 << 20})
		if le := limitOf(err); le == nil || le.Limit != "directory bytes" {
			t.Errorf("hidden size %v, a directory of 1 MiB allowed: %v; want its size refused", hide, err)
		}
	}
}

// TestDirectoryHeadersCountedAcrossWrites: the count of directory records as a zip streams by
// does not depend on how the stream is cut into reads.
func TestDirectoryHeadersCountedAcrossWrites(t *testing.T) {
	z, _ := zipOf(t, 30)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		_, err := readAll(t, &choppy{data: z, rng: rng}, archive.Limits{MaxEntries: 29})
		if le := limitOf(err); le == nil || le.Got != 30 {
			t.Fatalf("a zip of 30 entries read in random pieces with 29 allowed: %v; want refused at the 30th", err)
		}
	}
}

// choppy yields data in pieces of 1 to 7 bytes.
type choppy struct {
	data []byte
	rng  *rand.Rand
}

func (c *choppy) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+c.rng.IntN(7))], c.data)
	c.data = c.data[n:]
	return n, nil
}
