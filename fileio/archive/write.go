package archive

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"time"
)

// Writer writes regular files to an archive stream as they come; nothing is buffered beyond
// the compressor's window. Close finishes the archive (and does not close the stream).
type Writer struct {
	tw *tar.Writer
	gz *gzip.Writer
	zw *zip.Writer
}

// NewWriter returns a Writer of format f on w.
func NewWriter(w io.Writer, f Format) *Writer {
	switch f {
	case Zip:
		return &Writer{zw: zip.NewWriter(w)}
	case TarGz:
		gz, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // BestSpeed is a valid level: no error
		return &Writer{gz: gz, tw: tar.NewWriter(gz)}
	}
	return &Writer{tw: tar.NewWriter(w)}
}

// ContentType is the media type of an archive of format f.
func ContentType(f Format) string {
	switch f {
	case Zip:
		return "application/zip"
	case TarGz:
		return "application/gzip"
	}
	return "application/x-tar"
}

// Add writes one regular file named name (relative, slash-separated) with mode 0644.
func (w *Writer) Add(name string, content []byte, modified time.Time) error {
	if w.zw != nil {
		fw, err := w.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return err
		}
		_, err = fw.Write(content)
		return err
	}
	// PAX format keeps UTF-8 names and sub-second times exactly.
	h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(content)), Mode: 0o644, ModTime: modified, Format: tar.FormatPAX}
	if err := w.tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := w.tw.Write(content)
	return err
}

// Close writes the end of the archive.
func (w *Writer) Close() error {
	if w.zw != nil {
		return w.zw.Close()
	}
	if err := w.tw.Close(); err != nil {
		return err
	}
	if w.gz != nil {
		return w.gz.Close()
	}
	return nil
}
