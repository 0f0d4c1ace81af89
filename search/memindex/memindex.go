package memindex

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// Index is an in-memory indexdriver.Index. It is safe for concurrent use: queries of one project run
// in parallel under a read lock, writes to one project are serialised, and projects are
// independent.
type Index struct {
	mu       sync.RWMutex
	projects map[driver.Scope]*project
}

var (
	_ indexdriver.Index           = (*Index)(nil)
	_ indexdriver.FileStateLister = (*Index)(nil)
)

// Codes lists every code an Index returns: INVALID_ARGUMENT for a malformed IndexedFile, and
// TIMEOUT and CANCELED when the context has ended.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{agentfiles.CodeInvalidArgument, agentfiles.CodeTimeout, agentfiles.CodeCanceled}
}

// New returns an empty index.
func New() *Index {
	return &Index{projects: make(map[driver.Scope]*project)}
}

// project holds one (tenant, project). Chunks live in slots; a freed slot is marked dead
// (slotMeta.chunkTerms −1) so postings that still name it are skipped (and compacted away once
// they are half of a list), and is reused only after purge has removed all of them. Each chunk
// keeps its terms as IDs of the project's posting lists (chunkTerms, terms.go). Vectors live
// apart from the slots, in one tiled vectorStore per (model, dims); see vectors.go and quant.go.
type project struct {
	mu       sync.RWMutex
	files    map[string]*file
	order    []*file // the files sorted by path
	slots    []slot
	meta     []slotMeta // parallel to slots: what the postings walk reads
	free     []int32    // slots no posting names: free for reuse
	limbo    []int32    // freed slots that dead postings may still name (see purge)
	postings map[string]*postingList
	termList []*postingList // by term ID; nil for a free ID
	freeTerm []uint32       // term IDs free for reuse
	vectors  map[vectorKey]*vectorStore
	stats    indexdriver.CorpusStats
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
	chunk      indexdriver.Chunk
	terms      chunkTerms // the chunk's distinct terms with their frequencies
	lastServed time.Time
}

// slotMeta is the part of a slot that the postings walk needs, kept in a dense array.
type slotMeta struct {
	chunkTerms int32 // BM25 document length (a chunk is far shorter than 2³¹ terms); -1: freed
}

// postingList is a term's postings: 4 bytes each (slot<<8 | tf) while every slot is below 2²⁴
// and every frequency below 256, as good as always; 8 bytes each (posting) once one is not.
type postingList struct {
	term   string // the key in project.postings
	id     uint32 // the index in project.termList
	narrow []uint32
	wide   []posting // nil while narrow serves
	dead   int
}

// posting is one chunk of a term's list. A freed slot is not reused until every posting that
// names it is gone (project.purge), so a posting whose slot is live is always current.
type posting struct {
	slot int32
	tf   int32
}

// size is the number of postings, dead ones included.
func (pl *postingList) size() int { return len(pl.narrow) + len(pl.wide) }

// add appends a posting.
func (pl *postingList) add(slot int32, tf int) {
	if pl.wide == nil && slot < 1<<24 && tf >= 0 && tf < 256 {
		pl.narrow = append(pl.narrow, uint32(slot)<<8|uint32(tf))
		return
	}
	if pl.wide == nil {
		wide := make([]posting, 0, len(pl.narrow)+1)
		for e := range pl.all() {
			wide = append(wide, e)
		}
		pl.wide, pl.narrow = wide, nil
	}
	pl.wide = append(pl.wide, posting{slot, int32(tf)})
}

// all yields the postings in order.
func (pl *postingList) all() iter.Seq[posting] {
	return func(yield func(posting) bool) {
		for _, e := range pl.narrow {
			if !yield(posting{int32(e >> 8), int32(e & 0xff)}) {
				return
			}
		}
		for _, e := range pl.wide {
			if !yield(e) {
				return
			}
		}
	}
}

func (ix *Index) get(scope driver.Scope) *project {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.projects[scope]
}

// lookup returns scope's project, nil when it has never been written, or the context's error.
func (ix *Index) lookup(ctx context.Context, scope driver.Scope) (*project, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix.get(scope), nil
}

func (ix *Index) getOrCreate(scope driver.Scope) *project {
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

// ReplaceFile implements indexdriver.Index.
func (ix *Index) ReplaceFile(ctx context.Context, scope driver.Scope, f indexdriver.IndexedFile) error {
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
	nf := &file{path: f.Path, version: f.FileUpdatedAt, model: f.EmbeddingModel, tokenizer: f.Tokenizer, dims: dims, slots: make([]int32, 0, len(f.Chunks))}
	var vs *vectorStore
	if dims > 0 {
		key := vectorKey{f.EmbeddingModel, dims}
		if vs = p.vectors[key]; vs == nil {
			vs = newVectorStore(dims)
			p.vectors[key] = vs
		}
	}
	var enc termEncoder
	for i, c := range f.Chunks {
		id := p.alloc()
		p.slots[id] = slot{file: nf, chunk: c.Chunk}
		p.slots[id].chunk.Index = i
		p.slots[id].chunk.Text = "" // offsets only: the Searcher reads the text from the file
		p.meta[id].chunkTerms = int32(c.ChunkTerms)
		if vs != nil {
			vs.put(id, c.Vector)
		}
		enc.start()
		for t, tf := range c.Terms {
			pl := p.postings[t]
			if pl == nil {
				pl = p.newTerm(t)
			}
			pl.add(id, tf)
			enc.add(pl.id, tf)
		}
		enc.end()
		p.stats.Chunks++
		p.stats.TotalTerms += int64(c.ChunkTerms)
		nf.slots = append(nf.slots, id)
	}
	for i, terms := range enc.finish() { // one allocation for the file's term lists
		p.slots[nf.slots[i]].terms = terms
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
		p.stats.Chunks--
		p.stats.TotalTerms -= int64(m.chunkTerms)
		m.chunkTerms = -1 // dead from here on: compact drops its postings
		for term := range s.terms.all() {
			pl := p.termList[term.id]
			pl.dead++
			if pl.dead == pl.size() {
				p.dropTerm(pl)
			} else if pl.dead > 16 && 2*pl.dead > pl.size() {
				p.compact(pl)
			}
		}
		if vs != nil {
			vs.drop(id)
		}
		*s = slot{}
		p.limbo = append(p.limbo, id)
	}
	if len(p.limbo) >= max(256, len(p.slots)/8) {
		p.purge()
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

// compact removes the postings of freed slots from pl.
func (p *project) compact(pl *postingList) {
	if pl.wide != nil {
		pl.wide = slices.DeleteFunc(pl.wide, func(e posting) bool { return p.meta[e.slot].chunkTerms < 0 })
	}
	pl.narrow = slices.DeleteFunc(pl.narrow, func(e uint32) bool { return p.meta[e>>8].chunkTerms < 0 })
	pl.dead = 0
}

// purge compacts every posting list that names a freed slot, after which no posting names the
// slots in limbo and they can be reused. It runs once an eighth of the slots (at least 256)
// wait, so its cost, one pass over the affected lists, is shared by that many removed chunks.
func (p *project) purge() {
	for _, pl := range p.termList {
		if pl != nil && pl.dead > 0 {
			p.compact(pl)
		}
	}
	p.free = append(p.free, p.limbo...)
	p.limbo = p.limbo[:0]
}

// DeleteFile implements indexdriver.Index.
func (ix *Index) DeleteFile(ctx context.Context, scope driver.Scope, path string, upTo time.Time) error {
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

// FileStates implements indexdriver.Index by binary search in the project's files sorted by path: it
// costs O(log n + matches) for a project of n files, so the Indexer's one-file question per job
// does not grow with the project (FileStateList's shared list is rebuilt after every change).
func (ix *Index) FileStates(ctx context.Context, scope driver.Scope, prefix string) (map[string]indexdriver.FileState, error) {
	p, err := ix.lookup(ctx, scope)
	if p == nil {
		if err != nil {
			return nil, err
		}
		return map[string]indexdriver.FileState{}, nil
	}
	out := make(map[string]indexdriver.FileState)
	p.mu.RLock()
	defer p.mu.RUnlock()
	i, _ := p.orderIndex(prefix)
	for _, f := range p.order[i:] {
		if !strings.HasPrefix(f.path, prefix) {
			break
		}
		out[f.path] = indexdriver.FileState{FileUpdatedAt: f.version, EmbeddingModel: f.model, Tokenizer: f.tokenizer, Chunks: len(f.slots)}
	}
	return out, nil
}

// FileStateList implements indexdriver.FileStateLister. The project's sorted list is rebuilt (in
// path order, without sorting) on the first call after files change and shared until the next
// change; a prefix selects a sub-slice of it by binary search.
func (ix *Index) FileStateList(ctx context.Context, scope driver.Scope, prefix string) ([]indexdriver.PathFileState, error) {
	p, err := ix.lookup(ctx, scope)
	if p == nil {
		return nil, err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	p.statesMu.Lock()
	defer p.statesMu.Unlock()
	if c := &p.states; c.list == nil || c.changes != p.changes {
		c.list = make([]indexdriver.PathFileState, len(p.order))
		for i, f := range p.order {
			c.list[i] = indexdriver.PathFileState{Path: f.path, FileState: indexdriver.FileState{FileUpdatedAt: f.version, EmbeddingModel: f.model, Tokenizer: f.tokenizer, Chunks: len(f.slots)}}
		}
		c.changes = p.changes
	}
	list := p.states.list
	return indexdriver.StatesWithPrefix(list, prefix), nil
}

// stateSnapshot is the project's files as a sorted FileStateList, valid while changes is
// current. Once built it is never modified: callers share it.
type stateSnapshot struct {
	changes uint64
	list    []indexdriver.PathFileState
}

// ranked is slot id with its score, ready for a indexdriver.TopK.
func (p *project) ranked(id int32, score float64) indexdriver.Ranked[int32] {
	s := &p.slots[id]
	return indexdriver.Ranked[int32]{Score: score, Path: s.file.path, Index: s.chunk.Index, Value: id}
}

// candidates turns ranked slots into the Candidates a query returns, in the same order.
func (p *project) candidates(best []indexdriver.Ranked[int32]) []indexdriver.Candidate {
	out := make([]indexdriver.Candidate, len(best))
	for i, r := range best {
		s := &p.slots[r.Value]
		out[i] = indexdriver.Candidate{Path: s.file.path, FileUpdatedAt: s.file.version, Chunk: s.chunk, Score: r.Score}
	}
	return out
}

// MarkServed implements indexdriver.Index.
func (ix *Index) MarkServed(ctx context.Context, scope driver.Scope, refs []indexdriver.ChunkRef, at time.Time) error {
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

// Chunks implements indexdriver.Index.
func (ix *Index) Chunks(ctx context.Context, scope driver.Scope, path string) ([]indexdriver.StoredChunk, error) {
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
	out := make([]indexdriver.StoredChunk, len(f.slots))
	for i, id := range f.slots {
		s := &p.slots[id]
		terms := make(map[string]int)
		for t := range s.terms.all() {
			terms[p.termList[t.id].term] = t.tf
		}
		var vector []float32
		if vs := p.vectors[vectorKey{f.model, f.dims}]; vs != nil {
			vector = vs.row(id, make([]float32, f.dims))
		}
		out[i] = indexdriver.StoredChunk{
			IndexedChunk:   indexdriver.IndexedChunk{Chunk: s.chunk, Terms: terms, ChunkTerms: int(p.meta[id].chunkTerms), Vector: vector},
			Path:           f.path,
			FileUpdatedAt:  f.version,
			EmbeddingModel: f.model,
			Tokenizer:      f.tokenizer,
			LastServedAt:   s.lastServed,
		}
	}
	return out, nil
}
