package pgindex

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

// DefaultMergePendingChunks is Options.MergePendingChunks's default.
const DefaultMergePendingChunks = 2048

// mergeLockClass is the first key of the two-int4 pg_try_advisory_xact_lock that lets one
// process at a time merge a project (the second key is the project id's low 32 bits).
const mergeLockClass int32 = 0x5e4c_a7d2

// mergeCounters are a project's counters after a write: pending and dead chunks, live chunks.
type mergeCounters struct{ pending, dead, chunks int64 }

// merger merges in the background: one goroutine per Index, woken by writes whose counters say
// a merge is due. A failed merge is logged and left for the next write to trigger again; queries
// never depend on merges (pending files are served from their own rows).
type merger struct {
	ix        *Index
	pendingAt int64

	mu   sync.Mutex
	due  map[int64]bool
	wake chan struct{}

	stop context.CancelFunc
	done chan struct{}
}

func newMerger(ix *Index, pendingAt int64) *merger {
	ctx, stop := context.WithCancel(context.Background())
	m := &merger{ix: ix, pendingAt: pendingAt, due: make(map[int64]bool), wake: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go m.run(ctx)
	return m
}

// isDue: enough pending chunks, or dead chunks that are both many and a quarter of the live ones.
func (m *merger) isDue(c mergeCounters) bool {
	return c.pending >= m.pendingAt || (c.dead >= m.pendingAt && 4*c.dead >= c.chunks)
}

// wake schedules a merge of project pid when c says one is due.
func (m *merger) wakeFor(pid int64, c mergeCounters) {
	if m == nil || !m.isDue(c) {
		return
	}
	m.mu.Lock()
	m.due[pid] = true
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *merger) run(ctx context.Context) {
	defer close(m.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.wake:
		}
		m.mu.Lock()
		due := m.due
		m.due = make(map[int64]bool)
		m.mu.Unlock()
		for pid := range due {
			if err := m.ix.mergeProject(ctx, pid, false); err != nil && ctx.Err() == nil {
				m.ix.log.Warn("pgindex: merging a project's index failed; the next write retries", "project_id", pid, "error", err)
			}
		}
	}
}

// close stops the goroutine and waits for it (a merge in flight is cancelled and rolled back).
func (m *merger) close() {
	m.stop()
	<-m.done
}

// Merge merges project scope's index now, as the background merger does when writes make it due
// (see the package doc, "Storage"), except that every pending file is merged however few there
// are: pending files and the segments the merge policy picks become one segment, and the
// space of dead chunks is reclaimed. It returns when no merge is due. Operators and tests call
// it; a server never needs to. When another process (or this one's merger) is merging the
// project, Merge waits for it to finish first.
func (ix *Index) Merge(ctx context.Context, scope driver.Scope) error {
	pid, err := ix.projectID(ctx, scope, false)
	if err != nil || pid == 0 {
		return backendError(ctx, "finding the project", err)
	}
	return backendError(ctx, "merging the project's index", ix.mergeProject(ctx, pid, true))
}

// mergeProject merges while a merge is due (forced: the first round merges every pending file),
// then VACUUMs the tables whose dead rows have become a large share (see reclaim).
func (ix *Index) mergeProject(ctx context.Context, pid int64, force bool) error {
	mergedAny := false
	for round := 0; round < 16; round++ {
		c, merged, err := ix.mergeOnce(ctx, pid, force && round == 0)
		mergedAny = mergedAny || merged
		if err != nil || !merged || !ix.merger.isDue(c) {
			if mergedAny && err == nil {
				err = ix.reclaim(ctx)
			}
			return err
		}
	}
	return ix.reclaim(ctx)
}

// reclaimTables are the tables a merge rewrites: it deletes input segments and pending rows and
// repoints files rows (which writers update too).
var reclaimTables = []string{"mcp_search_segments", "mcp_search_pending", "mcp_search_files"}

// Reclaim thresholds: a table is VACUUMed once its dead rows (its own and its TOAST table's, as
// PostgreSQL's statistics count them) reach reclaimDeadShare of its live rows plus
// reclaimDeadMin.
const (
	reclaimDeadShare = 0.2
	reclaimDeadMin   = 1000
)

// reclaim VACUUMs those of the tables a merge rewrites whose dead rows have reached a fifth of
// their live rows. Until a VACUUM marks a deleted row's space free, PostgreSQL cannot reuse it,
// and every merge would grow the segments table by its whole output; autovacuum gets there
// eventually (its default naptime is a minute), a merge at once. A VACUUM reads the table's
// pages that hold dead rows and every page of its indexes, so it costs O(table), not O(merge);
// run only when the dead rows are a fixed share of the live ones, it costs O(1) per dead row
// whatever the tables' size, and a table stays within that share of its live size plus what
// was deleted since. The segments table's rows are few and large: its share is counted on its
// TOAST table, whose rows are ~2 KB slices of the segments, so it is a share of the bytes.
// SKIP_LOCKED leaves a table another VACUUM is processing.
func (ix *Index) reclaim(ctx context.Context) error {
	rows, err := ix.pool.Query(ctx, `SELECT t.name,
    coalesce(h.n_live_tup, 0) + coalesce(o.n_live_tup, 0), coalesce(h.n_dead_tup, 0) + coalesce(o.n_dead_tup, 0)
FROM unnest($1::text[]) AS t(name)
JOIN pg_class c ON c.oid = t.name::regclass
LEFT JOIN pg_stat_all_tables h ON h.relid = c.oid
LEFT JOIN pg_stat_all_tables o ON o.relid = c.reltoastrelid`, reclaimTables)
	if err != nil {
		return err
	}
	var due []string
	var name string
	var live, dead int64
	_, err = pgx.ForEachRow(rows, []any{&name, &live, &dead}, func() error {
		if reclaimDue(live, dead) {
			due = append(due, name)
		}
		return nil
	})
	if err != nil || len(due) == 0 {
		return err
	}
	_, err = ix.pool.Exec(ctx, "VACUUM (SKIP_LOCKED) "+strings.Join(due, ", "))
	return err
}

// reclaimDue: dead rows at least reclaimDeadShare of the live ones plus reclaimDeadMin.
func reclaimDue(live, dead int64) bool {
	return float64(dead) >= reclaimDeadShare*float64(live)+reclaimDeadMin
}

// segmentInfo is a segment's size: chunks stored and chunks some file still points at.
type segmentInfo struct {
	id        int64
	chunks    int64
	live      int64
	directory *chunkDir
	dict      *termDict
	postings  []byte
	oldToNew  []int32
}

// mergeFile is one live file whose chunks a merge copies.
type mergeFile struct {
	path    string
	writeID int64
	chunks  int
	pending *pendingFile // or, in a segment:
	seg     *segmentInfo
	first   int
	newBase int
}

// errMergeBusy: another process holds the project's merge lock.
var errMergeBusy = errors.New("another process is merging the project")

// mergeOnce runs one merge in one transaction. It picks its inputs (the merge policy):
//   - every pending file, when the pending chunks reach Options.MergePendingChunks (or forced);
//   - every segment whose chunks are more than 30% dead;
//   - then, smallest first, every segment with no more than twice the live chunks gathered so
//     far, so that segments grow geometrically and a project holds a logarithmic number of them,
//     up to maxSegmentChunks live chunks in the output.
//
// It copies the live chunks of those inputs, file by file in path order, into one new segment
// (directory row and one postings row per term, COPY), points the files at it, and deletes the
// input segments. A file rewritten or deleted meanwhile (its write id moved) is not pointed at
// the new segment; its copied chunks are dead there.
func (ix *Index) mergeOnce(ctx context.Context, pid int64, force bool) (mergeCounters, bool, error) {
	var c mergeCounters
	merged := false
	err := pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		// The background merger leaves a project another process is merging; a forced merge
		// (Index.Merge) waits for it, then merges what is left.
		if force {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1::int4, $2::int4)", mergeLockClass, int32(pid)); err != nil {
				return err
			}
		} else {
			var locked bool
			if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1::int4, $2::int4)", mergeLockClass, int32(pid)).Scan(&locked); err != nil {
				return err
			}
			if !locked {
				return errMergeBusy
			}
		}
		if err := tx.QueryRow(ctx, "SELECT pending_chunks, dead_chunks, chunk_count FROM mcp_search_projects WHERE id = $1", pid).Scan(&c.pending, &c.dead, &c.chunks); err != nil {
			return err
		}
		segs, err := readSegments(ctx, tx, pid)
		if err != nil {
			return err
		}
		withPending := c.pending > 0 && (force || c.pending >= ix.merger.pendingAt)
		inputs := pickSegments(segs, withPending, c.pending)
		if !withPending && len(inputs) == 0 {
			return nil
		}
		files, err := readMergeInputs(ctx, tx, pid, withPending, inputs)
		if err != nil {
			return err
		}
		dir, postings := buildSegment(files, inputs)
		ids := make([]int64, len(inputs))
		for i, s := range inputs {
			ids[i] = s.id
		}
		moved, err := writeSegment(ctx, tx, pid, files, dir, postings, ids)
		if err != nil {
			return err
		}
		merged = true
		// The counters move by what this merge changed, as a writer's do: the pending chunks of
		// the files it pointed at the new segment leave pending_chunks, and dead_chunks (chunks
		// in segments minus chunks of files in segments) gains the new segment's chunks, loses
		// the inputs' and loses the chunks that moved from pending into a segment. Files that
		// moved from an input segment stay in a segment; files rewritten or deleted meanwhile
		// were not touched here, and their writers moved the counters for them. The UPDATE
		// takes the project row's lock and adds to its latest committed values, so a writer's
		// delta, before or after, is kept: the cost is O(merge), not a recount of the project.
		var inputChunks int64
		for _, s := range inputs {
			inputChunks += s.chunks
		}
		return tx.QueryRow(ctx, `UPDATE mcp_search_projects SET
    pending_chunks = pending_chunks - $2, dead_chunks = dead_chunks + $3, generation = generation + 1
WHERE id = $1 RETURNING pending_chunks, dead_chunks, chunk_count`, pid, moved, int64(dir.len())-inputChunks-moved).Scan(&c.pending, &c.dead, &c.chunks)
	})
	if errors.Is(err, errMergeBusy) {
		return c, false, nil
	}
	return c, merged, err
}

// readSegments lists the project's segments with their live chunks (kept by writers and
// merges in live_chunks: O(segments), not a pass over the project's files).
func readSegments(ctx context.Context, tx pgx.Tx, pid int64) ([]*segmentInfo, error) {
	rows, err := tx.Query(ctx, "SELECT id, chunk_count, live_chunks FROM mcp_search_segments WHERE project_id = $1", pid)
	if err != nil {
		return nil, err
	}
	var out []*segmentInfo
	var s segmentInfo
	_, err = pgx.ForEachRow(rows, []any{&s.id, &s.chunks, &s.live}, func() error {
		c := s
		out = append(out, &c)
		return nil
	})
	return out, err
}

// maxSegmentChunks bounds the segments the size rule merges into (a merge holds its output's
// postings in memory: about 8 bytes per posting, some 60 postings per 400-byte chunk, so ~250 MB
// at this bound). Segments that large are only rewritten to drop dead chunks.
const maxSegmentChunks = 1 << 19

// pickSegments is the segment part of the merge policy (see mergeOnce).
func pickSegments(segs []*segmentInfo, withPending bool, pending int64) []*segmentInfo {
	slices.SortFunc(segs, func(a, b *segmentInfo) int { return cmp.Or(cmp.Compare(a.live, b.live), cmp.Compare(a.id, b.id)) })
	var acc int64
	if withPending {
		acc = pending
	}
	var out []*segmentInfo
	rest := segs[:0:0]
	for _, s := range segs {
		if 10*s.live < 7*s.chunks { // more than 30% dead
			out = append(out, s)
			acc += s.live
		} else {
			rest = append(rest, s)
		}
	}
	for _, s := range rest {
		if acc == 0 || s.live > 2*acc || acc+s.live > maxSegmentChunks {
			break
		}
		out = append(out, s)
		acc += s.live
	}
	return out
}

// readMergeInputs reads the live files of the inputs (pending ones when withPending) in path
// order, with the segments' directories and postings.
func readMergeInputs(ctx context.Context, tx pgx.Tx, pid int64, withPending bool, segs []*segmentInfo) ([]mergeFile, error) {
	byID := make(map[int64]*segmentInfo, len(segs))
	ids := make([]int64, 0, len(segs))
	for _, s := range segs {
		byID[s.id] = s
		ids = append(ids, s.id)
	}
	rows, err := tx.Query(ctx, `SELECT f.file_path, f.write_id, f.chunk_count, p.data, f.segment_id, f.first_chunk
FROM mcp_search_files f LEFT JOIN mcp_search_pending p ON p.write_id = f.write_id AND f.segment_id IS NULL
WHERE f.project_id = $1 AND f.chunk_count > 0 AND NOT f.legacy AND (($2 AND f.segment_id IS NULL) OR f.segment_id = ANY($3))
ORDER BY f.file_path`, pid, withPending, ids)
	if err != nil {
		return nil, err
	}
	var files []mergeFile
	var f mergeFile
	var chunks int32
	var raw []byte
	var seg *int64
	var first *int32
	_, err = pgx.ForEachRow(rows, []any{&f.path, &f.writeID, &chunks, &raw, &seg, &first}, func() error {
		f.chunks, f.pending, f.seg, f.first = int(chunks), nil, nil, 0
		switch {
		case seg != nil && first != nil:
			f.seg, f.first = byID[*seg], int(*first)
		case raw != nil:
			p, err := decodePending(raw)
			if err != nil {
				return err
			}
			f.pending = p
		default:
			return errCorrupt // a pending file without its pending row
		}
		raw = nil
		files = append(files, f)
		return nil
	})
	if err != nil || len(segs) == 0 {
		return files, err
	}
	rows, err = tx.Query(ctx, "SELECT id, directory, terms, postings FROM mcp_search_segments WHERE id = ANY($1)", ids)
	if err != nil {
		return nil, err
	}
	var id int64
	var terms, postings []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &raw, &terms, &postings}, func() error {
		s := byID[id]
		var err error
		if s.directory, err = decodeDirectory(raw); err != nil {
			return err
		}
		if s.dict, err = decodeTermDict(terms); err != nil {
			return err
		}
		s.postings = postings
		raw, terms, postings = nil, nil, nil
		return nil
	})
	return files, err
}

// buildSegment lays the files' chunks out one file after another and gathers each term's
// postings over the new ordinals.
func buildSegment(files []mergeFile, segs []*segmentInfo) (*chunkDir, map[string][]posting) {
	dir := &chunkDir{}
	for _, s := range segs {
		if s.directory != nil {
			s.oldToNew = slices.Repeat([]int32{-1}, s.directory.len())
		}
	}
	postings := make(map[string][]posting)
	for i := range files {
		f := &files[i]
		f.newBase = dir.len()
		src, from := (*chunkDir)(nil), 0
		switch {
		case f.pending != nil:
			src = &f.pending.dir
			for t, b := range f.pending.blocks {
				_ = forEachPosting(b, func(ord, tf int) {
					if ord < f.chunks {
						postings[t] = append(postings[t], posting{ord: int32(f.newBase + ord), tf: int32(tf)})
					}
				})
			}
		case f.seg != nil && f.seg.directory != nil:
			src, from = f.seg.directory, f.first
			for j := range f.chunks {
				if from+j < len(f.seg.oldToNew) {
					f.seg.oldToNew[from+j] = int32(f.newBase + j)
				}
			}
		default:
			continue
		}
		for j := range f.chunks {
			if from+j < src.len() {
				dir.append(src.start[from+j], src.end[from+j], int(src.terms[from+j]), src.hash(from+j))
			}
		}
	}
	for _, s := range segs {
		if s.dict == nil {
			continue
		}
		for i, t := range s.dict.terms {
			off, size := int(s.dict.off[i]), int(s.dict.size[i])
			if off+size > len(s.postings) {
				continue
			}
			_ = forEachPosting(s.postings[off:off+size], func(ord, tf int) {
				if ord < len(s.oldToNew) && s.oldToNew[ord] >= 0 {
					postings[t] = append(postings[t], posting{ord: s.oldToNew[ord], tf: int32(tf)})
				}
			})
		}
	}
	byOrd := func(a, b posting) int { return cmp.Compare(a.ord, b.ord) }
	for t, ps := range postings {
		if !slices.IsSortedFunc(ps, byOrd) {
			slices.SortFunc(ps, byOrd)
			postings[t] = ps
		}
	}
	return dir, postings
}

// writeSegment stores the new segment, points the unchanged files at it (dropping their pending
// rows) and deletes the inputs. It returns the chunks of the pending files it pointed at the
// segment.
func writeSegment(ctx context.Context, tx pgx.Tx, pid int64, files []mergeFile, dir *chunkDir, postings map[string][]posting, inputs []int64) (int64, error) {
	var moved int64
	if dir.len() > 0 {
		dict, blocks := encodeSegmentPostings(postings)
		var seg int64
		if err := tx.QueryRow(ctx, "INSERT INTO mcp_search_segments (project_id, chunk_count, directory, terms, postings) VALUES ($1, $2, $3, $4, $5) RETURNING id",
			pid, dir.len(), encodeDirectory(dir), dict, blocks).Scan(&seg); err != nil {
			return 0, err
		}
		paths := make([]string, 0, len(files))
		writes := make([]int64, 0, len(files))
		firsts := make([]int32, 0, len(files))
		wasPending := make([]bool, 0, len(files))
		for _, f := range files {
			paths, writes, firsts = append(paths, f.path), append(writes, f.writeID), append(firsts, int32(f.newBase))
			wasPending = append(wasPending, f.pending != nil)
		}
		// A file whose write id still matches is the row the merge read (only merges move a row
		// without a new write id, and they hold the project's merge lock), so it was pending
		// exactly when the merge read it from a pending row. The files pointed at the segment
		// are its live chunks; their rows stay locked until the merge commits, so no writer can
		// move them off it before the count is visible.
		if err := tx.QueryRow(ctx, `WITH u AS (
    UPDATE mcp_search_files f SET segment_id = $2, first_chunk = m.first, write_xact = pg_current_xact_id()
    FROM unnest($3::text[], $4::bigint[], $5::int[], $6::bool[]) AS m(path, write_id, first, pending)
    WHERE f.project_id = $1 AND f.file_path = m.path AND f.write_id = m.write_id
    RETURNING f.write_id, f.chunk_count, CASE WHEN m.pending THEN f.chunk_count ELSE 0 END AS moved
), d AS (
    DELETE FROM mcp_search_pending WHERE write_id IN (SELECT write_id FROM u)
)
UPDATE mcp_search_segments SET live_chunks = (SELECT coalesce(sum(chunk_count), 0) FROM u)
WHERE id = $2 RETURNING (SELECT coalesce(sum(moved), 0) FROM u)`, pid, seg, paths, writes, firsts, wasPending).Scan(&moved); err != nil {
			return 0, err
		}
	}
	if len(inputs) == 0 {
		return moved, nil
	}
	_, err := tx.Exec(ctx, "DELETE FROM mcp_search_segments WHERE id = ANY($1)", inputs)
	return moved, err
}
