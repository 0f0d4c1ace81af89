package memindex

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
)

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

// beats reports whether a candidate with these keys would displace the current worst.
func (h *topK) beats(score float64, path string, index int) bool {
	c := search.Candidate{Path: path, Score: score, Chunk: search.Chunk{Index: index}}
	return worse(&h.items[0], &c)
}
