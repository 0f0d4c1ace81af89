package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// chatServer speaks the OpenAI chat-completions streaming format. Each request blocks until
// release is closed, so a test can hold a tool call in flight.
type chatServer struct {
	release  chan struct{}
	requests atomic.Int32
	auth     atomic.Value // last Authorization header
}

func (c *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	c.auth.Store(r.Header.Get("Authorization"))
	c.requests.Add(1)
	<-c.release
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, `data: {"model":"test-model","choices":[{"delta":{"content":"The file says hello."}}]}`+"\n\n")
	fmt.Fprint(w, `data: {"model":"test-model","choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`+"\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// TestShutdownDrainsInFlightCalls holds a consultation call in flight (the model has not
// answered), stops the server as SIGTERM would, and checks that the call still completes with
// its answer while new connections are refused, and that the server then exits cleanly.
func TestShutdownDrainsInFlightCalls(t *testing.T) {
	model := &chatServer{release: make(chan struct{})}
	api := httptest.NewServer(model)
	t.Cleanup(api.Close)
	t.Setenv(ConsultAPIKeyEnv, "operator-model-key")
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.txt")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-log-level", "off",
			"-consult-model", "test-model", "-consult-base-url", api.URL},
			stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard, ready: func(u string) { ready <- u }})
	}()
	base := <-ready

	type answer struct {
		res apiResult
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		r, err := doAPI(base, "dev", "consultation", map[string]any{"files": []string{file}, "query": "What does the file say?"})
		answers <- answer{r, err}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for model.requests.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the consultation never reached the model")
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}

	stop() // what SIGINT/SIGTERM do in main
	deadline = time.Now().Add(20 * time.Second)
	for {
		// The listener closes at once: new connections are refused while the call is in flight.
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections after shutdown began")
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
	select {
	case err := <-done:
		t.Fatalf("run returned (%v) while a call was in flight", err)
	default:
	}

	close(model.release)
	a := <-answers
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.res.Status != http.StatusOK || !strings.Contains(string(a.res.Raw), "The file says hello.") {
		t.Fatalf("in-flight consultation: %d %s", a.res.Status, a.res.Raw)
	}
	if got := model.auth.Load(); got != "Bearer operator-model-key" {
		t.Errorf("model called with %v, want the key from $%s", got, ConsultAPIKeyEnv)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after draining: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not exit after the in-flight call finished")
	}
}
