package pgindex

import (
	"context"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// DefaultVectorCacheBytes is the default bound of the in-process vector cache.
const DefaultVectorCacheBytes int64 = 256 << 20

// vectorCache keeps, per (project, model, dimension), a read-only snapshot of every embedded
// chunk's id, path, chunk index and vector, so that a semantic query scans memory instead of
// streaming the project's vectors from PostgreSQL. A snapshot is valid for one value of the
// project's generation counter, which every ReplaceFile and DeleteFile of any process bumps in
// its transaction; when the counter moved, the next query refreshes the snapshot by re-reading
// only the files whose indexed version changed. Entries are evicted least-recently-used when the
// cache holds more than maxBytes; a project bigger than maxBytes is never cached (its queries
// stream from the database). The caching is genCache's; it is safe for concurrent use.
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
	bytes      int64
}

type cachedFile struct {
	path    string
	version time.Time
	vecs    []float32 // the file's chunks' vectors, chunk after chunk
	// nonFinite: some vector holds an infinity or NaN, so a sparse query must be scored with
	// search.Dot rather than search.SparseDot (whose skipped zero products are exact only for
	// finite vectors).
	nonFinite bool
}

func (f *cachedFile) size() int64 { return int64(len(f.path) + 4*len(f.vecs) + 64) }

func newVectorCache(maxBytes int64) *vectorCache {
	return &vectorCache{newGenCache[cacheKey](maxBytes,
		func(s *vectorSnapshot) int64 { return s.generation },
		func(s *vectorSnapshot) int64 { return s.bytes })}
}

// snapshot returns a snapshot of key's vectors at generation gen or later, refreshing the cached
// one when it is older.
func (c *vectorCache) snapshot(ctx context.Context, ix *Index, key cacheKey, gen int64) (*vectorSnapshot, error) {
	return c.get(key, gen, func(old *vectorSnapshot) (*vectorSnapshot, error) { return loadSnapshot(ctx, ix, key, old) })
}

// loadSnapshot reads, in one repeatable-read snapshot, the project's generation, the indexed
// version of each file embedded with the model, and the vectors of the files that changed since
// old (all of them when old is nil).
func loadSnapshot(ctx context.Context, ix *Index, key cacheKey, old *vectorSnapshot) (*vectorSnapshot, error) {
	s := &vectorSnapshot{files: make(map[string]*cachedFile)}
	err := pgx.BeginTxFunc(ctx, ix.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		clear(s.files)
		s.bytes = 0
		if err := tx.QueryRow(ctx, sqlGeneration, key.project).Scan(&s.generation); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT file_path, file_updated_at, file_updated_ns FROM mcp_search_files
WHERE project_id = $1 AND embedding_model = $2 AND chunk_count > 0`, key.project, key.model)
		if err != nil {
			return err
		}
		var changed []string
		var path string
		var at time.Time
		var ns int32
		_, err = pgx.ForEachRow(rows, []any{&path, &at, &ns}, func() error {
			v := joinVersion(at, ns)
			if old != nil {
				if f := old.files[path]; f != nil && f.version.Equal(v) {
					s.files[path] = f
					return nil
				}
			}
			changed = append(changed, path)
			s.files[path] = &cachedFile{path: path, version: v}
			return nil
		})
		if err != nil || len(changed) == 0 {
			return err
		}
		q := "SELECT file_path, vectors FROM mcp_search_vectors WHERE project_id = $1 AND model = $2 AND dims = $3"
		args := []any{key.project, key.model, int32(key.dims)}
		if old != nil {
			q += " AND file_path = ANY($4)"
			args = append(args, changed)
		}
		rows, err = tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		var raw pgtype.DriverBytes
		for rows.Next() {
			if err := rows.Scan(&path, &raw); err != nil {
				rows.Close()
				return err
			}
			f := s.files[path]
			if f == nil || f.vecs != nil || len(raw)%(4*key.dims) != 0 {
				continue
			}
			f.vecs = make([]float32, len(raw)/4)
			decodeVectorInto(f.vecs, raw)
			for _, x := range f.vecs {
				if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
					f.nonFinite = true
				}
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	for _, f := range s.files {
		s.bytes += f.size()
	}
	return s, nil
}
