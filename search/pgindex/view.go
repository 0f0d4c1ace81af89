package pgindex

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5"
)

// DefaultProjectCacheBytes is the default bound of the in-process cache of project views.
const DefaultProjectCacheBytes int64 = 256 << 20

var _ search.FileStateLister = (*Index)(nil)

// view is one project's index at one generation as queries need it in memory: the indexed files
// sorted by path with where their chunks are, the decoded directories of the segments they point
// at, and the decoded pending files. Postings of segments stay in PostgreSQL and are read per
// query, term by term. A view is immutable once built; views of one project share the segment
// directories and pending files that did not change (both are immutable: a segment's id and a
// pending file's write id name their bytes for good).
type view struct {
	pid        int64
	generation int64
	states     []search.PathFileState // sorted by path; FileStateList hands it out
	files      []viewFile             // states[i]'s location
	segs       []viewSegment          // the segments live files point at, by id
	segByID    map[int64]int
	pending    []int32 // indexes of the files whose chunks are pending, in path order
	maxWriteID int64   // the largest write id among files (see loadView)
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
	return slices.BinarySearchFunc(v.states, path, func(s search.PathFileState, p string) int { return strings.Compare(s.Path, p) })
}

// chunk returns file fi's chunk i: its directory and ordinal there.
func (v *view) chunk(fi, i int) (*chunkDir, int) {
	f := v.files[fi]
	if f.pending != nil {
		return &f.pending.dir, i
	}
	return v.segs[f.seg].dir, int(f.first) + i
}

// candidate is file fi's chunk i as a search.Candidate (no text: see search.Index).
func (v *view) candidate(fi, i int, score float64) search.Candidate {
	d, ord := v.chunk(fi, i)
	st := v.states[fi]
	return search.Candidate{Path: st.Path, FileUpdatedAt: st.FileUpdatedAt, Score: score, Chunk: search.Chunk{
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

// sqlViewFiles reads the project's generation and its files in path order ("C" collation:
// bytewise, as Go compares strings), with the pending bytes only of files written after $2 (the
// previous view's newest write): the others' are in the previous view.
const sqlViewFiles = `SELECT pr.generation, f.file_path, f.file_updated_at, f.file_updated_ns, f.embedding_model, f.tokenizer,
       f.chunk_count, f.segment_id, f.first_chunk, f.write_id, f.segment_id IS NULL AND f.chunk_count > 0, f.data
FROM mcp_search_projects pr LEFT JOIN LATERAL (
    SELECT f.file_path, f.file_updated_at, f.file_updated_ns, f.embedding_model, f.tokenizer, f.chunk_count,
           f.segment_id, f.first_chunk, f.write_id, p.data
    FROM mcp_search_files f LEFT JOIN mcp_search_pending p ON p.write_id = f.write_id AND f.write_id > $2
    WHERE f.project_id = pr.id AND NOT f.legacy ORDER BY f.file_path) f ON true
WHERE pr.id = $1`

const sqlPendingBytes = "SELECT write_id, data FROM mcp_search_pending WHERE write_id = ANY($1)"

const sqlSegmentDirectories = "SELECT id, directory, terms FROM mcp_search_segments WHERE id = ANY($1)"

// loadView reads project pid's view in q's snapshot, reusing old's decoded parts (nil: none).
func loadView(ctx context.Context, q querier, pid int64, old *view) (*view, error) {
	var oldMax int64 = -1
	oldPending := make(map[int64]*pendingFile)
	oldSegs := make(map[int64]*segmentData)
	if old != nil {
		oldMax = old.maxWriteID
		for _, fi := range old.pending {
			oldPending[old.files[fi].writeID] = old.files[fi].pending
		}
		for _, s := range old.segs {
			oldSegs[s.id] = s.segmentData
		}
	}
	rows, err := q.Query(ctx, sqlViewFiles, pid, oldMax)
	if err != nil {
		return nil, err
	}
	v := &view{pid: pid, segByID: make(map[int64]int)}
	var (
		path, model, tokenizer *string
		at                     *time.Time
		ns, chunks, first      *int32
		seg, writeID           *int64
		isPending              *bool
		raw                    []byte
	)
	var missingPending []int64
	var segIDs []int64
	_, err = pgx.ForEachRow(rows, []any{&v.generation, &path, &at, &ns, &model, &tokenizer, &chunks, &seg, &first, &writeID, &isPending, &raw}, func() error {
		if path == nil {
			return nil // no files
		}
		fi := len(v.states)
		v.states = append(v.states, search.PathFileState{Path: *path, FileState: search.FileState{
			FileUpdatedAt: joinVersion(*at, *ns), EmbeddingModel: *model, Tokenizer: *tokenizer, Chunks: int(*chunks)}})
		f := viewFile{seg: -1, writeID: *writeID}
		v.maxWriteID = max(v.maxWriteID, *writeID)
		v.bytes += int64(len(*path)+len(*model)+len(*tokenizer)) + 96
		switch {
		case *isPending:
			v.pending = append(v.pending, int32(fi))
			if raw != nil {
				p, err := decodePending(raw)
				if err != nil {
					return err
				}
				f.pending = p
			} else if f.pending = oldPending[*writeID]; f.pending == nil {
				missingPending = append(missingPending, *writeID) // committed after old was read
			}
		case seg != nil && *chunks > 0:
			si, ok := v.segByID[*seg]
			if !ok {
				si = len(v.segs)
				v.segByID[*seg] = si
				v.segs = append(v.segs, viewSegment{id: *seg})
				if oldSegs[*seg] == nil {
					segIDs = append(segIDs, *seg)
				}
			}
			f.seg, f.first = int32(si), *first
		}
		v.files = append(v.files, f)
		raw = nil
		return nil
	})
	if err != nil {
		return nil, err
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
		var terms []byte
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
	v.states = slices.Clip(v.states)
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
func (ix *Index) scopeView(ctx context.Context, scope fileio.Scope) (*view, error) {
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

// FileStateList implements search.FileStateLister: the indexed states sorted by path. The
// project's view is cached in process and shared (read-only) until the project's generation
// counter shows that some process changed it, so a query usually costs one primary-key read; a
// prefix selects a sub-slice by binary search.
func (ix *Index) FileStateList(ctx context.Context, scope fileio.Scope, prefix string) ([]search.PathFileState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := ix.scopeView(ctx, scope)
	if err != nil || v == nil {
		return nil, err
	}
	return search.StatesWithPrefix(v.states, prefix), nil
}

// FileStates implements search.Index from the same sorted list as FileStateList.
func (ix *Index) FileStates(ctx context.Context, scope fileio.Scope, prefix string) (map[string]search.FileState, error) {
	return search.FileStatesOf(ctx, ix, scope, prefix)
}
