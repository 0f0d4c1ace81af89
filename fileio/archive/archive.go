// Package archive reads and writes the tar, tar.gz and zip streams that fileio.Service imports
// and exports: it detects the format from the first bytes, yields the regular files of an
// archive one at a time with their names cleaned (Clean), and refuses what could escape the
// directory the archive goes into (".." segments, absolute names) by naming the entry. Links
// are yielded without a body and with their target (Entry.Link), never followed: the importer
// decides (fileio.Service.Import skips and lists them).
//
// # Memory
//
// A tar or tar.gz stream is read as it arrives: one entry's body at a time, never the whole
// archive. Zip keeps its directory at the end, so a zip stream is spooled to a temporary file
// of at most Limits.MaxArchiveBytes, removed on Close, and its directory is parsed from there.
// Go's archive/zip holds the whole directory in memory (about 250 bytes per entry with its
// name and extra fields), so a zip is checked before it is parsed: while it is spooled, the
// entry headers of its directory are counted as they stream by, and once it is spooled its
// directory is walked record by record, as archive/zip will read it, in constant memory. A zip
// that lists more than Limits.MaxEntries entries, or whose directory is larger than
// Limits.MaxDirectoryBytes, is refused with a *LimitError before archive/zip sees it. Every
// format counts the entries it yields against MaxEntries as well.
//
// # Names
//
// Clean turns an entry name into a project path relative to the import directory: leading
// "./" segments go, and a name is refused when it is absolute ("/etc/passwd", "C:/x"), has a
// ".." segment, a backslash (a Windows separator: "..\x" would escape on extraction there) or
// a NUL. Directory entries are skipped; their files create them.
package archive

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Format is an archive format.
type Format string

// The formats Open detects and NewWriter writes.
const (
	Tar   Format = "tar"
	TarGz Format = "tar.gz"
	Zip   Format = "zip"
)

// ParseFormat returns the Format named s ("tar", "tar.gz" or "tgz", "zip"); "" is Tar.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "tar":
		return Tar, nil
	case "tar.gz", "tgz":
		return TarGz, nil
	case "zip":
		return Zip, nil
	}
	return "", &EntryError{Reason: fmt.Sprintf("unknown archive format %q; use tar, tar.gz or zip", s)}
}

// EntryError says why an archive or one of its entries is refused. Entry is the entry's name
// as the archive spells it ("" for the archive as a whole).
type EntryError struct {
	Entry  string
	Reason string
}

func (e *EntryError) Error() string {
	if e.Entry == "" {
		return e.Reason
	}
	return fmt.Sprintf("archive entry %q: %s", e.Entry, e.Reason)
}

// Limits bound what a Reader reads.
type Limits struct {
	// MaxArchiveBytes caps the bytes read from the stream (compressed, as sent); a larger
	// archive is refused. It also caps the spool file of a zip stream. Zero: 1 GiB.
	MaxArchiveBytes int64
	// MaxEntries caps the entries of an archive (files, directories, links); a zip's are
	// counted before its directory is parsed. Zero: no limit.
	MaxEntries int
	// MaxDirectoryBytes caps the central directory of a zip (the records archive/zip parses
	// and holds). Zero: no limit.
	MaxDirectoryBytes int64
	// TempDir is where a zip stream is spooled; "" is os.TempDir().
	TempDir string
}

// LimitError says an archive passed one of its Limits; nothing was parsed past it.
type LimitError struct {
	Limit string // "entries" (MaxEntries) or "directory bytes" (MaxDirectoryBytes)
	Max   int64
	// Got is what the archive has, or at least (Partial) what was counted when the reading
	// stopped.
	Got     int64
	Partial bool
}

func (e *LimitError) Error() string {
	more := ""
	if e.Partial {
		more = " at least"
	}
	return fmt.Sprintf("the archive has%s %d %s, more than the %d allowed", more, e.Got, e.Limit, e.Max)
}

// Entry is one regular file of an archive.
type Entry struct {
	Name string // the name as the archive spells it
	Path string // Clean(Name): slash-separated, relative, without "." or ".." segments
	Size int64  // the uncompressed size the archive declares
	// Link is the target of a symbolic or hard link as the archive spells it ("" for a
	// regular file); a link has no body.
	Link string
}

// Reader yields the regular files of an archive. It is not safe for concurrent use.
type Reader struct {
	format     Format
	tr         *tar.Reader
	gz         *gzip.Reader
	tail       *tailReader
	zr         *zip.Reader
	zi         int
	spool      *os.File
	body       io.Reader
	entries    int // read so far
	maxEntries int
}

// Open detects the format of the stream r from its first bytes (gzip's magic number, zip's
// local or end-of-directory header, tar's "ustar" magic) and returns a Reader. Stream bytes
// past limits.MaxArchiveBytes fail the read. Close the Reader to remove a zip spool file.
func Open(r io.Reader, limits Limits) (*Reader, error) {
	if limits.MaxArchiveBytes <= 0 {
		limits.MaxArchiveBytes = 1 << 30
	}
	capped := &capReader{r: r, left: limits.MaxArchiveBytes}
	br := bufio.NewReaderSize(capped, 64<<10)
	head, err := br.Peek(512)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &EntryError{Reason: "the gzip stream is damaged: " + err.Error()}
		}
		tail := &tailReader{r: gz}
		return &Reader{format: TarGz, gz: gz, tail: tail, tr: tar.NewReader(tail), maxEntries: limits.MaxEntries}, nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return openZip(br, limits)
	case len(head) >= 262 && string(head[257:262]) == "ustar", len(head) == 512 && bytes.Count(head, []byte{0}) == 512:
		tail := &tailReader{r: br}
		return &Reader{format: Tar, tail: tail, tr: tar.NewReader(tail), maxEntries: limits.MaxEntries}, nil
	case len(head) == 0:
		return nil, &EntryError{Reason: "the archive is empty; send a tar, tar.gz or zip stream"}
	}
	return nil, &EntryError{Reason: "the stream is not a tar, tar.gz or zip archive (detected from its first bytes)"}
}

// openZip spools r to a temporary file, counting the directory's entry headers as they pass
// (a stream that lists too many is refused as soon as it does), checks the directory
// (checkZipDirectory) and only then parses it.
func openZip(r io.Reader, limits Limits) (*Reader, error) {
	f, err := os.CreateTemp(limits.TempDir, "agentfiles-zip-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // the open file stays readable; nothing is left behind on a crash
	n, err := io.Copy(&headerCounter{w: f, max: int64(limits.MaxEntries)}, r)
	if err == nil {
		err = checkZipDirectory(f, n, limits)
	}
	if err == nil {
		var zr *zip.Reader
		if zr, err = zip.NewReader(f, n); err == nil {
			return &Reader{format: Zip, zr: zr, spool: f, maxEntries: limits.MaxEntries}, nil
		}
		err = &EntryError{Reason: "the zip archive is damaged: " + err.Error()}
	}
	f.Close()
	return nil, err
}

// Format returns the detected format.
func (r *Reader) Format() Format { return r.format }

// Close releases the spool file of a zip stream.
func (r *Reader) Close() error {
	if r.spool != nil {
		return r.spool.Close()
	}
	return nil
}

// Next returns the next regular file or link, skipping directory entries and tar's metadata
// entries, or io.EOF after the last. A device or any other special entry, and a name Clean
// refuses, is an *EntryError naming the entry. Read the body with Read before calling Next
// again.
func (r *Reader) Next() (Entry, error) {
	if r.zr != nil {
		return r.nextZip()
	}
	for {
		h, err := r.tr.Next()
		if err == nil {
			if err = r.count(); err != nil {
				return Entry{}, err
			}
		}
		if err == io.EOF {
			if !r.tail.endMarker() {
				return Entry{}, &EntryError{Reason: "the archive is cut short: it ends without tar's end marker (two zero blocks)"}
			}
			return Entry{}, r.gzipEnd()
		}
		if err != nil {
			return Entry{}, streamError(err)
		}
		switch h.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader:
			if _, err := Clean(h.Name); err != nil && h.Typeflag == tar.TypeDir && !isRoot(h.Name) {
				return Entry{}, entryError(h.Name, err)
			}
			continue
		case tar.TypeReg: // the reader reports the old TypeRegA as TypeReg
		case tar.TypeSymlink, tar.TypeLink:
			p, err := Clean(h.Name)
			if err != nil {
				return Entry{}, entryError(h.Name, err)
			}
			r.body = strings.NewReader("")
			return Entry{Name: h.Name, Path: p, Link: h.Linkname}, nil
		default:
			return Entry{}, &EntryError{Entry: h.Name, Reason: fmt.Sprintf("is a special file (tar type %q); only regular files and directories can be imported", h.Typeflag)}
		}
		p, err := Clean(h.Name)
		if err != nil {
			return Entry{}, entryError(h.Name, err)
		}
		r.body = r.tr
		return Entry{Name: h.Name, Path: p, Size: h.Size}, nil
	}
}

// maxLinkTarget bounds the target of a zip link (its body) that Next reads.
const maxLinkTarget = 4096

func (r *Reader) nextZip() (Entry, error) {
	for r.zi < len(r.zr.File) {
		f := r.zr.File[r.zi]
		r.zi++
		if err := r.count(); err != nil {
			return Entry{}, err
		}
		mode := f.Mode()
		link := mode&fs.ModeSymlink != 0
		switch {
		case link:
		case mode.IsDir() || strings.HasSuffix(f.Name, "/"):
			if _, err := Clean(f.Name); err != nil && !isRoot(f.Name) {
				return Entry{}, entryError(f.Name, err)
			}
			continue
		case !mode.IsRegular():
			return Entry{}, &EntryError{Entry: f.Name, Reason: "is a special file; only regular files and directories can be imported"}
		}
		p, err := Clean(f.Name)
		if err != nil {
			return Entry{}, entryError(f.Name, err)
		}
		rc, err := f.Open()
		if err != nil {
			return Entry{}, &EntryError{Entry: f.Name, Reason: "cannot be read: " + err.Error()}
		}
		if link { // its body is its target
			target, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget))
			if err != nil {
				return Entry{}, &EntryError{Entry: f.Name, Reason: "cannot be read: " + err.Error()}
			}
			r.body = strings.NewReader("")
			return Entry{Name: f.Name, Path: p, Link: string(target)}, nil
		}
		r.body = rc // zip's readers need no Close beyond checksum checks at EOF
		return Entry{Name: f.Name, Path: p, Size: int64(f.UncompressedSize64)}, nil
	}
	return Entry{}, io.EOF
}

// maxGzipTrailer bounds what a tar.gz may hold after the tar's end marker (tar pads its
// stream to whole records of up to 10 KiB; more is not padding, and decompressing it all would
// cost CPU for nothing).
const maxGzipTrailer = 1 << 20

// gzipEnd reads a tar.gz stream to its end after the tar's end marker, so that gzip checks its
// checksum and length: a stream cut in its trailer is damaged, not whole. It returns io.EOF
// when the stream is whole.
func (r *Reader) gzipEnd() error {
	if r.gz == nil {
		return io.EOF
	}
	n, err := io.Copy(io.Discard, io.LimitReader(r.gz, maxGzipTrailer+1))
	switch {
	case err != nil:
		return streamError(err)
	case n > maxGzipTrailer:
		return &EntryError{Reason: "the gzip stream goes on for more than 1 MiB after the tar archive's end; send the tar.gz alone"}
	}
	return io.EOF
}

// count counts one more entry against Limits.MaxEntries.
func (r *Reader) count() error {
	r.entries++
	if r.maxEntries > 0 && r.entries > r.maxEntries {
		return &LimitError{Limit: "entries", Max: int64(r.maxEntries), Got: int64(r.entries), Partial: true}
	}
	return nil
}

// Read reads the body of the entry Next returned last.
func (r *Reader) Read(p []byte) (int, error) {
	if r.body == nil {
		return 0, io.EOF
	}
	n, err := r.body.Read(p)
	if err != nil && err != io.EOF {
		err = streamError(err)
	}
	return n, err
}

func streamError(err error) error {
	var ee *EntryError
	var le *LimitError
	if errors.As(err, &ee) || errors.As(err, &le) || errors.Is(err, errTooLarge) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, tar.ErrHeader) || errors.Is(err, gzip.ErrHeader) ||
		errors.Is(err, gzip.ErrChecksum) || errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) {
		return &EntryError{Reason: "the archive is damaged or cut short: " + err.Error()}
	}
	return err
}

func entryError(name string, err error) error {
	return &EntryError{Entry: name, Reason: err.Error()}
}

// Clean returns the relative slash-separated path an entry name stands for: "./a/b.md" and
// "a/b.md" are "a/b.md", and a directory's trailing "/" goes. It refuses an empty name or
// one that is absolute ("/x", "C:/x", "c:x"), contains a ".." segment, a backslash or a NUL.
// Empty and "." segments are dropped ("a//b", "a/./b" are "a/b"). The result may still break
// the path rules of the project (fileio.PathRule.Validate checks it there).
func Clean(name string) (string, error) {
	switch {
	case strings.HasPrefix(name, "/"):
		return "", errors.New(`is an absolute name; archive entries must be relative (such as "docs/a.md")`)
	case strings.ContainsRune(name, '\\'):
		return "", errors.New(`contains a backslash; archive entries use "/" between names`)
	case strings.IndexByte(name, 0) >= 0:
		return "", errors.New("contains a NUL byte")
	}
	var segs []string
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return "", errors.New(`has a ".." segment, which would lead outside the import directory`)
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return "", errors.New("names no file")
	}
	if first := segs[0]; len(first) >= 2 && first[1] == ':' && ('a' <= first[0]|0x20 && first[0]|0x20 <= 'z') {
		return "", errors.New(`starts with a drive letter; archive entries must be relative (such as "docs/a.md")`)
	}
	return strings.Join(segs, "/"), nil
}

// isRoot reports whether a directory entry names the archive's root ("./", as `tar -C dir -c .`
// writes first): skipped like any directory entry, not refused.
func isRoot(name string) bool {
	for _, seg := range strings.Split(name, "/") {
		if seg != "" && seg != "." {
			return false
		}
	}
	return true
}

var errTooLarge = errors.New("archive too large")

// TooLarge reports whether err says the stream passed Limits.MaxArchiveBytes.
func TooLarge(err error) bool { return errors.Is(err, errTooLarge) }

// capReader fails reads past left bytes.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// Tell a stream that ends exactly at the cap from a longer one.
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// tailReader remembers the last 512 bytes read through it: a complete tar stream's are zeros
// (its end marker), a stream cut at an entry boundary or in an entry's padding's are not.
type tailReader struct {
	r    io.Reader
	last [512]byte
	n    int64
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n >= len(t.last) {
		copy(t.last[:], p[n-len(t.last):n])
	} else if n > 0 {
		copy(t.last[:], t.last[n:])
		copy(t.last[len(t.last)-n:], p[:n])
	}
	t.n += int64(n)
	return n, err
}

func (t *tailReader) endMarker() bool {
	return t.n >= int64(len(t.last)) && t.last == [512]byte{}
}
