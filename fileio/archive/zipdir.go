package archive

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
)

// The zip records this file reads (APPNOTE.TXT 4.3), and their fixed lengths.
const (
	zipDirHeaderSig  = 0x02014b50 // central directory file header
	zipDirEndSig     = 0x06054b50 // end of central directory record
	zipDir64LocSig   = 0x07064b50 // zip64 end of central directory locator
	zipDir64EndSig   = 0x06064b50 // zip64 end of central directory record
	zipDirHeaderLen  = 46         // + name + extra + comment
	zipDirEndLen     = 22         // + comment
	zipDir64LocLen   = 20
	zipDir64EndLen   = 56
	zipLocalHeadSize = 30 // the smallest entry: a local header without name or data
)

// headerCounter passes what is written to w, counting the central directory file header
// signatures ("PK\x01\x02") that go by, and fails the write once there are more than max
// (0: no limit). Each entry of a zip's directory starts with one, so the count is at least the
// number of entries archive/zip would parse (the signatures inside entries stored
// uncompressed, such as the directory of a zip stored in the zip, count too); a stream whose
// directory lists too many entries is refused before the rest of it arrives.
type headerCounter struct {
	w     io.Writer
	max   int64
	n     int64
	carry [3]byte // the last bytes written, for a signature split across writes
	held  int
}

var zipDirHeaderMagic = []byte("PK\x01\x02")

func (c *headerCounter) Write(p []byte) (int, error) {
	if c.max > 0 {
		// A signature that starts in the bytes before p and ends in p.
		var joint [6]byte
		n := copy(joint[:], c.carry[:c.held])
		n += copy(joint[n:], p)
		for i := 0; i < c.held && i+len(zipDirHeaderMagic) <= n; i++ {
			if bytes.Equal(joint[i:i+len(zipDirHeaderMagic)], zipDirHeaderMagic) {
				c.n++
			}
		}
		c.n += int64(bytes.Count(p, zipDirHeaderMagic))
		if c.n > c.max {
			return 0, &LimitError{Limit: "entries", Max: c.max, Got: c.n, Partial: true}
		}
		// Keep the last three bytes of the stream: joint ends with p's first bytes, p with its last.
		if len(p) >= len(c.carry) {
			c.held = copy(c.carry[:], p[len(p)-len(c.carry):])
		} else {
			last := joint[:n]
			c.held = copy(c.carry[:], last[max(0, len(last)-len(c.carry)):])
		}
	}
	return c.w.Write(p)
}

// checkZipDirectory refuses a zip whose central directory lists more than limits.MaxEntries
// entries or takes more than limits.MaxDirectoryBytes, before archive/zip parses it. It finds
// the directory as archive/zip's NewReader does (Go 1.26: the end record in the last 1 KiB, or
// else the last 65 KiB; a zip64 end record when a field is saturated; the base offset of data
// prepended to the archive), checks what the end record declares, then walks the records from
// the directory's start as NewReader will, until a record without the header signature, in
// constant memory. A zip without a valid end record passes: NewReader refuses it.
func checkZipDirectory(r io.ReaderAt, size int64, limits Limits) error {
	if limits.MaxEntries <= 0 && limits.MaxDirectoryBytes <= 0 {
		return nil
	}
	dir, ok := findZipDirectory(r, size)
	if !ok {
		return nil
	}
	if limits.MaxEntries > 0 && dir.records > uint64(limits.MaxEntries) {
		return &LimitError{Limit: "entries", Max: int64(limits.MaxEntries), Got: int64(min(dir.records, 1<<62))}
	}
	if limits.MaxDirectoryBytes > 0 && dir.size > uint64(limits.MaxDirectoryBytes) {
		return &LimitError{Limit: "directory bytes", Max: limits.MaxDirectoryBytes, Got: int64(min(dir.size, 1<<62))}
	}
	if err := walkZipDirectory(r, size, dir.start, limits); err != nil {
		return err
	}
	if dir.alt >= 0 {
		return walkZipDirectory(r, size, dir.alt, limits)
	}
	return nil
}

// walkZipDirectory reads the directory records from start as archive/zip's NewReader does,
// until one does not begin with the header signature or is cut short, and refuses more than
// the limits allow.
func walkZipDirectory(r io.ReaderAt, size, start int64, limits Limits) error {
	br := bufio.NewReaderSize(io.NewSectionReader(r, start, size-start), 64<<10)
	var head [zipDirHeaderLen]byte
	var records, bytes int64
	for {
		if _, err := io.ReadFull(br, head[:]); err != nil || binary.LittleEndian.Uint32(head[:4]) != zipDirHeaderSig {
			return nil // where archive/zip stops reading records
		}
		n := zipDirHeaderLen + int64(binary.LittleEndian.Uint16(head[28:])) + int64(binary.LittleEndian.Uint16(head[30:])) + int64(binary.LittleEndian.Uint16(head[32:]))
		records, bytes = records+1, bytes+n
		if limits.MaxEntries > 0 && records > int64(limits.MaxEntries) {
			return &LimitError{Limit: "entries", Max: int64(limits.MaxEntries), Got: records, Partial: true}
		}
		if limits.MaxDirectoryBytes > 0 && bytes > limits.MaxDirectoryBytes {
			return &LimitError{Limit: "directory bytes", Max: limits.MaxDirectoryBytes, Got: bytes, Partial: true}
		}
		if _, err := br.Discard(int(n - zipDirHeaderLen)); err != nil {
			return nil // a record cut short: archive/zip stops there too
		}
	}
}

// zipDirectory is what a zip's end records say of its central directory.
type zipDirectory struct {
	records uint64 // as declared (archive/zip compares only its low 16 bits with what it reads)
	size    uint64 // as declared
	start   int64  // where archive/zip starts reading records
	// alt is the other place it may start (-1: none): archive/zip drops the base offset of
	// prepended data when a whole record parses at the declared offset, which this reader
	// does not check record by record, so it walks both.
	alt int64
}

// findZipDirectory reads a zip's end records as archive/zip's readDirectoryEnd does and
// returns where its directory starts, or false when archive/zip would refuse the end records.
func findZipDirectory(r io.ReaderAt, size int64) (zipDirectory, bool) {
	var buf []byte
	var endOffset int64
	found := false
	for _, blockLen := range []int64{1024, 65 * 1024} {
		blockLen = min(blockLen, size)
		buf = make([]byte, blockLen)
		if _, err := r.ReadAt(buf, size-blockLen); err != nil && err != io.EOF {
			return zipDirectory{}, false
		}
		if p := findDirectoryEnd(buf); p >= 0 {
			buf, endOffset, found = buf[p:], size-blockLen+int64(p), true
			break
		}
		if blockLen == size {
			break
		}
	}
	if !found {
		return zipDirectory{}, false
	}
	le := binary.LittleEndian
	d := zipDirectory{records: uint64(le.Uint16(buf[10:])), size: uint64(le.Uint32(buf[12:]))}
	offset := uint64(le.Uint32(buf[16:]))
	if d.records == 0xffff || d.size == 0xffff || offset == 0xffffffff {
		if p, ok := findDirectory64End(r, endOffset); ok {
			endOffset = p
			var end [zipDir64EndLen]byte
			if _, err := r.ReadAt(end[:], p); err != nil || le.Uint32(end[:4]) != zipDir64EndSig {
				return zipDirectory{}, false
			}
			d.records, d.size, offset = le.Uint64(end[32:]), le.Uint64(end[40:]), le.Uint64(end[48:])
		}
	}
	if d.size > 1<<63-1 || offset > 1<<63-1 {
		return zipDirectory{}, false
	}
	base := endOffset - int64(d.size) - int64(offset)
	if o := base + int64(offset); o < 0 || o >= size {
		return zipDirectory{}, false
	}
	d.start, d.alt = base+int64(offset), -1
	if base > 0 { // archive/zip's fallback: a valid record at offset means no prepended data
		d.alt = int64(offset)
	}
	return d, true
}

// findDirectoryEnd returns the offset in b of the last end-of-directory signature whose
// comment fits in b, or -1 (archive/zip's findSignatureInBlock).
func findDirectoryEnd(b []byte) int {
	for i := len(b) - zipDirEndLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(b[i:]) == zipDirEndSig {
			if comment := int(binary.LittleEndian.Uint16(b[i+zipDirEndLen-2:])); comment+zipDirEndLen+i > len(b) {
				return -1
			}
			return i
		}
	}
	return -1
}

// findDirectory64End returns the offset of the zip64 end record that the locator before
// endOffset names (archive/zip's findDirectory64End), or false.
func findDirectory64End(r io.ReaderAt, endOffset int64) (int64, bool) {
	at := endOffset - zipDir64LocLen
	if at < 0 {
		return 0, false
	}
	var loc [zipDir64LocLen]byte
	if _, err := r.ReadAt(loc[:], at); err != nil {
		return 0, false
	}
	le := binary.LittleEndian
	if le.Uint32(loc[:4]) != zipDir64LocSig || le.Uint32(loc[4:]) != 0 || le.Uint32(loc[16:]) != 1 {
		return 0, false
	}
	return int64(le.Uint64(loc[8:])), true
}
