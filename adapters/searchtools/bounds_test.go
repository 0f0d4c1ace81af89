package searchtools_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/adapters/searchtools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// manyTerms is a query of n distinct terms ("w00000 w00001 …", about 7 bytes each).
func manyTerms(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%05d ", i)
	}
	return b.String()
}

// TestQueryBoundsHTTP: a 100,000-term query (≈700 KB) over the HTTP binding is INVALID_QUERY
// naming the byte limit within a second; a short query of too many distinct terms names the
// term limit.
func TestQueryBoundsHTTP(t *testing.T) {
	_, tools := searchEnv(t)
	ts := httptest.NewServer(httpapi.NewHandler(tools, httpapi.Options{Authenticator: adapters.BearerAuth(nil)}))
	defer ts.Close()
	post := func(query string) (int, adapters.ToolError, time.Duration) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"project": "p", "query": query})
		req, _ := http.NewRequest("POST", ts.URL+"/tools/file_search", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer key-a")
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		took := time.Since(start)
		var out struct{ Error adapters.ToolError }
		_ = json.Unmarshal(raw, &out)
		return resp.StatusCode, out.Error, took
	}
	huge := manyTerms(100_000)
	if len(huge) < 600_000 {
		t.Fatalf("query of %d bytes, want about 700 KB", len(huge))
	}
	status, te, took := post(huge)
	if status != 400 || te.Code != "INVALID_QUERY" || !strings.Contains(te.Message, fmt.Sprint(search.DefaultMaxQueryBytes)) {
		t.Errorf("100k-term query: status %d, error %+v; want 400 INVALID_QUERY naming the %d-byte limit", status, te, search.DefaultMaxQueryBytes)
	}
	t.Logf("100k-term query refused in %v over HTTP", took) // no timing assertion: the refusal is checked, the time only reported
	status, te, _ = post(manyTerms(search.DefaultMaxQueryTerms + 1))
	if status != 400 || te.Code != "INVALID_QUERY" || !strings.Contains(te.Message, fmt.Sprint(search.DefaultMaxQueryTerms)) {
		t.Errorf("%d-term query: status %d, error %+v; want INVALID_QUERY naming the term limit", search.DefaultMaxQueryTerms+1, status, te)
	}
	if status, te, _ = post(manyTerms(search.DefaultMaxQueryTerms-1) + " backoff"); status != 200 {
		t.Errorf("a query at the term limit: status %d, error %+v; want 200", status, te)
	}
}

// TestQueryBoundsMCP: the same 100,000-term query through the MCP binding is a tool error
// (isError) with INVALID_QUERY naming the limit.
func TestQueryBoundsMCP(t *testing.T) {
	_, tools := searchEnv(t)
	ac := agentfiles.NewAuthContext("key-a", "alice")
	cs := adapterstest.Connect(t, tools, mcpsdk.Options{Auth: &ac})
	start := time.Now()
	res, text := mcptest.CallTool(t, cs, "file_search", map[string]any{"project": "p", "query": manyTerms(100_000)})
	t.Logf("100k-term query refused in %v over MCP", time.Since(start))
	if !res.IsError || !strings.Contains(text, "INVALID_QUERY") || !strings.Contains(text, fmt.Sprint(search.DefaultMaxQueryBytes)) {
		t.Errorf("100k-term query: isError %v, text %.300s; want INVALID_QUERY naming the limit", res.IsError, text)
	}
	res, text = mcptest.CallTool(t, cs, "file_search", map[string]any{"project": "p", "query": manyTerms(search.DefaultMaxQueryTerms + 1)})
	if !res.IsError || !strings.Contains(text, "INVALID_QUERY") || !strings.Contains(text, fmt.Sprint(search.DefaultMaxQueryTerms)) {
		t.Errorf("too many terms: isError %v, text %.300s", res.IsError, text)
	}
}

// TestSearchSharesFileRateLimit: with the fileio Service's limiter handed to the Searcher, one
// bucket per tenant covers file_search and the file operations: once file calls have used the
// burst, file_search is RATE_LIMITED too (and the other way round), while another tenant is not.
func TestSearchSharesFileRateLimit(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now } // frozen: no refill during the test
	store := indextest.NewEnv(t, memindex.New(), indextest.EnvOptions{}).Store
	limiter := fileio.NewRateLimiter(1, 5, clock)
	svc, err := fileio.NewService(store, fileio.Options{RateLimiter: limiter})
	if err != nil {
		t.Fatal(err)
	}
	if svc.RateLimiter() != limiter {
		t.Fatal("Service.RateLimiter is not the limiter passed in")
	}
	searcher, err := search.NewSearcher(store, memindex.New(), search.SearcherOptions{RateLimiter: svc.RateLimiter()})
	if err != nil {
		t.Fatal(err)
	}
	tools := searchtools.Tools(searcher)
	a, b := indextest.Ctx("key-a"), indextest.Ctx("key-b")
	for i := range 3 {
		if _, err := svc.Write(a, fileio.WriteRequest{Project: "p", Path: fmt.Sprintf("/f%d.md", i), Content: "backoff", Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := adapterstest.CallContext(a, t, tools, "file_search", `{"project":"p","query":"backoff"}`); err != nil {
			t.Fatalf("search within the burst: %v", err)
		}
	}
	// Five tokens used (three writes, two searches): both kinds are refused now.
	_, err = adapterstest.CallContext(a, t, tools, "file_search", `{"project":"p","query":"backoff"}`)
	if te, _ := adapters.ErrorOf(err); te.Code != "RATE_LIMITED" || !te.Retryable {
		t.Errorf("search beyond the burst: %v, want RATE_LIMITED", err)
	}
	if _, err := svc.Stat(a, fileio.StatRequest{Project: "p", Path: "/f0.md"}); !errors.Is(err, agentfiles.ErrRateLimited) {
		t.Errorf("stat beyond the burst: %v, want RATE_LIMITED", err)
	}
	// Another tenant has its own bucket.
	if _, err := adapterstest.CallContext(b, t, tools, "file_search", `{"project":"p","query":"backoff"}`); err != nil {
		t.Errorf("tenant B: %v", err)
	}
	// A refill lets the first tenant search again.
	now = now.Add(time.Second)
	if _, err := searcher.Search(a, search.Query{Project: "p", Query: "backoff"}); err != nil {
		t.Errorf("after a refill: %v", err)
	}
}
