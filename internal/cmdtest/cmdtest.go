// Package cmdtest builds the module's commands and runs them for tests: the example servers
// driven end to end, and the helper processes of the multi-process database tests.
//
//	bin := cmdtest.Build(t, ".")                     // the command under test
//	p := cmdtest.Start(t, bin, "-addr", "127.0.0.1:0") // interrupted when the test ends
//	url := p.WaitFor(t, regexp.MustCompile(`http://\S+/mcp`))
//
// All functions and methods are safe for concurrent use.
package cmdtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/poll"
)

// Build compiles the main package pkg (an import path, or "." for the package under test) into
// the test's temporary directory and returns the binary's path. The build cache makes every
// build after the first one quick.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	name := filepath.Base(pkg)
	if pkg == "." {
		wd, err := os.Getwd()
		if err != nil {
			tb.Fatal(err)
		}
		name = filepath.Base(wd)
	}
	bin := filepath.Join(tb.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Buffer collects the output of a process or server; it is safe for concurrent writers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// stopTimeout is how long a stopped process has to exit after the interrupt before it is killed.
const stopTimeout = 10 * time.Second

// Process is a command started by [Start].
type Process struct {
	// Output receives the process's stdout and stderr.
	Output Buffer
}

// Start runs bin with args until the test ends: then it interrupts the process, kills it if it
// has not exited within 10 seconds, and logs its output if the test failed.
func Start(tb testing.TB, bin string, args ...string) *Process {
	tb.Helper()
	p := &Process{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &p.Output, &p.Output
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-done
		}
		if tb.Failed() {
			tb.Logf("%s output:\n%s", filepath.Base(bin), p.Output.String())
		}
	})
	return p
}

// WaitFor waits up to 30 seconds for re to match the process's output and returns the match.
func (p *Process) WaitFor(tb testing.TB, re *regexp.Regexp) string {
	tb.Helper()
	var match string
	poll.Eventually(tb, 30*time.Second, "output matching "+re.String(), func() bool {
		match = re.FindString(p.Output.String())
		return match != ""
	})
	return match
}
