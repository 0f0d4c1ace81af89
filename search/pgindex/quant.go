package pgindex

import (
	"container/heap"
	"context"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/internal/int8vec"
	"github.com/jackc/pgx/v5/pgtype"
)

// semanticCodes is Semantic over a snapshot of int8 codes (vectors of quantizeMinDims
// dimensions or more), exact as search/memindex's: a first pass gives every eligible chunk an
// interval holding its indexdriver.Dot score and keeps those that may reach the TopK-th best lower
// bound (see package int8vec, "Exact top K"); those are re-scored with indexdriver.Dot, from their
// codes when the codes are exact, otherwise from their floats, read from PostgreSQL for those
// chunks only. overflow is the TopK of the files that did not fit the cache, exactly scored;
// they take part as chunks whose interval is their score. ok is false when the codes give no
// bound (a vector that is not finite, or norms too large): the caller then scans the floats.
func (ix *Index) semanticCodes(ctx context.Context, snap *vectorSnapshot, q indexdriver.SemanticQuery, pid int64, overflow []indexdriver.Ranked[chunkAt]) (best []indexdriver.Ranked[chunkAt], ok bool, err error) {
	dims := len(q.Vector)
	var qNorm float64
	for _, x := range q.Vector {
		qNorm += float64(x) * float64(x)
	}
	slack := int8vec.Slack(dims, math.Sqrt(qNorm), snap.maxNorm)
	if snap.nonFinite || math.IsInf(slack, 1) {
		return nil, false, nil
	}
	stride := int8vec.Stride(dims)
	qq := int8vec.NewQuery(q.Vector, stride)
	// The first pass, over parts of the files in parallel for a large snapshot; each part keeps
	// its own TopK best lower bounds, which never exceed the final TopK-th best, so the union of
	// the parts' near chunks holds every chunk that may reach it.
	parts := 1
	if snap.chunks >= parallelScanChunks {
		parts = runtime.GOMAXPROCS(0)
	}
	type partResult struct {
		kth  loHeap
		near []nearChunk
	}
	results := make([]partResult, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[p]
			var dots [64]int32
			for fi := p; fi < len(snap.list); fi += parts {
				f := snap.list[fi]
				if (q.PathPrefix != "" && !strings.HasPrefix(f.path, q.PathPrefix)) || q.ExcludePaths[f.path] {
					continue
				}
				if fi%256 == p && ctx.Err() != nil {
					return
				}
				for first := 0; first < f.chunks; first += len(dots) {
					n := min(len(dots), f.chunks-first)
					int8vec.Dots(f.codes[first*stride:], qq.Codes, n, dots[:])
					for i := range n {
						lo, hi := qq.Bounds(f.meta[first+i], dots[i], slack)
						r.kth.offer(lo, q.TopK)
						if r.kth.Len() < q.TopK || hi >= r.kth[0] {
							r.near = append(r.near, nearChunk{f, first + i, hi})
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	var kth loHeap
	var near []nearChunk
	for _, r := range overflow {
		kth.offer(r.Score, q.TopK)
	}
	for _, r := range results {
		for _, lo := range r.kth {
			kth.offer(lo, q.TopK)
		}
		near = append(near, r.near...)
	}
	cut := math.Inf(-1)
	if kth.Len() == q.TopK {
		cut = kth[0]
	}
	floats, err := ix.nearFloats(ctx, pid, q, near, cut)
	if err != nil {
		return nil, true, err
	}
	h := indexdriver.NewTopK[chunkAt](q.TopK)
	for _, r := range overflow {
		h.Offer(r)
	}
	vec := make([]float32, dims)
	for _, c := range near {
		if c.hi < cut {
			continue
		}
		v := floats[chunkAddr{c.file.path, c.chunk}]
		if c.file.exact {
			v = int8vec.Decode(vec, c.file.codes[c.chunk*stride:], c.file.meta[c.chunk])
		} else if v == nil {
			continue // re-indexed since the snapshot: Semantic drops the file's chunks anyway
		}
		if score := float64(indexdriver.Dot(v, q.Vector)); h.Wants(score) {
			h.Offer(indexdriver.Ranked[chunkAt]{Score: score, Path: c.file.path, Index: c.chunk, Value: chunkAt{c.file.version}})
		}
	}
	return h.Sorted(), true, nil
}

// nearChunk is a chunk of the first pass that may reach the top K: its score is at most hi.
type nearChunk struct {
	file  *cachedFile
	chunk int
	hi    float64
}

// sqlChunkVectorsAt reads the vectors of the named chunks of the named file versions (no row
// for a file indexed at another version by now), with the size of their file's vector row.
// The column is stored uncompressed out of line, so a substring reads only the chunk's slice.
const sqlChunkVectorsAt = `SELECT r.path, r.idx, v.vec, v.size
FROM unnest($4::text[], $5::timestamptz[], $6::int[], $7::int[]) AS r(path, at, ns, idx)
CROSS JOIN LATERAL (
    SELECT substring(v.vectors FROM r.idx * $3 * 4 + 1 FOR $3 * 4) AS vec, octet_length(v.vectors) AS size
    FROM mcp_search_files f
    JOIN mcp_search_vectors v ON v.project_id = f.project_id AND v.file_path = f.file_path
    WHERE f.project_id = $1 AND f.file_path = r.path AND f.file_updated_at = r.at AND f.file_updated_ns = r.ns
      AND v.model = $2 AND v.dims = $3) v`

// chunkAddr names one chunk of a file in a query's maps.
type chunkAddr struct {
	path  string
	chunk int
}

// nearFloats reads, in one statement, the float vectors of the near chunks at or above cut
// whose codes are not exact, at their files' cached versions.
func (ix *Index) nearFloats(ctx context.Context, pid int64, q indexdriver.SemanticQuery, near []nearChunk, cut float64) (map[chunkAddr][]float32, error) {
	var paths []string
	var ats []time.Time
	var nss, idx []int32
	chunks := make(map[string]int)
	for _, c := range near {
		if c.hi < cut || c.file.exact {
			continue
		}
		at, ns := splitVersion(c.file.version)
		paths, ats, nss, idx = append(paths, c.file.path), append(ats, at), append(nss, ns), append(idx, int32(c.chunk))
		chunks[c.file.path] = c.file.chunks
	}
	out := make(map[chunkAddr][]float32, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	dims := len(q.Vector)
	rows, err := ix.pool.Query(ctx, sqlChunkVectorsAt, pid, q.Model, int32(dims), paths, ats, nss, idx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var path string
	var i, size int32
	var raw pgtype.DriverBytes
	for rows.Next() {
		if err := rows.Scan(&path, &i, &raw, &size); err != nil {
			return nil, err
		}
		if len(raw) == 4*dims && int(size) == 4*dims*chunks[path] {
			v := make([]float32, dims)
			decodeVectorInto(v, raw)
			out[chunkAddr{path, int(i)}] = v
		}
	}
	return out, rows.Err()
}

// parallelScanChunks is the snapshot size (in chunks) from which the first pass is split
// across CPUs. Tests lower it.
var parallelScanChunks = 16384

// loHeap is a min-heap of lower bounds: the TopK best seen so far, the smallest on top.
type loHeap []float64

// offer keeps lo when it is among the k best.
func (h *loHeap) offer(lo float64, k int) {
	if h.Len() < k {
		heap.Push(h, lo)
	} else if lo > (*h)[0] {
		(*h)[0] = lo
		heap.Fix(h, 0)
	}
}

func (h loHeap) Len() int           { return len(h) }
func (h loHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h loHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *loHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *loHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
