package search_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// jitterCorpus: two files about backoff that also talk about jitter and delays, one about
// jitter and delays that never says backoff, and one unrelated.
var jitterCorpus = map[string]string{
	"/retry.md":   "Retry with exponential backoff and jitter: each retry doubles the delay.",
	"/backoff.md": "Backoff policies: exponential backoff with full jitter keeps the delay spread.",
	"/herd.md":    "Full jitter spreads the delay of clients so that they do not stampede.",
	"/lunch.md":   "The cafeteria menu lists soup and bread on Thursdays.",
}

// stackEnv is a store, an index, a file service and an indexer over them, for tests that run
// on every stack.
type stackEnv struct {
	t       *testing.T
	store   driver.Store
	idx     indexdriver.Index
	svc     *fileio.Service
	indexer *search.Indexer
	emb     search.Embedder
}

func newStackEnv(t *testing.T, st allProjectsStack) *stackEnv {
	store, idx := st.newStack(t)
	emb := search.NewHashingEmbedder(64)
	indexer, err := search.NewIndexer(store, idx, search.IndexerOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	return &stackEnv{t: t, store: store, idx: idx, svc: storetest.NewService(t, store), indexer: indexer, emb: emb}
}

func (e *stackEnv) write(ctx context.Context, project, path, content string) {
	e.t.Helper()
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: content}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *stackEnv) drain() { indextest.Drain(e.t, e.indexer, e.store.(driver.Outbox), 20*time.Second) }

func (e *stackEnv) searcher(opts search.SearcherOptions) *search.Searcher {
	e.t.Helper()
	opts.Embedder = e.emb
	s, err := search.NewSearcher(e.store, e.idx, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *stackEnv) search(s *search.Searcher, ctx context.Context, q search.Query) search.Result {
	e.t.Helper()
	res, err := s.Search(ctx, q)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// TestExpansionFindsTheFeedbacksWords: by default a query is expanded with the words of its
// best chunks (RM3), so a file about the same thing in other words is found; without
// expansion it is not. The expanded query starts with the query's terms, its weights sum to
// 1, and every hit's BM25 is on it.
func TestExpansionFindsTheFeedbacksWords(t *testing.T) {
	for _, st := range allProjectsStacks {
		t.Run(st.name, func(t *testing.T) {
			e := newStackEnv(t, st)
			ctx := indextest.Ctx("sk-expansion")
			for p, c := range jitterCorpus {
				e.write(ctx, "p", p, c)
			}
			e.drain()
			expanded := e.search(e.searcher(search.SearcherOptions{}), ctx, search.Query{Project: "p", Query: "backoff", Limit: 10})
			plain := e.search(e.searcher(search.SearcherOptions{Expansion: search.Expansion{FeedbackChunks: -1}}), ctx, search.Query{Project: "p", Query: "backoff", Limit: 10})
			if diff := cmp.Diff([]string{"p:/backoff.md", "p:/herd.md", "p:/retry.md"}, hitKeys(expanded.Hits)); diff != "" {
				t.Errorf("expanded: hits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"p:/backoff.md", "p:/retry.md"}, hitKeys(plain.Hits)); diff != "" {
				t.Errorf("not expanded: hits (-want +got):\n%s", diff)
			}
			if plain.ExpandedQuery != nil {
				t.Errorf("not expanded: ExpandedQuery %v, want nil", plain.ExpandedQuery)
			}
			q := expanded.ExpandedQuery
			if len(q) < 2 || q[0].Term != "backoff" || len(q) > 1+search.DefaultExpansion().FeedbackTerms {
				t.Fatalf("ExpandedQuery %v: want backoff first and at most %d added terms", q, search.DefaultExpansion().FeedbackTerms)
			}
			sum, added := 0.0, map[string]bool{}
			for _, wt := range q {
				sum += wt.Weight
				added[wt.Term] = true
				if !(wt.Weight > 0) {
					t.Errorf("term %q weighs %v", wt.Term, wt.Weight)
				}
			}
			if math.Abs(sum-1) > 1e-12 || !added["jitter"] || !added["delay"] {
				t.Errorf("ExpandedQuery %v: weights sum to %v, want 1, with jitter and delay added", q, sum)
			}
			for _, h := range expanded.Hits {
				if !(h.Score > 0) || !(h.LexicalScore > 0) {
					t.Errorf("%s: score %v, BM25 %v; want both above 0", h.Path, h.Score, h.LexicalScore)
				}
			}
		})
	}
}

// TestExpansionBounds: the expanded query never has more than MaxQueryTerms terms, so a query
// at the bound is not expanded; invalid settings are INVALID_CONFIG.
func TestExpansionBounds(t *testing.T) {
	e := newStackEnv(t, allProjectsStacks[0])
	ctx := indextest.Ctx("sk-bounds")
	for p, c := range jitterCorpus {
		e.write(ctx, "p", p, c)
	}
	e.drain()
	s := e.searcher(search.SearcherOptions{MaxQueryTerms: 3})
	for _, tc := range []struct {
		query string
		terms int
	}{{"backoff", 3}, {"backoff retry", 3}, {"backoff retry policies", 0}} {
		res := e.search(s, ctx, search.Query{Project: "p", Query: tc.query})
		if len(res.ExpandedQuery) != tc.terms {
			t.Errorf("%q with MaxQueryTerms 3: expanded query %v, want %d terms", tc.query, res.ExpandedQuery, tc.terms)
		}
	}
	for _, bad := range []search.Expansion{
		{FeedbackChunks: search.MaxFeedback + 1},
		{FeedbackTerms: search.MaxFeedback + 1},
		{OriginalWeight: 1.5},
		{OriginalWeight: -0.5},
		{OriginalWeight: math.NaN()},
	} {
		if _, err := search.NewSearcher(e.store, e.idx, search.SearcherOptions{Expansion: bad}); err == nil {
			t.Errorf("%+v: accepted, want INVALID_CONFIG", bad)
		}
	}
}

// TestHitScoresAboveZero: every hit of the default fusion scores above 0, also the one lowest on
// both legs, which min-max fusion scores 0 — one project or "*".
func TestHitScoresAboveZero(t *testing.T) {
	for _, st := range allProjectsStacks {
		t.Run(st.name, func(t *testing.T) {
			e := newStackEnv(t, st)
			ctx := indextest.Ctx("sk-zero")
			e.write(ctx, "p", "/quasar.md", "Quasar calibration: quasar spectra and quasar redshift.")
			e.write(ctx, "q", "/minutes.md", "Minutes of the budget meeting, the printer on floor two, lunch, and a quasar poster in the hall.")
			e.drain()
			for _, project := range []string{"*", "p"} {
				minmax := e.search(e.searcher(search.SearcherOptions{FuseMethod: search.FuseMinMax}), ctx, search.Query{Project: project, Query: "quasar"})
				res := e.search(e.searcher(search.SearcherOptions{}), ctx, search.Query{Project: project, Query: "quasar"})
				if project == "*" && (len(minmax.Hits) != 2 || minmax.Hits[1].Score != 0) {
					t.Fatalf("premise: min-max scores the second of two hits 0; got %q", hitList(minmax.Hits))
				}
				if len(res.Hits) != len(minmax.Hits) || res.FuseMethod != search.FuseTMM {
					t.Errorf("%s: %d hits fused by %s; want %d fused by tmm", project, len(res.Hits), res.FuseMethod, len(minmax.Hits))
				}
				for _, h := range res.Hits {
					if !(h.Score > 0) || h.Score != h.FusedScore || h.Score > 1 {
						t.Errorf("%s: %s:%s scores %v (fused %v), want in (0, 1]", project, h.Project, h.Path, h.Score, h.FusedScore)
					}
				}
			}
		})
	}
}

// TestAllProjectsExpansionOneScale: a corpus dealt over three projects and searched with "*"
// is expanded with the same query, and ranks and scores its hits exactly as the same files in
// one project of another tenant: feedback, BM25 and fusion are on one scale.
func TestAllProjectsExpansionOneScale(t *testing.T) {
	for _, st := range allProjectsStacks {
		t.Run(st.name, func(t *testing.T) {
			e := newStackEnv(t, st)
			whole, dealt := indextest.Ctx("sk-whole"), indextest.Ctx("sk-dealt")
			i := 0
			for p, c := range jitterCorpus {
				e.write(whole, "all", p, c)
				e.write(dealt, fmt.Sprintf("part%d", i%3), p, c)
				i++
			}
			e.drain()
			s := e.searcher(search.SearcherOptions{})
			type scored struct {
				Path                 string
				Score, BM25, Similar float64
			}
			view := func(hits []search.Hit) []scored {
				var out []scored
				for _, h := range hits {
					out = append(out, scored{h.Path, h.Score, h.LexicalScore, h.SemanticScore})
				}
				return out
			}
			expanded := 0
			for _, q := range []string{"backoff", "jitter delay", "soup", "exponential retry"} {
				one := e.search(s, whole, search.Query{Project: "all", Query: q, Limit: 10})
				star := e.search(s, dealt, search.Query{Project: "*", Query: q, Limit: 10})
				if one.ExpandedQuery != nil {
					expanded++
				}
				if len(one.Hits) == 0 {
					t.Errorf("%q: no hits", q)
				}
				if diff := cmp.Diff(one.ExpandedQuery, star.ExpandedQuery); diff != "" {
					t.Errorf("%q: expanded query (-one project +\"*\"):\n%s", q, diff)
				}
				if diff := cmp.Diff(view(one.Hits), view(star.Hits), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
					t.Errorf("%q: hits (-one project +\"*\" over three):\n%s", q, diff)
				}
			}
			if expanded == 0 {
				t.Error("no query was expanded: the case is not exercised")
			}
		})
	}
}
