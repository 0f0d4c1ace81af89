package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestSearchFairnessPostgres: on PostgreSQL, one tenant runs several heavy searches at once
// (queries at the term limit, and 100,000-term queries that must be refused) while another
// tenant's file_stat and file_read calls keep completing. The ceiling per call is generous:
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
	for i := range 60 {
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
	t.Logf("other tenant: 120 calls in %v; heavy searches: %v", time.Since(start).Round(time.Millisecond), outcomes)
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

// TestSearchFloodPostgres is the red team's case of issue 41: one tenant runs 16 file_search
// calls at once, over and over, while another tenant writes one line to its own file 40 times.
// Before file_search had slots, the writes went from 0.015 s to 5.1 s median (16.9 s at worst,
// one 503). Now a tenant's searches past its slots wait for them (RESOURCE_BUSY after
// settings.mcp.files.search.slot_wait_ms), and all tenants' searches together run on a quarter
// of the pool, so the writes keep their connections and CPUs. Every write must succeed within a
// generous ceiling; their latency, quiet and during the flood, is reported against DESIGN.md
// §3.8's rule (not asserted: a shared 2-core machine is noisy).
func TestSearchFloodPostgres(t *testing.T) {
	const (
		searchers = 16
		ceiling   = 10 * time.Second // per write of the other tenant
	)
	dbURL := pgtest.New(t)
	srv := startServer(t, "-database-url", dbURL, "-accept-any-token", "-log-level", "off")
	docs := 60
	if os.Getenv("AGENTFILES_FULL") == "1" {
		docs = 1000
	}
	for i := range docs {
		setupCallAs(t, srv.base, "heavy", "file_write", map[string]any{"project": "big", "path": fmt.Sprintf("/doc%04d.md", i), "content": numberedWords(i, 4000)})
	}
	// The index catches up first, so that the quiet writes do not share the CPUs with it.
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	err = poll.Until(context.Background(), 2*time.Minute, "the search index caught up", func() (bool, error) {
		var n int
		err := pool.QueryRow(context.Background(), "SELECT count(*) FROM mcp_file_index_jobs").Scan(&n)
		return n == 0, err
	})
	if err != nil {
		t.Fatal(err)
	}
	write := func(i int) time.Duration {
		began := time.Now()
		r, err := doAPI(srv.base, "light", "file_write", map[string]any{"project": "mine", "path": "/note.md", "content": fmt.Sprintf("line %d\n", i), "mode": "TRUNCATE"})
		took := time.Since(began)
		if err != nil || r.Status != http.StatusOK {
			t.Errorf("write %d of the other tenant: %v %s", i, err, r.Raw)
		}
		if took > ceiling {
			t.Errorf("write %d of the other tenant took %v (ceiling %v)", i, took, ceiling)
		}
		return took
	}
	var quiet []time.Duration
	for i := range 20 {
		quiet = append(quiet, write(i))
		time.Sleep(10 * time.Millisecond)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for g := range searchers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var q strings.Builder
				for k := range 60 { // distinct terms: under the limit of 64
					fmt.Fprintf(&q, "term%04d ", (g*389+i*60+k)%3000)
				}
				r, err := doAPI(srv.base, "heavy", "file_search", map[string]any{"project": "big", "query": q.String(), "limit": 20})
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
		})
	}
	var during []time.Duration
	for i := range 40 {
		during = append(during, write(100+i))
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	slices.Sort(quiet)
	slices.Sort(during)
	bound := 3*quantile(quiet, 0.95) + 5*time.Millisecond
	met := quantile(during, 0.95) <= bound && during[len(during)-1] <= 500*time.Millisecond
	t.Logf("the other tenant's writes p50/p95/max: quiet %v/%v/%v, during %d concurrent searches %v/%v/%v (rule: p95 <= %v, max <= 500ms: met=%v); searches: %v",
		quantile(quiet, 0.5), quantile(quiet, 0.95), quiet[len(quiet)-1], searchers,
		quantile(during, 0.5), quantile(during, 0.95), during[len(during)-1], bound, met, outcomes)
	for outcome, n := range outcomes {
		switch outcome {
		case "ok", "RESOURCE_BUSY", "RATE_LIMITED":
		default:
			t.Errorf("%d searches ended with %q", n, outcome)
		}
	}
	if outcomes["ok"] == 0 {
		t.Errorf("no search was answered during the flood: %v", outcomes)
	}
}
