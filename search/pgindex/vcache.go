package pgindex

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/search/internal/int8vec"

	"github.com/jackc/pgx/v5/pgtype"
)

// DefaultVectorCacheBytes is the default bound of the in-process vector cache: 512 MiB, of
// which one project takes at most half, about 170,000 chunks of 1,536 dimensions as int8
// codes (or 1,000,000 of 64 as floats).
const DefaultVectorCacheBytes int64 = 512 << 20

// vectorCache keeps, per (project, model, dimension), a read-only snapshot of every embedded
// file's vectors (as int8 codes from quantizeMinDims dimensions, see cachedFile), so that a semantic query scans memory instead of streaming the project's
// vectors from PostgreSQL. A snapshot is valid for one value of the project's generation
// counter, which every write and merge of any process bumps in its transaction; when the
// counter moved, the next query refreshes the snapshot from the project's view (see view),
// // reading only the vectors of the files whose indexed version changed. Entries are evicted
// least-recently-used when the cache holds more than maxBytes. A project's snapshot holds at
// most half of maxBytes (projectBytes): a bigger project is cached in part, its first files in
// path order, and its queries stream only the rest from the database, so the cost of a query
// grows with the part that does not fit rather than jumping to a full stream. The caching is
// genCache's; it is safe for concurrent use.
type vectorCache struct {
	*genCache[cacheKey, vectorSnapshot]
}

type cacheKey struct {
	project int64
	model   string
	dims    int
}

// vectorSnapshot is immutable once published.
type vectorSnapshot struct {
	generation int64
	files      map[string]*cachedFile
	list       []*cachedFile // the files, for scans split in parts
	chunks     int           // the files' chunks
	bytes      int64
	maxNorm    float64 // the largest L2 norm of any vector
	nonFinite  bool    // some vector is not finite
	// overflow: the project's vectors did not fit the per-project bound (projectBytes); the
	// snapshot holds the files before overflowFrom in path order, and a query streams the
	// vectors of overflowFrom and the files after it from PostgreSQL.
	overflow     bool
	overflowFrom string
}

// projectBytes is the most one project's snapshot may hold: half the cache, so that a project
// larger than that is cached in part (see vectorSnapshot.overflow) and one other project of
// that size still fits beside it.
func (c *vectorCache) projectBytes() int64 { return c.maxBytes / 2 }

// overflowFrom returns the first file of v (in path order) whose vectors of key do not fit
// the snapshot of key for v, whose files from there on are streamed by every query (overflow);
// overflow is false when they all fit.
func (c *vectorCache) overflowFrom(v *view, key cacheKey) (from string, overflow bool) {
	budget := c.projectBytes()
	var used int64
	for _, st := range v.states {
		if st.EmbeddingModel != key.model || st.Chunks == 0 {
			continue
		}
		if used += estimateCachedSize(st.Path, st.Chunks, key.dims); used > budget {
			return st.Path, true
		}
	}
	return "", false
}

// estimateCachedSize is cachedFile.size of a file of chunks vectors of dims, before reading it.
func estimateCachedSize(path string, chunks, dims int) int64 {
	f := cachedFile{path: path, chunks: chunks}
	if dims < quantizeMinDims {
		return f.size() + int64(4*chunks*dims)
	}
	return f.size() + int64(chunks*(int8vec.Stride(dims)+12))
}

// cachedFile is one file's vectors: as float32 below quantizeMinDims dimensions, as int8 codes
// (see package int8vec) from there on.
type cachedFile struct {
	path    string
	version time.Time
	chunks  int
	vecs    []float32 // below quantizeMinDims: the chunks' vectors, chunk after chunk
	// From quantizeMinDims: the chunks' int8 codes (rows of int8vec.Stride(dims)) and their
	// bounds. With exact, the codes decode to the vectors bit for bit (int8vec.EncodeExact);
	// otherwise the exact score of a chunk the codes cannot rule out needs its floats, which
	// a query reads from PostgreSQL for those files only.
	codes   []int8
	meta    []int8vec.Meta
	exact   bool
	maxNorm float64 // the largest L2 norm of the file's vectors
	// nonFinite: some vector holds an infinity or NaN, so a sparse query must be scored with
	// indexdriver.Dot rather than indexdriver.SparseDot (whose skipped zero products are exact only for
	// finite vectors), and codes give no bound.
	nonFinite bool
}

// size is the file's accounted size: its vectors or codes, its path, and vcacheFileCost.
func (f *cachedFile) size() int64 {
	return int64(len(f.path)+4*len(f.vecs)+len(f.codes)+12*len(f.meta)) + vcacheFileCost
}

// vcacheFileCost is what a snapshot accounts for each file besides its path and vectors: the
// cachedFile (144 bytes), its slot in the files map (24 bytes, at most 58 at the lowest load a
// Go map has after it grows) and in list (8 bytes).
const vcacheFileCost = 144 + 58 + 8

// quantizeMinDims is the vector size from which the cache keeps int8 codes instead of floats:
// a quarter of the memory, and a first pass that reads a byte per dimension. Below it (the
// hashing embedder's 64 to 256 dimensions, whose short queries are sparse) floats are small
// and SparseDot reads only the query's non-zero dimensions. search/memindex draws the same line.
const quantizeMinDims = 512

// newCachedFile builds the cache entry of a file's chunks' vectors (raw: float32 back to back,
// a multiple of dims).
func newCachedFile(path string, version time.Time, raw []byte, dims int) *cachedFile {
	n := len(raw) / (4 * dims)
	f := &cachedFile{path: path, version: version, chunks: n}
	vecs := make([]float32, n*dims)
	decodeVectorInto(vecs, raw)
	for i := range n {
		var n2 float64
		for _, x := range vecs[i*dims : (i+1)*dims] {
			if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
				f.nonFinite = true
			}
			n2 += float64(x) * float64(x)
		}
		f.maxNorm = max(f.maxNorm, math.Sqrt(n2))
	}
	if dims < quantizeMinDims || f.nonFinite {
		f.vecs = vecs
		return f
	}
	stride := int8vec.Stride(dims)
	f.codes, f.meta, f.exact = make([]int8, n*stride), make([]int8vec.Meta, n), true
	for i := range n {
		row, v := f.codes[i*stride:(i+1)*stride], vecs[i*dims:(i+1)*dims]
		if f.exact {
			if m, ok := int8vec.EncodeExact(row, v); ok {
				f.meta[i] = m
				continue
			}
			// The first vector without exact codes: the earlier ones get nearest codes too.
			f.exact = false
			clear(f.codes[:i*stride])
			for j := range i {
				f.meta[j] = int8vec.Encode(f.codes[j*stride:(j+1)*stride], vecs[j*dims:(j+1)*dims])
			}
		}
		clear(row)
		f.meta[i] = int8vec.Encode(row, v)
	}
	return f
}

func newVectorCache(maxBytes int64) *vectorCache {
	return &vectorCache{newGenCache[cacheKey](maxBytes,
		func(s *vectorSnapshot) int64 { return s.generation },
		func(s *vectorSnapshot) int64 { return s.bytes })}
}

// snapshot returns a snapshot of key's vectors for the files of v (the project's view), or a
// later one, refreshing the cached one when it is older.
func (c *vectorCache) snapshot(ctx context.Context, ix *Index, key cacheKey, v *view) (*vectorSnapshot, error) {
	return c.get(key, v.generation, func(old *vectorSnapshot) (*vectorSnapshot, error) { return loadVectors(ctx, ix, key, v, old) })
}

// sqlVectorsAt reads the codes of the named file versions (a file indexed at another version
// by now returns no row), and the floats of those without codes (see vcodes.go). Each is one
// primary-key lookup in both tables (written as LATERAL so that no plan hashes the whole
// vector table, which would read every vector out of line).
const sqlVectorsAt = `SELECT r.path, v.codes, v.vectors
FROM unnest($4::text[], $5::timestamptz[], $6::int[]) AS r(path, at, ns)
CROSS JOIN LATERAL (
    SELECT v.codes, CASE WHEN coalesce(octet_length(v.codes), 0) = 0 THEN v.vectors END AS vectors
    FROM mcp_search_files f
    JOIN mcp_search_vectors v ON v.project_id = f.project_id AND v.file_path = f.file_path
    WHERE f.project_id = $1 AND f.file_path = r.path AND f.file_updated_at = r.at AND f.file_updated_ns = r.ns
      AND v.model = $2 AND v.dims = $3) v`

// loadVectors builds the snapshot of key's vectors for the files of v embedded with key's
// model: files of old at the same version are shared, the others' codes (their floats where
// they have none) are read in one statement. A file whose vectors are missing (re-indexed meanwhile, or not embedded yet) is
// left out until the project changes again.
func loadVectors(ctx context.Context, ix *Index, key cacheKey, v *view, old *vectorSnapshot) (*vectorSnapshot, error) {
	s := &vectorSnapshot{generation: v.generation, files: make(map[string]*cachedFile)}
	var paths []string
	var ats []time.Time
	var nss []int32
	versions := make(map[string]time.Time)
	s.overflowFrom, s.overflow = ix.vectors.overflowFrom(v, key)
	for _, st := range v.states {
		if st.EmbeddingModel != key.model || st.Chunks == 0 {
			continue
		}
		if s.overflow && st.Path >= s.overflowFrom {
			break
		}
		if old != nil {
			if f := old.files[st.Path]; f != nil && f.version.Equal(st.FileUpdatedAt) {
				s.files[st.Path] = f
				continue
			}
		}
		at, ns := splitVersion(st.FileUpdatedAt)
		paths, ats, nss = append(paths, st.Path), append(ats, at), append(nss, ns)
		versions[st.Path] = st.FileUpdatedAt
	}
	if len(paths) > 0 {
		rows, err := ix.pool.Query(ctx, sqlVectorsAt, key.project, key.model, int32(key.dims), paths, ats, nss)
		if err != nil {
			return nil, err
		}
		var path string
		var codes, raw pgtype.DriverBytes
		for rows.Next() {
			if err := rows.Scan(&path, &codes, &raw); err != nil {
				rows.Close()
				return nil, err
			}
			if f := fileOfStored(path, versions[path], codes, raw, key.dims); f != nil {
				s.files[path] = f
			}
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	s.count()
	return s, nil
}

// fileOfStored is the cache entry of a file's stored vectors: from its codes when it has them,
// otherwise from its floats; nil when neither decodes.
func fileOfStored(path string, version time.Time, codes, raw []byte, dims int) *cachedFile {
	if f := (&cachedFile{path: path, version: version}); f.decodeCodes(codes, dims, false) {
		return f
	}
	if len(raw)%(4*dims) != 0 {
		return nil
	}
	return newCachedFile(path, version, raw, dims)
}

// count sets the totals of s from its files.
func (s *vectorSnapshot) count() {
	for _, f := range s.files {
		s.list = append(s.list, f)
		s.chunks += f.chunks
		s.bytes += f.size()
		s.maxNorm = max(s.maxNorm, f.maxNorm)
		s.nonFinite = s.nonFinite || f.nonFinite
	}
}

// snapshotBuilder collects, from the streams of a query that found no snapshot of its project
// cached (the first after a start, or after an eviction), the files the snapshot of its view
// holds, so that the query reads every file once: it scores them all as they stream by and
// leaves the snapshot for the next queries.
type snapshotBuilder struct {
	want map[string]time.Time // the snapshot's files, at the view's versions
	mu   sync.Mutex
	snap *vectorSnapshot
}

func newSnapshotBuilder(c *vectorCache, v *view, key cacheKey) *snapshotBuilder {
	b := &snapshotBuilder{want: make(map[string]time.Time), snap: &vectorSnapshot{generation: v.generation, files: make(map[string]*cachedFile)}}
	b.snap.overflowFrom, b.snap.overflow = c.overflowFrom(v, key)
	for _, st := range v.states {
		if st.EmbeddingModel != key.model || st.Chunks == 0 {
			continue
		}
		if b.snap.overflow && st.Path >= b.snap.overflowFrom {
			break
		}
		b.want[st.Path] = st.FileUpdatedAt
	}
	return b
}

// keep returns the cache entry of a streamed file the snapshot holds (a copy), or nil for a
// file it does not hold (past the cut, or at another version than the view's: the project has
// changed since, and the next query refreshes the snapshot).
func (b *snapshotBuilder) keep(path string, version time.Time, codes, raw []byte, dims int) *cachedFile {
	if want, ok := b.want[path]; !ok || !want.Equal(version) {
		return nil
	}
	f := fileOfStored(path, version, codes, raw, dims)
	if f != nil {
		b.mu.Lock()
		b.snap.files[path] = f
		b.mu.Unlock()
	}
	return f
}

// snapshot returns the snapshot collected, once every stream has ended.
func (b *snapshotBuilder) snapshot() *vectorSnapshot {
	b.snap.count()
	return b.snap
}
