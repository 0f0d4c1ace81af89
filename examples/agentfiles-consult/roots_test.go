package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
)

// TestRootIsRequired: without -root the command refuses to run and says how to name one.
func TestRootIsRequired(t *testing.T) {
	bin := cmdtest.Build(t, ".")
	dir := project(t)
	_, stderr, err := run(t, bin, nil, "-dry-run", "-file", filepath.Join(dir, "*.go"), "-query", "q")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr, "-root /path/to/project") {
		t.Errorf("no -root: err %v, stderr %s; want exit 2 and how to give -root", err, stderr)
	}
	_, stderr, err = run(t, bin, nil, "-dry-run", "-root", filepath.Join(dir, "missing"), "-file", filepath.Join(dir, "*.go"), "-query", "q")
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr, "-root "+filepath.Join(dir, "missing")) {
		t.Errorf("missing -root: err %v, stderr %s", err, stderr)
	}
}

// TestRootConfinesFiles: files outside -root, and links inside it that lead outside, are
// reported as OUTSIDE_ROOTS and left out of the prompt; a relative -root is taken from the
// working directory.
func TestRootConfinesFiles(t *testing.T) {
	bin := cmdtest.Build(t, ".")
	dir := project(t)
	outside := testfiles.Write(t, t.TempDir(), map[string]string{"secret.go": "package secret // sk-OUTSIDE\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-dry-run", "-root", ".", "-file", filepath.Join(dir, "*.go"),
		"-file", filepath.Join(outside, "secret.go"), "-file", "/etc/shadow", "-query", "q")
	cmd.Dir = dir
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("dry run: %v\n%s", err, e.String())
	}
	stdout, stderr := o.String(), e.String()
	if strings.Contains(stdout, "sk-OUTSIDE") || strings.Contains(stdout, "File: /etc/shadow") {
		t.Errorf("a file outside -root is in the prompt:\n%s", stdout)
	}
	if !strings.Contains(stdout, "File: "+filepath.Join(dir, "main.go")) {
		t.Errorf("prompt lacks main.go:\n%s", stdout)
	}
	if n := strings.Count(stderr, "OUTSIDE_ROOTS"); n != 3 || !strings.Contains(stderr, "2 files") {
		t.Errorf("report = %s, want 2 files and 3 OUTSIDE_ROOTS", stderr)
	}
}
