package pgindex

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
)

// DefaultProjectCacheBytes is the default bound of the in-process cache of project views.
const DefaultProjectCacheBytes int64 = 256 << 20

var _ indexdriver.FileStateLister = (*Index)(nil)

// view is one project's index at one generation as queries need it in memory: the indexed files
// sorted by path with where their chunks are, the decoded directories of the segments they point
// at, and the decoded pending files. Postings of segments stay in PostgreSQL and are read per
// query, term by term. A view is immutable once built; views of one project share the segment
// directories and pending files that did not change (both are immutable: a segment's id and a
// pending file's write id name their bytes for good).
type view struct {
	pid        int64
	generation int64
	states     []indexdriver.PathFileState // sorted by path; FileStateList hands it out
	files      []viewFile                  // states[i]'s location
	segs       []viewSegment               // the segments live files point at, by id
	segByID    map[int64]int
	pending    []int32 // indexes of the files whose chunks are pending, in path order
	maxWriteID int64   // the largest write id among files (see loadView)
	snapshot   string  // the pg_snapshot the view was read in (see loadView)
	bytes      int64
}

// viewFile says where a file's chunks are: pending (its own decoded postings) or in segs[seg]
// from ordinal first.
type viewFile struct {
	seg     int32 // -1: pending or no chunks
	first   int32
	writeID int64
	pending *pendingFile
}

type viewSegment struct {
	id int64
	*segmentData
	owner []int32 // per ordinal, the index of the file that owns the chunk; -1: dead
}

// segmentData is a segment's decoded directory and term dictionary: immutable, shared by views.
type segmentData struct {
	dir  *chunkDir
	dict *termDict
}

// fileIndex finds path by binary search.
func (v *view) fileIndex(path string) (int, bool) {
	return slices.BinarySearchFunc(v.states, path, func(s indexdriver.PathFileState, p string) int { return strings.Compare(s.Path, p) })
}

// chunk returns file fi's chunk i: its directory and ordinal there.
func (v *view) chunk(fi, i int) (*chunkDir, int) {
	f := v.files[fi]
	if f.pending != nil {
		return &f.pending.dir, i
	}
	return v.segs[f.seg].dir, int(f.first) + i
}

// candidate is file fi's chunk i as a indexdriver.Candidate (no text: see indexdriver.Index).
func (v *view) candidate(fi, i int, score float64) indexdriver.Candidate {
	d, ord := v.chunk(fi, i)
	st := v.states[fi]
	return indexdriver.Candidate{Path: st.Path, FileUpdatedAt: st.FileUpdatedAt, Score: score, Chunk: indexdriver.Chunk{
		Index: i, StartByte: d.start[ord], EndByte: d.end[ord], ContentHash: d.hash(ord)}}
}

// allowed returns, per file, whether the path filters let it through; nil when there are none.
func (v *view) allowed(prefix string, exclude map[string]bool) []bool {
	if prefix == "" && len(exclude) == 0 {
		return nil
	}
	out := make([]bool, len(v.states))
	for i, s := range v.states {
		out[i] = strings.HasPrefix(s.Path, prefix) && !exclude[s.Path]
	}
	return out
}

// viewCache keeps one view per project, valid for one value of the project's generation counter
// (bumped by every ReplaceFile, DeleteFile and merge of any process in its transaction); see
// genCache.
type viewCache struct {
	*genCache[int64, view]
}

func newViewCache(maxBytes int64) *viewCache {
	return &viewCache{newGenCache[int64](maxBytes,
		func(v *view) int64 { return v.generation },
		func(v *view) int64 { return v.bytes })}
}

// sqlViewFiles reads the project's generation, the snapshot the view is read in, the number of
// its files, and its files in path order ("C" collation: bytewise, as Go compares strings) —
// with $3 (a previous view's snapshot) only the files written or moved by transactions that
// snapshot did not see — with the pending bytes of files written after $2 (the previous view's
// newest write): the others' are in the previous view.
const sqlViewFiles = `SELECT pr.generation, pg_current_snapshot()::text, c.total,
       f.file_path, f.file_updated_at, f.file_updated_ns, f.embedding_model, f.tokenizer,
       f.chunk_count, f.segment_id, f.first_chunk, f.write_id, f.segment_id IS NULL AND f.chunk_count > 0,
       CASE WHEN f.segment_id IS NULL AND f.chunk_count > 0 AND f.write_id > $2
            THEN (SELECT p.data FROM mcp_search_pending p WHERE p.write_id = f.write_id) END
FROM mcp_search_projects pr
CROSS JOIN LATERAL (SELECT count(*) AS total FROM mcp_search_files WHERE project_id = pr.id AND NOT legacy) c
LEFT JOIN LATERAL (
    SELECT f.file_path, f.file_updated_at, f.file_updated_ns, f.embedding_model, f.tokenizer, f.chunk_count,
           f.segment_id, f.first_chunk, f.write_id
    FROM mcp_search_files f
    WHERE f.project_id = pr.id AND NOT f.legacy
      AND ($3::text IS NULL OR NOT pg_visible_in_snapshot(f.write_xact, $3::text::pg_snapshot))
    ORDER BY f.file_path) f ON true
WHERE pr.id = $1`

const sqlPendingBytes = "SELECT write_id, data FROM mcp_search_pending WHERE write_id = ANY($1)"

const sqlSegmentDirectories = "SELECT id, directory, terms FROM mcp_search_segments WHERE id = ANY($1)"

// viewFileCost is what a view accounts for each file besides its strings: its
// indexdriver.PathFileState (80 bytes) and viewFile (24 bytes), and the rounding of the three
// strings' allocations, so that an empty file is not free (issue 41).
const viewFileCost = 120

// fileRow is one row of sqlViewFiles.
type fileRow struct {
	state   indexdriver.PathFileState
	seg     *int64
	first   int32
	writeID int64
	pending bool
	data    []byte
}

// loadView reads project pid's view in q's snapshot, reusing old's decoded parts (nil: none).
// With an old view it reads only the files changed since old's snapshot and merges them into
// old's list; when some file was deleted meanwhile (the merged list is longer than the
// project's file count), it reads the whole list again.
func loadView(ctx context.Context, q querier, pid int64, old *view) (*view, error) {
	if old != nil && old.snapshot != "" {
		v, err := readView(ctx, q, pid, old, true)
		if err != nil || v != nil {
			return v, err
		}
	}
	return readView(ctx, q, pid, old, false)
}

// readView is one attempt of loadView: changedOnly reads the files changed since old's snapshot
// and returns nil (no error) when a deletion makes the merged list wrong.
func readView(ctx context.Context, q querier, pid int64, old *view, changedOnly bool) (*view, error) {
	var oldMax int64 = -1
	var since *string
	if old != nil {
		oldMax = old.maxWriteID
	}
	if changedOnly {
		since = &old.snapshot
	}
	rows, err := q.Query(ctx, sqlViewFiles, pid, oldMax, since)
	if err != nil {
		return nil, err
	}
	v := &view{pid: pid, segByID: make(map[int64]int)}
	var total int64
	var changed []fileRow
	var (
		path, model, tokenizer *string
		at                     *time.Time
		ns, chunks, first      *int32
		seg, writeID           *int64
		isPending              *bool
		raw                    []byte
	)
	_, err = pgx.ForEachRow(rows, []any{&v.generation, &v.snapshot, &total, &path, &at, &ns, &model, &tokenizer, &chunks, &seg, &first, &writeID, &isPending, &raw}, func() error {
		if path == nil {
			return nil // no (changed) files
		}
		r := fileRow{state: indexdriver.PathFileState{Path: *path, FileState: indexdriver.FileState{
			FileUpdatedAt: joinVersion(*at, *ns), EmbeddingModel: *model, Tokenizer: *tokenizer, Chunks: int(*chunks)}},
			seg: seg, writeID: *writeID, pending: *isPending, data: raw}
		if first != nil {
			r.first = *first
		}
		changed = append(changed, r)
		raw = nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	if changedOnly {
		if v.generation < old.generation {
			return nil, nil // old is newer than this snapshot: it cannot be the base
		}
		changed = mergeRows(old, changed)
		if int64(len(changed)) != total {
			return nil, nil // a file was deleted since old: read the whole list
		}
	}
	return assembleView(ctx, q, v, changed, old)
}

// mergeRows returns old's files as rows with changed (sorted by path) replacing or joining them.
func mergeRows(old *view, changed []fileRow) []fileRow {
	out := make([]fileRow, 0, len(old.states)+len(changed))
	i, j := 0, 0
	for i < len(old.states) || j < len(changed) {
		switch {
		case j < len(changed) && (i == len(old.states) || changed[j].state.Path <= old.states[i].Path):
			if i < len(old.states) && changed[j].state.Path == old.states[i].Path {
				i++
			}
			out = append(out, changed[j])
			j++
		default:
			f := old.files[i]
			r := fileRow{state: old.states[i], writeID: f.writeID, first: f.first, pending: f.pending != nil}
			if f.seg >= 0 {
				id := old.segs[f.seg].id
				r.seg = &id
			}
			out = append(out, r)
			i++
		}
	}
	return out
}

// assembleView builds v from its file rows, decoding the pending bytes it was sent, reusing
// old's decoded pending files and segments, and reading what neither holds.
func assembleView(ctx context.Context, q querier, v *view, rows []fileRow, old *view) (*view, error) {
	oldPending := make(map[int64]*pendingFile)
	oldSegs := make(map[int64]*segmentData)
	if old != nil {
		for _, fi := range old.pending {
			oldPending[old.files[fi].writeID] = old.files[fi].pending
		}
		for _, s := range old.segs {
			oldSegs[s.id] = s.segmentData
		}
	}
	var missingPending, segIDs []int64
	v.states = make([]indexdriver.PathFileState, 0, len(rows))
	v.files = make([]viewFile, 0, len(rows))
	for fi, r := range rows {
		st := r.state
		v.states = append(v.states, st)
		f := viewFile{seg: -1, writeID: r.writeID}
		v.maxWriteID = max(v.maxWriteID, r.writeID)
		v.bytes += int64(len(st.Path)+len(st.EmbeddingModel)+len(st.Tokenizer)) + viewFileCost
		switch {
		case r.pending:
			v.pending = append(v.pending, int32(fi))
			if r.data != nil {
				p, err := decodePending(r.data)
				if err != nil {
					return nil, err
				}
				f.pending = p
			} else if f.pending = oldPending[r.writeID]; f.pending == nil {
				missingPending = append(missingPending, r.writeID) // committed after old was read
			}
		case r.seg != nil && st.Chunks > 0:
			si, ok := v.segByID[*r.seg]
			if !ok {
				si = len(v.segs)
				v.segByID[*r.seg] = si
				v.segs = append(v.segs, viewSegment{id: *r.seg})
				if oldSegs[*r.seg] == nil {
					segIDs = append(segIDs, *r.seg)
				}
			}
			f.seg, f.first = int32(si), r.first
		}
		v.files = append(v.files, f)
	}
	if len(missingPending) > 0 {
		if err := loadPending(ctx, q, missingPending, v); err != nil {
			return nil, err
		}
	}
	if len(segIDs) > 0 {
		rows, err := q.Query(ctx, sqlSegmentDirectories, segIDs)
		if err != nil {
			return nil, err
		}
		var id int64
		var raw, terms []byte
		_, err = pgx.ForEachRow(rows, []any{&id, &raw, &terms}, func() error {
			d, err := decodeDirectory(raw)
			if err != nil {
				return err
			}
			dict, err := decodeTermDict(terms)
			oldSegs[id] = &segmentData{dir: d, dict: dict}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	for i := range v.segs {
		s := &v.segs[i]
		if s.segmentData = oldSegs[s.id]; s.segmentData == nil {
			return nil, errCorrupt // a file points at a segment that does not exist
		}
		s.owner = slices.Repeat([]int32{-1}, s.dir.len())
		v.bytes += s.dir.bytes() + s.dict.bytes() + 4*int64(len(s.owner))
	}
	for fi, f := range v.files {
		if f.pending != nil {
			v.bytes += f.pending.bytes()
			continue
		}
		if f.seg < 0 {
			continue
		}
		s := &v.segs[f.seg]
		n := v.states[fi].Chunks
		if int(f.first)+n > len(s.owner) {
			return nil, errCorrupt
		}
		for i := range n {
			s.owner[int(f.first)+i] = int32(fi)
		}
	}
	return v, nil
}

// loadPending decodes the pending bytes of the given writes into v's files.
func loadPending(ctx context.Context, q querier, writeIDs []int64, v *view) error {
	rows, err := q.Query(ctx, sqlPendingBytes, writeIDs)
	if err != nil {
		return err
	}
	byWrite := make(map[int64]*pendingFile)
	var id int64
	var raw []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &raw}, func() error {
		p, err := decodePending(raw)
		byWrite[id] = p
		return err
	})
	if err != nil {
		return err
	}
	for _, fi := range v.pending {
		f := &v.files[fi]
		if f.pending == nil {
			if f.pending = byWrite[f.writeID]; f.pending == nil {
				return errCorrupt
			}
		}
	}
	return nil
}

// viewIn returns project pid's view at generation gen, the generation of the snapshot q reads
// in. It never waits for another caller: when the cached view is not of gen it reads gen's in
// q's snapshot (reusing the cached view's immutable parts) and offers it to the cache. Callers
// that hold a pooled connection must use it rather than currentView, whose waiting could
// starve the pool.
func (ix *Index) viewIn(ctx context.Context, q querier, pid, gen int64) (*view, error) {
	var cached *view
	if ix.views != nil {
		if cached = ix.views.peek(pid); cached != nil && cached.generation == gen {
			return cached, nil
		}
	}
	v, err := loadView(ctx, q, pid, cached)
	if err == nil && ix.views != nil {
		ix.views.offer(pid, v)
	}
	return v, err
}

// currentView returns an up-to-date view of project pid, outside any snapshot of the caller.
func (ix *Index) currentView(ctx context.Context, pid int64) (*view, error) {
	var gen int64
	if err := ix.pool.QueryRow(ctx, sqlGeneration, pid).Scan(&gen); err != nil {
		return nil, err
	}
	load := func(old *view) (v *view, err error) {
		// A view takes several statements: one repeatable-read snapshot, so that a merge
		// committing meanwhile cannot remove a segment the files point at.
		err = pgx.BeginTxFunc(ctx, ix.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			v, err = loadView(ctx, tx, pid, old)
			return err
		})
		return v, err
	}
	if ix.views == nil {
		return load(nil)
	}
	// Waiting here holds no connection: the one caller that reloads uses its own.
	return ix.views.get(pid, gen, load)
}

// scopeView is currentView for scope's project: nil (and no error) when it has never been
// indexed; errors are the Index's coded ones.
func (ix *Index) scopeView(ctx context.Context, scope driver.Scope) (*view, error) {
	pid, err := ix.projectID(ctx, scope, false)
	if err != nil || pid == 0 {
		return nil, backendError(ctx, "finding the project", err)
	}
	v, err := ix.currentView(ctx, pid)
	if err != nil {
		return nil, backendError(ctx, "reading the project's files", err)
	}
	return v, nil
}

const sqlGeneration = "SELECT generation FROM mcp_search_projects WHERE id = $1"

// FileStateList implements indexdriver.FileStateLister: the indexed states sorted by path. The
// project's view is cached in process and shared (read-only) until the project's generation
// counter shows that some process changed it, so a query usually costs one primary-key read; a
// prefix selects a sub-slice by binary search.
func (ix *Index) FileStateList(ctx context.Context, scope driver.Scope, prefix string) ([]indexdriver.PathFileState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := ix.scopeView(ctx, scope)
	if err != nil || v == nil {
		return nil, err
	}
	return indexdriver.StatesWithPrefix(v.states, prefix), nil
}

// sqlFileStates reads the indexed states of the files whose path is in [$3, $4): a range scan
// of the (project_id, file_path) primary key, bytewise ("C" collation) as prefixEnd computes
// it. The bounds are comparisons rather than LIKE so that a generic plan of the prepared
// statement still scans a range rather than the whole project; sqlFileStatesFrom has no upper
// bound.
const (
	sqlFileStates     = sqlFileStatesFrom + ` AND f.file_path < $4`
	sqlFileStatesFrom = `SELECT f.file_path, f.file_updated_at, f.file_updated_ns, f.embedding_model, f.tokenizer, f.chunk_count
FROM mcp_search_projects pr JOIN mcp_search_files f ON f.project_id = pr.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND NOT f.legacy AND f.file_path >= $3`
)

// FileStates implements indexdriver.Index with one statement that reads only the files with the
// prefix, in O(log n + matches) for a project of n files, whether or not the project's view is
// cached: the Indexer asks for one file's state per job, and building the project's view for
// that (as FileStateList does) would make each job's cost grow with the project.
func (ix *Index) FileStates(ctx context.Context, scope driver.Scope, prefix string) (map[string]indexdriver.FileState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]indexdriver.FileState)
	if !utf8.ValidString(prefix) {
		return out, nil // no stored path (all are UTF-8) has it
	}
	var rows pgx.Rows
	var err error
	if hi, bounded := prefixEnd(prefix); bounded {
		rows, err = ix.pool.Query(ctx, sqlFileStates, scope.Tenant, scope.Project, prefix, hi)
	} else {
		rows, err = ix.pool.Query(ctx, sqlFileStatesFrom, scope.Tenant, scope.Project, prefix)
	}
	if err != nil {
		return nil, backendError(ctx, "reading file states", err)
	}
	var path, model, tokenizer string
	var at time.Time
	var ns, chunks int32
	_, err = pgx.ForEachRow(rows, []any{&path, &at, &ns, &model, &tokenizer, &chunks}, func() error {
		out[path] = indexdriver.FileState{FileUpdatedAt: joinVersion(at, ns), EmbeddingModel: model, Tokenizer: tokenizer, Chunks: int(chunks)}
		return nil
	})
	if err != nil {
		return nil, backendError(ctx, "reading file states", err)
	}
	return out, nil
}
