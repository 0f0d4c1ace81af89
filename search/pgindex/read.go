package pgindex

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
)

// likePrefix returns a LIKE pattern matching every string with the given prefix: the
// metacharacters \ % _ are escaped (backslash is LIKE's default escape), so "/a_b" matches
// "/a_b/x" but not "/aXb". A constant prefix pattern can use the text_pattern_ops indexes.
func likePrefix(prefix string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(prefix) + "%"
}

// prefixEnd returns the least string above every string with the given prefix in bytewise
// order, so that they are exactly the strings in [prefix, end): the prefix with its last
// character replaced by the next code point (U+10FFFF is dropped and the one before it moved
// on instead). bounded is false when there is no such string (an empty prefix, or only
// U+10FFFF): then every string from prefix on qualifies. Bytewise order of valid UTF-8 is code
// point order, so a valid UTF-8 string between prefix and end starts with prefix. The prefix
// must be valid UTF-8.
func prefixEnd(prefix string) (end string, bounded bool) {
	for prefix != "" {
		r, size := utf8.DecodeLastRuneInString(prefix)
		prefix = prefix[:len(prefix)-size]
		switch {
		case r == utf8.MaxRune:
			continue
		case r == 0xD7FF: // the surrogates are not characters
			return prefix + string(rune(0xE000)), true
		default:
			return prefix + string(r+1), true
		}
	}
	return "", false
}

// excludeList turns ExcludePaths into a text[] parameter (never nil, so "<> ALL" is true for
// every path when nothing is excluded).
func excludeList(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for p, ex := range m {
		if ex {
			out = append(out, p)
		}
	}
	return out
}

// MarkServed implements indexdriver.Index with one statement: an upsert of the served time of each
// referenced chunk whose file is still indexed at the referenced version.
func (ix *Index) MarkServed(ctx context.Context, scope driver.Scope, refs []indexdriver.ChunkRef, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(refs) == 0 {
		return nil
	}
	seen := make(map[indexdriver.ChunkRef]bool, len(refs))
	var paths []string
	var idx, nss []int32
	var vers []time.Time
	for _, r := range refs {
		k := indexdriver.ChunkRef{Path: r.Path, ChunkIndex: r.ChunkIndex, FileUpdatedAt: r.FileUpdatedAt.UTC()}
		if seen[k] {
			continue // one row may be upserted once per statement
		}
		seen[k] = true
		v, ns := splitVersion(r.FileUpdatedAt)
		paths, idx, vers, nss = append(paths, r.Path), append(idx, int32(r.ChunkIndex)), append(vers, v), append(nss, ns)
	}
	_, err := ix.pool.Exec(ctx, `INSERT INTO mcp_search_served (project_id, file_path, chunk_index, served_at)
SELECT DISTINCT ON (f.file_path, r.idx) pr.id, f.file_path, r.idx, $3
FROM mcp_search_projects pr
CROSS JOIN unnest($4::text[], $5::int[], $6::timestamptz[], $7::int[]) AS r(path, idx, at, ns)
JOIN mcp_search_files f ON f.project_id = pr.id AND f.file_path = r.path
     AND f.file_updated_at = r.at AND f.file_updated_ns = r.ns AND r.idx >= 0 AND r.idx < f.chunk_count
WHERE pr.apikey_hash = $1 AND pr.project = $2
ON CONFLICT (project_id, file_path, chunk_index) DO UPDATE SET served_at = EXCLUDED.served_at`,
		scope.Tenant, scope.Project, at, paths, idx, vers, nss)
	return backendError(ctx, "recording last_served_at", err)
}

// sqlFileChunks reads a file's indexed state and where its chunks are: the pending bytes, or the
// segment's directory.
const sqlFileChunks = `SELECT f.file_updated_at, f.file_updated_ns, f.embedding_model, f.tokenizer, f.chunk_count,
       f.write_id, p.data, f.segment_id, f.first_chunk, s.directory
FROM mcp_search_projects pr JOIN mcp_search_files f ON f.project_id = pr.id
LEFT JOIN mcp_search_segments s ON s.id = f.segment_id
LEFT JOIN mcp_search_pending p ON p.write_id = f.write_id AND f.segment_id IS NULL
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND f.file_path = $3 AND NOT f.legacy`

// storedFile is one file's indexed chunks as read by readFile.
type storedFile struct {
	version   time.Time
	model     string
	tokenizer string
	writeID   int64
	dir       *chunkDir
	first     int // the file's chunks are dir's ordinals [first, first+chunks)
	chunks    int
	segment   int64            // 0: pending
	pending   *pendingFile     // when pending
	terms     []map[string]int // per chunk, filled by readTerms
}

// readFile reads path's indexed chunks in q's snapshot; found is false when it is not indexed.
func readFile(ctx context.Context, q querier, scope driver.Scope, path string) (f storedFile, found bool, err error) {
	var at time.Time
	var ns int32
	var pending, directory []byte
	var seg *int64
	var first *int32
	var chunks int32
	err = q.QueryRow(ctx, sqlFileChunks, scope.Tenant, scope.Project, path).Scan(&at, &ns, &f.model, &f.tokenizer, &chunks, &f.writeID, &pending, &seg, &first, &directory)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, false, nil
	}
	if err != nil {
		return f, false, err
	}
	f.version, f.chunks = joinVersion(at, ns), int(chunks)
	switch {
	case pending != nil:
		if f.pending, err = decodePending(pending); err != nil {
			return f, false, err
		}
		f.dir = &f.pending.dir
	case seg != nil && directory != nil:
		if f.dir, err = decodeDirectory(directory); err != nil {
			return f, false, err
		}
		f.segment, f.first = *seg, int(*first)
	default:
		f.dir = &chunkDir{}
		f.chunks = 0
	}
	if f.first+f.chunks > f.dir.len() {
		return f, false, errCorrupt
	}
	return f, true, nil
}

// readTerms fills f.terms from the pending bytes or the segment's postings (every block of the
// segment is read: Chunks is for inspection, not for the query path).
func (f *storedFile) readTerms(ctx context.Context, q querier) error {
	f.terms = make([]map[string]int, f.chunks)
	for i := range f.terms {
		f.terms[i] = make(map[string]int)
	}
	add := func(term string, block []byte, base int) error {
		return forEachPosting(block, func(ord, tf int) {
			if i := ord - base; i >= 0 && i < f.chunks {
				f.terms[i][term] = tf
			}
		})
	}
	if f.pending != nil {
		for t, b := range f.pending.blocks {
			if err := add(t, b, 0); err != nil {
				return err
			}
		}
		return nil
	}
	if f.chunks == 0 {
		return nil
	}
	var terms, postings []byte
	if err := q.QueryRow(ctx, "SELECT terms, postings FROM mcp_search_segments WHERE id = $1", f.segment).Scan(&terms, &postings); err != nil {
		return err
	}
	dict, err := decodeTermDict(terms)
	if err != nil {
		return err
	}
	for i, t := range dict.terms {
		off, size := int(dict.off[i]), int(dict.size[i])
		if off+size > len(postings) {
			return errCorrupt
		}
		if err := add(t, postings[off:off+size], f.first); err != nil {
			return err
		}
	}
	return nil
}

// Chunks implements indexdriver.Index: the chunks of path with their terms and vectors (no text),
// read in one repeatable-read snapshot.
func (ix *Index) Chunks(ctx context.Context, scope driver.Scope, path string) ([]indexdriver.StoredChunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []indexdriver.StoredChunk
	err := pgx.BeginTxFunc(ctx, ix.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		out = nil
		f, found, err := readFile(ctx, tx, scope, path)
		if err != nil || !found {
			return err
		}
		if err := f.readTerms(ctx, tx); err != nil {
			return err
		}
		var vectors []byte
		var dims int32
		err = tx.QueryRow(ctx, `SELECT v.dims, v.vectors FROM mcp_search_projects pr JOIN mcp_search_vectors v ON v.project_id = pr.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND v.file_path = $3`, scope.Tenant, scope.Project, path).Scan(&dims, &vectors)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		served := make(map[int]time.Time)
		rows, err := tx.Query(ctx, `SELECT s.chunk_index, s.served_at FROM mcp_search_projects pr JOIN mcp_search_served s ON s.project_id = pr.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND s.file_path = $3`, scope.Tenant, scope.Project, path)
		if err != nil {
			return err
		}
		var index int32
		var at time.Time
		if _, err := pgx.ForEachRow(rows, []any{&index, &at}, func() error {
			served[int(index)] = at.UTC()
			return nil
		}); err != nil {
			return err
		}
		for i := range f.chunks {
			ord := f.first + i
			sc := indexdriver.StoredChunk{Path: path, FileUpdatedAt: f.version, EmbeddingModel: f.model, Tokenizer: f.tokenizer, LastServedAt: served[i]}
			sc.Index, sc.StartByte, sc.EndByte, sc.ContentHash = i, f.dir.start[ord], f.dir.end[ord], f.dir.hash(ord)
			sc.ChunkTerms, sc.Terms = int(f.dir.terms[ord]), f.terms[i]
			if d := int(dims); d > 0 && len(vectors) == 4*d*f.chunks {
				sc.Vector = make([]float32, d)
				decodeVectorInto(sc.Vector, vectors[4*d*i:])
			}
			out = append(out, sc)
		}
		return nil
	})
	if err != nil {
		return nil, backendError(ctx, "reading chunks", err)
	}
	return out, nil
}

// querier is a pool, a connection or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
