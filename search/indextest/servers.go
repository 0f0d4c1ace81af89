package indextest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// Mode makes a test provider server misbehave.
type Mode int

const (
	ModeOK      Mode = iota // answer normally
	ModeError               // answer HTTP 500 with the provider's error body
	ModeHang                // never answer until the client gives up (tests the timeout)
	ModeBadAuth             // answer HTTP 401 with the provider's error body
)

// recorder is what both test servers share: the failure mode, and the keys and requests seen.
type recorder struct {
	*httptest.Server

	mu       sync.Mutex
	mode     Mode
	keys     []string
	requests int
}

// serve starts the server on loopback, closed when t ends. Each request is counted and its
// bearer key recorded; in ModeError and ModeBadAuth it is answered with HTTP 500 and errBody or
// HTTP 401 and authBody, in ModeHang not at all, and in ModeOK by ok.
func (s *recorder) serve(t testing.TB, errBody, authBody any, ok http.HandlerFunc) {
	closing := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		mode := s.mode
		s.requests++
		s.keys = append(s.keys, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		s.mu.Unlock()
		switch mode {
		case ModeError:
			writeJSON(w, http.StatusInternalServerError, errBody)
		case ModeBadAuth:
			writeJSON(w, http.StatusUnauthorized, authBody)
		case ModeHang:
			_, _ = io.Copy(io.Discard, r.Body) // lets the server notice the client hanging up
			select {
			case <-r.Context().Done():
			case <-closing:
			}
		default:
			ok(w, r)
		}
	}))
	t.Cleanup(func() { close(closing); s.Close() })
}

// SetMode changes how the server answers from now on.
func (s *recorder) SetMode(m Mode) { s.mu.Lock(); s.mode = m; s.mu.Unlock() }

// Keys returns the bearer keys received so far.
func (s *recorder) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// EmbeddingServer is an httptest server speaking the OpenAI POST /v1/embeddings wire format.
// Vectors come from a HashingEmbedder of the same dimensions, so results are meaningful; the
// "data" array is returned in REVERSE order to check that clients sort by "index". It records
// the bearer keys it saw (Keys). Safe for concurrent use.
type EmbeddingServer struct {
	recorder
	Dims int

	inputs int // guarded by recorder.mu
}

// NewEmbeddingServer starts the server on loopback; it is closed when t ends.
func NewEmbeddingServer(t testing.TB, dims int) *EmbeddingServer {
	s := &EmbeddingServer{Dims: dims}
	h := search.NewHashingEmbedder(dims)
	s.serve(t,
		map[string]any{"error": map[string]any{
			"message": "The server had an error while processing your request.", "type": "server_error", "param": nil, "code": nil}},
		map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided.", "type": "invalid_request_error", "param": nil, "code": "invalid_api_key"}},
		func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Model string   `json:"model"`
				Input []string `json:"input"`
			}
			if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" {
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "bad request", "type": "invalid_request_error"}})
				return
			}
			s.mu.Lock()
			s.inputs += len(req.Input)
			s.mu.Unlock()
			vecs, _ := h.Embed(r.Context(), req.Input)
			data := make([]map[string]any, 0, len(vecs))
			for i := len(vecs) - 1; i >= 0; i-- {
				data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vecs[i]})
			}
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model,
				"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
		})
	return s
}

// Endpoint is the full embeddings URL.
func (s *EmbeddingServer) Endpoint() string { return s.URL + "/v1/embeddings" }

// Requests returns the number of requests and of inputs received.
func (s *EmbeddingServer) Requests() (requests, inputs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.inputs
}

// RerankServer is an httptest server speaking the Cohere POST /v1/rerank wire format. It is a
// real cross-scorer, not a stub: each document's relevance_score is the fraction of the query's
// analysed terms (indexdriver.QueryTerms) it contains, weighted by inverse frequency across the
// submitted documents, plus a small bonus for the query's adjacent term pairs appearing in
// order. It is NOT a neural reranker; it stands in for one in tests and in the quality report.
// It records the bearer keys it saw (Keys). Safe for concurrent use.
type RerankServer struct {
	recorder
	lastDocs []string            // the documents of the last valid request
	tokens   map[string][]string // indexdriver.Tokenize of each document seen (guarded by mu)
}

// tokenize is indexdriver.Tokenize of doc, remembered: a harness reranks the same documents
// for topic after topic, and tokenizing them was most of its time.
func (s *RerankServer) tokenize(doc string) []string {
	s.mu.Lock()
	seq, ok := s.tokens[doc]
	s.mu.Unlock()
	if ok {
		return seq
	}
	seq = indexdriver.Tokenize(doc)
	s.mu.Lock()
	if s.tokens == nil {
		s.tokens = map[string][]string{}
	}
	s.tokens[doc] = seq
	s.mu.Unlock()
	return seq
}

// LastDocuments returns the documents of the last valid rerank request.
func (s *RerankServer) LastDocuments() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastDocs
}

// NewRerankServer starts the server on loopback; it is closed when t ends.
func NewRerankServer(t testing.TB) *RerankServer {
	s := &RerankServer{}
	s.serve(t,
		map[string]any{"message": "internal server error: model overloaded"},
		map[string]any{"message": "invalid api token"},
		func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Model     string   `json:"model"`
				Query     string   `json:"query"`
				Documents []string `json:"documents"`
				TopN      int      `json:"top_n"`
			}
			if r.URL.Path != "/v1/rerank" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" || req.Query == "" {
				writeJSON(w, http.StatusBadRequest, map[string]any{"message": "invalid request: model, query and documents are required"})
				return
			}
			s.mu.Lock()
			s.lastDocs = req.Documents
			s.mu.Unlock()
			scores := overlapScores(req.Query, req.Documents, s.tokenize)
			idx := make([]int, len(scores))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
			if req.TopN > 0 && req.TopN < len(idx) {
				idx = idx[:req.TopN]
			}
			results := make([]map[string]any, len(idx))
			for i, d := range idx {
				results[i] = map[string]any{"index": d, "relevance_score": scores[d]}
			}
			writeJSON(w, http.StatusOK, map[string]any{"id": "rr-test", "results": results,
				"meta": map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"search_units": 1}}})
		})
	return s
}

// Endpoint is the full rerank URL.
func (s *RerankServer) Endpoint() string { return s.URL + "/v1/rerank" }

// Requests returns the number of requests received.
func (s *RerankServer) Requests() int { s.mu.Lock(); defer s.mu.Unlock(); return s.requests }

// overlapScores is the RerankServer's scoring: for each document, Σ idf(t) over query terms t
// it contains, divided by Σ idf over all query terms, plus 0.1 per query bigram found in order
// (idf over the submitted documents). Scores are in [0, ~1.x]. tokenize is
// indexdriver.Tokenize (or a memo of it).
func overlapScores(query string, docs []string, tokenize func(string) []string) []float64 {
	q := indexdriver.QueryTerms(query)
	sets := make([]map[string]bool, len(docs))
	seqs := make([][]string, len(docs))
	df := make(map[string]int)
	for i, d := range docs {
		seqs[i] = tokenize(d)
		sets[i] = make(map[string]bool)
		for _, t := range seqs[i] {
			if !sets[i][t] {
				sets[i][t] = true
				df[t]++
			}
		}
	}
	idf := func(t string) float64 { return 1 / float64(1+df[t]) * float64(len(docs)+1) }
	total := 0.0
	for _, t := range q {
		total += idf(t)
	}
	out := make([]float64, len(docs))
	if total == 0 {
		return out
	}
	qs := indexdriver.Tokenize(query)
	for i := range docs {
		s := 0.0
		for _, t := range q {
			if sets[i][t] {
				s += idf(t)
			}
		}
		s /= total
		joined := " " + strings.Join(seqs[i], " ") + " "
		for j := 0; j+1 < len(qs); j++ {
			if strings.Contains(joined, " "+qs[j]+" "+qs[j+1]+" ") {
				s += 0.1
			}
		}
		out[i] = s
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
