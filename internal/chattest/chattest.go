// Package chattest is a language-model provider for tests: an httptest server that answers
// every request in the OpenAI-compatible chat-completions streaming format (server-sent events),
// as consult's OpenAI models call it, and records what it was sent.
//
//	model := chattest.New(t, chattest.Options{Answer: []string{"main ", "calls serve."}})
//	m, _ := openai.New("tiny", openai.Options{BaseURL: model.URL, APIKey: "sk-test"})
//
// A Server is safe for concurrent use.
package chattest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Options shape the answer a [Server] streams.
type Options struct {
	// Answer is streamed as one content delta per element.
	Answer []string
	// Model is the model name each chunk reports; "" leaves it out.
	Model string
	// PromptTokens and CompletionTokens are the usage reported in the last chunk.
	PromptTokens, CompletionTokens int
	// Hold, when not nil, makes every request wait until it is closed before answering (or
	// until the client gives up), so that a test can keep a call in flight.
	Hold chan struct{}
}

// Server is the provider; its URL is the API root to configure a model with.
type Server struct {
	*httptest.Server

	requests atomic.Int64
	auth     atomic.Value // Authorization header of the last request
	body     atomic.Value // body of the last request, []byte
}

// New starts a provider on loopback; it is closed when the test ends.
func New(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.auth.Store(r.Header.Get("Authorization"))
		s.body.Store(body)
		s.requests.Add(1)
		if opts.Hold != nil {
			select {
			case <-opts.Hold:
			case <-r.Context().Done(): // the client gave up
				return
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(c map[string]any) { // one server-sent event
			if opts.Model != "" {
				c["model"] = opts.Model
			}
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		for _, part := range opts.Answer {
			chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": part}}}})
		}
		chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
		chunk(map[string]any{"choices": []any{}, "usage": map[string]int{
			"prompt_tokens": opts.PromptTokens, "completion_tokens": opts.CompletionTokens,
			"total_tokens": opts.PromptTokens + opts.CompletionTokens,
		}})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	tb.Cleanup(s.Close)
	return s
}

// Requests is the number of requests received so far.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Authorization is the Authorization header of the last request ("" before the first).
func (s *Server) Authorization() string {
	auth, _ := s.auth.Load().(string)
	return auth
}

// LastRequest decodes the JSON body of the last request into v.
func (s *Server) LastRequest(tb testing.TB, v any) {
	tb.Helper()
	body, _ := s.body.Load().([]byte)
	if err := json.Unmarshal(body, v); err != nil {
		tb.Fatalf("chattest: the last request body %q: %v", body, err)
	}
}

// LastPrompt returns the contents of the last request's messages, each followed by a newline:
// what the model was shown.
func (s *Server) LastPrompt(tb testing.TB) string {
	tb.Helper()
	var body struct{ Messages []struct{ Content string } }
	s.LastRequest(tb, &body)
	var b strings.Builder
	for _, m := range body.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}
