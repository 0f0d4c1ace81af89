package pgindex

import (
	"encoding/binary"
	"math"
	"time"
	"unsafe"

	"github.com/agentfiles/agentfiles/search/internal/int8vec"
)

// A file's vectors of quantizeMinDims dimensions or more are stored twice in its
// mcp_search_vectors row: as floats (vectors) and as the int8 codes the vector cache holds
// (codes), a quarter of the bytes, so that a cache warms from the codes without encoding and a
// query streams the codes of the files that did not fit the cache, not their floats. The codes
// column is
//
//	byte     codesVersion
//	byte     flags: bit 0 set when the codes are exact (int8vec.EncodeExact for every chunk)
//	float64  the largest L2 norm of the file's vectors, little-endian
//	n × 12   each chunk's int8vec.Meta: Scale, Resid, Norm as little-endian float32
//	n × s    each chunk's codes, s = int8vec.Stride(dims) bytes (padding zero)
//
// and empty for a file whose vectors have no codes (fewer than quantizeMinDims dimensions, or a
// vector that is not finite): such a file is scanned from its floats. NULL codes are a row
// written before schema version 7 (or by a process of that age); New fills them in
// (backfillCodes) and until then such a file is scanned from its floats too.

const (
	codesVersion = 1
	codesHeader  = 10
	codesMeta    = 12
)

// encodeCodes is the codes column of a file's vectors (raw: float32 back to back, a multiple
// of dims): empty when they are not quantised.
func encodeCodes(raw []byte, dims int) []byte {
	if dims < quantizeMinDims || len(raw) == 0 {
		return []byte{}
	}
	f := newCachedFile("", time.Time{}, raw, dims)
	if f.codes == nil {
		return []byte{}
	}
	stride := int8vec.Stride(dims)
	b := make([]byte, codesHeader, codesHeader+f.chunks*(codesMeta+stride))
	b[0] = codesVersion
	if f.exact {
		b[1] = 1
	}
	binary.LittleEndian.PutUint64(b[2:], math.Float64bits(f.maxNorm))
	for _, m := range f.meta {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.Scale))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.Resid))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.Norm))
	}
	for _, c := range f.codes {
		b = append(b, byte(c))
	}
	return b
}

// decodeCodes sets f's codes, bounds, exact flag, largest norm and chunk count from a codes
// column of vectors of dims dimensions, reusing f's slices; ok is false when b is empty or does
// not decode (the file is then read from its floats). With borrow, f's codes are b's bytes
// rather than a copy, valid only as long as b is (a row a query streams by).
func (f *cachedFile) decodeCodes(b []byte, dims int, borrow bool) (ok bool) {
	stride := int8vec.Stride(dims)
	if dims < quantizeMinDims || len(b) < codesHeader || b[0] != codesVersion || b[1] > 1 || (len(b)-codesHeader)%(codesMeta+stride) != 0 {
		return false
	}
	n := (len(b) - codesHeader) / (codesMeta + stride)
	f.chunks, f.exact = n, b[1] == 1
	f.maxNorm = math.Float64frombits(binary.LittleEndian.Uint64(b[2:]))
	if math.IsNaN(f.maxNorm) || math.IsInf(f.maxNorm, 0) || f.maxNorm < 0 {
		return false
	}
	f.meta = f.meta[:0]
	for i := range n {
		m := b[codesHeader+i*codesMeta:]
		f.meta = append(f.meta, int8vec.Meta{
			Scale: math.Float32frombits(binary.LittleEndian.Uint32(m)),
			Resid: math.Float32frombits(binary.LittleEndian.Uint32(m[4:])),
			Norm:  math.Float32frombits(binary.LittleEndian.Uint32(m[8:])),
		})
	}
	codes := b[codesHeader+n*codesMeta:]
	// The same bytes read as int8: two's complement, as encodeCodes wrote them.
	view := unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(codes))), len(codes))
	if borrow {
		f.codes = view
	} else {
		f.codes = append(f.codes[:0:0], view...)
	}
	return true
}
