package indextest

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/google/go-cmp/cmp"
)

// rankingCorpus has files that one leg finds and the other does not: a chunk rich in query
// terms but worded unlike the query, and chunks close to the query in spelling without its
// terms, so that with one candidate per leg each hit misses a leg.
var rankingCorpus = map[string]string{
	"/ops/retry.md":    "Retry retry retry: the retry budget caps how often a retry happens. Retry counts reset hourly.",
	"/ops/backoff.md":  "Exponential backoff doubles the delay after each failed attempt, with jitter.",
	"/ops/retrying.md": "Retrying requests: retries are retried with backoff; a retried request keeps its key.",
	"/lib/policy.go":   "type RetryPolicy struct { MaxAttempts int; Backoff BackoffPolicy }",
	"/notes/todo.txt":  "- buy milk\n- call the plumber\n- renew passport",
	"/notes/empty.txt": "",
}

// searcherOver returns a Searcher over e's store and idx with e's embedder and opts.
func searcherOver(t *testing.T, e *Env, idx indexdriver.Index, emb search.Embedder, opts search.SearcherOptions) *search.Searcher {
	t.Helper()
	opts.Embedder = emb
	s, err := search.NewSearcher(e.Store, idx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// withMemindexReference returns an Env over idx and a reference Env over a fresh memindex, both
// with the embedder emb and the small chunker, each filled by write as keyA and drained: for the
// tests whose results must equal memindex's.
func withMemindexReference(t *testing.T, idx indexdriver.Index, emb search.Embedder, write func(env *Env, ctx context.Context)) (e, ref *Env) {
	t.Helper()
	e = NewEnv(t, idx, EnvOptions{Embedder: emb, Chunker: smallChunker()})
	ref = NewEnv(t, memindex.New(), EnvOptions{Embedder: emb, Chunker: smallChunker()})
	for _, env := range []*Env{e, ref} {
		write(env, Ctx(keyA))
		env.Drain()
	}
	return e, ref
}

// testExactUnionScores: every candidate carries its true BM25 and its true similarity, also
// when only one leg proposed it, and ScoreChunks answers as Lexical and Semantic do.
func testExactUnionScores(t *testing.T, idx indexdriver.Index) {
	emb := search.NewHashingEmbedder(64)
	e := NewEnv(t, idx, EnvOptions{Embedder: emb})
	ctx := Ctx(keyA)
	for p, c := range rankingCorpus {
		e.Write(ctx, "p", p, c)
	}
	e.Drain()
	scope := Scope(keyA, "p")
	chunks := make(map[string]indexdriver.StoredChunk) // path#index -> chunk
	var stats indexdriver.CorpusStats
	df := make(map[string]int64)
	for p := range rankingCorpus {
		cs, err := idx.Chunks(context.Background(), scope, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			chunks[fmt.Sprintf("%s#%d", p, c.Index)] = c
			stats.Chunks++
			stats.TotalTerms += int64(c.ChunkTerms)
			for term := range c.Terms {
				df[term]++
			}
		}
	}
	bm := indexdriver.DefaultBM25()
	// reference is Σ weight · BM25 over the query's terms in order (weight 1 without weights).
	reference := func(c indexdriver.StoredChunk, terms []string, weights []float64) float64 {
		s := 0.0
		for i, term := range terms {
			score := bm.TermScore(c.Terms[term], c.ChunkTerms, df[term], stats)
			if weights != nil {
				score *= weights[i]
			}
			s += score
		}
		return s
	}
	// Few candidates per leg (and no floor), so that most hits come from one leg only.
	oneLeg, expanded := 0, 0
	for _, k := range [][2]int{{3, 1}, {1, 3}} {
		s := searcherOver(t, e, idx, emb, search.SearcherOptions{VectorCandidates: k[0], BM25Candidates: k[1], MinSemanticScore: ptr(-1.0)})
		for _, q := range []string{"retry backoff", "retry", "exponential jitter delay", "retry policy", "milk plumber"} {
			res, err := s.Search(ctx, search.Query{Project: "p", Query: q, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			oneLeg += res.Candidates - 1 // more than the shorter leg's one: from one leg only
			terms, weights := indexdriver.QueryTerms(q), []float64(nil)
			if res.ExpandedQuery != nil { // scored with the expanded query's weighted terms
				expanded++
				terms = nil
				for _, wt := range res.ExpandedQuery {
					terms, weights = append(terms, wt.Term), append(weights, wt.Weight)
				}
			}
			qv, _ := emb.Embed(context.Background(), []string{q})
			for _, h := range res.Hits {
				var c indexdriver.StoredChunk
				for _, sc := range chunks {
					if sc.Path == h.Path && sc.StartByte == h.StartByte {
						c = sc
					}
				}
				if !h.HasLexical || !h.HasSemantic {
					t.Errorf("%q: %s lacks a score (lexical %v, semantic %v)", q, h.Path, h.HasLexical, h.HasSemantic)
				}
				if want := reference(c, terms, weights); h.LexicalScore != want {
					t.Errorf("%q: %s BM25 %v, reference %v (bit-identical required)", q, h.Path, h.LexicalScore, want)
				}
				if want := float64(indexdriver.Dot(c.Vector, qv[0])); h.SemanticScore != want {
					t.Errorf("%q: %s similarity %v, reference %v", q, h.Path, h.SemanticScore, want)
				}
			}
		}
	}
	if oneLeg == 0 {
		t.Error("no candidate came from one leg only: the case is not exercised")
	}
	if expanded == 0 {
		t.Error("no query was expanded: the weighted scores are not exercised")
	}

	// ScoreChunks directly: the scores of Lexical and Semantic, Found false for a wrong version
	// or chunk, no similarity for another model.
	terms := indexdriver.QueryTerms("retry backoff jitter")
	lex, err := idx.Lexical(context.Background(), scope, indexdriver.LexicalQuery{Terms: terms, BM25: bm, TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	qv, _ := emb.Embed(context.Background(), []string{"retry backoff jitter"})
	sem, err := idx.Semantic(context.Background(), scope, indexdriver.SemanticQuery{Vector: qv[0], Model: emb.Model(), TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	lexScore, semScore := map[string]float64{}, map[string]float64{}
	var refs []indexdriver.ChunkRef
	for _, c := range sem {
		key := fmt.Sprintf("%s#%d", c.Path, c.Chunk.Index)
		semScore[key] = c.Score
		refs = append(refs, indexdriver.ChunkRef{Path: c.Path, FileUpdatedAt: c.FileUpdatedAt, ChunkIndex: c.Chunk.Index})
	}
	for _, c := range lex.Candidates {
		lexScore[fmt.Sprintf("%s#%d", c.Path, c.Chunk.Index)] = c.Score
	}
	if len(refs) < 5 {
		t.Fatalf("want every embedded chunk as a semantic candidate, got %d", len(refs))
	}
	good := refs[0]
	refs = append(refs,
		indexdriver.ChunkRef{Path: good.Path, FileUpdatedAt: good.FileUpdatedAt.Add(1), ChunkIndex: good.ChunkIndex},
		indexdriver.ChunkRef{Path: good.Path, FileUpdatedAt: good.FileUpdatedAt, ChunkIndex: 99},
		indexdriver.ChunkRef{Path: "/missing", FileUpdatedAt: good.FileUpdatedAt})
	got, err := idx.ScoreChunks(context.Background(), scope, indexdriver.ScoreQuery{
		Chunks: refs, Terms: terms, DocFreq: lex.DocFreq, Stats: lex.Stats, BM25: bm, Vector: qv[0], Model: emb.Model()})
	if err != nil || len(got) != len(refs) {
		t.Fatalf("ScoreChunks: %v, %d answers for %d chunks", err, len(got), len(refs))
	}
	for i, r := range refs {
		key := fmt.Sprintf("%s#%d", r.Path, r.ChunkIndex)
		if i >= len(sem) {
			if got[i].Found {
				t.Errorf("%s at %v: found, want not found", key, r.FileUpdatedAt)
			}
			continue
		}
		want := indexdriver.ChunkScore{Found: true, Lexical: lexScore[key], Semantic: semScore[key], HasSemantic: true}
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Errorf("%s (-Lexical/Semantic +ScoreChunks):\n%s", key, diff)
		}
		if ref := reference(chunks[key], terms, nil); got[i].Lexical != ref {
			t.Errorf("%s: BM25 %v, reference %v", key, got[i].Lexical, ref)
		}
	}
	other, err := idx.ScoreChunks(context.Background(), scope, indexdriver.ScoreQuery{Chunks: refs[:1], Vector: qv[0], Model: "another-model"})
	if err != nil || len(other) != 1 || !other[0].Found || other[0].HasSemantic || other[0].Lexical != 0 {
		t.Errorf("another model, no terms: %+v, %v", other, err)
	}
	if none, err := idx.ScoreChunks(context.Background(), Scope(keyB, "p"), indexdriver.ScoreQuery{Chunks: refs[:1], Terms: terms, DocFreq: lex.DocFreq, Stats: lex.Stats, BM25: bm}); err != nil || len(none) != 1 || none[0].Found {
		t.Errorf("another tenant's chunk: %+v, %v", none, err)
	}
}

// testSameRankingAsMemindex: the index under test ranks exactly as memindex, the reference,
// on the same files: hits, order, every score and the expanded query, for the default fusion
// and expansion, other fusions, tight candidate lists, and expansion off or set otherwise.
func testSameRankingAsMemindex(t *testing.T, idx indexdriver.Index) {
	emb := search.NewHashingEmbedder(64)
	e, ref := withMemindexReference(t, idx, emb, func(env *Env, ctx context.Context) {
		writeCorpus(t, env, ctx, "p")
		for p, c := range rankingCorpus {
			env.Write(ctx, "p", p, c)
		}
	})
	ctx := Ctx(keyA)
	for _, opts := range []search.SearcherOptions{
		{Chunker: smallChunker()},
		{Chunker: smallChunker(), FuseMethod: search.FuseRRF},
		{Chunker: smallChunker(), VectorCandidates: 2, BM25Candidates: 2, MinSemanticScore: ptr(-1.0)},
		{Chunker: smallChunker(), SemanticWeight: 0.5, LexicalWeight: 0.5, MinSemanticScore: ptr(0.0)},
		{Chunker: smallChunker(), FuseMethod: search.FuseMinMax},
		{Chunker: smallChunker(), Expansion: search.Expansion{FeedbackChunks: -1}},
		{Chunker: smallChunker(), Expansion: search.Expansion{FeedbackChunks: 3, FeedbackTerms: 20, OriginalWeight: 0.3}},
	} {
		got, want := searcherOver(t, e, idx, emb, opts), searcherOver(t, ref, ref.Index, emb, opts)
		for _, q := range []string{"retry backoff", "exponential backoff jitter", "bearer token storage", "scheduler workers", "検索", "milk", "the of and"} {
			g, err := got.Search(ctx, search.Query{Project: "p", Query: q, Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			w, err := want.Search(ctx, search.Query{Project: "p", Query: q, Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("%+v %q (-memindex +index under test):\n%s", opts, q, diff)
			}
		}
	}
}

// testMinSemanticScore: candidates with no query term and too little similarity are not
// results; Qualified says how many matched.
func testMinSemanticScore(t *testing.T, idx indexdriver.Index) {
	emb := search.NewHashingEmbedder(search.DefaultHashingDimensions)
	e := NewEnv(t, idx, EnvOptions{Embedder: emb})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	for p, c := range rankingCorpus {
		e.Write(ctx, "p", p, c)
	}
	e.Drain()
	s := searcherOver(t, e, idx, emb, search.SearcherOptions{})
	search1 := func(q search.Query) search.Result {
		t.Helper()
		q.Project = "p"
		res, err := s.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// A word that occurs nowhere: nothing, although every file has some similarity.
	if res := search1(search.Query{Query: "zzyzx", Limit: 10}); len(res.Hits) != 0 || res.Qualified != 0 || res.Candidates == 0 {
		t.Errorf("zzyzx: %d hits, %d qualified of %d candidates; want none of some", len(res.Hits), res.Qualified, res.Candidates)
	}
	// "milk": only the file that says it.
	res := search1(search.Query{Query: "milk", Limit: 10})
	if len(res.Hits) != 1 || res.Hits[0].Path != "/notes/todo.txt" || res.Qualified != 1 || res.Truncated {
		t.Errorf("milk: want only /notes/todo.txt, got %d hits (qualified %d): %v", len(res.Hits), res.Qualified, paths(res.Hits))
	}
	// "retry backoff": the todo list is no longer padded in.
	res = search1(search.Query{Query: "retry backoff", Limit: 20})
	for _, h := range res.Hits {
		if !(h.LexicalScore > 0) && !(h.SemanticScore > res.MinSemanticScore) {
			t.Errorf("retry backoff: %s returned with BM25 %v and similarity %v (floor %v)", h.Path, h.LexicalScore, h.SemanticScore, res.MinSemanticScore)
		}
		if h.Path == "/notes/todo.txt" || h.Path == "/notes/empty.txt" {
			t.Errorf("retry backoff: unrelated %s returned", h.Path)
		}
	}
	if res.Qualified != len(res.Hits) || res.Qualified >= 20 || res.MinSemanticScore != emb.Calibration().MinSemanticScore {
		t.Errorf("retry backoff: qualified %d, hits %d, floor %v", res.Qualified, len(res.Hits), res.MinSemanticScore)
	}
	// A query's own floor: -1 lets every candidate through, up to the limit.
	loose := search1(search.Query{Query: "milk", Limit: 10, MinSemanticScore: ptr(-1.0)})
	if len(loose.Hits) != 10 || loose.Qualified != loose.Candidates || !loose.Truncated || loose.Hits[0].Path != "/notes/todo.txt" {
		t.Errorf("milk with floor -1: %d hits, %d qualified of %d, first %v", len(loose.Hits), loose.Qualified, loose.Candidates, paths(loose.Hits[:1]))
	}
	// Above 1: keyword matches only.
	strict := search1(search.Query{Query: "retry policy", Limit: 20, MinSemanticScore: ptr(2.0)})
	for _, h := range strict.Hits {
		if !(h.LexicalScore > 0) {
			t.Errorf("floor 2: %s returned without a query term", h.Path)
		}
	}
	if _, err := s.Search(ctx, search.Query{Project: "p", Query: "milk", MinSemanticScore: ptr(math.NaN())}); err == nil {
		t.Error("a NaN floor was accepted")
	}
	// Only stop words: no lexical evidence at all, so only similarity above the floor counts.
	for _, h := range search1(search.Query{Query: "the of and", Limit: 10}).Hits {
		if h.HasLexical || !(h.SemanticScore > res.MinSemanticScore) {
			t.Errorf("stop words: %+v", h)
		}
	}
}

// testSyncReanalyses: a file indexed by another analysis is not served from the index (it is
// scanned) until Indexer.Sync re-indexes it; Sync also removes files that are gone.
func testSyncReanalyses(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{})
	ctx := Ctx(keyA)
	scope := Scope(keyA, "p")
	e.Write(ctx, "p", "/a.md", "We'll retry with backoff, e.g. twice.")
	e.Write(ctx, "p", "/b.md", "Nothing about it here.")
	e.Drain()
	old, err := idx.Chunks(context.Background(), scope, "/a.md")
	if err != nil || len(old) == 0 {
		t.Fatal(err)
	}
	doc := indexdriver.IndexedFile{Path: "/a.md", FileUpdatedAt: old[0].FileUpdatedAt, Tokenizer: "older-analysis-v0"}
	for _, c := range old {
		ic := c.IndexedChunk
		ic.Vector = nil
		doc.Chunks = append(doc.Chunks, ic)
	}
	if err := idx.ReplaceFile(context.Background(), scope, doc); err != nil {
		t.Fatal(err)
	}
	// A file only in the index (its delete job lost).
	ghost := indexdriver.IndexedFile{Path: "/ghost.md", FileUpdatedAt: old[0].FileUpdatedAt, Tokenizer: indexdriver.TokenizerName,
		Chunks: []indexdriver.IndexedChunk{{Chunk: indexdriver.Chunk{Text: "backoff"}, Terms: map[string]int{"backoff": 1}, ChunkTerms: 1}}}
	if err := idx.ReplaceFile(context.Background(), scope, ghost); err != nil {
		t.Fatal(err)
	}
	res := e.Search(ctx, search.Query{Project: "p", Query: "backoff eg"})
	if len(res.Hits) == 0 || res.Hits[0].Path != "/a.md" || res.Hits[0].Source != search.SourceScan || res.PendingFiles != 1 {
		t.Fatalf("a file of another analysis must be scanned, not served from the index: %+v", res)
	}
	st, err := e.Indexer.Sync(ctx, scope, "")
	if err != nil || st.Indexed != 1 || st.Removed != 1 || st.LexicalOnly != 0 {
		t.Fatalf("Sync: %+v, %v; want 1 indexed and 1 removed", st, err)
	}
	states, _ := idx.FileStates(context.Background(), scope, "")
	if len(states) != 2 || states["/a.md"].Tokenizer != indexdriver.TokenizerName || states["/a.md"].EmbeddingModel == "" {
		t.Errorf("after Sync: %+v", states)
	}
	res = e.Search(ctx, search.Query{Project: "p", Query: "backoff eg"})
	if len(res.Hits) == 0 || res.Hits[0].Path != "/a.md" || res.Hits[0].Source != search.SourceIndex || res.PendingFiles != 0 {
		t.Errorf("after Sync: %+v", res)
	}
	if st, err := e.Indexer.Sync(ctx, scope, ""); err != nil || st != (search.SyncStats{}) {
		t.Errorf("second Sync: %+v, %v; want nothing to do", st, err)
	}
}

func ptr[T any](v T) *T { return &v }

// testWeightedLexical: Lexical and ScoreChunks weigh each term's BM25 by LexicalQuery.Weights
// (as query expansion asks), bit-identically to weight · TermScore summed in order; a term of
// weight 0 matches nothing alone but has its document frequency; nil weights are weight 1;
// TopK 0 answers the statistics and document frequencies only.
func testWeightedLexical(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{})
	ctx := Ctx(keyA)
	for p, c := range rankingCorpus {
		e.Write(ctx, "p", p, c)
	}
	e.Drain()
	scope := Scope(keyA, "p")
	bg := context.Background()
	chunks := map[string]indexdriver.StoredChunk{} // path#index -> chunk
	var stats indexdriver.CorpusStats
	df := map[string]int64{}
	for p := range rankingCorpus {
		cs, err := idx.Chunks(bg, scope, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			chunks[fmt.Sprintf("%s#%d", p, c.Index)] = c
			stats.Chunks++
			stats.TotalTerms += int64(c.ChunkTerms)
			for term := range c.Terms {
				df[term]++
			}
		}
	}
	bm := indexdriver.DefaultBM25()
	terms := []string{"retri", "backoff", "jitter", "milk"}
	weights := []float64{0.5, 0.25, 2, 0}
	reference := func(c indexdriver.StoredChunk) float64 {
		s := 0.0
		for i, term := range terms {
			s += weights[i] * bm.TermScore(c.Terms[term], c.ChunkTerms, df[term], stats)
		}
		return s
	}
	lex, err := idx.Lexical(bg, scope, indexdriver.LexicalQuery{Terms: terms, Weights: weights, BM25: bm, TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{df["retri"], df["backoff"], df["jitter"], df["milk"]}, lex.DocFreq); diff != "" || df["milk"] != 1 || lex.Stats != stats {
		t.Errorf("document frequencies (-want +got):\n%s\nstats %+v, want %+v", diff, lex.Stats, stats)
	}
	var refs []indexdriver.ChunkRef
	for _, c := range lex.Candidates {
		key := fmt.Sprintf("%s#%d", c.Path, c.Chunk.Index)
		if c.Path == "/notes/todo.txt" {
			t.Errorf("%s: matched by the weight-0 term alone", key)
		}
		if want := reference(chunks[key]); c.Score != want {
			t.Errorf("%s: weighted BM25 %v, reference %v (bit-identical required)", key, c.Score, want)
		}
		refs = append(refs, indexdriver.ChunkRef{Path: c.Path, FileUpdatedAt: c.FileUpdatedAt, ChunkIndex: c.Chunk.Index})
	}
	if len(lex.Candidates) < 3 {
		t.Fatalf("%d candidates, want the retry, backoff and policy files", len(lex.Candidates))
	}
	todo := chunks["/notes/todo.txt#0"]
	refs = append(refs, indexdriver.ChunkRef{Path: todo.Path, FileUpdatedAt: todo.FileUpdatedAt, ChunkIndex: 0})
	scores, err := idx.ScoreChunks(bg, scope, indexdriver.ScoreQuery{Chunks: refs, Terms: terms, Weights: weights, DocFreq: lex.DocFreq, Stats: lex.Stats, BM25: bm})
	if err != nil || len(scores) != len(refs) {
		t.Fatalf("ScoreChunks: %v, %d answers for %d chunks", err, len(scores), len(refs))
	}
	for i, c := range lex.Candidates {
		if scores[i].Lexical != c.Score {
			t.Errorf("%s: ScoreChunks %v, Lexical %v", c.Path, scores[i].Lexical, c.Score)
		}
	}
	if last := scores[len(scores)-1]; !last.Found || last.Lexical != 0 {
		t.Errorf("todo list, weight-0 term only: %+v, want found with BM25 0", last)
	}
	// Weights of 1 are no weights, bit for bit.
	plain, err := idx.Lexical(bg, scope, indexdriver.LexicalQuery{Terms: terms[:3], BM25: bm, TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	ones, err := idx.Lexical(bg, scope, indexdriver.LexicalQuery{Terms: terms[:3], Weights: []float64{1, 1, 1}, BM25: bm, TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, ones); diff != "" {
		t.Errorf("weights 1 (-nil weights +weights 1):\n%s", diff)
	}
	// TopK 0: statistics and document frequencies, no candidates.
	freq, err := idx.Lexical(bg, scope, indexdriver.LexicalQuery{Terms: terms, Weights: weights, BM25: bm})
	if err != nil || len(freq.Candidates) != 0 || !cmp.Equal(freq.DocFreq, lex.DocFreq) || freq.Stats != stats {
		t.Errorf("TopK 0: %d candidates, df %v, stats %+v, %v; want none, %v, %+v", len(freq.Candidates), freq.DocFreq, freq.Stats, err, lex.DocFreq, stats)
	}
}
