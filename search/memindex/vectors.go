package memindex

import (
	"math"
	"math/bits"

	"github.com/agentfiles/agentfiles/search/internal/int8vec"
)

// Vectors live in tiles of vs.rows slots. Inside a tile the floats are dimension-major: element
// (row r, dimension j) is tile[j*rows+r], so one dimension of a full-size tile (1,024 slots) is
// 4 KiB of consecutive memory. A query vector that is zero in most dimensions (the hashing
// embedder's query of a few words is non-zero in about 10% of them) then streams only the runs
// of its non-zero dimensions, and a dense query streams every tile once.
//
// A store starts with tiles of 8 rows, so a small project does not pay for a 1,024-row tile per
// model (6 MiB at 1,536 dimensions), and is re-tiled 4× larger each time it outgrows four tiles
// (each step copies the store once).
const (
	minTileRows = 8    // 8, 32, 128, 512, then 1024: each divides 64 or is a multiple of it
	maxTileRows = 1024 // larger tiles measured no faster at 100k chunks
	retileAt    = 4    // tiles of the current size before moving to the next (4× larger)
)

// vectorKey separates vectors that must never be compared: other models, or other sizes.
type vectorKey struct {
	model string
	dims  int
}

// vectorStore holds the vectors of one (model, dims) of a project, addressed by slot ID. Tiles
// are allocated on first use, so slot IDs used only by other models cost nothing here. A slot's
// floats stay in place after it is freed; the live bitset says which slots hold a current vector
// of this store. The caller holds the project's lock.
type vectorStore struct {
	dims    int
	rows    int         // slots per tile
	tiles   [][]float32 // rows*dims floats each; nil until a slot of the tile is used
	live    []uint64    // bit per slot: holds a vector of this store
	count   int         // set bits in live
	maxNorm float64     // largest L2 norm ever stored (never lowered): bounds rounding error
	maxRows int         // largest tile size this store grows to
	codes   *codeStore  // int8 codes of large vectors (see quant.go); nil below quantizeMinDims
}

// newVectorStore returns an empty store, in exact-codes mode when exactCodes allows it.
func newVectorStore(dims int) *vectorStore {
	vs := &vectorStore{dims: dims, rows: minTileRows, maxRows: maxTileRows}
	if exactCodes || dims >= quantizeMinDims {
		vs.codes = newCodeStore(dims)
		vs.codes.exact = exactCodes
	}
	vs.setMaxRows()
	return vs
}

// setMaxRows picks the largest tile size. Queries of large vectors go through the codes and
// re-score a few chunks exactly, gathering each one's floats: in 8-row tiles those are 32
// consecutive bytes of every 64, not one cache line per dimension.
func (vs *vectorStore) setMaxRows() {
	vs.maxRows = maxTileRows
	if vs.codes != nil && vs.dims >= 512 {
		vs.maxRows = minTileRows
	}
}

// exact reports whether the store holds its vectors as exact int8 codes only (no tiles).
func (vs *vectorStore) exact() bool { return vs.codes != nil && vs.codes.exact }

// toFloats leaves exact-codes mode: every live vector is decoded into the tiles, and the codes
// are kept only for vectors large enough to use them in a first pass.
func (vs *vectorStore) toFloats() {
	cs := vs.codes
	var ids []int32
	var rows [][]float32
	for w, m := range vs.live {
		for ; m != 0; m &= m - 1 {
			id := int32(w*64 + bits.TrailingZeros64(m))
			ids, rows = append(ids, id), append(rows, cs.decode(id, make([]float32, vs.dims)))
		}
	}
	cs.exact = false
	vs.setMaxRows()
	vs.live, vs.count = nil, 0 // putFloats marks them again
	for i, id := range ids {
		vs.putFloats(id, rows[i])
		if vs.dims >= quantizeMinDims {
			cs.put(id, rows[i])
		}
	}
	if vs.dims < quantizeMinDims {
		vs.codes = nil
	}
	vs.setMaxRows()
}

// put stores v (len(v) == dims) as slot id's vector.
func (vs *vectorStore) put(id int32, v []float32) {
	if vs.exact() {
		if vs.codes.putExact(id, v) {
			vs.markLive(id, v)
			return
		}
		vs.toFloats()
	}
	if vs.codes != nil {
		vs.codes.put(id, v)
	}
	vs.putFloats(id, v)
}

// markLive records that slot id holds v.
func (vs *vectorStore) markLive(id int32, v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	vs.maxNorm = max(vs.maxNorm, math.Sqrt(sum))
	if !hasBit(vs.live, id) {
		vs.count++
	}
	setBit(&vs.live, id)
}

// putFloats stores v in the tiles.
func (vs *vectorStore) putFloats(id int32, v []float32) {
	for int(id)/vs.rows >= retileAt && vs.rows < vs.maxRows {
		vs.retile(min(vs.rows*retileAt, vs.maxRows))
	}
	t := int(id) / vs.rows
	for len(vs.tiles) <= t {
		vs.tiles = append(vs.tiles, nil)
	}
	if vs.tiles[t] == nil {
		vs.tiles[t] = make([]float32, vs.rows*vs.dims)
	}
	tile, r := vs.tiles[t], int(id)%vs.rows
	for j, x := range v {
		tile[j*vs.rows+r] = x
	}
	vs.markLive(id, v)
}

// retile copies the live vectors into tiles of rows slots.
func (vs *vectorStore) retile(rows int) {
	old := *vs
	vs.rows, vs.tiles, vs.live, vs.count = rows, nil, nil, 0
	row := make([]float32, vs.dims)
	for w, m := range old.live {
		for ; m != 0; m &= m - 1 {
			id := int32(w*64 + bits.TrailingZeros64(m))
			vs.putFloats(id, old.row(id, row))
		}
	}
}

// drop forgets slot id's vector.
func (vs *vectorStore) drop(id int32) {
	if hasBit(vs.live, id) {
		vs.count--
		clearBit(vs.live, id)
	}
}

// slots is the number of slot IDs the tiles cover.
func (vs *vectorStore) slots() int { return len(vs.tiles) * vs.rows }

// row copies slot id's vector into dst (len dims) and returns it.
func (vs *vectorStore) row(id int32, dst []float32) []float32 {
	if vs.exact() {
		return vs.codes.decode(id, dst)
	}
	tile, r := vs.tiles[int(id)/vs.rows], int(id)%vs.rows
	for j := range dst {
		dst[j] = tile[j*vs.rows+r]
	}
	return dst
}

// tileMasks sets masks to the live rows of tile t allowed by f (bit r%64 of masks[r/64] for
// row r; one word when tiles are smaller than 64 rows) and returns the union of the masks.
func (vs *vectorStore) tileMasks(t int, f slotFilter, masks []uint64) (used uint64) {
	if vs.rows < 64 {
		first := t * vs.rows
		w := first / 64
		masks[0] = (vs.liveWord(w) & f.word(w)) >> (first % 64) & (1<<vs.rows - 1)
		return masks[0]
	}
	for j := range masks {
		w := t*len(masks) + j
		masks[j] = vs.liveWord(w) & f.word(w)
		used |= masks[j]
	}
	return used
}

// liveWord returns word w of the live bitset (slots 64w … 64w+63).
func (vs *vectorStore) liveWord(w int) uint64 {
	if w >= len(vs.live) {
		return 0
	}
	return vs.live[w]
}

// weight is one non-zero dimension of a query vector.
type weight struct {
	off int // j * rows: the dimension's offset inside a tile
	q   float32
}

// weights lists the non-zero dimensions of q for tiles of rows slots.
func weights(q []float32, rows int) []weight {
	var w []weight
	for j, x := range q {
		if x != 0 {
			w = append(w, weight{off: j * rows, q: x})
		}
	}
	return w
}

// tileDots sets acc[r] to Σ q_j·tile[j][r] over the non-zero dimensions j of the query
// (len(acc) == rows), summed in dimension order in float32, so it differs from indexdriver.Dot only by
// rounding (see slack). Four dimensions go through each pass over acc: four independent streams
// keep more loads in flight, and acc is loaded and stored once per four products (three times
// faster than one dimension per pass on the 100k-chunk benchmark).
func tileDots(tile []float32, w []weight, acc []float32) {
	clear(acc)
	n := len(acc)
	for ; len(w) >= 4; w = w[4:] {
		q0, q1, q2, q3 := w[0].q, w[1].q, w[2].q, w[3].q
		x0, x1, x2, x3 := tile[w[0].off:w[0].off+n], tile[w[1].off:w[1].off+n], tile[w[2].off:w[2].off+n], tile[w[3].off:w[3].off+n]
		x0, x1, x2, x3 = x0[:len(acc)], x1[:len(acc)], x2[:len(acc)], x3[:len(acc)] // no bounds checks below
		for r := range acc {
			acc[r] = acc[r] + q0*x0[r] + q1*x1[r] + q2*x2[r] + q3*x3[r] // left to right: dimension order
		}
	}
	for _, d := range w {
		x := tile[d.off : d.off+n]
		x = x[:len(acc)]
		for r := range acc {
			acc[r] += d.q * x[r]
		}
	}
}

// slack bounds |tileDots score − indexdriver.Dot score| for any stored vector and a query of L2 norm
// qNorm (see int8vec.Slack); +Inf makes the caller score every row exactly.
func (vs *vectorStore) slack(qNorm float64) float64 {
	return int8vec.Slack(vs.dims, qNorm, vs.maxNorm)
}
