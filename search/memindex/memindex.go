package memindex

import (
	"container/heap"
	"context"
	"runtime"
	"strings"
	"sync"
	"time"

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

var _ search.Index = (*Index)(nil)

// New returns an empty index.
func New() *Index {
	return &Index{projects: make(map[fileio.Scope]*project)}
}

// project holds one (tenant, project). Chunks live in slots; a freed slot's generation is
// bumped so postings that still name it are recognised as dead and skipped (and compacted away
// once they are half of a list).
type project struct {
	mu       sync.RWMutex
	files    map[string]*file
	slots    []slot
	free     []int32
	postings map[string]*postingList
	stats    search.CorpusStats
	scratch  sync.Pool // *[]float64 of len(slots), zeroed between uses
}

type file struct {
	path      string
	version   time.Time
	model     string
	tokenizer string
	slots     []int32
}

type slot struct {
	live       bool
	gen        uint32
	file       *file
	chunk      search.Chunk
	terms      []termFreq
	chunkTerms int
	vector     []float32
	lastServed time.Time
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

func (ix *Index) getOrCreate(scope fileio.Scope) *project {
	if p := ix.get(scope); p != nil {
		return p
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	p := ix.projects[scope]
	if p == nil {
		p = &project{files: make(map[string]*file), postings: make(map[string]*postingList)}
		ix.projects[scope] = p
	}
	return p
}

// ReplaceFile implements search.Index.
func (ix *Index) ReplaceFile(ctx context.Context, scope fileio.Scope, f search.IndexedFile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dims := -1
	for _, c := range f.Chunks {
		if (len(c.Vector) > 0) != (f.EmbeddingModel != "") || (dims >= 0 && len(c.Vector) != dims) {
			return search.NewError(search.CodeInvalidArgument, "every chunk of an embedded file needs a vector of one size, and a lexical-only file none", f.Path)
		}
		dims = len(c.Vector)
	}
	p := ix.getOrCreate(scope)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.files[f.Path]; old != nil && old.version.After(f.FileUpdatedAt) {
		return nil // never go back to an older version
	}
	p.remove(f.Path)
	nf := &file{path: f.Path, version: f.FileUpdatedAt, model: f.EmbeddingModel, tokenizer: f.Tokenizer}
	var arena []float32
	if dims > 0 {
		arena = make([]float32, dims*len(f.Chunks))
	}
	for i, c := range f.Chunks {
		s := slot{live: true, file: nf, chunk: c.Chunk, chunkTerms: c.ChunkTerms}
		s.chunk.Index = i
		if dims > 0 {
			s.vector = arena[i*dims : (i+1)*dims : (i+1)*dims]
			copy(s.vector, c.Vector)
		}
		s.terms = make([]termFreq, 0, len(c.Terms))
		for t, tf := range c.Terms {
			s.terms = append(s.terms, termFreq{t, int32(tf)})
		}
		id := p.alloc()
		s.gen = p.slots[id].gen
		p.slots[id] = s
		for _, t := range s.terms {
			pl := p.postings[t.term]
			if pl == nil {
				pl = &postingList{}
				p.postings[t.term] = pl
			}
			pl.entries = append(pl.entries, posting{slot: id, gen: s.gen, tf: t.tf})
		}
		p.stats.Chunks++
		p.stats.TotalTerms += int64(c.ChunkTerms)
		nf.slots = append(nf.slots, id)
	}
	p.files[f.Path] = nf
	return nil
}

func (p *project) alloc() int32 {
	if n := len(p.free); n > 0 {
		id := p.free[n-1]
		p.free = p.free[:n-1]
		return id
	}
	p.slots = append(p.slots, slot{})
	return int32(len(p.slots) - 1)
}

// remove drops path's chunks; the caller holds p.mu.
func (p *project) remove(path string) {
	f := p.files[path]
	if f == nil {
		return
	}
	for _, id := range f.slots {
		s := &p.slots[id]
		for _, t := range s.terms {
			pl := p.postings[t.term]
			pl.dead++
			if pl.dead == len(pl.entries) {
				delete(p.postings, t.term)
			} else if pl.dead > 16 && 2*pl.dead > len(pl.entries) {
				p.compact(pl, id, s.gen)
			}
		}
		p.stats.Chunks--
		p.stats.TotalTerms -= int64(s.chunkTerms)
		*s = slot{gen: s.gen + 1}
		p.free = append(p.free, id)
	}
	delete(p.files, path)
}

// compact removes dead postings; the slot being removed (id, gen) counts as dead already.
func (p *project) compact(pl *postingList, id int32, gen uint32) {
	live := pl.entries[:0]
	for _, e := range pl.entries {
		if e.slot == id && e.gen == gen {
			continue
		}
		if s := &p.slots[e.slot]; s.live && s.gen == e.gen {
			live = append(live, e)
		}
	}
	clear(pl.entries[len(live):])
	pl.entries = live
	pl.dead = 0
}

// DeleteFile implements search.Index.
func (ix *Index) DeleteFile(ctx context.Context, scope fileio.Scope, path string, upTo time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := ix.get(scope)
	if p == nil {
		return nil
	}
	p.mu.Lock()
	if f := p.files[path]; f != nil && !f.version.After(upTo) {
		p.remove(path)
	}
	p.mu.Unlock()
	return nil
}

// FileStates implements search.Index.
func (ix *Index) FileStates(ctx context.Context, scope fileio.Scope, prefix string) (map[string]search.FileState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]search.FileState)
	p := ix.get(scope)
	if p == nil {
		return out, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	for path, f := range p.files {
		if strings.HasPrefix(path, prefix) {
			out[path] = search.FileState{FileUpdatedAt: f.version, EmbeddingModel: f.model, Chunks: len(f.slots)}
		}
	}
	return out, nil
}

func (p *project) eligible(s *slot, prefix string, exclude map[string]bool) bool {
	if prefix != "" && !strings.HasPrefix(s.file.path, prefix) {
		return false
	}
	return len(exclude) == 0 || !exclude[s.file.path]
}

// Lexical implements search.Index.
func (ix *Index) Lexical(ctx context.Context, scope fileio.Scope, q search.LexicalQuery) (search.LexicalResult, error) {
	if err := ctx.Err(); err != nil {
		return search.LexicalResult{}, err
	}
	res := search.LexicalResult{DocFreq: make([]int64, len(q.Terms))}
	p := ix.get(scope)
	if p == nil {
		return res, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	res.Stats = p.stats
	bufp, _ := p.scratch.Get().(*[]float64)
	if bufp == nil || len(*bufp) != len(p.slots) {
		b := make([]float64, len(p.slots))
		bufp = &b
	}
	scores := *bufp
	var touched []int32
	for ti, term := range q.Terms {
		pl := p.postings[term]
		if pl == nil {
			continue
		}
		df := int64(len(pl.entries) - pl.dead)
		res.DocFreq[ti] = df
		scorer := q.BM25.Scorer(df, p.stats)
		for _, e := range pl.entries {
			s := &p.slots[e.slot]
			if !s.live || s.gen != e.gen || !p.eligible(s, q.PathPrefix, q.ExcludePaths) {
				continue
			}
			if scores[e.slot] == 0 {
				touched = append(touched, e.slot)
			}
			scores[e.slot] += scorer.Score(int(e.tf), s.chunkTerms)
		}
	}
	h := &topK{k: q.TopK}
	for _, id := range touched {
		h.offer(p.candidate(id, scores[id]))
		scores[id] = 0
	}
	p.scratch.Put(bufp)
	res.Candidates = h.sorted()
	return res, nil
}

func (p *project) candidate(id int32, score float64) search.Candidate {
	s := &p.slots[id]
	return search.Candidate{Path: s.file.path, FileUpdatedAt: s.file.version, Chunk: s.chunk, Score: score}
}

// Semantic implements search.Index with a flat scan of the project's vectors.
func (ix *Index) Semantic(ctx context.Context, scope fileio.Scope, q search.SemanticQuery) ([]search.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := ix.get(scope)
	if p == nil || len(q.Vector) == 0 {
		return nil, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	var files []*file
	total := 0
	for _, f := range p.files {
		if f.model != q.Model || (q.PathPrefix != "" && !strings.HasPrefix(f.path, q.PathPrefix)) || q.ExcludePaths[f.path] {
			continue
		}
		files = append(files, f)
		total += len(f.slots)
	}
	parts := 1
	if total >= parallelScanChunks {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	heaps := make([]*topK, parts)
	var wg sync.WaitGroup
	for i := range parts {
		heaps[i] = &topK{k: q.TopK}
		lo, hi := i*len(files)/parts, (i+1)*len(files)/parts
		scan := func() { p.scanVectors(files[lo:hi], q.Vector, heaps[i]) }
		if parts == 1 {
			scan()
			break
		}
		wg.Add(1)
		go func() { defer wg.Done(); scan() }()
	}
	wg.Wait()
	h := heaps[0]
	for _, other := range heaps[1:] {
		for _, c := range other.items {
			h.offer(c)
		}
	}
	return h.sorted(), nil
}

// parallelScanChunks is the project size from which the vector scan is split across CPUs.
const parallelScanChunks = 16384

// scanVectors offers every chunk of files to h, scored by dot product with v.
func (p *project) scanVectors(files []*file, v []float32, h *topK) {
	for _, f := range files {
		for _, id := range f.slots {
			s := &p.slots[id]
			if len(s.vector) != len(v) {
				continue
			}
			score := float64(search.Dot(s.vector, v))
			if h.full() && !h.beats(score, f.path, s.chunk.Index) {
				continue
			}
			h.offer(p.candidate(id, score))
		}
	}
}

// MarkServed implements search.Index.
func (ix *Index) MarkServed(ctx context.Context, scope fileio.Scope, refs []search.ChunkRef, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := ix.get(scope)
	if p == nil {
		return nil
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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := ix.get(scope)
	if p == nil {
		return nil, nil
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
		out[i] = search.StoredChunk{
			IndexedChunk:   search.IndexedChunk{Chunk: s.chunk, Terms: terms, ChunkTerms: s.chunkTerms, Vector: append([]float32(nil), s.vector...)},
			Path:           f.path,
			FileUpdatedAt:  f.version,
			EmbeddingModel: f.model,
			Tokenizer:      f.tokenizer,
			LastServedAt:   s.lastServed,
		}
	}
	return out, nil
}

// topK keeps the k best candidates (score descending, then path, then chunk index ascending)
// in a min-heap whose root is the worst kept.
type topK struct {
	k     int
	items []search.Candidate
}

func worse(a, b *search.Candidate) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	if a.Path != b.Path {
		return a.Path > b.Path
	}
	return a.Chunk.Index > b.Chunk.Index
}

func (h *topK) Len() int           { return len(h.items) }
func (h *topK) Less(i, j int) bool { return worse(&h.items[i], &h.items[j]) }
func (h *topK) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *topK) Push(x any)         { h.items = append(h.items, x.(search.Candidate)) }
func (h *topK) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	h.items = h.items[:n-1]
	return x
}

func (h *topK) full() bool { return h.k > 0 && len(h.items) >= h.k }

// beats reports whether a candidate with these keys would displace the current worst.
func (h *topK) beats(score float64, path string, index int) bool {
	c := search.Candidate{Path: path, Score: score, Chunk: search.Chunk{Index: index}}
	return worse(&h.items[0], &c)
}

func (h *topK) offer(c search.Candidate) {
	if h.k <= 0 {
		return
	}
	if len(h.items) < h.k {
		heap.Push(h, c)
		return
	}
	if worse(&h.items[0], &c) {
		h.items[0] = c
		heap.Fix(h, 0)
	}
}

// sorted returns the kept candidates best first.
func (h *topK) sorted() []search.Candidate {
	out := make([]search.Candidate, len(h.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(search.Candidate)
	}
	return out
}
