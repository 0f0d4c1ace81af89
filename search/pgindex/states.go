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

// DefaultFileStateCacheBytes is the default bound of the in-process cache of file states.
const DefaultFileStateCacheBytes int64 = 32 << 20

var _ search.FileStateLister = (*Index)(nil)

// stateCache keeps, per project, the sorted list of its indexed file states, valid for one value
// of the project's generation counter (bumped by every ReplaceFile and DeleteFile of any process
// in its transaction). A query checks the counter with one primary-key read and shares the
// cached list while it has not moved; when it moved, the first query to notice reloads the list
// in one statement (one snapshot) while the others wait for it. Entries are evicted
// least-recently-used beyond maxBytes; a project bigger than maxBytes is never cached. The
// caching is genCache's; it is safe for concurrent use.
type stateCache struct {
	*genCache[int64, stateSnapshot] // keyed by project ID
}

// stateSnapshot is immutable once published: its list is handed to callers as it is.
type stateSnapshot struct {
	generation int64
	list       []search.PathFileState // sorted by path, bytewise
	bytes      int64
}

func newStateCache(maxBytes int64) *stateCache {
	return &stateCache{newGenCache[int64](maxBytes,
		func(s *stateSnapshot) int64 { return s.generation },
		func(s *stateSnapshot) int64 { return s.bytes })}
}

const sqlGeneration = "SELECT generation FROM mcp_search_projects WHERE id = $1"

// sqlFileStates reads the project's generation and, in the same snapshot, its files in path
// order ("C" collation: bytewise, as Go compares strings).
const sqlFileStates = `SELECT pr.generation, f.file_path, f.file_updated_at, f.file_updated_ns, f.embedding_model, f.tokenizer, f.chunk_count
FROM mcp_search_projects pr LEFT JOIN LATERAL (
    SELECT file_path, file_updated_at, file_updated_ns, embedding_model, tokenizer, chunk_count
    FROM mcp_search_files WHERE project_id = pr.id ORDER BY file_path) f ON true
WHERE pr.id = $1`

// snapshot returns the up-to-date sorted states of project pid.
func (c *stateCache) snapshot(ctx context.Context, ix *Index, pid int64) (*stateSnapshot, error) {
	var gen int64
	if err := ix.pool.QueryRow(ctx, sqlGeneration, pid).Scan(&gen); err != nil {
		return nil, err
	}
	return c.get(pid, gen, func(*stateSnapshot) (*stateSnapshot, error) { return loadStates(ctx, ix, pid) })
}

// loadStates reads the project's generation and sorted file states in one statement.
func loadStates(ctx context.Context, ix *Index, pid int64) (*stateSnapshot, error) {
	rows, err := ix.pool.Query(ctx, sqlFileStates, pid)
	if err != nil {
		return nil, err
	}
	s := &stateSnapshot{}
	var path, model, tokenizer *string
	var at *time.Time
	var ns, chunks *int32
	_, err = pgx.ForEachRow(rows, []any{&s.generation, &path, &at, &ns, &model, &tokenizer, &chunks}, func() error {
		if path == nil {
			return nil // no files
		}
		s.list = append(s.list, search.PathFileState{Path: *path, FileState: search.FileState{
			FileUpdatedAt: joinVersion(*at, *ns), EmbeddingModel: *model, Tokenizer: *tokenizer, Chunks: int(*chunks)}})
		s.bytes += int64(len(*path) + len(*model) + len(*tokenizer) + 64)
		return nil
	})
	if err != nil {
		return nil, err
	}
	byPath := func(a, b search.PathFileState) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(s.list, byPath) {
		slices.SortFunc(s.list, byPath)
	}
	s.list = slices.Clip(s.list)
	return s, nil
}

// FileStateList implements search.FileStateLister: the indexed states sorted by path. The
// project's list is cached in process and shared (read-only) until the project's generation
// counter shows that some process changed it, so a query usually costs one primary-key read; a
// prefix selects a sub-slice by binary search.
func (ix *Index) FileStateList(ctx context.Context, scope fileio.Scope, prefix string) ([]search.PathFileState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pid, err := ix.projectID(ctx, scope, false)
	if err != nil || pid == 0 {
		return nil, backendError(ctx, "finding the project", err)
	}
	var s *stateSnapshot
	if ix.states != nil {
		s, err = ix.states.snapshot(ctx, ix, pid)
	} else {
		s, err = loadStates(ctx, ix, pid)
	}
	if err != nil {
		return nil, backendError(ctx, "reading file states", err)
	}
	list := s.list
	return search.StatesWithPrefix(list, prefix), nil
}

// FileStates implements search.Index from the same sorted list as FileStateList.
func (ix *Index) FileStates(ctx context.Context, scope fileio.Scope, prefix string) (map[string]search.FileState, error) {
	return search.FileStatesOf(ctx, ix, scope, prefix)
}
