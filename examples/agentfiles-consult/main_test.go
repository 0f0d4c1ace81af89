package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/chattest"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
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

// Mistakes are one short line on stderr that says what to do, exit status 2; -h starts with
// what the command is.
func TestUsageMistakes(t *testing.T) {
	bin := cmdtest.Build(t, ".")
	tests := []struct {
		args   []string
		stderr string // whole, or the start of -h
	}{
		{[]string{"-fil", "x"}, "agentfiles-consult: flag provided but not defined: -fil (see -h)\n"},
		{nil, "agentfiles-consult: needs -file (repeatable) and -query, e.g. -root /path/to/project -file '/path/to/project/*.go' -query 'What does this do?' (see -h)\n"},
		{[]string{"-file", "/x/*.go", "-query", "q", "-root", "/", "-log-level", "loud"}, "agentfiles-consult: -log-level \"loud\": use debug, info, warn, error or off\n"},
		{[]string{"-h"}, "agentfiles-consult: asks a language model a question about local files"},
	}
	for _, tc := range tests {
		_, stderr, err := run(t, bin, nil, tc.args...)
		if len(tc.args) > 0 && tc.args[0] == "-h" {
			stderr = stderr[:min(len(stderr), len(tc.stderr))]
			if err != nil {
				t.Errorf("-h: %v", err)
			}
		} else if code := exitCode(err); code != 2 {
			t.Errorf("%q: exit status %d, want 2", tc.args, code)
		}
		if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
			t.Errorf("%q: stderr (-want +got):\n%s", tc.args, diff)
		}
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
