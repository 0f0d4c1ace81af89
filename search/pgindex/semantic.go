package pgindex

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
)

// sqlSemanticScan streams the vectors of the project's files that were made by the query's
// model and have its dimension, with each file's version, path filters applied in SQL. Scores
// are computed in Go with indexdriver.Dot.
const sqlSemanticScan = `SELECT f.file_path, f.file_updated_at, f.file_updated_ns, v.vectors
FROM mcp_search_projects pr
JOIN mcp_search_vectors v ON v.project_id = pr.id
JOIN mcp_search_files f ON f.project_id = pr.id AND f.file_path = v.file_path
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND v.model = $3 AND v.dims = $4
  AND ($5::text = '' OR v.file_path LIKE $6::text) AND v.file_path <> ALL($7::text[]) AND v.file_path >= $8`

// Semantic implements indexdriver.Index as an exact flat scan, scored with indexdriver.Dot as in
// search/memindex: over the in-process snapshot of the project's vectors (see vectorCache) and
// the vectors of the files it does not hold, streamed from PostgreSQL (as int8 codes from
// quantizeMinDims dimensions, see semanticCodes), or, without the cache, over the streamed
// vectors of every file. The chunks' offsets and hashes
// come from the project's view; a chunk whose file changed between the two reads is dropped.
func (ix *Index) Semantic(ctx context.Context, scope driver.Scope, q indexdriver.SemanticQuery) ([]indexdriver.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(q.Vector) == 0 || q.TopK <= 0 {
		return nil, nil
	}
	v, err := ix.scopeView(ctx, scope)
	if err != nil || v == nil {
		return nil, err
	}
	var best []indexdriver.Ranked[chunkAt]
	switch {
	case ix.vectors != nil:
		best, err = ix.semanticCached(ctx, scope, v, q)
	case len(q.Vector) >= quantizeMinDims:
		best, _, _, err = ix.semanticCodes(ctx, noSnapshot, q, v.pid, streamRanges(v, q, ""), nil)
	default:
		best, err = ix.semanticScan(ctx, scope, q, "")
	}
	if err != nil {
		return nil, backendError(ctx, "running a semantic query", err)
	}
	out := make([]indexdriver.Candidate, 0, len(best))
	for _, b := range best {
		fi, ok := v.fileIndex(b.Path)
		if ok && v.states[fi].FileUpdatedAt.Equal(b.Value.version) && b.Index < v.states[fi].Chunks {
			out = append(out, v.candidate(fi, b.Index, b.Score))
		}
	}
	return out, nil
}

// chunkAt is the file version a ranked chunk was scored at.
type chunkAt struct{ version time.Time }

// semanticScan streams the vectors of the files from path from on (in bytewise order; "" for
// all) from PostgreSQL and returns their TopK.
func (ix *Index) semanticScan(ctx context.Context, scope driver.Scope, q indexdriver.SemanticQuery, from string) ([]indexdriver.Ranked[chunkAt], error) {
	rows, err := ix.pool.Query(ctx, sqlSemanticScan, scope.Tenant, scope.Project, q.Model, int32(len(q.Vector)), q.PathPrefix, likePrefix(q.PathPrefix), excludeList(q.ExcludePaths), from)
	if err != nil {
		return nil, err
	}
	dims := len(q.Vector)
	h := indexdriver.NewTopK[chunkAt](q.TopK)
	vec := make([]float32, dims)
	var path string
	var at time.Time
	var ns int32
	var raw []byte
	_, err = pgx.ForEachRow(rows, []any{&path, &at, &ns, &raw}, func() error {
		version := joinVersion(at, ns)
		for i := 0; 4*dims*(i+1) <= len(raw); i++ {
			decodeVectorInto(vec, raw[4*dims*i:])
			score := float64(indexdriver.Dot(vec, q.Vector))
			if h.Wants(score) {
				h.Offer(indexdriver.Ranked[chunkAt]{Score: score, Path: path, Index: i, Value: chunkAt{version}})
			}
		}
		return nil
	})
	return h.Sorted(), err
}

// semanticCached scans the in-process snapshot of the project's vectors: the floats, or from
// quantizeMinDims dimensions the int8 codes (semanticCodes).
func (ix *Index) semanticCached(ctx context.Context, scope driver.Scope, v *view, q indexdriver.SemanticQuery) ([]indexdriver.Ranked[chunkAt], error) {
	key := cacheKey{project: v.pid, model: q.Model, dims: len(q.Vector)}
	dims := len(q.Vector)
	if dims >= quantizeMinDims {
		// The files that do not fit the cache stream their codes during the first pass, from
		// before the snapshot of the others is loaded (when it is not current).
		if q.PathPrefix == "" {
			// No snapshot at all (the first query after a start): the query streams every file's
			// codes once, and keeps those of the snapshot's files for the next queries, which
			// wait for it meanwhile rather than read the same rows.
			var best []indexdriver.Ranked[chunkAt]
			ran, err := ix.vectors.collect(key, func() (*vectorSnapshot, error) {
				keep := newSnapshotBuilder(ix.vectors, v, key)
				var err error
				if best, _, _, err = ix.semanticCodes(ctx, noSnapshot, q, v.pid, streamRanges(v, q, ""), keep); err != nil {
					return nil, err
				}
				return keep.snapshot(), nil
			})
			if ran {
				return best, err
			}
		}
		load := func() (*vectorSnapshot, error) { return ix.vectors.snapshot(ctx, ix, key, v) }
		from, overflow := ix.vectors.overflowFrom(v, key)
		for {
			var streams []pathRange
			if overflow {
				streams = streamRanges(v, q, from)
			}
			best, snap, ok, err := ix.semanticCodes(ctx, load, q, v.pid, streams, nil)
			switch {
			case err != nil:
				return nil, err
			case !ok:
				return ix.semanticScan(ctx, scope, q, "") // the codes give no bound: scan the floats
			case snap.overflow == overflow && snap.overflowFrom == from:
				return best, nil
			}
			// A newer snapshot (of a later view) than v's, cut elsewhere: again, with its cut.
			from, overflow = snap.overflowFrom, snap.overflow
			load = func() (*vectorSnapshot, error) { return snap, nil }
		}
	}
	snap, err := ix.vectors.snapshot(ctx, ix, key, v)
	if err != nil {
		return nil, err
	}
	// The files that did not fit the cache: their TopK, exactly scored as they stream by.
	var overflow []indexdriver.Ranked[chunkAt]
	if snap.overflow {
		if overflow, err = ix.semanticScan(ctx, scope, q, snap.overflowFrom); err != nil {
			return nil, err
		}
	}
	// A query vector with few non-zero dimensions (the hashing embedder's, for a few words) is
	// scored with indexdriver.SparseDot over those dimensions only: bit for bit indexdriver.Dot for finite
	// vectors, at a fraction of the reads.
	var nz []int
	for j, x := range q.Vector {
		if x != 0 {
			nz = append(nz, j)
		}
	}
	sparse := len(nz) <= dims/2
	h := indexdriver.NewTopK[chunkAt](q.TopK)
	for _, r := range overflow {
		h.Offer(r)
	}
	for path, f := range snap.files {
		if (q.PathPrefix != "" && !strings.HasPrefix(path, q.PathPrefix)) || q.ExcludePaths[path] {
			continue
		}
		for i := range len(f.vecs) / dims {
			var dot float32
			if sparse && !f.nonFinite {
				dot = indexdriver.SparseDot(f.vecs, i*dims, 1, q.Vector, nz)
			} else {
				dot = indexdriver.Dot(f.vecs[i*dims:(i+1)*dims], q.Vector)
			}
			score := float64(dot)
			if h.Wants(score) {
				h.Offer(indexdriver.Ranked[chunkAt]{Score: score, Path: path, Index: i, Value: chunkAt{f.version}})
			}
		}
	}
	return h.Sorted(), nil
}

// streamRanges splits the files of v from path from on (in bytewise order) that hold vectors
// of q's model into ranges of about equal chunk counts, one per stream a query reads at once:
// up to maxCodeStreams, each of at least streamChunks chunks.
func streamRanges(v *view, q indexdriver.SemanticQuery, from string) []pathRange {
	lo, _ := slices.BinarySearchFunc(v.states, from, func(s indexdriver.PathFileState, p string) int { return strings.Compare(s.Path, p) })
	total := 0
	for _, st := range v.states[lo:] {
		if st.EmbeddingModel == q.Model {
			total += st.Chunks
		}
	}
	n := max(1, min(maxCodeStreams, total/streamChunks))
	out := make([]pathRange, 0, n)
	r := pathRange{from: from}
	seen := 0
	for _, st := range v.states[lo:] {
		if len(out) == n-1 {
			break
		}
		if st.EmbeddingModel != q.Model {
			continue
		}
		if seen >= total*(len(out)+1)/n && st.Path > r.from {
			r.to = st.Path
			out = append(out, r)
			r = pathRange{from: st.Path}
		}
		seen += st.Chunks
	}
	return append(out, r)
}

// maxCodeStreams and streamChunks bound how many streams of codes one query reads at once
// (each a connection and a goroutine scoring its rows) and how many chunks each has at least.
var (
	maxCodeStreams = 2
	streamChunks   = 4096
)

// noSnapshot is semanticCodes' load when no snapshot takes part.
func noSnapshot() (*vectorSnapshot, error) { return nil, nil }
