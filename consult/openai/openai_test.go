package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// provider is an httptest chat-completions server. Each request is recorded; serve writes the
// response.
type provider struct {
	srv      *httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
	bodies   []map[string]any
	headers  []http.Header
}

func newProvider(t *testing.T, serve func(w http.ResponseWriter, r *http.Request)) *provider {
	t.Helper()
	p := &provider{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.bodies = append(p.bodies, body)
		p.headers = append(p.headers, r.Header.Clone())
		p.mu.Unlock()
		serve(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) model(t *testing.T, window consult.Tokens, effort string) *Model {
	t.Helper()
	m, err := New("test-model", Options{BaseURL: p.srv.URL + "/v1", APIKey: "sk-test-key", ContextWindow: window, ReasoningEffort: effort})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sse writes one event per payload and flushes it.
func sse(w http.ResponseWriter, payloads ...string) {
	for _, p := range payloads {
		fmt.Fprintf(w, "data: %s\n\n", p)
	}
	w.(http.Flusher).Flush()
}

func chunk(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "c1", "object": "chat.completion.chunk", "model": "test-model-2025",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}},
	})
	return string(b)
}

const finishChunk = `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
const usageChunk = `{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":7,"total_tokens":127,"completion_tokens_details":{"reasoning_tokens":3}}}`

func TestConsultStreamsAnswerWithUsage(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"p/main.go": "package main\n", "p/util.go": "package util\n"})
	prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, chunk("The files "), chunk("define two "))
		io.WriteString(w, ": keep-alive comment\n\n")
		sse(w, chunk("packages."), finishChunk, usageChunk, "[DONE]")
	})
	m := prov.model(t, 100000, "low")
	resp, err := consult.Consult(context.Background(), consult.Request{
		Files: []string{root + "/p/*.go", root + "/p/missing.py"}, Query: "What packages?", Model: m, ReasoningEffort: "high",
	})
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		Answer, Model, Finish string
		Truncated             bool
		Usage                 consult.Usage
		Files, Errors         int
	}{resp.Answer, resp.Model, resp.FinishReason, resp.Truncated, resp.Usage, len(resp.Files), len(resp.Errors)}
	want := got
	want.Answer, want.Model, want.Finish, want.Truncated = "The files define two packages.", "test-model-2025", "stop", false
	want.Usage = consult.Usage{PromptTokens: 120, CompletionTokens: 7, ReasoningTokens: 3, TotalTokens: 127}
	want.Files, want.Errors = 2, 1
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	body, hdr := prov.bodies[0], prov.headers[0]
	if hdr.Get("Authorization") != "Bearer sk-test-key" || hdr.Get("Accept") != "text/event-stream" {
		t.Errorf("headers: %v", hdr)
	}
	if body["model"] != "test-model" || body["stream"] != true || body["reasoning_effort"] != "high" {
		t.Errorf("request body: model %v stream %v effort %v", body["model"], body["stream"], body["reasoning_effort"])
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v", body["stream_options"])
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v", msgs)
	}
	user, _ := msgs[1].(map[string]any)
	content, _ := user["content"].(string)
	for _, s := range []string{"File: " + root + "/p/main.go", "package util", "What packages?", "NOT_FOUND"} {
		if !strings.Contains(content, s) {
			t.Errorf("user message lacks %q", s)
		}
	}
}

func TestConsultProviderErrors(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"a.go": "package a\n"})
	tests := []struct {
		name     string
		status   int
		body     string
		code     agentfiles.Code
		contains string
	}{
		{"401 OpenAI shape", 401, `{"error":{"message":"Incorrect API key provided: sk-te***key.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			consult.CodeModelError, "HTTP 401: Incorrect API key provided: sk-te***key. (type invalid_request_error, code invalid_api_key); check the API key"},
		{"429 rate limit", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			consult.CodeModelError, "HTTP 429: Rate limit reached"},
		{"400 context length", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`,
			consult.CodeContextTooLarge, "maximum context length is 8192"},
		{"404 gemini array shape", 404, `[{"error":{"code":404,"message":"models/nope is not found","status":"NOT_FOUND"}}]`,
			consult.CodeModelError, "models/nope is not found (type NOT_FOUND, code 404); check the model name"},
		{"502 plain text", 502, "upstream connect error", consult.CodeModelError, "HTTP 502: upstream connect error; the provider failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := consult.Consult(context.Background(), consult.Request{Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, "")})
			var ce *agentfiles.Error
			if !errors.As(err, &ce) || ce.Code != tt.code || !strings.Contains(ce.Message, tt.contains) {
				t.Fatalf("err = %v, want %s containing %q", err, tt.code, tt.contains)
			}
			if strings.Contains(err.Error(), "sk-test-key") {
				t.Error("the API key leaked into the error")
			}
		})
	}
}

// A provider that echoes the request (its Authorization header) must not get the key into the
// error or the log, whatever escaping it uses, in an error response or in an
// error event of the stream.
func TestProviderEchoingTheKeyIsRedacted(t *testing.T) {
	const key = "k3y/with+slash" // short, and escaped as k3y\/with+slash by PHP-style encoders
	root := testfiles.Tree(t, map[string]string{"a.go": "package a\n"})
	escaped := func(r *http.Request) string {
		return strings.ReplaceAll(r.Header.Get("Authorization"), "/", `\/`)
	}
	tests := []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request)
	}{
		{"error response echoing headers", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"received":{"headers":{"Authorization":"`+escaped(r)+`"}}}`)
		}},
		{"error message quoting the key", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"key `+strings.TrimPrefix(escaped(r), "Bearer ")+` is not valid"}}`)
		}},
		{"error event mid-stream", func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("x"), `{"error":{"message":"upstream rejected `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`","code":502}}`)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prov := newProvider(t, tc.serve)
			var logs bytes.Buffer
			m, err := New("test-model", Options{BaseURL: prov.srv.URL + "/v1", APIKey: key,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			if err != nil {
				t.Fatal(err)
			}
			_, err = consult.Consult(context.Background(), consult.Request{Files: []string{root + "/a.go"}, Query: "q", Model: m})
			if err == nil {
				t.Fatal("no error")
			}
			for what, text := range map[string]string{"error": err.Error(), "log": logs.String()} {
				if strings.Contains(text, "k3y") {
					t.Errorf("%s carries the key: %s", what, text)
				}
			}
		})
	}
}

func TestConsultTimeoutKeepsPartialAnswer(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"a.go": "package a\n"})
	release := make(chan struct{})
	prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, chunk("Partial "), chunk("answer"))
		select { // stall until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release) // runs before the server's Cleanup Close
	resp, err := consult.Consult(context.Background(), consult.Request{
		Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, ""), Timeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Answer != "Partial answer" || !resp.Truncated || !strings.Contains(resp.Note, "partial") {
		t.Errorf("answer %q truncated %v note %q", resp.Answer, resp.Truncated, resp.Note)
	}
}

func TestConsultTimeoutWithNothing(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"a.go": "package a\n"})
	release := make(chan struct{})
	prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	_, err := consult.Consult(context.Background(), consult.Request{
		Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, ""), Timeout: 100 * time.Millisecond,
	})
	if !errors.Is(err, agentfiles.ErrTimeout) {
		t.Fatalf("err = %v, want TIMEOUT", err)
	}
}

func TestConsultContextWindowCheckedBeforeSending(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"big.txt": strings.Repeat("word ", 2000), "small.txt": "hi\n"})
	prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) { sse(w, "[DONE]") })
	_, err := consult.Consult(context.Background(), consult.Request{
		Files: []string{root + "/*.txt"}, Query: "q", Model: prov.model(t, 1000, ""),
	})
	var ce *agentfiles.Error
	if !errors.As(err, &ce) || ce.Code != consult.CodeContextTooLarge {
		t.Fatalf("err = %v, want CONTEXT_TOO_LARGE", err)
	}
	for _, s := range []string{"over the context window of 1,000 tokens of test-model", "250 reserved", root + "/big.txt (2,500 tokens)", "(estimated)"} {
		if !strings.Contains(ce.Message, s) {
			t.Errorf("message %q lacks %q", ce.Message, s)
		}
	}
	if n := prov.requests.Load(); n != 0 {
		t.Errorf("the provider got %d requests, want 0", n)
	}
}

func TestConsultStreamErrorsAndPlainJSON(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"a.go": "package a\n"})
	t.Run("error event mid-stream", func(t *testing.T) {
		prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("x"), `{"error":{"message":"Provider overloaded","code":502}}`)
		})
		_, err := consult.Consult(context.Background(), consult.Request{Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, "")})
		if !errors.Is(err, consult.ErrModelError) || !strings.Contains(err.Error(), "Provider overloaded") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("stream cut without DONE", func(t *testing.T) {
		prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) { sse(w, chunk("x")) })
		_, err := consult.Consult(context.Background(), consult.Request{Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, "")})
		if !errors.Is(err, consult.ErrModelError) || !strings.Contains(err.Error(), "broke off") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("non-streaming JSON answer", func(t *testing.T) {
		prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"model":"m","choices":[{"message":{"role":"assistant","content":"whole"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`)
		})
		resp, err := consult.Consult(context.Background(), consult.Request{Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, "")})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Answer != "whole" || !resp.Truncated || resp.Usage.TotalTokens != 6 || !strings.Contains(resp.Note, "output token limit") {
			t.Errorf("resp = %+v", resp)
		}
	})
}

func TestConsultOutputFileNeverOverwrites(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"a.go": "package a\n", "out/review.md": "original\n"})
	prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) { sse(w, chunk("answer"), finishChunk, "[DONE]") })
	var written []string
	for range 3 {
		resp, err := consult.Consult(context.Background(), consult.Request{
			Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, ""), OutputFile: root + "/out/review.md",
		})
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, strings.TrimPrefix(resp.OutputFile, root))
	}
	if diff := cmp.Diff([]string{"/out/review_updated.md", "/out/review_updated_2.md", "/out/review_updated_3.md"}, written); diff != "" {
		t.Errorf("output files (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(root + "/out/review.md"); string(b) != "original\n" {
		t.Errorf("the original was overwritten: %q", b)
	}
	if b, _ := os.ReadFile(root + "/out/review_updated_2.md"); string(b) != "answer" {
		t.Errorf("output content %q", b)
	}
	_, err := consult.NewConsultant(consult.ConsultantOptions{}).Consult(context.Background(), consult.Request{
		Files: []string{root + "/a.go"}, Query: "q", Model: prov.model(t, 0, ""), OutputFile: root + "/out/x.md",
	})
	if !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("output file with AllowOutputFiles=false: %v", err)
	}
}

func TestConsultConcurrent(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"a.go": "package a\n"})
	prov := newProvider(t, func(w http.ResponseWriter, r *http.Request) { sse(w, chunk("ok"), finishChunk, "[DONE]") })
	m := prov.model(t, 10000, "")
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := consult.Consult(context.Background(), consult.Request{Files: []string{root + "/a.go"}, Query: "q", Model: m})
			if err != nil || resp.Answer != "ok" {
				t.Errorf("resp %v err %v", resp, err)
			}
		}()
	}
	wg.Wait()
	if n := prov.requests.Load(); n != 16 {
		t.Errorf("requests = %d", n)
	}
}

func TestNewOpenAIModelValidates(t *testing.T) {
	tests := []struct {
		name, model, baseURL string
		wantArg              string // the error's Arg; "" for no error
	}{
		{"default endpoint", "gpt-4.1", "", ""},
		{"trailing slash", "m", "http://localhost:11434/v1/", ""},
		{"empty model", "", "", "model"},
		{"no scheme", "m", "localhost:11434/v1", "localhost:11434/v1"},
		{"not http", "m", "ftp://example.com/v1", "ftp://example.com/v1"},
		{"no host", "m", "https:///v1", "https:///v1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(tc.model, Options{BaseURL: tc.baseURL})
			if tc.wantArg == "" {
				if err != nil || m.Name() != tc.model {
					t.Fatalf("New = %v, %v", m, err)
				}
				return
			}
			var ce *agentfiles.Error
			if !errors.As(err, &ce) || !errors.Is(err, agentfiles.ErrInvalidArgument) || ce.Arg != tc.wantArg {
				t.Errorf("New error = %v, want INVALID_ARGUMENT naming %q", err, tc.wantArg)
			}
		})
	}
}
