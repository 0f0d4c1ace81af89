package search_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
)

// countingLimiter admits every request and counts them.
type countingLimiter struct{ n atomic.Int64 }

func (c *countingLimiter) Allow(string) error { c.n.Add(1); return nil }

// storeOnly hides every optional interface of a Store, driver.ProjectLister included.
type storeOnly struct{ driver.Store }

type allProjectsStack struct {
	name     string
	newStack func(t *testing.T) (driver.Store, indexdriver.Index)
}

var allProjectsStacks = []allProjectsStack{
	{"memstore", func(t *testing.T) (driver.Store, indexdriver.Index) {
		return memstore.New(memstore.Options{}), memindex.New()
	}},
	{"pgstore", func(t *testing.T) (driver.Store, indexdriver.Index) {
		url := pgtest.New(t)
		store := pgtest.Open(t, url, pgstore.Open, pgstore.Options{PurgeInterval: -1})
		return store, pgtest.Open(t, url, pgindex.Open, pgindex.Options{})
	}},
}

// hitKey names a hit by project and path.
func hitKeys(hits []search.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Project+":"+h.Path)
	}
	sort.Strings(out)
	return out
}

func TestSearchAllProjects(t *testing.T) {
	for _, st := range allProjectsStacks {
		t.Run(st.name, func(t *testing.T) {
			store, idx := st.newStack(t)
			svc := storetest.NewService(t, store)
			indexer, err := search.NewIndexer(store, idx, search.IndexerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			limiter := &countingLimiter{}
			searcher, err := search.NewSearcher(store, idx, search.SearcherOptions{RateLimiter: limiter})
			if err != nil {
				t.Fatal(err)
			}
			alice, bob, carol := indextest.Ctx("sk-alice"), indextest.Ctx("sk-bob"), indextest.Ctx("sk-carol")
			write := func(ctx context.Context, project, path, content string) {
				t.Helper()
				if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: content}); err != nil {
					t.Fatal(err)
				}
			}
			write(alice, "alpha", "/retry.md", "Retries use exponential backoff with jitter.")
			write(alice, "alpha", "/auth.md", "Requests carry a bearer token.")
			write(alice, "beta", "/notes/backoff.md", "Backoff backoff: the delay doubles after each failure.")
			write(alice, "gone", "/old.md", "backoff that was deleted")
			if err := svc.Delete(alice, fileio.DeleteRequest{Project: "gone", Path: "/old.md", Recursive: false}); err != nil {
				t.Fatal(err)
			}
			write(bob, "alpha", "/secret.md", "Bob's backoff notes, never shown to alice.")
			write(bob, "bobonly", "/x.md", "backoff of another tenant")
			indextest.Drain(t, indexer, store.(driver.Outbox), 20*time.Second)
			// Not indexed yet: found by the query-time scan of its project.
			write(alice, "gamma", "/fresh.md", "A fresh file about backoff, not indexed yet.")

			res, err := searcher.Search(alice, search.Query{Project: "*", Query: "backoff", Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"alpha:/retry.md", "beta:/notes/backoff.md", "gamma:/fresh.md"}
			if diff := cmp.Diff(want, hitKeys(res.Hits)); diff != "" {
				t.Errorf("hits of every project of alice (-want +got):\n%s", diff)
			}
			if res.Projects != 3 || res.ProjectsTruncated || res.Truncated || res.PendingScanned != 1 {
				t.Errorf("Projects %d, ProjectsTruncated %v, Truncated %v, PendingScanned %d; want 3, false, false, 1",
					res.Projects, res.ProjectsTruncated, res.Truncated, res.PendingScanned)
			}
			for i := 1; i < len(res.Hits); i++ {
				if res.Hits[i].Score > res.Hits[i-1].Score {
					t.Errorf("hit %d scores %v above hit %d (%v): not one ranking", i, res.Hits[i].Score, i-1, res.Hits[i-1].Score)
				}
			}
			if got := limiter.n.Load(); got != 1 {
				t.Errorf("rate limiter asked %d times for one query over 3 projects, want 1", got)
			}

			limited, err := searcher.Search(alice, search.Query{Project: "*", Query: "backoff", Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(limited.Hits) != 1 || !limited.Truncated || limited.Hits[0] != res.Hits[0] {
				t.Errorf("limit 1: %d hits, Truncated %v; want the best hit of the unlimited query and Truncated", len(limited.Hits), limited.Truncated)
			}

			one, err := searcher.Search(alice, search.Query{Project: "alpha", Query: "backoff"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"alpha:/retry.md"}, hitKeys(one.Hits)); diff != "" {
				t.Errorf("one project: hits name their project (-want +got):\n%s", diff)
			}

			bobRes, err := searcher.Search(bob, search.Query{Project: "*", Query: "backoff"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"alpha:/secret.md", "bobonly:/x.md"}, hitKeys(bobRes.Hits)); diff != "" {
				t.Errorf("bob sees only his projects (-want +got):\n%s", diff)
			}

			empty, err := searcher.Search(carol, search.Query{Project: "*", Query: "backoff"})
			if err != nil {
				t.Fatalf("a caller without projects: %v, want an empty result", err)
			}
			if len(empty.Hits) != 0 || empty.Projects != 0 {
				t.Errorf("a caller without projects: %d hits over %d projects, want none", len(empty.Hits), empty.Projects)
			}

			plain, err := search.NewSearcher(storeOnly{store}, idx, search.SearcherOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = plain.Search(alice, search.Query{Project: "*", Query: "backoff"})
			var fe *agentfiles.Error
			if !errors.As(err, &fe) || fe.Code != agentfiles.CodeInvalidArgument {
				t.Errorf("\"*\" over a store without ProjectLister: %v, want INVALID_ARGUMENT", err)
			}
		})
	}
}

// TestSearchAllProjectsBound: beyond MaxAllProjects projects, the first MaxAllProjects by name
// are searched and the result says so.
func TestSearchAllProjectsBound(t *testing.T) {
	store, idx := memstore.New(memstore.Options{}), memindex.New()
	svc := storetest.NewService(t, store)
	searcher, err := search.NewSearcher(store, idx, search.SearcherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := indextest.Ctx("sk-many")
	for i := range search.MaxAllProjects + 1 {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: fmt.Sprintf("p%03d", i), Path: "/a.md", Content: "needle"}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := searcher.Search(ctx, search.Query{Project: "*", Query: "needle", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Projects != search.MaxAllProjects || !res.ProjectsTruncated {
		t.Errorf("Projects %d, ProjectsTruncated %v; want %d, true", res.Projects, res.ProjectsTruncated, search.MaxAllProjects)
	}
	for _, h := range res.Hits {
		if h.Project == fmt.Sprintf("p%03d", search.MaxAllProjects) {
			t.Errorf("hit in project %s, beyond the first %d", h.Project, search.MaxAllProjects)
		}
	}
}

// countingEmbedder counts the Embed calls of an Embedder.
type countingEmbedder struct {
	search.Embedder
	calls atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls.Add(1)
	return c.Embedder.Embed(ctx, texts)
}

// termReranker scores a document by how often the query occurs in it, case-insensitively, and
// counts its calls and documents.
type termReranker struct{ calls, docs atomic.Int64 }

func (r *termReranker) Model() string { return "term-count" }

func (r *termReranker) Rerank(_ context.Context, query string, docs []string, topN int) ([]search.RerankResult, error) {
	r.calls.Add(1)
	r.docs.Add(int64(len(docs)))
	out := make([]search.RerankResult, len(docs))
	for i, d := range docs {
		out[i] = search.RerankResult{Index: i, Score: float64(strings.Count(strings.ToLower(d), strings.ToLower(query)))}
	}
	return out[:min(topN, len(out))], nil
}

// TestSearchAllProjectsOneEmbedOneRerank: with "*" the query is embedded once and the merged
// candidates of every project are reranked in one call, so the reranker's scores order them on
// one scale.
func TestSearchAllProjectsOneEmbedOneRerank(t *testing.T) {
	store, idx := memstore.New(memstore.Options{}), memindex.New()
	svc := storetest.NewService(t, store)
	emb := search.NewHashingEmbedder(64)
	indexer, err := search.NewIndexer(store, idx, search.IndexerOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	cemb, rr := &countingEmbedder{Embedder: search.NewHashingEmbedder(64)}, &termReranker{}
	searcher, err := search.NewSearcher(store, idx, search.SearcherOptions{Embedder: cemb, Reranker: rr})
	if err != nil {
		t.Fatal(err)
	}
	ctx := indextest.Ctx("sk-rerank")
	for project, content := range map[string]string{
		"a": "backoff once", "b": "backoff backoff backoff three times", "c": "backoff backoff twice", "d": "nothing here",
	} {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: "/f.md", Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	indextest.Drain(t, indexer, store, 20*time.Second)
	// Limit 3: "nothing here" may qualify by similarity, with relevance 0.
	res, err := searcher.Search(ctx, search.Query{Project: "*", Query: "backoff", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, fmt.Sprintf("%s %v", h.Project, h.Score))
	}
	if diff := cmp.Diff([]string{"b 3", "c 2", "a 1"}, got); diff != "" || res.Ranking != search.RankingRerank {
		t.Errorf("ranking %q, hits (-want +got):\n%s", res.Ranking, diff)
	}
	if e, r := cemb.calls.Load(), rr.calls.Load(); e != 1 || r != 1 {
		t.Errorf("%d Embed and %d Rerank calls for one query over 4 projects, want 1 and 1", e, r)
	}
}

// TestSearchAllProjectsComparableScores: with "*", a project's scores are not scaled to its own
// best chunk. Twelve projects hold filler that mentions the query's words once; p09 also holds a
// file about exactly them. It ranks first, and the filler follows by its real scores rather
// than by project name.
func TestSearchAllProjectsComparableScores(t *testing.T) {
	for _, st := range allProjectsStacks {
		t.Run(st.name, func(t *testing.T) {
			store, idx := st.newStack(t)
			svc := storetest.NewService(t, store)
			emb := search.NewHashingEmbedder(64)
			indexer, err := search.NewIndexer(store, idx, search.IndexerOptions{Embedder: emb})
			if err != nil {
				t.Fatal(err)
			}
			searcher, err := search.NewSearcher(store, idx, search.SearcherOptions{Embedder: emb})
			if err != nil {
				t.Fatal(err)
			}
			ctx := indextest.Ctx("sk-twelve")
			write := func(project, path, content string) {
				t.Helper()
				if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: content}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 12 {
				project := fmt.Sprintf("p%02d", i)
				for j := range 3 {
					write(project, fmt.Sprintf("/filler%d.md", j), fmt.Sprintf(
						"Meeting notes %d of %s: the budget review moved to Thursday, lunch is catered, "+
							"the printer on floor %d is broken again, and someone mentioned quasar once.", j, project, i))
				}
			}
			write("p09", "/quasar.md", "Quasar calibration: quasar spectra, quasar redshift and quasar calibration targets for the quasar survey.")
			indextest.Drain(t, indexer, store.(driver.Outbox), 20*time.Second)

			res, err := searcher.Search(ctx, search.Query{Project: "*", Query: "quasar calibration", Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].Project+":"+res.Hits[0].Path != "p09:/quasar.md" {
				t.Fatalf("first hit %v, want p09:/quasar.md (hits: %q)", firstHit(res.Hits), hitList(res.Hits))
			}
			// The strong match stands apart: filler scores, on one scale with it, stay well below.
			if len(res.Hits) > 1 && res.Hits[1].Score >= res.Hits[0].Score {
				t.Errorf("second hit scores %v, not below the strong match's %v", res.Hits[1].Score, res.Hits[0].Score)
			}
		})
	}
}

func firstHit(hits []search.Hit) string {
	if len(hits) == 0 {
		return "none"
	}
	return hits[0].Project + ":" + hits[0].Path
}

func hitList(hits []search.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%s %.3f", h.Project, h.Path, h.Score))
	}
	return out
}
