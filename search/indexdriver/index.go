package indexdriver

import (
	"context"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Index stores chunks, their term frequencies and their vectors, per (tenant, project) scope.
// Package search owns the contract; search/memindex keeps everything in memory and
// search/pgindex in PostgreSQL plain tables. Every implementation must pass
// search/indextest.Exercise.
//
// The contract is shaped so that a SQL index can implement it without extensions: lexical
// search reads postings (term, chunk, tf) and per-project statistics and scores them with
// [BM25.TermScore]; semantic search compares stored float vectors. Scores are computed in Go with
// the functions of this package, so every index ranks identically.
//
// An index keeps no copy of the text: per chunk it stores the file version, the chunk index,
// the byte offsets [StartByte, EndByte) into that version, the content hash, the term counts
// and the vector. Every Chunk it returns (Candidate.Chunk, StoredChunk) has an empty Text; the
// Searcher reads the text of the chunks it ranks from the file store by their offsets, in the
// same store read that checks the files are still at the indexed version (see
// driver.ReadRanges), so a file's text is stored once, in the store.
//
// Implementations must be safe for concurrent use.
type Index interface {
	// ReplaceFile atomically replaces every chunk of f.Path with f.Chunks: a concurrent query
	// sees either all old chunks or all new ones. Versions never go backwards: when the index
	// already holds f.Path at a FileUpdatedAt after f.FileUpdatedAt, ReplaceFile does nothing
	// (a slow worker cannot overwrite a newer version). Replacing with the same FileUpdatedAt
	// again is allowed (idempotent re-index). LastServedAt of the new chunks starts zero.
	ReplaceFile(ctx context.Context, scope driver.Scope, f IndexedFile) error
	// DeleteFile removes every chunk of path if the indexed version's FileUpdatedAt is not
	// after upTo (the deletion's commit time, or the version known to be gone), so a file
	// re-created and indexed meanwhile survives. A missing path is not an error.
	DeleteFile(ctx context.Context, scope driver.Scope, path string, upTo time.Time) error
	// FileStates returns the indexed version of every file whose path has the string prefix.
	// The Indexer asks it for one file's path in every job, so its cost must not grow with the
	// project: O(log n + matches) for a project of n files (memindex: a binary search; pgindex:
	// a range scan of its primary key).
	FileStates(ctx context.Context, scope driver.Scope, prefix string) (map[string]FileState, error)
	// Lexical returns the TopK chunks with the highest BM25 score for q.Terms, scored as
	// Σ over q.Terms (in order) of q.TermScorers(df, stats)[i].Score(tf, chunkTerms) — BM25's
	// TermScore times the term's weight (q.Weights; 1 without) — where df and stats cover the
	// whole project. A term of weight 0 scores nothing and its postings need not be walked.
	// Ties break by path, then chunk index. It also returns the stats and the document
	// frequency of each term (weighted 0 or not), so callers can score other text on the same
	// scale; with TopK 0 it returns only those.
	Lexical(ctx context.Context, scope driver.Scope, q LexicalQuery) (LexicalResult, error)
	// Semantic returns the TopK chunks with the highest dot product between their vector and
	// q.Vector, among chunks embedded with q.Model. Ties break by path, then chunk index.
	Semantic(ctx context.Context, scope driver.Scope, q SemanticQuery) ([]Candidate, error)
	// ScoreChunks returns the true scores of chunks that the caller names, one ChunkScore per
	// q.Chunks entry, in order, so that a candidate proposed by only one of Lexical and Semantic
	// is ranked by its real score on the other, never by an assumed 0. The lexical score is
	// Σ over q.Terms in order of q.TermScorers()[i].Score (q.BM25 with q.DocFreq, q.Stats and
	// q.Weights as given: the caller passes
	// those of its Lexical answer, so both are on one scale): bit-identical to Lexical's score
	// of the chunk when the statistics have not moved, and 0 for a chunk without any of the
	// terms. An index whose Lexical does not rank by BM25 (pgindex's tsvector mode) returns its
	// own lexical score instead, on Lexical's scale. The semantic score is Dot(chunk
	// vector, q.Vector) as a float64, exactly as Semantic scores it, when the chunk has a
	// vector of q.Model and of len(q.Vector) floats. A chunk whose file is not indexed at
	// ref.FileUpdatedAt, or that does not exist, has Found false. Path filters do not apply:
	// the caller has chosen the chunks.
	ScoreChunks(ctx context.Context, scope driver.Scope, q ScoreQuery) ([]ChunkScore, error)
	// MarkServed sets LastServedAt = at on exactly the referenced chunks (those whose file is
	// still indexed at ref.FileUpdatedAt); others are ignored.
	MarkServed(ctx context.Context, scope driver.Scope, refs []ChunkRef, at time.Time) error
	// Chunks returns the stored chunks of path in chunk order (nil when not indexed). It is for
	// inspection and tests, not for the query path.
	Chunks(ctx context.Context, scope driver.Scope, path string) ([]StoredChunk, error)
}

// IndexedFile is everything an index stores for one version of one file.
type IndexedFile struct {
	Path           string
	FileUpdatedAt  time.Time // UpdatedAt of the file version the chunks were cut from
	Tokenizer      string    // TokenizerName at indexing time
	EmbeddingModel string    // Embedder.Model(), or "" when the chunks carry no vectors
	Chunks         []IndexedChunk
}

// VectorDims returns the size of f's vectors (0 when f has none), after checking what every
// index requires of an IndexedFile: with an EmbeddingModel every chunk has a vector and all
// are of one size, without one no chunk has a vector. A violation is INVALID_ARGUMENT naming
// f.Path. Indexes call it first thing in ReplaceFile.
func (f IndexedFile) VectorDims() (int, error) {
	dims := -1
	for _, c := range f.Chunks {
		if (len(c.Vector) > 0) != (f.EmbeddingModel != "") || (dims >= 0 && len(c.Vector) != dims) {
			return 0, agentfiles.NewError(agentfiles.CodeInvalidArgument, "every chunk of an embedded file needs a vector of one size, and a lexical-only file none", f.Path)
		}
		dims = len(c.Vector)
	}
	return max(dims, 0), nil
}

// IndexedChunk is a chunk with its analysed terms and, optionally, its vector. Its Text is
// what the terms were analysed from; indexes do not store it (see Index).
type IndexedChunk struct {
	Chunk
	Terms      map[string]int // term -> frequency, from TermCounts
	ChunkTerms int            // total terms (BM25 document length)
	Vector     []float32      // L2-normalised; nil for lexical-only chunks
}

// FileState is the indexed version of one file.
type FileState struct {
	FileUpdatedAt  time.Time
	EmbeddingModel string // "" when indexed lexical-only
	Tokenizer      string // IndexedFile.Tokenizer: the analysis the terms were made with
	Chunks         int
}

// Current reports whether the file is indexed at version with today's analysis
// (TokenizerName). A file indexed by an older analysis is not: its terms would not match
// queries analysed today, so the Searcher scans it like a file not indexed yet and the Indexer
// (see Indexer.Sync) re-indexes it.
func (s FileState) Current(version time.Time) bool {
	return s.FileUpdatedAt.Equal(version) && s.Tokenizer == TokenizerName
}

// StoredChunk is a chunk as read back from an index: everything but its Text, which is empty
// (the text is the file's bytes [StartByte, EndByte) at FileUpdatedAt).
type StoredChunk struct {
	IndexedChunk
	Path           string
	FileUpdatedAt  time.Time
	EmbeddingModel string
	Tokenizer      string
	LastServedAt   time.Time // zero until the chunk is returned by a search
}

// LexicalQuery asks an index for BM25 candidates.
type LexicalQuery struct {
	Terms []string // distinct query terms, from QueryTerms (and expansion terms after them)
	// Weights, when not nil, has one weight per Terms entry, each finite and not negative: the
	// factor of that term's BM25 contribution (TermScorer.Weighted). Nil: every term weighs 1.
	// The Searcher's query expansion (pseudo-relevance feedback) weighs the terms it adds.
	Weights      []float64
	BM25         BM25            // scoring parameters
	PathPrefix   string          // string prefix on the path; "" for all
	ExcludePaths map[string]bool // files whose chunks must be skipped (deleted or stale)
	TopK         int
}

// TermScorers returns one TermScorer per q.Terms entry for the document frequencies df (a
// missing one counts as 0) and stats, weighted by q.Weights. An index scores a chunk as Σ over
// i, in order, of scorers[i].Score(tf of q.Terms[i], chunk terms), starting from 0.
func (q LexicalQuery) TermScorers(df []int64, stats CorpusStats) []TermScorer {
	return termScorers(q.BM25, q.Terms, q.Weights, df, stats)
}

func termScorers(bm BM25, terms []string, weights []float64, df []int64, stats CorpusStats) []TermScorer {
	out := make([]TermScorer, len(terms))
	for i := range terms {
		var d int64
		if i < len(df) {
			d = df[i]
		}
		out[i] = bm.Scorer(d, stats)
		if weights != nil {
			w := 0.0
			if i < len(weights) {
				w = weights[i]
			}
			out[i] = out[i].Weighted(w)
		}
	}
	return out
}

// Weight is term i's weight in a query of these weights (see LexicalQuery.Weights): 1 when
// weights is nil.
func Weight(weights []float64, i int) float64 {
	if weights == nil {
		return 1
	}
	if i < len(weights) {
		return weights[i]
	}
	return 0
}

// LexicalResult is the answer to a LexicalQuery.
type LexicalResult struct {
	Candidates []Candidate
	Stats      CorpusStats // whole-project statistics used for scoring
	DocFreq    []int64     // df of each of LexicalQuery.Terms, same order
}

// SemanticQuery asks an index for vector candidates.
type SemanticQuery struct {
	Vector       []float32 // L2-normalised query vector
	Model        string    // only chunks embedded with this model are compared
	PathPrefix   string
	ExcludePaths map[string]bool
	TopK         int
}

// Candidate is one chunk proposed by an index, with that index's score for it. Chunk.Text is
// empty when the index returns it; the Searcher fills it from the file store.
type Candidate struct {
	Path          string
	FileUpdatedAt time.Time
	Chunk         Chunk
	Score         float64 // BM25 score (Lexical) or cosine similarity (Semantic)
}

// ChunkRef names one chunk of one indexed file version.
type ChunkRef struct {
	Path          string
	FileUpdatedAt time.Time
	ChunkIndex    int
}

// ScoreQuery asks an index for the true scores of named chunks (see Index.ScoreChunks).
type ScoreQuery struct {
	Chunks []ChunkRef
	// Terms, Weights, DocFreq and Stats are a LexicalQuery's terms and weights and its
	// LexicalResult's document frequencies and statistics; no Terms: no lexical scores.
	Terms   []string
	Weights []float64
	DocFreq []int64
	Stats   CorpusStats
	BM25    BM25
	// Vector and Model are a SemanticQuery's; no Vector: no semantic scores.
	Vector []float32
	Model  string
}

// TermScorers returns one TermScorer per q.Terms entry, for q.DocFreq and q.Stats (a missing
// document frequency counts as 0), weighted by q.Weights. An index scores a chunk as Σ over i,
// in order, of scorers[i].Score(tf of q.Terms[i], chunk terms), starting from 0.
func (q ScoreQuery) TermScorers() []TermScorer {
	return termScorers(q.BM25, q.Terms, q.Weights, q.DocFreq, q.Stats)
}

// ChunkScore is an index's answer for one chunk of a ScoreQuery.
type ChunkScore struct {
	Found       bool    // the chunk is indexed at the named version
	Lexical     float64 // BM25 for the query terms (0: none of them occurs); with Found and Terms
	Semantic    float64 // cosine similarity; meaningful when HasSemantic
	HasSemantic bool    // the chunk has a vector of the query's model and size
}
