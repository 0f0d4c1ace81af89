package hostilezip_test

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"

	"github.com/agentfiles/agentfiles/internal/hostilezip"
)

// TestArchiveZipAcceptsIt: Go's archive/zip reads every record of the stream, past 65,536
// (it compares the declared count modulo 65,536), whether the end record declares the
// directory's size or hides it: the premise of the limits that refuse such streams.
func TestArchiveZipAcceptsIt(t *testing.T) {
	for _, o := range []hostilezip.Options{{Entries: 70_000}, {Entries: 70_000, HideSize: true}, {Entries: 3, Name: "x"}} {
		data, err := io.ReadAll(hostilezip.Stream(o))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) != hostilezip.Size(o) {
			t.Errorf("%+v: %d bytes, Size says %d", o, len(data), hostilezip.Size(o))
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%+v: archive/zip refuses it: %v", o, err)
		}
		if len(zr.File) != o.Entries {
			t.Errorf("%+v: archive/zip read %d records", o, len(zr.File))
		}
	}
}
