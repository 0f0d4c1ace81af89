package pgindex

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// The index stores chunks and postings as compact byte strings rather than a row each (see the
// package doc, "Storage"). Two shapes share one chunk-record format:
//
//   - a pending file (mcp_search_files.pending): one file's chunk records followed by its
//     postings, term by term (file-major, what ReplaceFile writes in one row);
//   - a segment (mcp_search_segments.directory plus one mcp_search_postings row per term): the
//     chunk records of many files, and per term one block of postings over the segment's chunk
//     ordinals (term-major, what a merge writes).
//
// A chunk record is uvarint(start delta, zigzag, from the previous chunk's start in the same
// string), uvarint(end - start), uvarint(chunk terms), then the content hash: byte 1 and 32 raw
// bytes for a lowercase hex SHA-256 (every hash the Indexer makes), or byte 0, uvarint length
// and the bytes for any other string.
//
// A postings block is, per chunk containing the term in increasing ordinal order, uvarint(delta
// << 1 | (tf > 1)) followed by uvarint(tf - 2) when tf > 1, where delta is the ordinal minus the
// previous one (the first from 0). Most postings of a 400-byte chunk take one byte.

// codecVersion is the first byte of a pending file's bytes and of a segment directory.
const codecVersion = 1

// errCorrupt reports stored bytes that do not decode; they are never written by this package.
var errCorrupt = errors.New("pgindex: stored index bytes do not decode (corrupt row)")

// chunkDir holds decoded chunk records, ordinal by ordinal, in flat slices.
type chunkDir struct {
	start, end []int64
	terms      []int32
	sha        []byte         // 32 bytes per chunk (zeros where other holds the hash)
	other      map[int]string // hashes that are not lowercase hex SHA-256, by ordinal
}

func (d *chunkDir) len() int { return len(d.start) }

// hash returns the content hash of ordinal i as the Indexer wrote it.
func (d *chunkDir) hash(i int) string {
	if s, ok := d.other[i]; ok {
		return s
	}
	return hex.EncodeToString(d.sha[32*i : 32*i+32])
}

// bytes is the memory the directory holds, for cache accounting.
func (d *chunkDir) bytes() int64 {
	n := int64(len(d.start))*(8+8+4+32) + 64
	for _, s := range d.other {
		n += int64(len(s)) + 32
	}
	return n
}

func (d *chunkDir) append(start, end int64, terms int, hash string) {
	d.start, d.end, d.terms = append(d.start, start), append(d.end, end), append(d.terms, int32(terms))
	if raw, ok := shaBytes(hash); ok {
		d.sha = append(d.sha, raw...)
		return
	}
	d.sha = append(d.sha, make([]byte, 32)...)
	if d.other == nil {
		d.other = make(map[int]string)
	}
	d.other[len(d.start)-1] = hash
}

// shaBytes decodes a lowercase hex SHA-256; ok is false for any other string (which must be
// stored as it is to round-trip).
func shaBytes(h string) ([]byte, bool) {
	if len(h) != 64 || strings.ToLower(h) != h {
		return nil, false
	}
	raw, err := hex.DecodeString(h)
	return raw, err == nil
}

// appendChunkRecords encodes d's records [from, to) (deltas restart at from).
func appendChunkRecords(b []byte, d *chunkDir, from, to int) []byte {
	prev := int64(0)
	for i := from; i < to; i++ {
		b = binary.AppendUvarint(b, zigzag(d.start[i]-prev))
		prev = d.start[i]
		b = binary.AppendUvarint(b, uint64(d.end[i]-d.start[i]))
		b = binary.AppendUvarint(b, uint64(d.terms[i]))
		if s, ok := d.other[i]; ok {
			b = append(b, 0)
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		} else {
			b = append(b, 1)
			b = append(b, d.sha[32*i:32*i+32]...)
		}
	}
	return b
}

// readChunkRecords decodes n records from r into d.
func readChunkRecords(r *reader, d *chunkDir, n int) {
	prev := int64(0)
	for range n {
		start := prev + unzigzag(r.uvarint())
		prev = start
		end := start + int64(r.uvarint())
		terms := int(r.uvarint())
		switch r.byte() {
		case 1:
			d.start, d.end, d.terms = append(d.start, start), append(d.end, end), append(d.terms, int32(terms))
			d.sha = append(d.sha, r.bytes(32)...)
		case 0:
			d.append(start, end, terms, string(r.bytes(int(r.uvarint()))))
		default:
			r.err = errCorrupt
		}
		if r.err != nil {
			return
		}
	}
}

// encodeDirectory is a segment's directory: version, chunk count, the records.
func encodeDirectory(d *chunkDir) []byte {
	b := append(make([]byte, 0, 48*d.len()+8), codecVersion)
	b = binary.AppendUvarint(b, uint64(d.len()))
	return appendChunkRecords(b, d, 0, d.len())
}

func decodeDirectory(b []byte) (*chunkDir, error) {
	r, n, err := openCoded(b)
	if err != nil {
		return nil, err
	}
	d := &chunkDir{start: make([]int64, 0, n), end: make([]int64, 0, n), terms: make([]int32, 0, n), sha: make([]byte, 0, 32*n)}
	readChunkRecords(r, d, n)
	if r.err != nil || r.off != len(b) {
		return nil, errCorrupt
	}
	return d, nil
}

// posting is one chunk's frequency of a term.
type posting struct {
	ord int32
	tf  int32
}

// appendBlock encodes postings (sorted by ordinal).
func appendBlock(b []byte, ps []posting) []byte {
	prev := int32(0)
	for _, p := range ps {
		v := uint64(p.ord-prev) << 1
		prev = p.ord
		if p.tf > 1 {
			b = binary.AppendUvarint(b, v|1)
			b = binary.AppendUvarint(b, uint64(p.tf-2))
		} else {
			b = binary.AppendUvarint(b, v)
		}
	}
	return b
}

// forEachPosting decodes a block, calling fn for each posting; it returns errCorrupt for bytes
// that do not decode.
func forEachPosting(block []byte, fn func(ord, tf int)) error {
	ord := 0
	for i := 0; i < len(block); {
		v, n := binary.Uvarint(block[i:])
		if n <= 0 {
			return errCorrupt
		}
		i += n
		if ord += int(v >> 1); v>>1 > math.MaxInt32 || ord > math.MaxInt32 {
			return errCorrupt // ordinals are int32
		}
		tf := 1
		if v&1 == 1 {
			extra, n := binary.Uvarint(block[i:])
			if n <= 0 {
				return errCorrupt
			}
			i += n
			if extra > math.MaxInt32 {
				return errCorrupt
			}
			tf = int(extra) + 2
		}
		fn(ord, tf)
	}
	return nil
}

// pendingFile is a decoded pending file: its chunk records and, per term, its postings block
// over the file's chunk indexes.
type pendingFile struct {
	dir    chunkDir
	blocks map[string][]byte
}

func (p *pendingFile) bytes() int64 {
	n := p.dir.bytes()
	for t, b := range p.blocks {
		n += int64(len(t)+len(b)) + 48
	}
	return n
}

// encodePending is a file's pending form: version, chunk count, chunk records, term count, and
// per term (sorted) its length, bytes, block length and block.
func encodePending(chunks []indexdriver.IndexedChunk) []byte {
	d := &chunkDir{}
	byTerm := make(map[string][]posting)
	for i, c := range chunks {
		d.append(c.StartByte, c.EndByte, c.ChunkTerms, c.ContentHash)
		for t, tf := range c.Terms {
			byTerm[t] = append(byTerm[t], posting{ord: int32(i), tf: int32(tf)})
		}
	}
	terms := make([]string, 0, len(byTerm))
	for t := range byTerm {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	b := append(make([]byte, 0, 64*len(chunks)+16*len(terms)), codecVersion)
	b = binary.AppendUvarint(b, uint64(len(chunks)))
	b = appendChunkRecords(b, d, 0, d.len())
	b = binary.AppendUvarint(b, uint64(len(terms)))
	var block []byte
	for _, t := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		block = appendBlock(block[:0], byTerm[t]) // chunk order: appended in increasing i
		b = binary.AppendUvarint(b, uint64(len(block)))
		b = append(b, block...)
	}
	return b
}

func decodePending(b []byte) (*pendingFile, error) {
	r, n, err := openCoded(b)
	if err != nil {
		return nil, err
	}
	p := &pendingFile{}
	readChunkRecords(r, &p.dir, n)
	nt := int(r.uvarint())
	if r.err != nil || nt > len(b) {
		return nil, errCorrupt
	}
	p.blocks = make(map[string][]byte, nt)
	for range nt {
		t := string(r.bytes(int(r.uvarint())))
		p.blocks[t] = r.bytes(int(r.uvarint()))
	}
	if r.err != nil || r.off != len(b) {
		return nil, errCorrupt
	}
	return p, nil
}

// openCoded checks the version byte that starts a directory, a pending file or a term
// dictionary and reads the count after it (no count can exceed the byte length).
func openCoded(b []byte) (*reader, int, error) {
	r := &reader{b: b}
	if r.byte() != codecVersion {
		return nil, 0, errCorrupt
	}
	n := int(r.uvarint())
	if r.err != nil || n > len(b) {
		return nil, 0, errCorrupt
	}
	return r, n, nil
}

// reader decodes uvarints and byte runs, remembering the first error.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.off += n
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		r.err = errCorrupt
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

// bytes returns the next n bytes (a sub-slice of the input, not a copy).
func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		r.err = errCorrupt
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off : r.off]
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// termDict is a segment's term dictionary: its terms, sorted, and where each term's postings
// block is in the segment's postings bytes.
type termDict struct {
	terms []string
	off   []int32
	size  []int32
}

// find returns the block of term t as (offset, length); ok is false when the segment lacks it.
func (d *termDict) find(t string) (off, size int32, ok bool) {
	i, found := slices.BinarySearch(d.terms, t)
	if !found {
		return 0, 0, false
	}
	return d.off[i], d.size[i], true
}

func (d *termDict) bytes() int64 {
	n := int64(len(d.terms))*(16+8) + 64
	for _, t := range d.terms {
		n += int64(len(t))
	}
	return n
}

// encodeSegmentPostings lays out postings (term → postings sorted by ordinal) as the postings
// bytes (blocks back to back, in term order) and the dictionary bytes: version, term count, then
// per term uvarint(length), the term, uvarint(block length) (offsets follow from the lengths).
func encodeSegmentPostings(postings map[string][]posting) (dict, blocks []byte) {
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	dict = append(make([]byte, 0, 12*len(terms)+8), codecVersion)
	dict = binary.AppendUvarint(dict, uint64(len(terms)))
	for _, t := range terms {
		n := len(blocks)
		blocks = appendBlock(blocks, postings[t])
		dict = binary.AppendUvarint(dict, uint64(len(t)))
		dict = append(dict, t...)
		dict = binary.AppendUvarint(dict, uint64(len(blocks)-n))
	}
	return dict, blocks
}

func decodeTermDict(b []byte) (*termDict, error) {
	r, n, err := openCoded(b)
	if err != nil {
		return nil, err
	}
	d := &termDict{terms: make([]string, 0, n), off: make([]int32, 0, n), size: make([]int32, 0, n)}
	off := int64(0)
	for range n {
		t := string(r.bytes(int(r.uvarint())))
		size := int64(r.uvarint())
		if r.err != nil || off+size > 1<<31-1 {
			return nil, errCorrupt
		}
		d.terms, d.off, d.size = append(d.terms, t), append(d.off, int32(off)), append(d.size, int32(size))
		off += size
	}
	if r.err != nil || r.off != len(b) || !slices.IsSorted(d.terms) {
		return nil, errCorrupt
	}
	return d, nil
}
