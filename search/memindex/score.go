package memindex

import (
	"context"
	"math"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// ScoreChunks implements indexdriver.Index: each named chunk's BM25 from its stored term
// frequencies (summed over the terms in query order, as Lexical sums them) and its vector's
// indexdriver.Dot with the query vector (as Semantic's exact pass computes it). The dot product is
// indexdriver.SparseDot over the tile, which reads only the query's non-zero dimensions instead of
// gathering the chunk's whole row (one cache line per dimension in the dimension-major tiles);
// vectors whose rounding bound is unusable (non-finite norms) are gathered and scored with
// indexdriver.Dot.
func (ix *Index) ScoreChunks(ctx context.Context, scope driver.Scope, q indexdriver.ScoreQuery) ([]indexdriver.ChunkScore, error) {
	p, err := ix.lookup(ctx, scope)
	out := make([]indexdriver.ChunkScore, len(q.Chunks))
	if p == nil {
		return out, err
	}
	scorers := q.TermScorers()
	termIDs := make([]int64, len(q.Terms)) // -1: the term occurs nowhere in the project
	var nz []int
	for j, x := range q.Vector {
		if x != 0 {
			nz = append(nz, j)
		}
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	for i, term := range q.Terms {
		termIDs[i] = -1
		if pl := p.postings[term]; pl != nil {
			termIDs[i] = int64(pl.id)
		}
	}
	vs := p.vectors[vectorKey{q.Model, len(q.Vector)}]
	var row []float32 // set when SparseDot cannot be used
	if vs != nil && (vs.exact() || math.IsInf(vs.slack(1), 1)) {
		row = make([]float32, len(q.Vector))
	}
	for i, r := range q.Chunks {
		f := p.files[r.Path]
		if f == nil || !f.version.Equal(r.FileUpdatedAt) || r.ChunkIndex < 0 || r.ChunkIndex >= len(f.slots) {
			continue
		}
		id := f.slots[r.ChunkIndex]
		cs := &out[i]
		cs.Found = true
		if len(scorers) > 0 {
			terms, chunkTerms := p.slots[id].terms, int(p.meta[id].chunkTerms)
			for ti := range q.Terms {
				cs.Lexical += scorers[ti].Score(terms.tf(termIDs[ti]), chunkTerms)
			}
		}
		if vs == nil || len(q.Vector) == 0 || f.model != q.Model || !hasBit(vs.live, id) {
			continue
		}
		var dot float32
		if row != nil {
			dot = indexdriver.Dot(vs.row(id, row), q.Vector)
		} else {
			dot = indexdriver.SparseDot(vs.tiles[int(id)/vs.rows], int(id)%vs.rows, vs.rows, q.Vector, nz)
		}
		cs.Semantic, cs.HasSemantic = float64(dot), true
	}
	return out, nil
}
