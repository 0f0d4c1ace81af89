package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/chattest"
	"github.com/agentfiles/agentfiles/internal/poll"
)

// TestShutdownDrainsInFlightCalls holds a consultation call in flight (the model has not
// answered), stops the server as SIGTERM would, and checks that the call still completes with
// its answer while new connections are refused, and that the server then exits cleanly.
func TestShutdownDrainsInFlightCalls(t *testing.T) {
	release := make(chan struct{})
	model := chattest.New(t, chattest.Options{Answer: []string{"The file says hello."}, Model: "test-model",
		PromptTokens: 10, CompletionTokens: 5, Hold: release})
	t.Setenv(ConsultAPIKeyEnv, "operator-model-key")
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.txt")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	srv := startServer(t, "-log-level", "off", "-consult-model", "test-model", "-consult-base-url", model.URL, "-consult-root", dir)
	base := srv.base

	type answer struct {
		res apiResult
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		r, err := doAPI(base, "dev", "consultation", map[string]any{"files": []string{file}, "query": "What does the file say?"})
		answers <- answer{r, err}
	}()
	poll.Eventually(t, 20*time.Second, "the consultation reaches the model", func() bool { return model.Requests() > 0 })

	srv.stop() // what SIGINT/SIGTERM do in main
	// The listener closes at once: new connections are refused while the call is in flight.
	poll.Eventually(t, 20*time.Second, "the server refuses new connections after shutdown began", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	select {
	case <-srv.exited:
		t.Fatalf("run returned (%v) while a call was in flight", srv.err)
	default:
	}

	close(release)
	a := <-answers
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.res.Status != http.StatusOK || !strings.Contains(string(a.res.Raw), "The file says hello.") {
		t.Fatalf("in-flight consultation: %d %s", a.res.Status, a.res.Raw)
	}
	if got := model.Authorization(); got != "Bearer operator-model-key" {
		t.Errorf("model called with %v, want the key from $%s", got, ConsultAPIKeyEnv)
	}
	if err := srv.wait(); err != nil {
		t.Fatalf("run after draining: %v", err)
	}
}
