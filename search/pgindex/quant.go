package pgindex

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/internal/int8vec"
	"github.com/jackc/pgx/v5/pgtype"
)

// semanticCodes is Semantic over int8 codes (vectors of quantizeMinDims dimensions or more),
// exact as search/memindex's: a first pass gives every eligible chunk an interval holding its
// indexdriver.Dot score and keeps those that may reach the TopK-th best lower bound (see package
// int8vec, "Exact top K"); those are re-scored with indexdriver.Dot, from their codes when the
// codes are exact, otherwise from their floats, read from PostgreSQL for those chunks only.
// The first pass scans snap, the cached codes load returns (nil for none), and the codes of
// the files in streams as PostgreSQL sends them (see streamCodes), which start before load is
// called; keep, when not nil, collects a snapshot from the streams (see snapshotBuilder).
// ok is false when the cached codes give no bound (a vector that is not finite, or
// norms too large): the caller then scans the floats.
func (ix *Index) semanticCodes(ctx context.Context, load func() (*vectorSnapshot, error), q indexdriver.SemanticQuery, pid int64, streams []pathRange, keep *snapshotBuilder) (best []indexdriver.Ranked[chunkAt], snap *vectorSnapshot, ok bool, err error) {
	dims := len(q.Vector)
	var qNorm float64
	for _, x := range q.Vector {
		qNorm += float64(x) * float64(x)
	}
	qNorm = math.Sqrt(qNorm)
	stride := int8vec.Stride(dims)
	qq := int8vec.NewQuery(q.Vector, stride)
	// The streams start first, so that a snapshot loading (the first query after a start, or
	// after writes) loads while PostgreSQL sends the rest.
	streamed := make([]firstPass, len(streams))
	errs := make([]error, len(streams))
	sctx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	var wg sync.WaitGroup
	for i, r := range streams {
		streamed[i].scored = indexdriver.NewTopK[chunkAt](q.TopK)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ix.streamCodes(sctx, pid, q, &qq, qNorm, r, keep, &streamed[i])
		}()
	}
	snap, err = load()
	var slack float64
	if err == nil && snap != nil {
		slack = int8vec.Slack(dims, qNorm, snap.maxNorm)
		if snap.nonFinite || math.IsInf(slack, 1) {
			err = errNoBound
		}
	}
	if err != nil {
		stopStreams()
		wg.Wait()
		if err == errNoBound {
			return nil, snap, false, nil
		}
		return nil, nil, true, err
	}
	// The first pass, over parts of the cached files in parallel for a large snapshot, and over
	// each stream; each part keeps its own TopK best lower bounds, which never exceed the final
	// TopK-th best, so the union of the parts' near chunks holds every chunk that may reach it.
	parts := 0
	if snap != nil {
		parts = 1
		if snap.chunks >= parallelScanChunks {
			parts = runtime.GOMAXPROCS(0)
		}
	}
	results := make([]firstPass, parts, parts+len(streams))
	for i := range results {
		results[i].scored = indexdriver.NewTopK[chunkAt](q.TopK)
	}
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[p]
			for fi := p; fi < len(snap.list); fi += parts {
				f := snap.list[fi]
				if (q.PathPrefix != "" && !strings.HasPrefix(f.path, q.PathPrefix)) || q.ExcludePaths[f.path] {
					continue
				}
				if fi%256 == p && ctx.Err() != nil {
					return
				}
				r.scan(f, f, q, &qq, slack)
			}
		}()
	}
	wg.Wait()
	results = append(results, streamed...)
	if err := errors.Join(errs...); err != nil {
		return nil, snap, true, err
	}
	if err := ctx.Err(); err != nil {
		return nil, snap, true, err
	}
	var kth loHeap
	var near []nearChunk
	h := indexdriver.NewTopK[chunkAt](q.TopK)
	for _, r := range results {
		for _, lo := range r.kth {
			kth.offer(lo, q.TopK)
		}
		near = append(near, r.near...)
		for _, s := range r.scored.Sorted() {
			h.Offer(s)
		}
	}
	cut := math.Inf(-1)
	if kth.Len() == q.TopK {
		cut = kth[0]
	}
	floats, err := ix.nearFloats(ctx, pid, q, near, cut)
	if err != nil {
		return nil, snap, true, err
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
	return h.Sorted(), snap, true, nil
}

// errNoBound stops the streams of a query whose cached codes give no bound.
var errNoBound = errors.New("the codes give no bound")

// firstPass is what one part of semanticCodes' first pass found.
type firstPass struct {
	kth  loHeap      // the TopK best lower bounds (or exact scores) seen
	near []nearChunk // chunks that may reach the TopK-th best, to re-score
	// scored holds the best chunks scored exactly during the pass: streamed files' chunks of
	// exact codes or without codes, whose codes or floats are gone once their row has passed.
	scored *indexdriver.TopK[chunkAt]
	vec    []float32 // scratch for decoding exact codes
}

// scan runs the first pass over the codes of f, whose near chunks are recorded as chunks of
// ref (f itself when f is cached; a copy without codes when f's codes are a streamed row's).
// A streamed file whose codes are exact has its near chunks scored at once instead.
func (r *firstPass) scan(f, ref *cachedFile, q indexdriver.SemanticQuery, qq *int8vec.Query, slack float64) {
	stride := len(qq.Codes)
	var dots [64]int32
	for first := 0; first < f.chunks; first += len(dots) {
		n := min(len(dots), f.chunks-first)
		int8vec.Dots(f.codes[first*stride:], qq.Codes, n, dots[:])
		for i := range n {
			lo, hi := qq.Bounds(f.meta[first+i], dots[i], slack)
			r.kth.offer(lo, q.TopK)
			if r.kth.Len() < q.TopK || hi >= r.kth[0] {
				if f == ref || !f.exact {
					r.near = append(r.near, nearChunk{ref, first + i, hi})
					continue
				}
				if len(r.vec) != len(q.Vector) {
					r.vec = make([]float32, len(q.Vector))
				}
				// Its lower bound is in kth already: the score must not count a second time.
				r.offerScored(f, first+i, int8vec.Decode(r.vec, f.codes[(first+i)*stride:], f.meta[first+i]), q, false)
			}
		}
	}
}

// scanKept runs the first pass over a file a snapshot being collected holds: from its codes,
// near chunks kept as chunks of f; when its codes give no bound, every chunk re-scored (at once
// from exact codes, otherwise later from its floats); without codes, every chunk scored from
// its floats.
func (r *firstPass) scanKept(f *cachedFile, q indexdriver.SemanticQuery, qq *int8vec.Query, qNorm float64) {
	dims := len(q.Vector)
	if f.codes == nil {
		for i := range f.chunks {
			r.offerScored(f, i, f.vecs[i*dims:(i+1)*dims], q, true)
		}
		return
	}
	if slack := int8vec.Slack(dims, qNorm, f.maxNorm); !math.IsInf(slack, 1) {
		r.scan(f, f, q, qq, slack)
		return
	}
	r.rescoreAll(f, f, q, qq)
}

// rescoreAll re-scores every chunk of f, whose codes give no bound: at once when the codes are
// exact, otherwise as near chunks of ref (whose floats are read after the first pass).
func (r *firstPass) rescoreAll(f, ref *cachedFile, q indexdriver.SemanticQuery, qq *int8vec.Query) {
	for i := range f.chunks {
		if !f.exact {
			r.near = append(r.near, nearChunk{ref, i, math.Inf(1)})
			continue
		}
		if len(r.vec) != len(q.Vector) {
			r.vec = make([]float32, len(q.Vector))
		}
		r.offerScored(f, i, int8vec.Decode(r.vec, f.codes[i*len(qq.Codes):], f.meta[i]), q, true)
	}
}

// offerScored scores chunk i of f, whose vector is v, exactly; withBound offers the score to
// kth too (unless the chunk's lower bound is there already).
func (r *firstPass) offerScored(f *cachedFile, i int, v []float32, q indexdriver.SemanticQuery, withBound bool) {
	score := float64(indexdriver.Dot(v, q.Vector))
	if withBound {
		r.kth.offer(score, q.TopK)
	}
	if r.scored.Wants(score) {
		r.scored.Offer(indexdriver.Ranked[chunkAt]{Score: score, Path: f.path, Index: i, Value: chunkAt{f.version}})
	}
}

// pathRange is the files from path from (inclusive) to path to (exclusive; "" for no end), in
// bytewise order.
type pathRange struct{ from, to string }

// sqlSemanticCodes streams the codes of the project's files in a path range whose vectors were
// made by the query's model and have its dimension, with each file's version, path filters
// applied in SQL; a file without codes (see vcodes.go) comes with its floats instead. The
// CASE reads the floats' out-of-line value only for those.
const sqlSemanticCodes = `SELECT v.file_path, f.file_updated_at, f.file_updated_ns, v.codes,
    CASE WHEN coalesce(octet_length(v.codes), 0) = 0 THEN v.vectors END
FROM mcp_search_vectors v
JOIN mcp_search_files f ON f.project_id = v.project_id AND f.file_path = v.file_path
WHERE v.project_id = $1 AND v.model = $2 AND v.dims = $3
  AND ($4::text = '' OR v.file_path LIKE $5::text) AND v.file_path <> ALL($6::text[])
  AND v.file_path >= $7 AND ($8::text = '' OR v.file_path < $8::text)`

// streamCodes runs the first pass over the codes of the files in rng as PostgreSQL sends them,
// one row (file) at a time: a file's codes are scanned and dropped before the next row is read,
// so a query holds no more than one file's codes of the stream at once, and keeps of a file only
// its near chunks' addresses. Files without codes are scored exactly from their floats, as are
// the near chunks of exact codes; a file whose norms give no bound has every chunk re-scored.
//
// With keep, the files keep holds are kept (copied) and scanned as cached files, and the
// excluded paths are skipped here rather than in SQL, so that the snapshot gets them too (a
// query with a path prefix never collects a snapshot).
func (ix *Index) streamCodes(ctx context.Context, pid int64, q indexdriver.SemanticQuery, qq *int8vec.Query, qNorm float64, rng pathRange, keep *snapshotBuilder, r *firstPass) error {
	dims := len(q.Vector)
	exclude := excludeList(q.ExcludePaths)
	if keep != nil {
		exclude = []string{} // not nil: NULL would exclude every path
	}
	rows, err := ix.pool.Query(ctx, sqlSemanticCodes, pid, q.Model, int32(dims), q.PathPrefix, likePrefix(q.PathPrefix), exclude, rng.from, rng.to)
	if err != nil {
		return err
	}
	defer rows.Close()
	var path string
	var at time.Time
	var ns int32
	var codes, raw pgtype.DriverBytes // valid until the next row: nothing keeps them
	var f cachedFile
	vec := make([]float32, dims)
	for rows.Next() {
		if err := rows.Scan(&path, &at, &ns, &codes, &raw); err != nil {
			return err
		}
		f.path, f.version = path, joinVersion(at, ns)
		if keep != nil {
			kept := keep.keep(f.path, f.version, codes, raw, dims)
			if q.ExcludePaths[f.path] {
				continue
			}
			if kept != nil {
				r.scanKept(kept, q, qq, qNorm)
				continue
			}
		}
		if !f.decodeCodes(codes, dims, true) {
			// No codes: every chunk is scored from its floats.
			for i := 0; 4*dims*(i+1) <= len(raw); i++ {
				decodeVectorInto(vec, raw[4*dims*i:])
				r.offerScored(&f, i, vec, q, true)
			}
			continue
		}
		ref := &cachedFile{path: f.path, version: f.version, chunks: f.chunks, exact: f.exact}
		if slack := int8vec.Slack(dims, qNorm, f.maxNorm); !math.IsInf(slack, 1) {
			r.scan(&f, ref, q, qq, slack)
			continue
		}
		r.rescoreAll(&f, ref, q, qq)
	}
	f.codes = nil
	return rows.Err()
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
