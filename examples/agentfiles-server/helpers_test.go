package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// testServer is one in-process run of the server.
type testServer struct {
	base   string
	output *cmdtest.Buffer // stdout and stderr
	// stop cancels run's context, as SIGINT and SIGTERM do in main.
	stop context.CancelFunc
	// exited is closed when run has returned, with err.
	exited chan struct{}
	err    error
}

// startServer runs the server in this process with args (plus -addr 127.0.0.1:0 unless given)
// and stops it, checking that it shut down cleanly, when the test ends.
func startServer(t testing.TB, args ...string) *testServer {
	t.Helper()
	if !containsFlag(args, "-addr") {
		args = append([]string{"-addr", "127.0.0.1:0"}, args...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{output: &cmdtest.Buffer{}, stop: cancel, exited: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		ts.err = run(ctx, args, stdio{in: strings.NewReader(""), out: ts.output, err: ts.output, ready: func(u string) { ready <- u }})
		close(ts.exited)
	}()
	select {
	case ts.base = <-ready:
	case <-ts.exited:
		cancel()
		t.Fatalf("server exited before listening: %v\n%s", ts.err, ts.output.String())
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatalf("server did not start within 60s\n%s", ts.output.String())
	}
	t.Cleanup(func() {
		ts.stop()
		switch err := ts.wait(); {
		case errors.Is(err, errStillRunning):
			t.Errorf("server did not stop within 30s of cancellation")
		case err != nil:
			t.Errorf("server stopped with an error: %v", err)
		}
		if t.Failed() {
			t.Logf("server output:\n%s", ts.output.String())
		}
	})
	return ts
}

// errStillRunning is wait's answer when run did not return in time.
var errStillRunning = errors.New("the server is still running")

// wait waits up to 30s for run to return and returns its error, or errStillRunning.
func (ts *testServer) wait() error {
	select {
	case <-ts.exited:
		return ts.err
	case <-time.After(30 * time.Second):
		return errStillRunning
	}
}

func containsFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// apiResult is the decoded answer of one HTTP API call.
type apiResult struct {
	Status int
	Body   map[string]any
	Raw    []byte
}

// errorCode is the "error.code" member of a failed call ("" when there is none).
func (r apiResult) errorCode() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// callAPI posts body to /tools/{tool} with the bearer token ("" for none).
func callAPI(t *testing.T, base, token, tool string, body any) apiResult {
	t.Helper()
	r, err := doAPI(base, token, tool, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// doAPI is callAPI for goroutines other than the test's: it returns errors instead.
func doAPI(base, token, tool string, body any) (apiResult, error) {
	var data []byte
	switch b := body.(type) {
	case []byte:
		data = b
	case string:
		data = []byte(b)
	default:
		var err error
		if data, err = json.Marshal(body); err != nil {
			return apiResult{}, err
		}
	}
	req, err := http.NewRequest(http.MethodPost, base+"/tools/"+tool, bytes.NewReader(data))
	if err != nil {
		return apiResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return apiResult{}, fmt.Errorf("POST /tools/%s: %w", tool, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return apiResult{}, err
	}
	r := apiResult{Status: resp.StatusCode, Raw: raw}
	if err := json.Unmarshal(raw, &r.Body); err != nil {
		return r, fmt.Errorf("POST /tools/%s answered %d with a body that is not a JSON object: %q", tool, resp.StatusCode, raw)
	}
	return r, nil
}

// mustCall is callAPI that fails the test unless the call succeeded.
func mustCall(t *testing.T, base, token, tool string, body any) map[string]any {
	t.Helper()
	r := callAPI(t, base, token, tool, body)
	if r.Status != http.StatusOK {
		t.Fatalf("POST /tools/%s: status %d: %s", tool, r.Status, r.Raw)
	}
	return r.Body
}

// artifactDir is where screenshots go: $AGENTFILES_ARTIFACTS (git-ignored /artifacts/ in CI)
// or a temporary directory.
func artifactDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("AGENTFILES_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

func TestMain(m *testing.M) { pgtest.Main(m) }
