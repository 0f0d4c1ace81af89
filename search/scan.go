package search

import (
	"context"
	"errors"
	"sort"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// scanPending scores the chunks of files that are not indexed at their current version with
// BM25 on the index's scale (its project statistics and document frequencies), newest files
// first, within the scan budget. It returns the best BM25Candidates chunks and how many files it
// scanned.
func (s *Searcher) scanPending(ctx context.Context, scope driver.Scope, pending []driver.FileInfo, terms []string, weights []float64, lex indexdriver.LexicalResult) ([]indexdriver.Candidate, int, error) {
	sort.Slice(pending, func(i, j int) bool {
		if !pending[i].UpdatedAt.Equal(pending[j].UpdatedAt) {
			return pending[i].UpdatedAt.After(pending[j].UpdatedAt)
		}
		return pending[i].Path < pending[j].Path
	})
	if len(pending) > s.opts.PendingScanMaxFiles {
		pending = pending[:s.opts.PendingScanMaxFiles]
	}
	stats := lex.Stats
	df := lex.DocFreq
	if len(df) != len(terms) {
		df = make([]int64, len(terms))
	}
	var out []indexdriver.Candidate
	scanned := 0
	var bytes int64
	err := s.store.View(ctx, scope, func(tx driver.ReadTx) error {
		for _, p := range pending {
			if bytes >= s.opts.PendingScanMaxBytes {
				break
			}
			f, err := tx.Get(ctx, p.Path)
			if err != nil {
				if errors.Is(err, agentfiles.ErrNotFound) {
					continue
				}
				return err
			}
			scanned++
			bytes += int64(len(f.Content))
			for _, ch := range s.opts.Chunker.Split(string(f.Content)) {
				counts, n := indexdriver.TermCounts(ch.Text)
				score, matched := 0.0, false
				for i, t := range terms {
					tf := counts[t]
					if tf == 0 {
						continue
					}
					matched = true
					// A term the index has never seen still occurs here: df is at least 1.
					d := max(df[i], 1)
					st := stats
					if st.Chunks < d {
						st.Chunks = d
					}
					if st.Chunks == 0 || st.TotalTerms == 0 {
						st = indexdriver.CorpusStats{Chunks: max(d, 1), TotalTerms: int64(max(n, 1)) * max(d, 1)}
					}
					score += s.opts.BM25.Scorer(d, st).Weighted(indexdriver.Weight(weights, i)).Score(tf, n)
				}
				if matched {
					out = append(out, indexdriver.Candidate{Path: f.Path, FileUpdatedAt: f.UpdatedAt, Chunk: ch, Score: score})
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, backendError("scanning not-yet-indexed files failed", err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Chunk.StartByte < out[j].Chunk.StartByte
	})
	if k := s.opts.BM25Candidates; k > 0 && len(out) > k {
		out = out[:k]
	}
	return out, scanned, nil
}
