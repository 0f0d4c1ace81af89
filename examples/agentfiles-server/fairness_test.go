package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/testsize"
)

// TestSearchFairnessPostgres: on PostgreSQL, one tenant runs several heavy searches at once
// (queries at the term limit, and 100,000-term queries that must be refused) while another
// tenant's file_stat and file_read calls keep completing (40 of them by default, 120 with
// AGENTFILES_FULL=1). The ceiling per call is generous:
// the test checks that nothing stalls, not how fast it is.
func TestSearchFairnessPostgres(t *testing.T) {
	const (
		searchers = 6
		ceiling   = 10 * time.Second // per call of the other tenant
	)
	srv := startServer(t, "-database-url", pgtest.New(t), "-accept-any-token", "-log-level", "off")
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("term%04d", i)
	}
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	for i := range 40 {
		mustCall(t, srv.base, "heavy", "file_write", map[string]any{"project": "big", "path": fmt.Sprintf("/doc%02d.md", i), "content": words(4000)})
	}
	mustCall(t, srv.base, "light", "file_write", map[string]any{"project": "small", "path": "/note.md", "content": "a short note"})
	queries := make([]string, 32)
	for i := range queries {
		queries[i] = strings.Join(vocab[i*60:i*60+60], " ") // 60 distinct terms: under the limit
	}
	var huge strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&huge, "w%05d ", i)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for g := range searchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q := queries[(g*7+i)%len(queries)]
				if i%3 == 0 {
					q = huge.String()
				}
				r, err := doAPI(srv.base, "heavy", "file_search", map[string]any{"project": "big", "query": q, "limit": 20})
				outcome := "ok"
				switch {
				case err != nil:
					outcome = "transport: " + err.Error()
				case r.Status != http.StatusOK:
					outcome = r.errorCode()
				}
				mu.Lock()
				outcomes[outcome]++
				mu.Unlock()
			}
		}()
	}

	start := time.Now()
	rounds := testsize.Count(t, 60, 20) // of a file_stat and a file_read
	for i := range rounds {
		for _, tool := range []string{"file_stat", "file_read"} {
			began := time.Now()
			r, err := doAPI(srv.base, "light", tool, map[string]any{"project": "small", "path": "/note.md"})
			if took := time.Since(began); took > ceiling {
				t.Errorf("%s %d of the other tenant took %v (ceiling %v)", tool, i, took, ceiling)
			}
			if err != nil || r.Status != http.StatusOK {
				t.Errorf("%s %d of the other tenant: %v %s", tool, i, err, r.Raw)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	t.Logf("other tenant: %d calls in %v; heavy searches: %v", 2*rounds, time.Since(start).Round(time.Millisecond), outcomes)
	for outcome, n := range outcomes {
		switch outcome {
		case "ok", "INVALID_QUERY", "RATE_LIMITED", "RESOURCE_BUSY":
		default:
			t.Errorf("%d heavy searches ended with %q", n, outcome)
		}
	}
	if outcomes["ok"] == 0 || outcomes["INVALID_QUERY"] == 0 {
		t.Errorf("heavy searches: %v; want some answered and the 100k-term ones refused", outcomes)
	}
}
