package memindex

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
)

// Index is an in-memory search.Index. It is safe for concurrent use: queries of one project run
// in parallel under a read lock, writes to one project are serialised, and projects are
// independent.
type Index struct {
	mu       sync.RWMutex
	projects map[fileio.Scope]*project
}

var (
	_ search.Index           = (*Index)(nil)
	_ search.FileStateLister = (*Index)(nil)
)

// Codes lists every code an Index returns: INVALID_ARGUMENT for a malformed IndexedFile, and
// TIMEOUT and CANCELED when the context has ended.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{agentfiles.CodeInvalidArgument, agentfiles.CodeTimeout, agentfiles.CodeCanceled}
}

// New returns an empty index.
func New() *Index {
	return &Index{projects: make(map[fileio.Scope]*project)}
}

// project holds one (tenant, project). Chunks live in slots; a freed slot's generation is
// bumped so postings that still name it are recognised as dead and skipped (and compacted away
// once they are half of a list). Vectors live apart from the slots, in one tiled vectorStore per
// (model, dims); see vectors.go.
type project struct {
	mu       sync.RWMutex
	files    map[string]*file
	order    []*file // the files sorted by path
	slots    []slot
	meta     []slotMeta // parallel to slots: what the postings walk reads
	free     []int32
	postings map[string]*postingList
	vectors  map[vectorKey]*vectorStore
	stats    search.CorpusStats
	changes  uint64 // bumped whenever files change; says when states is stale

	lexPool sync.Pool // *lexScratch

	statesMu sync.Mutex
	states   stateSnapshot
}

type file struct {
	path      string
	version   time.Time
	model     string
	tokenizer string
	dims      int // vector size; 0 for a lexical-only file
	slots     []int32
}

// slot is one chunk; file is nil while the slot is free.
type slot struct {
	file       *file
	chunk      search.Chunk
	terms      []termFreq
	lastServed time.Time
}

// slotMeta is the part of a slot that the postings walk needs, kept in a dense array.
type slotMeta struct {
	gen        uint32 // bumped when the slot is freed
	chunkTerms int32  // BM25 document length (a chunk is far shorter than 2³¹ terms)
}

type termFreq struct {
	term string
	tf   int32
}

type postingList struct {
	entries []posting
	dead    int
}

type posting struct {
	slot int32
	gen  uint32
	tf   int32
}

func (ix *Index) get(scope fileio.Scope) *project {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.projects[scope]
}

// lookup returns scope's project, nil when it has never been written, or the context's error.
func (ix *Index) lookup(ctx context.Context, scope fileio.Scope) (*project, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix.get(scope), nil
}

func (ix *Index) getOrCreate(scope fileio.Scope) *project {
	if p := ix.get(scope); p != nil {
		return p
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	p := ix.projects[scope]
	if p == nil {
		p = &project{files: make(map[string]*file), postings: make(map[string]*postingList), vectors: make(map[vectorKey]*vectorStore)}
		ix.projects[scope] = p
	}
	return p
}

// ReplaceFile implements search.Index.
func (ix *Index) ReplaceFile(ctx context.Context, scope fileio.Scope, f search.IndexedFile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dims, err := f.VectorDims()
	if err != nil {
		return err
	}
	p := ix.getOrCreate(scope)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.files[f.Path]; old != nil && old.version.After(f.FileUpdatedAt) {
		return nil // never go back to an older version
	}
	p.remove(f.Path)
	p.changes++
	nf := &file{path: f.Path, version: f.FileUpdatedAt, model: f.EmbeddingModel, tokenizer: f.Tokenizer, dims: dims}
	var vs *vectorStore
	if dims > 0 {
		key := vectorKey{f.EmbeddingModel, dims}
		if vs = p.vectors[key]; vs == nil {
			vs = newVectorStore(dims)
			p.vectors[key] = vs
		}
	}
	for i, c := range f.Chunks {
		s := slot{file: nf, chunk: c.Chunk}
		s.chunk.Index = i
		s.terms = make([]termFreq, 0, len(c.Terms))
		for t, tf := range c.Terms {
			s.terms = append(s.terms, termFreq{t, int32(tf)})
		}
		id := p.alloc()
		p.slots[id] = s
		p.meta[id].chunkTerms = int32(c.ChunkTerms)
		gen := p.meta[id].gen
		if vs != nil {
			vs.put(id, c.Vector)
		}
		for _, t := range s.terms {
			pl := p.postings[t.term]
			if pl == nil {
				pl = &postingList{}
				p.postings[t.term] = pl
			}
			pl.entries = append(pl.entries, posting{slot: id, gen: gen, tf: t.tf})
		}
		p.stats.Chunks++
		p.stats.TotalTerms += int64(c.ChunkTerms)
		nf.slots = append(nf.slots, id)
	}
	p.files[f.Path] = nf
	i, _ := p.orderIndex(f.Path)
	p.order = slices.Insert(p.order, i, nf)
	return nil
}

// orderIndex finds path in p.order (or where it belongs).
func (p *project) orderIndex(path string) (int, bool) {
	return slices.BinarySearchFunc(p.order, path, func(f *file, path string) int { return strings.Compare(f.path, path) })
}

func (p *project) alloc() int32 {
	if n := len(p.free); n > 0 {
		id := p.free[n-1]
		p.free = p.free[:n-1]
		return id
	}
	p.slots = append(p.slots, slot{})
	p.meta = append(p.meta, slotMeta{})
	return int32(len(p.slots) - 1)
}

// remove drops path's chunks; the caller holds p.mu.
func (p *project) remove(path string) {
	f := p.files[path]
	if f == nil {
		return
	}
	vs := p.vectors[vectorKey{f.model, f.dims}]
	for _, id := range f.slots {
		s, m := &p.slots[id], &p.meta[id]
		for _, t := range s.terms {
			pl := p.postings[t.term]
			pl.dead++
			if pl.dead == len(pl.entries) {
				delete(p.postings, t.term)
			} else if pl.dead > 16 && 2*pl.dead > len(pl.entries) {
				p.compact(pl, id, m.gen)
			}
		}
		if vs != nil {
			vs.drop(id)
		}
		p.stats.Chunks--
		p.stats.TotalTerms -= int64(m.chunkTerms)
		*s = slot{}
		*m = slotMeta{gen: m.gen + 1}
		p.free = append(p.free, id)
	}
	if vs != nil && vs.count == 0 {
		delete(p.vectors, vectorKey{f.model, f.dims}) // the last vector of a model: free its tiles
	}
	delete(p.files, path)
	if i, ok := p.orderIndex(path); ok {
		p.order = slices.Delete(p.order, i, i+1)
	}
	p.changes++
}

// compact removes dead postings; the slot being removed (id, gen) counts as dead already.
func (p *project) compact(pl *postingList, id int32, gen uint32) {
	live := pl.entries[:0]
	for _, e := range pl.entries {
		if e.slot == id && e.gen == gen {
			continue
		}
		if p.meta[e.slot].gen == e.gen {
			live = append(live, e)
		}
	}
	clear(pl.entries[len(live):])
	pl.entries = live
	pl.dead = 0
}

// DeleteFile implements search.Index.
func (ix *Index) DeleteFile(ctx context.Context, scope fileio.Scope, path string, upTo time.Time) error {
	p, err := ix.lookup(ctx, scope)
	if p == nil {
		return err
	}
	p.mu.Lock()
	if f := p.files[path]; f != nil && !f.version.After(upTo) {
		p.remove(path)
	}
	p.mu.Unlock()
	return nil
}

// FileStates implements search.Index from the same sorted list as FileStateList.
func (ix *Index) FileStates(ctx context.Context, scope fileio.Scope, prefix string) (map[string]search.FileState, error) {
	return search.FileStatesOf(ctx, ix, scope, prefix)
}

// FileStateList implements search.FileStateLister. The project's sorted list is rebuilt (in
// path order, without sorting) on the first call after files change and shared until the next
// change; a prefix selects a sub-slice of it by binary search.
func (ix *Index) FileStateList(ctx context.Context, scope fileio.Scope, prefix string) ([]search.PathFileState, error) {
	p, err := ix.lookup(ctx, scope)
	if p == nil {
		return nil, err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	p.statesMu.Lock()
	defer p.statesMu.Unlock()
	if c := &p.states; c.list == nil || c.changes != p.changes {
		c.list = make([]search.PathFileState, len(p.order))
		for i, f := range p.order {
			c.list[i] = search.PathFileState{Path: f.path, FileState: search.FileState{FileUpdatedAt: f.version, EmbeddingModel: f.model, Tokenizer: f.tokenizer, Chunks: len(f.slots)}}
		}
		c.changes = p.changes
	}
	list := p.states.list
	return search.StatesWithPrefix(list, prefix), nil
}

// stateSnapshot is the project's files as a sorted FileStateList, valid while changes is
// current. Once built it is never modified: callers share it.
type stateSnapshot struct {
	changes uint64
	list    []search.PathFileState
}

// ranked is slot id with its score, ready for a search.TopK.
func (p *project) ranked(id int32, score float64) search.Ranked[int32] {
	s := &p.slots[id]
	return search.Ranked[int32]{Score: score, Path: s.file.path, Index: s.chunk.Index, Value: id}
}

// candidates turns ranked slots into the Candidates a query returns, in the same order.
func (p *project) candidates(best []search.Ranked[int32]) []search.Candidate {
	out := make([]search.Candidate, len(best))
	for i, r := range best {
		s := &p.slots[r.Value]
		out[i] = search.Candidate{Path: s.file.path, FileUpdatedAt: s.file.version, Chunk: s.chunk, Score: r.Score}
	}
	return out
}

// MarkServed implements search.Index.
func (ix *Index) MarkServed(ctx context.Context, scope fileio.Scope, refs []search.ChunkRef, at time.Time) error {
	p, err := ix.lookup(ctx, scope)
	if p == nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range refs {
		f := p.files[r.Path]
		if f == nil || !f.version.Equal(r.FileUpdatedAt) || r.ChunkIndex < 0 || r.ChunkIndex >= len(f.slots) {
			continue
		}
		p.slots[f.slots[r.ChunkIndex]].lastServed = at
	}
	return nil
}

// Chunks implements search.Index.
func (ix *Index) Chunks(ctx context.Context, scope fileio.Scope, path string) ([]search.StoredChunk, error) {
	p, err := ix.lookup(ctx, scope)
	if p == nil {
		return nil, err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	f := p.files[path]
	if f == nil {
		return nil, nil
	}
	out := make([]search.StoredChunk, len(f.slots))
	for i, id := range f.slots {
		s := &p.slots[id]
		terms := make(map[string]int, len(s.terms))
		for _, t := range s.terms {
			terms[t.term] = int(t.tf)
		}
		var vector []float32
		if vs := p.vectors[vectorKey{f.model, f.dims}]; vs != nil {
			vector = vs.row(id, make([]float32, f.dims))
		}
		out[i] = search.StoredChunk{
			IndexedChunk:   search.IndexedChunk{Chunk: s.chunk, Terms: terms, ChunkTerms: int(p.meta[id].chunkTerms), Vector: vector},
			Path:           f.path,
			FileUpdatedAt:  f.version,
			EmbeddingModel: f.model,
			Tokenizer:      f.tokenizer,
			LastServedAt:   s.lastServed,
		}
	}
	return out, nil
}
