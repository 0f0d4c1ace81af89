package pgindex

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
)

// randomChunks is a file's chunks with random offsets, hashes (hex SHA-256 or any string) and
// terms.
func randomChunks(r *rand.Rand, n int) []indexdriver.IndexedChunk {
	out := make([]indexdriver.IndexedChunk, n)
	start := int64(r.IntN(1000))
	for i := range out {
		end := start + int64(r.IntN(5000))
		hash := fmt.Sprintf("%064x", r.Uint64())
		if r.IntN(4) == 0 {
			hash = fmt.Sprintf("other-%d", r.IntN(100))
		}
		terms := make(map[string]int)
		for range r.IntN(30) {
			terms[fmt.Sprintf("t%d", r.IntN(60))] = 1 + r.IntN(3)*r.IntN(200)
		}
		out[i] = indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: i, StartByte: start, EndByte: end, ContentHash: hash}, Terms: terms, ChunkTerms: r.IntN(1 << 20)}
		start = end - int64(r.IntN(100)) // overlaps make starts go back
	}
	return out
}

// TestCodecRoundTrip: a pending file, a segment directory and a segment's postings decode to
// what was encoded, for random chunks.
func TestCodecRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 12 {
		chunks := randomChunks(r, n*n)
		p, err := decodePending(encodePending(chunks))
		if err != nil {
			t.Fatalf("%d chunks: %v", len(chunks), err)
		}
		dir, err := decodeDirectory(encodeDirectory(&p.dir))
		if err != nil {
			t.Fatal(err)
		}
		postings := make(map[string][]posting)
		for t, b := range p.blocks {
			_ = forEachPosting(b, func(ord, tf int) { postings[t] = append(postings[t], posting{int32(ord), int32(tf)}) })
		}
		dictBytes, blocks := encodeSegmentPostings(postings)
		dict, err := decodeTermDict(dictBytes)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]indexdriver.IndexedChunk, len(chunks))
		for i := range got {
			got[i] = indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: i, StartByte: dir.start[i], EndByte: dir.end[i], ContentHash: dir.hash(i)},
				Terms: make(map[string]int), ChunkTerms: int(dir.terms[i])}
		}
		for i, term := range dict.terms {
			block := blocks[dict.off[i] : dict.off[i]+dict.size[i]]
			if err := forEachPosting(block, func(ord, tf int) { got[ord].Terms[term] = tf }); err != nil {
				t.Fatal(err)
			}
		}
		for i := range chunks {
			if len(chunks[i].Terms) == 0 {
				chunks[i].Terms = map[string]int{}
			}
		}
		if diff := cmp.Diff(chunks, got); diff != "" {
			t.Errorf("%d chunks (-encoded +decoded):\n%s", len(chunks), diff)
		}
	}
}

// FuzzDecode: no byte string makes a decoder panic; each either decodes or is errCorrupt.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	chunks := randomChunks(r, 5)
	f.Add(encodePending(chunks))
	f.Add(encodeDirectory(&chunkDir{}))
	d, _ := encodeSegmentPostings(map[string][]posting{"a": {{0, 1}, {3, 7}}, "b": {{2, 2}}})
	f.Add(d)
	f.Add(appendBlock(nil, []posting{{0, 1}, {5, 300}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, decode := range []func([]byte) error{
			func(b []byte) error { _, err := decodePending(b); return err },
			func(b []byte) error { _, err := decodeDirectory(b); return err },
			func(b []byte) error { _, err := decodeTermDict(b); return err },
			func(b []byte) error { return forEachPosting(b, func(int, int) {}) },
		} {
			if err := decode(b); err != nil && err != errCorrupt {
				t.Fatalf("error %v, want errCorrupt", err)
			}
		}
	})
}
