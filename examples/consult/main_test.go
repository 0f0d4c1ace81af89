package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// build compiles this command into a temp dir.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "consult")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// project writes two Go files and a hidden one into a temp dir.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.go":    "package main\n\nfunc main() { serve() }\n",
		"serve.go":   "package main\n\nfunc serve() {}\n",
		".hidden.go": "package main\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func run(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

func TestDryRunPrintsPromptAndReport(t *testing.T) {
	bin := build(t)
	dir := project(t)
	stdout, stderr, err := run(t, bin, nil, "-dry-run",
		"-file", filepath.Join(dir, "*.go"), "-file", "relative/*.go", "-query", "What does main call?")
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	for _, want := range []string{"File: " + filepath.Join(dir, "main.go"), "File: " + filepath.Join(dir, "serve.go"), "What does main call?"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("prompt lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, ".hidden.go") {
		t.Errorf("a leading * matched a dot-file:\n%s", stdout)
	}
	if !strings.Contains(stderr, "2 files") || !strings.Contains(stderr, "NOT_ABSOLUTE") {
		t.Errorf("report = %s, want 2 files and the relative entry's NOT_ABSOLUTE", stderr)
	}
}

func TestAnswerFromChatCompletionsServer(t *testing.T) {
	var gotAuth string
	var gotBody struct {
		Model    string
		Stream   bool
		Messages []struct{ Role, Content string }
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&gotBody)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{"main ", "calls serve."} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", part)
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":42,\"completion_tokens\":3,\"total_tokens\":45}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	bin := build(t)
	dir := project(t)
	stdout, stderr, err := run(t, bin, []string{"TEST_KEY=sk-test"}, "-base-url", srv.URL, "-api-key-env", "TEST_KEY",
		"-model", "tiny", "-file", filepath.Join(dir, "*.go"), "-query", "What does main call?")
	if err != nil {
		t.Fatalf("consult: %v\n%s", err, stderr)
	}
	if strings.TrimSpace(stdout) != "main calls serve." {
		t.Errorf("answer = %q", stdout)
	}
	if gotAuth != "Bearer sk-test" || gotBody.Model != "tiny" || !gotBody.Stream {
		t.Errorf("request: auth %q, body %+v", gotAuth, gotBody)
	}
	if !strings.Contains(stderr, "prompt 42, completion 3") {
		t.Errorf("usage not reported: %s", stderr)
	}
}
