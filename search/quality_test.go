package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/provider"
)

type qualityCollection struct {
	Documents []struct{ ID, Text string } `json:"documents"`
	Queries   []struct {
		ID, Text   string
		Judgements map[string]int `json:"judgements"`
	} `json:"queries"`
}

// ndcgAt is nDCG@k with gains 2^rel - 1.
func ndcgAt(ranked []string, judged map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		dcg += (math.Pow(2, float64(judged[id])) - 1) / math.Log2(float64(i+2))
	}
	var ideal []int
	for _, g := range judged {
		ideal = append(ideal, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := 0.0
	for i, g := range ideal[:min(k, len(ideal))] {
		idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	return dcg / idcg
}

func recallAt(ranked []string, judged map[string]int, k int) float64 {
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if judged[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(len(judged))
}

// TestRetrievalQuality builds the authored collection in testdata/quality.json into a memindex
// and reports nDCG@10 and recall@20 for each retrieval mode. "reranked" uses a real Cohere-format
// HTTP server (indextest.RerankServer) whose cross-scoring is weighted query-term overlap — not a
// neural model. Floors only catch breakage; the table is the result.
func TestRetrievalQuality(t *testing.T) {
	raw, err := os.ReadFile("testdata/quality.json")
	if err != nil {
		t.Fatal(err)
	}
	var col qualityCollection
	if err := json.Unmarshal(raw, &col); err != nil {
		t.Fatal(err)
	}
	emb := search.NewHashingEmbedder(256)
	rr := indextest.NewRerankServer(t)
	reranker, err := provider.NewCohereReranker(rr.Endpoint(), provider.CohereRerankerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idx := memindex.New()
	chunker := search.NewChunker(search.ChunkerOptions{TargetBytes: 4096})
	e := indextest.NewEnv(t, idx, indextest.EnvOptions{Embedder: emb, Chunker: chunker})
	ctx := indextest.Ctx("quality-key")
	for _, d := range col.Documents {
		e.Write(ctx, "q", "/docs/"+d.ID+".md", d.Text)
	}
	e.Drain()
	scope := indextest.Scope("quality-key", "q")

	searcher := func(fusion search.FuseMethod, emb search.Embedder, rr search.Reranker) *search.Searcher {
		s, err := search.NewSearcher(e.Store, idx, search.SearcherOptions{
			Embedder: emb, Reranker: rr, Chunker: chunker, FuseMethod: fusion, RerankTimeout: 10 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	viaSearcher := func(s *search.Searcher, want search.Ranking) func(string) []string {
		return func(q string) []string {
			res, err := s.Search(ctx, search.Query{Project: "q", Query: q, Limit: 20})
			if err != nil || res.Ranking != want {
				t.Fatalf("%q: ranking %s (%s), err %v", q, res.Ranking, res.RerankError, err)
			}
			var ids []string
			for _, h := range res.Hits {
				ids = append(ids, strings.TrimSuffix(strings.TrimPrefix(h.Path, "/docs/"), ".md"))
			}
			return ids
		}
	}
	fromCands := func(c []indexdriver.Candidate) []string {
		var ids []string
		for _, x := range c {
			ids = append(ids, strings.TrimSuffix(strings.TrimPrefix(x.Path, "/docs/"), ".md"))
		}
		return ids
	}
	modes := []struct {
		name  string
		floor float64 // nDCG@10 below this means something broke
		run   func(q string) []string
	}{
		{"bm25", 0.3, func(q string) []string {
			r, err := idx.Lexical(context.Background(), scope, indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms(q), BM25: indexdriver.DefaultBM25(), TopK: 20})
			if err != nil {
				t.Fatal(err)
			}
			return fromCands(r.Candidates)
		}},
		{"semantic (hashing-256)", 0.2, func(q string) []string {
			v, _ := emb.Embed(context.Background(), []string{q})
			c, err := idx.Semantic(context.Background(), scope, indexdriver.SemanticQuery{Vector: v[0], Model: emb.Model(), TopK: 20})
			if err != nil {
				t.Fatal(err)
			}
			return fromCands(c)
		}},
		{"fused (default: min-max, weights of the embedder)", 0.3, viaSearcher(searcher(search.FuseMinMax, emb, nil), search.RankingFused)},
		{"fused RRF (weights of the embedder)", 0.3, viaSearcher(searcher(search.FuseRRF, emb, nil), search.RankingFused)},
		{"reranked (term-overlap cross-scorer over HTTP)", 0.3, viaSearcher(searcher(search.FuseMinMax, emb, reranker), search.RankingRerank)},
	}
	var report strings.Builder
	fmt.Fprintf(&report, "\n| mode | nDCG@10 | recall@20 |\n|---|---|---|\n")
	for _, m := range modes {
		var ndcg, recall float64
		for _, q := range col.Queries {
			ranked := m.run(q.Text)
			ndcg += ndcgAt(ranked, q.Judgements, 10)
			recall += recallAt(ranked, q.Judgements, 20)
		}
		n := float64(len(col.Queries))
		fmt.Fprintf(&report, "| %s | %.3f | %.3f |\n", m.name, ndcg/n, recall/n)
		if ndcg/n < m.floor {
			t.Errorf("%s: nDCG@10 %.3f below the floor %.2f", m.name, ndcg/n, m.floor)
		}
	}
	t.Logf("retrieval quality on testdata/quality.json (%d documents, %d queries):%s", len(col.Documents), len(col.Queries), report.String())
}
