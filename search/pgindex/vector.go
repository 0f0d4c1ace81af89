package pgindex

import (
	"encoding/binary"
	"math"
)

// Vectors are stored as BYTEA, little-endian float32, a file's chunks back to back in one row
// (mcp_search_vectors), so that any dimension works without the pgvector extension and a vector
// costs its raw 4 bytes per dimension plus its share of one row per file.

// appendVector appends v's little-endian float32 encoding to b.
func appendVector(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// decodeVectorInto decodes len(dst) floats from b.
func decodeVectorInto(dst []float32, b []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}
