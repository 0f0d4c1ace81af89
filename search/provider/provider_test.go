package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/search"
	"github.com/google/go-cmp/cmp"
)

// provider is a loopback test server whose handler is swapped per case.
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	handler  http.HandlerFunc
	bodies   []map[string]any
	auth     []string
	released chan struct{}
}

func newProvider(t *testing.T) *provider {
	p := &provider{released: make(chan struct{})}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		p.mu.Lock()
		p.bodies = append(p.bodies, m)
		p.auth = append(p.auth, r.Header.Get("Authorization"))
		h := p.handler
		p.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(func() { close(p.released); p.Close() })
	return p
}

func (p *provider) set(h http.HandlerFunc) { p.mu.Lock(); p.handler = h; p.mu.Unlock() }

func (p *provider) hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-p.released:
	}
}

func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

var callerCtx = agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-caller", "u"))

func TestOpenAIEmbedderWireFormat(t *testing.T) {
	p := newProvider(t)
	// Answers in reverse order, as a provider may; vectors are not normalised.
	p.set(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		p.mu.Lock()
		b, _ := json.Marshal(p.bodies[len(p.bodies)-1])
		p.mu.Unlock()
		_ = json.Unmarshal(b, &req)
		var data []map[string]any
		for i := len(req.Input) - 1; i >= 0; i-- {
			n := float64(len(req.Input[i]))
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float64{n, 0, 0}})
		}
		out, _ := json.Marshal(map[string]any{"object": "list", "data": data, "model": "m"})
		reply(200, string(out))(w, r)
	})
	e, err := NewOpenAIEmbedder(p.URL+"/v1/embeddings", "text-embedding-3-small", 3, OpenAIEmbedderOptions{BatchInputs: 2, SendDimensions: true})
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := e.Embed(callerCtx, []string{"a", "bb", "ccc", "dddd", "eeeee"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}}
	if diff := cmp.Diff(want, vecs); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	if len(p.bodies) != 3 {
		t.Fatalf("%d requests for 5 inputs in batches of 2, want 3", len(p.bodies))
	}
	wantBody := map[string]any{"model": "text-embedding-3-small", "input": []any{"a", "bb"}, "encoding_format": "float", "dimensions": 3.0}
	if diff := cmp.Diff(wantBody, p.bodies[0]); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	if p.auth[0] != "Bearer sk-caller" {
		t.Errorf("Authorization %q, want the caller's key", p.auth[0])
	}
}

func TestOpenAIEmbedderErrors(t *testing.T) {
	p := newProvider(t)
	e, _ := NewOpenAIEmbedder(p.URL+"/v1/embeddings", "m", 2, OpenAIEmbedderOptions{Timeout: 100 * time.Millisecond})
	tests := []struct {
		name    string
		handler http.HandlerFunc
		ctx     context.Context
		code    agentfiles.Code
		contain string
	}{
		{"provider error body", reply(401, `{"error":{"message":"Incorrect API key provided: sk-ca***ler.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`),
			callerCtx, agentfiles.CodeModelError, "HTTP 401: Incorrect API key provided"},
		{"rate limited", reply(429, `{"error":{"message":"Rate limit reached for requests","type":"requests"}}`), callerCtx, agentfiles.CodeModelError, "Rate limit reached for requests; retry later"},
		{"plain text error", reply(502, `bad gateway`), callerCtx, agentfiles.CodeModelError, "HTTP 502: bad gateway"},
		{"wrong count", reply(200, `{"data":[{"index":0,"embedding":[1,0]}]}`), callerCtx, agentfiles.CodeModelError, "1 vectors for 2 inputs"},
		{"duplicate index", reply(200, `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`), callerCtx, agentfiles.CodeModelError, "duplicate"},
		{"wrong dimensions", reply(200, `{"data":[{"index":0,"embedding":[1,0,0]},{"index":1,"embedding":[0,1,0]}]}`), callerCtx, agentfiles.CodeModelError, "3 dimensions"},
		{"not JSON", reply(200, `<html>`), callerCtx, agentfiles.CodeModelError, "not the expected JSON"},
		{"timeout", p.hang, callerCtx, agentfiles.CodeTimeout, "did not answer within 100ms"},
		{"key echoed in the body", reply(400, `{"error":{"message":"bad key sk-caller in header Bearer sk-caller"}}`), callerCtx, agentfiles.CodeModelError, "bad key [redacted] in header Bearer [redacted]"},
		{"long body cut on a character boundary", reply(500, `{"message":"`+strings.Repeat("é", 400)+`"}`), callerCtx, agentfiles.CodeModelError, strings.Repeat("é", 256) + "…; retry later"},
		{"no caller key", reply(200, `{}`), context.Background(), agentfiles.CodeCredentialUnavailable, "caller's own key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.set(tc.handler)
			_, err := e.Embed(tc.ctx, []string{"x", "y"})
			if agentfiles.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.contain) {
				t.Fatalf("err = %v; want %s containing %q", err, tc.code, tc.contain)
			}
			if strings.Contains(err.Error(), "sk-caller") {
				t.Errorf("error leaks the key: %v", err)
			}
		})
	}
}

func TestCohereRerankerWireFormat(t *testing.T) {
	p := newProvider(t)
	p.set(reply(200, `{"id":"x","results":[{"index":2,"relevance_score":0.9},{"index":0,"relevance_score":0.2}],"meta":{"billed_units":{"search_units":1}}}`))
	r, err := NewCohereReranker(p.URL+"/v1/rerank", CohereRerankerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Rerank(callerCtx, "q", []string{"a", "b", "c"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]search.RerankResult{{Index: 2, Score: 0.9}, {Index: 0, Score: 0.2}}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	wantBody := map[string]any{"model": "rerank-v3.5", "query": "q", "documents": []any{"a", "b", "c"}, "top_n": 2.0}
	if diff := cmp.Diff(wantBody, p.bodies[0]); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}

	r2, _ := NewCohereReranker(p.URL+"/v1/rerank", CohereRerankerOptions{Timeout: 100 * time.Millisecond})
	tests := []struct {
		name    string
		handler http.HandlerFunc
		contain string
	}{
		{"cohere error body", reply(400, `{"message":"invalid request: too many documents"}`), "HTTP 400: invalid request: too many documents"},
		{"proxy error body", reply(500, `{"error":{"message":"upstream overloaded","type":"server_error"}}`), "HTTP 500: upstream overloaded; retry later"},
		{"out of range index", reply(200, `{"results":[{"index":7,"relevance_score":0.5}]}`), "out-of-range index 7"},
		{"missing score", reply(200, `{"results":[{"index":0}]}`), "without relevance_score"},
		{"too many results", reply(200, `{"results":[{"index":0,"relevance_score":1},{"index":1,"relevance_score":1},{"index":2,"relevance_score":1}]}`), "3 results for top_n 2"},
		{"timeout", p.hang, "did not answer within 100ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.set(tc.handler)
			_, err := r2.Rerank(callerCtx, "q", []string{"a", "b", "c"}, 2)
			want := agentfiles.CodeModelError
			if tc.name == "timeout" {
				want = agentfiles.CodeTimeout
			}
			if agentfiles.ErrorCode(err) != want || !strings.Contains(err.Error(), tc.contain) {
				t.Fatalf("err = %v; want %s containing %q", err, want, tc.contain)
			}
		})
	}
}

// TestCallerAPIKey: without a caller key in the context the clients have nothing to send, and
// the error says a retry can help (the key may arrive with the next request).
func TestCallerAPIKey(t *testing.T) {
	_, err := CallerAPIKey(context.Background())
	if !errors.Is(err, agentfiles.ErrCredentialUnavailable) || !agentfiles.ErrorCode(err).Retryable() {
		t.Errorf("CallerAPIKey without a key: %v, want a retryable CREDENTIAL_UNAVAILABLE", err)
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-caller", "alice"))
	if key, err := CallerAPIKey(ctx); key != "sk-caller" || err != nil {
		t.Errorf("CallerAPIKey = %q, %v; want the caller's key", key, err)
	}
}

// TestRerankOptions: the rerank section of the configuration file reaches the client.
func TestRerankOptions(t *testing.T) {
	cfg, err := search.LoadConfig(strings.NewReader("settings:\n  mcp:\n    files:\n      search:\n        rerank:\n          model: rerank-english-v3.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := CohereRerankerOptions{Model: "rerank-english-v3.0", Timeout: cfg.Search.Rerank.Timeout}
	if diff := cmp.Diff(want, RerankOptions(cfg.Search.Rerank)); diff != "" {
		t.Errorf("RerankOptions (-want +got):\n%s", diff)
	}
}
