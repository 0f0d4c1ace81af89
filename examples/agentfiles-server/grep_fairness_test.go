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
)

// TestGrepFairnessPostgres: on PostgreSQL, one tenant runs several file_grep calls at once —
// patterns without literal text, which read every file within the scan budget, and file_glob
// over everything — while another tenant's file_stat and file_read calls keep completing. As in
// TestSearchFairnessPostgres the ceiling per call is generous: the test checks that nothing
// stalls, not how fast it is.
func TestGrepFairnessPostgres(t *testing.T) {
	const (
		greppers = 6
		ceiling  = 10 * time.Second // per call of the other tenant
	)
	srv := startServer(t, "-database-url", pgtest.New(t), "-accept-any-token", "-log-level", "off")
	rng := rand.New(rand.NewPCG(3, 4))
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("term%04d", rng.IntN(3000))
			if i%12 == 11 {
				w[i] += "\n"
			}
		}
		return strings.Join(w, " ")
	}
	for i := range 40 {
		mustCall(t, srv.base, "heavy", "file_write", map[string]any{"project": "big", "path": fmt.Sprintf("/doc%02d.md", i), "content": words(4000)})
	}
	mustCall(t, srv.base, "light", "file_write", map[string]any{"project": "small", "path": "/note.md", "content": "a short note"})
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"file_grep", map[string]any{"project": "big", "pattern": `(e|r|m)+[0-9]{3}9 t`, "limit": 1000}},
		{"file_grep", map[string]any{"project": "big", "pattern": `^.*[0-9]$`, "output_mode": "count"}},
		{"file_grep", map[string]any{"project": "big", "pattern": "term0042", "context": 20, "limit": 1000}},
		{"file_glob", map[string]any{"project": "big", "pattern": "**"}},
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for g := range greppers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				c := calls[(g+i)%len(calls)]
				r, err := doAPI(srv.base, "heavy", c.tool, c.args)
				outcome := "ok"
				switch {
				case err != nil:
					outcome = "transport: " + err.Error()
				case r.Status != http.StatusOK:
					outcome = r.errorCode()
				}
				mu.Lock()
				outcomes[c.tool+" "+outcome]++
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
	t.Logf("other tenant: 120 calls in %v; heavy greps: %v", time.Since(start).Round(time.Millisecond), outcomes)
	for outcome, n := range outcomes {
		_, code, _ := strings.Cut(outcome, " ")
		switch code {
		case "ok", "RATE_LIMITED", "TIMEOUT", "RESOURCE_BUSY":
		default:
			t.Errorf("%d heavy calls ended with %q", n, outcome)
		}
	}
	if outcomes["file_grep ok"] == 0 {
		t.Errorf("heavy greps: %v; want some answered", outcomes)
	}
}
