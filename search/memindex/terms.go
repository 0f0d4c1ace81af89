package memindex

import (
	"encoding/binary"
	"iter"
	"slices"
	"strings"
)

// chunkTerms is a chunk's distinct terms with their frequencies: pairs of uvarints (term ID
// minus the previous pair's, frequency) in increasing term ID order. Term IDs name the project's
// posting lists (project.termList), so a chunk holds no strings of its own; its terms cost 2–4
// bytes each instead of a string and a slice entry.
type chunkTerms []byte

// termTF is one entry of a chunkTerms.
type termTF struct {
	id uint32
	tf int
}

// all yields the entries in term ID order.
func (c chunkTerms) all() iter.Seq[termTF] {
	return func(yield func(termTF) bool) {
		var id uint64
		for b := []byte(c); len(b) > 0; {
			d, n := binary.Uvarint(b)
			tf, m := binary.Uvarint(b[n:])
			b = b[n+m:]
			id += d
			if !yield(termTF{uint32(id), int(tf)}) {
				return
			}
		}
	}
}

// tf returns term id's frequency (0 when absent, or for id -1).
func (c chunkTerms) tf(id int64) int {
	if id < 0 {
		return 0
	}
	for t := range c.all() {
		switch {
		case int64(t.id) == id:
			return t.tf
		case int64(t.id) > id:
			return 0
		}
	}
	return 0
}

// termEncoder builds the chunkTerms of a file's chunks into one allocation.
type termEncoder struct {
	pending []termTF
	buf     []byte
	ends    []int
}

func (e *termEncoder) start()                { e.pending = e.pending[:0] }
func (e *termEncoder) add(id uint32, tf int) { e.pending = append(e.pending, termTF{id, tf}) }

func (e *termEncoder) end() {
	slices.SortFunc(e.pending, func(a, b termTF) int { return int(a.id) - int(b.id) })
	var prev uint32
	for _, t := range e.pending {
		e.buf = binary.AppendUvarint(e.buf, uint64(t.id-prev))
		e.buf = binary.AppendUvarint(e.buf, uint64(t.tf))
		prev = t.id
	}
	e.ends = append(e.ends, len(e.buf))
}

// finish returns each chunk's terms, in the order they were encoded.
func (e *termEncoder) finish() []chunkTerms {
	all := slices.Clip(slices.Clone(e.buf))
	out := make([]chunkTerms, len(e.ends))
	start := 0
	for i, end := range e.ends {
		out[i] = chunkTerms(all[start:end:end])
		start = end
	}
	return out
}

// newTerm adds an empty posting list for term, under a free term ID when there is one. The
// term is copied: the caller's string may share memory with a whole file's text.
func (p *project) newTerm(term string) *postingList {
	pl := &postingList{term: strings.Clone(term)}
	if n := len(p.freeTerm); n > 0 {
		pl.id = p.freeTerm[n-1]
		p.freeTerm = p.freeTerm[:n-1]
		p.termList[pl.id] = pl
	} else {
		pl.id = uint32(len(p.termList))
		p.termList = append(p.termList, pl)
	}
	p.postings[pl.term] = pl
	return pl
}

// dropTerm removes a posting list whose entries are all dead and frees its ID.
func (p *project) dropTerm(pl *postingList) {
	delete(p.postings, pl.term)
	p.termList[pl.id] = nil
	p.freeTerm = append(p.freeTerm, pl.id)
}
