package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/hostilezip"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/jackc/pgx/v5/pgxpool"
)

// abuse is one way a tenant ("heavy") tries to slow the server down for everyone, as issue
// reports saw it: each client sends req over and over.
type abuse struct {
	name  string
	setup func(t *testing.T, base string)
	req   func(base string) *http.Request
}

// abuseUses names, for the abuses without a setup of their own that read what another's
// wrote, that other abuse.
var abuseUses = map[string]string{
	"mcp: tools/call of the 100-edit file_edit":             "edit: 100 replace_all edits of a 1 MB file",
	"grep: a literal with 20 lines of context, limit 1000":  "grep: a pattern without literal text over 40 files of 36 KB",
	"grep: glob **/*/ x7 then zz against a 60-segment path": "glob: **/*/ x7 then zz against a 60-segment path",
}

// abuseClients is how many clients run each abuse at once.
const abuseClients = 8

// maxAllocPerRequest is the rule's memory bound: no request of a few KB may make the server
// allocate more than about this much.
const maxAllocPerRequest = 200 << 20

func toolRequest(base, tool string, args any) *http.Request {
	return toolRequestAs(base, "heavy", tool, args)
}

// toolRequestAs is toolRequest for the tenant of token.
func toolRequestAs(base, token, tool string, args any) *http.Request {
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, base+"/tools/"+tool, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func abuses() []abuse {
	long := strings.Repeat("a", 20000) + "b"
	var alternating []map[string]any
	for i := range 100 { // the per-call maximum
		from, to := "a", "c"
		if i%2 == 1 {
			from, to = to, from
		}
		alternating = append(alternating, map[string]any{"old_str": from, "new_str": to, "replace_all": true})
	}
	var batch bytes.Buffer
	batch.WriteString("[")
	for i := range 16 { // the per-request maximum
		if i > 0 {
			batch.WriteString(",")
		}
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{}}`, i+1)
	}
	batch.WriteString("]")
	write := func(path, content string) func(t *testing.T, base string) {
		return func(t *testing.T, base string) {
			setupCall(t, base, "file_write", map[string]any{"project": "abuse", "path": path, "content": content, "mode": "TRUNCATE"})
		}
	}
	return []abuse{
		{"edit: 20,001-byte old_str in a 1 MB file", write("/h.txt", strings.Repeat("a", 1_000_000)), func(base string) *http.Request {
			return toolRequest(base, "file_edit", map[string]any{"project": "abuse", "path": "/h.txt", "dry_run": true,
				"edits": []any{map[string]any{"old_str": long, "new_str": "x"}}})
		}},
		{"edit: replace_all diff of 2,100 lines", write("/x.txt", strings.Repeat("x\n", 2100)), func(base string) *http.Request {
			return toolRequest(base, "file_edit", map[string]any{"project": "abuse", "path": "/x.txt", "dry_run": true,
				"edits": []any{map[string]any{"old_str": "x", "new_str": "y", "replace_all": true}}})
		}},
		{"edit: 100 replace_all edits of a 1 MB file", write("/m.txt", strings.Repeat("ab", 500_000)), func(base string) *http.Request {
			return toolRequest(base, "file_edit", map[string]any{"project": "abuse", "path": "/m.txt", "dry_run": true, "edits": alternating})
		}},
		{"read: line_numbers of 2 MiB of newlines", func(t *testing.T, base string) {
			// In two halves: the JSON of 2 MiB of newlines is over the 3 MiB body limit.
			for _, mode := range []string{"TRUNCATE", "APPEND"} {
				setupCall(t, base, "file_write", map[string]any{"project": "abuse", "path": "/n.txt", "content": strings.Repeat("\n", 1<<20), "mode": mode})
			}
		}, func(base string) *http.Request {
			return toolRequest(base, "file_read", map[string]any{"project": "abuse", "path": "/n.txt", "line_numbers": true})
		}},
		{"mcp: tools/call of the 100-edit file_edit", nil, func(base string) *http.Request {
			call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
				"name": "file_edit", "arguments": map[string]any{"project": "abuse", "path": "/m.txt", "dry_run": true, "edits": alternating}}})
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
			req.Header.Set("Authorization", "Bearer heavy")
			return req
		}},
		{"mcp: batch of 16 tools/list", nil, func(base string) *http.Request {
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(batch.Bytes()))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
			req.Header.Set("Authorization", "Bearer heavy")
			return req
		}},
		{"grep: a pattern without literal text over 40 files of 36 KB", func(t *testing.T, base string) {
			for i := range 40 {
				setupCall(t, base, "file_write", map[string]any{"project": "abuse", "path": fmt.Sprintf("/g/doc%02d.md", i), "content": numberedWords(i, 4000), "mode": "TRUNCATE"})
			}
		}, func(base string) *http.Request {
			return toolRequest(base, "file_grep", map[string]any{"project": "abuse", "path": "/g", "pattern": `^.*[0-9]$`, "output_mode": "count"})
		}},
		{"grep: a literal with 20 lines of context, limit 1000", nil, func(base string) *http.Request {
			return toolRequest(base, "file_grep", map[string]any{"project": "abuse", "path": "/g", "pattern": "term0042", "context": 20, "limit": 1000})
		}},
		{"glob: ** over the project", nil, func(base string) *http.Request {
			return toolRequest(base, "file_glob", map[string]any{"project": "abuse", "pattern": "**"})
		}},
		poolDraining(),
		archiveAbuse("import: a tar.gz of 200,000 empty files", func() io.Reader { return bytes.NewReader(emptyFiles200k()) }, -1),
		archiveAbuse("import: a 220 MB zip listing one file 4,000,000 times", func() io.Reader {
			return hostilezip.Stream(hostilezip.Options{Entries: 4_000_000})
		}, hostilezip.Size(hostilezip.Options{Entries: 4_000_000})),
		checkpointLoop(),
		{"rename: a 300-file directory back and forth", func(t *testing.T, base string) {
			for i := range 300 {
				setupCall(t, base, "file_write", map[string]any{"project": "abuse", "path": fmt.Sprintf("/d/f%03d.md", i), "content": "x"})
			}
		}, func() func(base string) *http.Request {
			var mu sync.Mutex
			n := 0
			return func(base string) *http.Request {
				mu.Lock()
				from, to := "/d", "/e"
				if n%2 == 1 {
					from, to = to, from
				}
				n++
				mu.Unlock()
				return toolRequest(base, "file_rename", map[string]any{"project": "abuse", "from": from, "to": to})
			}
		}()},
		{"glob: {,} repeated 300 times", nil, func(base string) *http.Request {
			return toolRequest(base, "file_glob", map[string]any{"project": "abuse", "pattern": strings.Repeat("{,}", 300)})
		}},
		{"glob: **/*/ x7 then zz against a 60-segment path", write("/"+strings.Repeat("s/", 59)+"f.txt", "deep\n"), func(base string) *http.Request {
			return toolRequest(base, "file_glob", map[string]any{"project": "abuse", "pattern": strings.Repeat("**/*/", 7) + "zz"})
		}},
		{"grep: glob **/*/ x7 then zz against a 60-segment path", nil, func(base string) *http.Request {
			return toolRequest(base, "file_grep", map[string]any{"project": "abuse", "pattern": "deep", "glob": strings.Repeat("**/*/", 7) + "zz"})
		}},
		{"grep: a 4,000-byte ignore-case literal over a 4 MiB file", writeLarge("/big/a.txt", strings.Repeat(strings.Repeat("a", 64<<10-1)+"\n", 64)), func(base string) *http.Request {
			return toolRequest(base, "file_grep", map[string]any{"project": "abuse", "path": "/big/a.txt", "pattern": strings.Repeat("a", 3999) + "b",
				"fixed_strings": true, "ignore_case": true})
		}},
		{"shell: an endless loop", nil, func(base string) *http.Request {
			return toolRequest(base, "file_shell", map[string]any{"project": "abuse", "command": "while :; do :; done", "timeout_ms": 3000})
		}},
		{"shell: a fork bomb", nil, func(base string) *http.Request {
			return toolRequest(base, "file_shell", map[string]any{"project": "abuse", "command": ":(){ :|:& };:"})
		}},
		{"shell: endless output into a file", nil, func(base string) *http.Request {
			return toolRequest(base, "file_shell", map[string]any{"project": "abuse", "command": "while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done > /f.txt", "timeout_ms": 3000})
		}},
		{"shell: endless stdout", nil, func(base string) *http.Request {
			return toolRequest(base, "file_shell", map[string]any{"project": "abuse", "command": "while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done", "timeout_ms": 3000})
		}},
		{"grep: .{1000} over a 6 MiB file", writeLarge("/big/x.txt", strings.Repeat(strings.Repeat("x", 999)+"\n", 6<<20/1000)), func(base string) *http.Request {
			return toolRequest(base, "file_grep", map[string]any{"project": "abuse", "path": "/big/x.txt", "pattern": ".{1000}"})
		}},
	}
}

// writeLarge is the setup that writes content to path in the abuse project in appends of
// 1 MiB (a request body holds at most 3 MiB).
func writeLarge(path, content string) func(t *testing.T, base string) {
	return func(t *testing.T, base string) {
		for mode := "TRUNCATE"; content != ""; mode = "APPEND" {
			part := content[:min(len(content), 1<<20)]
			content = content[len(part):]
			setupCall(t, base, "file_write", map[string]any{"project": "abuse", "path": path, "content": part, "mode": mode})
		}
	}
}

// archiveAbuse is PUT /archive/bomb of the stream body makes, of length size (-1: unknown).
func archiveAbuse(name string, body func() io.Reader, size int64) abuse {
	return abuse{name: name, req: func(base string) *http.Request {
		req, _ := http.NewRequest(http.MethodPut, base+"/archive/bomb", body())
		req.ContentLength = size
		req.Header.Set("Authorization", "Bearer heavy")
		return req
	}}
}

// emptyFiles200k is the red team's tar.gz of 200,000 empty files (1.4 MB), built once.
var emptyFiles200k = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for i := range 200_000 {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("d%03d/f%06d", i%1000, i), Typeflag: tar.TypeReg, Mode: 0o644})
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
})

// checkpointLoop is the red team's "write 1 MiB, checkpoint, overwrite at the same size": the
// clients take turns at the two calls until the project's quota refuses the writes.
func checkpointLoop() abuse {
	content := strings.Repeat("c", 1<<20)
	var mu sync.Mutex
	n := 0
	return abuse{name: "checkpoint loop: write 1 MiB, checkpoint, overwrite", req: func(base string) *http.Request {
		mu.Lock()
		n++
		checkpoint := n%2 == 0
		mu.Unlock()
		if checkpoint {
			return toolRequest(base, "file_checkpoint", map[string]any{"project": "loop"})
		}
		return toolRequest(base, "file_write", map[string]any{"project": "loop", "path": "/big.txt", "content": content, "mode": "TRUNCATE"})
	}}
}

// poolTenants is how many tenants drain the pool with long greps in poolDraining.
const poolTenants = 5

// poolDraining is five tenants ("pool1"…"pool5") grepping their own 6 MiB projects with a
// pattern that has no literal text, so that every grep reads every file and holds a
// transaction for as long as it scans; the clients take turns among the tenants.
func poolDraining() abuse {
	var mu sync.Mutex
	n := 0
	return abuse{
		name: "pool: five tenants grepping 6 MiB each",
		setup: func(t *testing.T, base string) {
			for tenant := 1; tenant <= poolTenants; tenant++ {
				for i := range 6 {
					setupCallAs(t, base, fmt.Sprintf("pool%d", tenant), "file_write", map[string]any{"project": "pool",
						"path": fmt.Sprintf("/p/doc%d.md", i), "content": numberedWords(tenant*10+i, 116_000), "mode": "TRUNCATE"})
				}
			}
		},
		req: func(base string) *http.Request {
			mu.Lock()
			n++
			token := fmt.Sprintf("pool%d", 1+n%poolTenants)
			mu.Unlock()
			return toolRequestAs(base, token, "file_grep", map[string]any{"project": "pool", "pattern": `^.*[0-9]zz$`, "output_mode": "count"})
		},
	}
}

// numberedWords is n words term0000…term2999 chosen by seed, twelve to a line.
func numberedWords(seed, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "term%04d", (seed*7919+i*104729)%3000)
		if i%12 == 11 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}

// setupCall makes a call of the heavy tenant that must succeed, waiting out its rate limit
// (the abuses before used it up).
func setupCall(t *testing.T, base, tool string, args any) {
	t.Helper()
	setupCallAs(t, base, "heavy", tool, args)
}

// setupCallAs is setupCall for the tenant of token.
func setupCallAs(t *testing.T, base, token, tool string, args any) {
	t.Helper()
	var last apiResult
	err := poll.Until(context.Background(), 30*time.Second, "a setup call within the rate limit", func() (bool, error) {
		r, err := doAPI(base, token, tool, args)
		last = r
		return err == nil && r.Status != http.StatusTooManyRequests, err
	})
	if err != nil || last.Status != http.StatusOK {
		t.Fatalf("POST /tools/%s: %v %d %s", tool, err, last.Status, last.Raw)
	}
}

// latencies measures n sequential file_read calls of the light tenant.
func latencies(t *testing.T, base string, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, 0, n)
	for i := range n {
		if i > 0 {
			// Below the server's rate limit per key (100 per second): abuses that end quickly
			// follow each other, and the light tenant must never be the one limited.
			time.Sleep(12 * time.Millisecond)
		}
		began := time.Now()
		r, err := doAPI(base, "light", "file_read", map[string]any{"project": "small", "path": "/note.md"})
		out = append(out, time.Since(began))
		if err != nil || r.Status != http.StatusOK {
			t.Errorf("the light tenant's read failed: %v %s", err, r.Raw)
		}
	}
	slices.Sort(out)
	return out
}

func quantile(d []time.Duration, q float64) time.Duration {
	return d[min(int(q*float64(len(d))), len(d)-1)]
}

// TestFairness runs each abuse with abuseClients clients against the server on memory and on
// PostgreSQL (by default a fixed sample of fairnessSample abuses on each, different on the two;
// all of them with AGENTFILES_FULL=1) while the light tenant reads a small file, and reports
// the light tenant's read
// latency, quiet and during the abuse, against the rule (3 × quiet p95 + 5 ms, worst 0.5 s).
// Latency is reported, not asserted (a shared 2-core machine is noisy); what it asserts are
// the bounds on the server: memory per abusive request, the light tenant's reads all
// answered, and that abandoned abusive calls stop (no statement left running in PostgreSQL,
// no handler left running) within 2 s of their clients leaving.
func TestFairness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every abuse against two servers")
	}
	for _, store := range []string{"memory", "postgresql"} {
		t.Run(store, func(t *testing.T) {
			args := []string{"-accept-any-token", "-log-level", "off"}
			var dbURL string
			if store == "postgresql" {
				dbURL = pgtest.New(t)
				args = append(args, "-database-url", dbURL)
			}
			srv := startServer(t, args...)
			mustCall(t, srv.base, "light", "file_write", map[string]any{"project": "small", "path": "/note.md", "content": "a short note\n"})
			latencies(t, srv.base, 10) // warm up
			all := abuses()
			run := testsize.Sample(t, all, fairnessSample)
			for _, ab := range all {
				if !slices.ContainsFunc(run, func(r abuse) bool { return r.name == ab.name }) {
					// Not in the sample: write its files only if a sampled abuse reads them.
					if ab.setup != nil && slices.ContainsFunc(run, func(r abuse) bool { return abuseUses[r.name] == ab.name }) {
						ab.setup(t, srv.base)
					}
					continue
				}
				t.Run(ab.name, func(t *testing.T) {
					if ab.setup != nil {
						ab.setup(t, srv.base)
					}
					runAbuse(t, srv.base, ab)
					checkAbandoned(t, srv.base, ab, dbURL)
				})
			}
		})
	}
}

// fairnessSample is how many abuses TestFairness runs on each store by default.
const fairnessSample = 4

// runAbuse measures the light tenant quiet, then during the abuse, and checks the server's
// allocations per abusive request.
func runAbuse(t *testing.T, base string, ab abuse) {
	quiet := latencies(t, base, 30)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	requests := 0
	// The server answers every call within its budget (fileio.DefaultCallTimeout, 30 s), with
	// TIMEOUT when a call waited that long for its tenant's slot; the client waits longer, so a
	// transport error means the server did not answer in its budget, not a tie between clocks.
	client := &http.Client{Timeout: fileio.DefaultCallTimeout + 15*time.Second}
	for range abuseClients {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				outcome := "ok"
				resp, err := client.Do(ab.req(base))
				if err != nil {
					outcome = "transport error"
				} else {
					raw, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						var e struct {
							Error struct{ Code string } `json:"error"`
						}
						json.Unmarshal(raw, &e)
						outcome = fmt.Sprintf("%d %s", resp.StatusCode, e.Error.Code)
					}
				}
				mu.Lock()
				outcomes[outcome]++
				requests++
				mu.Unlock()
			}
		})
	}
	during := latencies(t, base, 30)
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&after)
	allocPerRequest := (after.TotalAlloc - before.TotalAlloc) / uint64(max(requests, 1))
	bound := 3*quantile(quiet, 0.95) + 5*time.Millisecond
	met := quantile(during, 0.95) <= bound && during[len(during)-1] <= 500*time.Millisecond
	t.Logf("light read p50/p95/max quiet %v/%v/%v, during %v/%v/%v (rule: p95 <= %v, max <= 500ms: met=%v); "+
		"%d abusive requests %v, %.1f MiB allocated per request",
		quantile(quiet, 0.5), quantile(quiet, 0.95), quiet[len(quiet)-1],
		quantile(during, 0.5), quantile(during, 0.95), during[len(during)-1], bound, met,
		requests, outcomes, float64(allocPerRequest)/(1<<20))
	if allocPerRequest > maxAllocPerRequest {
		t.Errorf("the server allocated %d MiB per abusive request; the bound is %d", allocPerRequest>>20, maxAllocPerRequest>>20)
	}
	if outcomes["transport error"] > 0 {
		t.Errorf("abusive requests failed at the transport: %v", outcomes)
	}
}

// checkAbandoned sends abuseClients abusive requests and leaves each after 20 ms, then checks
// that the server stops working on them within 2 s: no active statement of the server's in
// PostgreSQL, and the goroutine count back to what it was.
func checkAbandoned(t *testing.T, base string, ab abuse, dbURL string) {
	http.DefaultClient.CloseIdleConnections()
	baseline := runtime.NumGoroutine()
	var pool *pgxpool.Pool
	if dbURL != "" {
		var err error
		if pool, err = pgxpool.New(context.Background(), dbURL); err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
	}
	var wg sync.WaitGroup
	for range abuseClients {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			if resp, err := client.Do(ab.req(base).WithContext(ctx)); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	left := time.Now()
	if pool != nil {
		poll.Eventually(t, 2*time.Second, "no statement of the server still active 2 s after its callers left", func() bool {
			var n int
			err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
				AND query NOT ILIKE '%LISTEN%'`).Scan(&n)
			return err == nil && n == 0
		})
	}
	poll.Eventually(t, 2*time.Second, "the server's handlers done 2 s after their callers left", func() bool {
		return runtime.NumGoroutine() <= baseline+2
	})
	t.Logf("abandoned calls: the server was idle again %v after the callers left", time.Since(left).Round(time.Millisecond))
}
