package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/chattest"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
)

// project writes two Go files and a hidden one into a temp dir.
func project(t *testing.T) string {
	t.Helper()
	return testfiles.Write(t, t.TempDir(), map[string]string{
		"main.go":    "package main\n\nfunc main() { serve() }\n",
		"serve.go":   "package main\n\nfunc serve() {}\n",
		".hidden.go": "package main\n",
	})
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
	bin := cmdtest.Build(t, ".")
	dir := project(t)
	stdout, stderr, err := run(t, bin, nil, "-dry-run", "-root", dir,
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
	// One token count for the prompt: the header in the prompt and the report agree, and both say
	// it is an estimate.
	count := regexp.MustCompile(`the prompt has ([0-9,]+ tokens \(estimated\))`)
	header, report := count.FindAllStringSubmatch(stdout, -1), count.FindAllStringSubmatch(stderr, -1)
	if len(header) != 1 || len(report) != 1 || header[0][1] != report[0][1] {
		t.Errorf("token counts: header %q, report %q; want one each, equal", header, report)
	}
}

func TestAnswerFromChatCompletionsServer(t *testing.T) {
	srv := chattest.New(t, chattest.Options{Answer: []string{"main ", "calls serve."}, PromptTokens: 42, CompletionTokens: 3})

	bin := cmdtest.Build(t, ".")
	dir := project(t)
	stdout, stderr, err := run(t, bin, []string{"TEST_KEY=sk-test"}, "-base-url", srv.URL, "-api-key-env", "TEST_KEY",
		"-model", "tiny", "-root", dir, "-file", filepath.Join(dir, "*.go"), "-query", "What does main call?")
	if err != nil {
		t.Fatalf("consult: %v\n%s", err, stderr)
	}
	if strings.TrimSpace(stdout) != "main calls serve." {
		t.Errorf("answer = %q", stdout)
	}
	var body struct {
		Model    string
		Stream   bool
		Messages []struct{ Role, Content string }
	}
	srv.LastRequest(t, &body)
	if auth := srv.Authorization(); auth != "Bearer sk-test" || body.Model != "tiny" || !body.Stream {
		t.Errorf("request: auth %q, body %+v", auth, body)
	}
	if !strings.Contains(stderr, "prompt 42, completion 3") {
		t.Errorf("usage not reported: %s", stderr)
	}
}
